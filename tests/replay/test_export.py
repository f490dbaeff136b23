"""``feltline-replay export``: what each selection picks, a log that verifies
as the store does, PostgreSQL read like SQLite, and a replayer that never
loads the server's libraries."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import uuid
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import psycopg
import pytest

from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.export import Selection, finished_hands, plan
from feltline_replay.store import open_rows
from tests.postgres import PG, store_env

from .conftest import Played, play


def export(*args: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["export", *args]) == 0
    head, lines = log.read(io.StringIO(out.getvalue()))
    return head, list(lines)


def sealed(lines: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in lines if r["kind"] == "seal"]


def test_a_whole_export_is_every_record_of_the_store_as_stored(played: Played) -> None:
    head, lines = export("--store", str(played.path), "--public-key", played.signer.public_hex)
    assert head["format"] == "feltline-log"
    assert head["version"] == 1
    assert head["public_key"] == played.signer.public_hex
    assert head["complete"] is True
    assert head["accounts"] is True
    assert len(sealed(lines)) == head["selection"]["exported_hands"] >= 320
    rows = open_rows(str(played.path))
    try:
        tables = rows.tables()
        stored = sum(len(list(rows.stream(t))) for t in tables)
        dealt = [d for t in tables for d in finished_hands(rows, t)]
        stored += sum(len(list(rows.stream(d.id))) for d in dealt)
        stored += sum(len(list(rows.stream(a))) for a in rows.accounts())
    finally:
        rows.close()
    assert len(lines) == stored
    first = lines[0]
    assert {"kind", "id", "position", "type", "version", "data", "link", "signature"} <= set(first)
    assert {r["kind"] for r in lines} == {"table", "hand", "seal", "account"}


def test_selections_pick_the_hands_they_say(played: Played, tmp_path: Path) -> None:
    rows = open_rows(str(played.path))
    try:
        tables = rows.tables()
        everything = [d for t in tables for d in finished_hands(rows, t)]
        by_last = plan(rows, Selection(last=5))
    finally:
        rows.close()
    newest = sorted(everything, key=lambda d: d.at)[-5:]
    assert sorted((t, n) for t, ns in by_last.hands.items() for n in ns) == sorted(
        (d.table, d.number) for d in newest
    )
    _, lines = export("--store", str(played.path), "--table", str(tables[1]))
    assert {r["id"] for r in lines if r["kind"] == "table"} == {str(tables[1])}
    assert set(sealed(lines)) == {str(d.id) for d in everything if d.table == tables[1]}
    player = "player 3"
    head, lines = export("--store", str(played.path), "--player", player)
    assert head["complete"] is False
    assert set(sealed(lines)) == {str(d.id) for d in everything if player in d.players}
    some = everything[7]
    _, lines = export("--store", str(played.path), "--hand", str(some.id))
    assert sealed(lines) == [str(some.id)]
    assert {r["id"] for r in lines if r["kind"] == "table"} == {str(some.table)}
    times = sorted(d.at for d in everything)
    since, until = times[len(times) // 3], times[2 * len(times) // 3]
    _, lines = export("--store", str(played.path), "--since", str(since), "--until", str(until))
    assert set(sealed(lines)) == {str(d.id) for d in everything if since <= d.at <= until}
    out = tmp_path / "part.log"
    main(["export", "--store", str(played.path), "--player", player, "--output", str(out)])
    code = main(["verify", str(out), "--public-key", played.signer.public_hex])
    assert code == 0


def test_a_log_verifies_like_its_store_and_the_key_in_it_comes_with_a_warning(
    played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "all.log"
    key = played.signer.public_hex
    args = ["export", "--store", str(played.path), "--public-key", key, "--output", str(path)]
    assert main(args) == 0
    capsys.readouterr()
    assert main(["verify", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"]
    assert report["hands"] >= 320
    assert any("trusting the public key the log names" in w for w in report["warnings"])
    assert main(["verify", str(path), "--public-key", key]) == 0
    assert capsys.readouterr().err == ""  # no warning, and no progress bar off a terminal


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_line_that_is_not_json_makes_the_log_unreadable(
    played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str], workers: str
) -> None:
    path = tmp_path / "all.log"
    assert main(["export", "--store", str(played.path), "--output", str(path)]) == 0
    lines = path.read_text().splitlines(keepends=True)
    lines[len(lines) // 2] = lines[len(lines) // 2][:-20] + "\n"
    path.write_text("".join(lines))
    capsys.readouterr()
    assert main(["verify", str(path), "--workers", workers]) == 2
    assert "of the log is not JSON" in capsys.readouterr().err


def test_postgres_is_read_like_sqlite(
    postgres: psycopg.Connection[tuple[object, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = f"feltline_test_{uuid.uuid4().hex[:12]}"
    postgres.execute(f"CREATE SCHEMA {schema}")
    try:
        signer = play(Path("unused"), 12, env=store_env(schema))
        for name, value in store_env(schema).items():
            monkeypatch.setenv(name, value)
        head, lines = export("--store", "postgres")
        assert head["source"] == f"postgres:{PG['dbname']}/{schema}"
        assert len(sealed(lines)) >= 12
        assert main(["verify", "--store", "postgres", "--public-key", signer.public_hex]) == 0
    finally:
        postgres.execute(f"DROP SCHEMA {schema} CASCADE")


def test_the_replayer_loads_none_of_the_server_s_libraries() -> None:
    code = (
        "import sys, feltline_replay.cli, feltline_replay.verify, feltline_replay.show;"
        "bad = [m for m in ('eventsourcing', 'grpc', 'psycopg', 'feltline.store', 'feltline.api')"
        " if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_shows_on_a_terminal_only() -> None:
    from feltline_replay.cli import Progress

    terminal, pipe = _Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        bar = Progress(100, stream)
        for done in range(1, 101):
            bar(done)
        bar.end()
    assert pipe.getvalue() == ""
    shown = terminal.getvalue()
    assert shown.startswith("\r[")
    assert shown.endswith("] 100/100 hands\n")
    assert "#" * 30 in shown
    assert "] 50/100 hands" in shown


def test_the_progress_bar_goes_to_standard_error_as_it_is_when_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Standard error redirected after the module loaded (as pytest's
    capture or a caller's redirect does) is where the bar goes."""
    from feltline_replay.cli import Progress

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    bar = Progress(1)
    bar(1)
    bar.end()
    assert terminal.getvalue().endswith("] 1/1 hands\n")
