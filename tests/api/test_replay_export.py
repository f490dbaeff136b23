"""``feltline-replay export --server``: the log a running server exports
through its Replay service is the one ``--store`` writes from the same
store, line for line and byte for byte but for the header's source and
time, and it verifies clean; on both stores."""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from contextlib import redirect_stdout
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feltline.api import tokens
from feltline_protos.v1 import auth_pb2
from feltline_replay.cli import main

from .conftest import Live
from .test_replay_service import played  # noqa: F401 (the fixture)

NAMED = ("source", "exported_at")  # what names the source and the time


def _token(live: Live, role: auth_pb2.Role.ValueType = auth_pb2.ROLE_AUDITOR) -> str:
    return tokens.mint(live.signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1))


@pytest.fixture
def store(played: Live, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:  # noqa: F811
    """What ``--store`` names for the played store."""
    if "SQLITE_DBNAME" in played.env:
        yield played.env["SQLITE_DBNAME"]
        return
    for key, value in played.env.items():
        monkeypatch.setenv(key, value)
    yield "postgres"


def _both(played: Live, store: str, folder: Path, *select: str) -> tuple[list[str], list[str]]:  # noqa: F811
    served, stored = folder / "served.log", folder / "stored.log"
    target = played.server.target
    served_args = ["export", "--server", target, "--token", _token(played), *select]
    assert main([*served_args, "--output", str(served)]) == 0
    key = played.signer.public_hex
    stored_args = ["export", "--store", store, "--public-key", key, *select]
    assert main([*stored_args, "--output", str(stored)]) == 0
    return served.read_text().splitlines(), stored.read_text().splitlines()


def _same_but_the_header_names(served: list[str], stored: list[str]) -> None:
    assert served[1:] == stored[1:]
    head, other = json.loads(served[0]), json.loads(stored[0])
    assert head["source"] == "feltline server"
    assert head["public_key"] == other["public_key"]
    assert {k: v for k, v in head.items() if k not in NAMED} == {
        k: v for k, v in other.items() if k not in NAMED
    }


def test_the_servers_log_is_the_stores_and_verifies(
    played: Live,  # noqa: F811
    store: str,
    tmp_path: Path,
) -> None:
    served, stored = _both(played, store, tmp_path)
    _same_but_the_header_names(served, stored)
    hands = sum(line.startswith('{"kind":"seal"') for line in served)
    assert hands >= 30
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["verify", str(tmp_path / "served.log"), "--json"])
    report = json.loads(out.getvalue())
    assert code == 0, report["failures"]
    assert report["hands"] == hands
    assert report["tables"] == 2


def test_a_selection_picks_the_same_hands_either_way(
    played: Live,  # noqa: F811
    store: str,
    tmp_path: Path,
) -> None:
    table = str(played.server.room.tables()[1])
    served, stored = _both(played, store, tmp_path, "--table", table, "--last", "3")
    _same_but_the_header_names(served, stored)
    assert sum(line.startswith('{"kind":"seal"') for line in served) == 3
    auditor = played.client(auth_pb2.ROLE_AUDITOR)
    counts = Counter(s.player_id for h in auditor.list_hands() for s in h.seats)
    busiest = counts.most_common(1)[0][0]
    theirs = list(auditor.list_hands(player_id=busiest))
    until = theirs[len(theirs) // 2].start_time.seconds
    served, stored = _both(played, store, tmp_path, "--player", busiest, "--until", str(until))
    _same_but_the_header_names(served, stored)
    picked = sum(line.startswith('{"kind":"seal"') for line in served)
    assert picked == len([h for h in theirs if h.start_time.seconds <= until])
    assert 0 < picked < len(theirs)


def test_a_token_that_may_not_export_is_refused_and_writes_nothing(
    played: Live,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "refused.log"
    token = _token(played, auth_pb2.ROLE_SPECTATOR)
    args = ["export", "--server", played.server.target, "--token", token, "--output", str(out)]
    assert main(args) == 2
    assert "PERMISSION_DENIED" in capsys.readouterr().err
    assert out.read_text() == ""
