"""A store an older server began, storing the deal's fields flat beside each
event's own (``HandStarted`` version 2, ``HandDealt`` version 1), which this
server then plays on: old records stay as stored, and the store loads, plays,
exports and verifies with both verifiers."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

import feltline.domain.hand
import feltline.domain.table
from feltline.audit.codec import EVENT_TYPES, JSON, encode_event
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.engine.hand.events import Event
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_replay import log
from feltline_replay.cli import main
from tests.audit.layouts import as_stored
from tests.store.players import Players, finished, open_tables

from .test_tamper import run

ROOT = Path(__file__).resolve().parents[2]
OLDER = {"HandStarted": 2, "HandDealt": 1}
"""What the older server wrote these events under."""


def _as_older_server(
    event: Event, types: Mapping[str, tuple[type[Event], int]] = EVENT_TYPES
) -> tuple[str, int, dict[str, JSON]]:
    """What ``encode_event`` gave before the deal was one record."""
    name, version, data = encode_event(event, types)
    under = OLDER.get(name, version)
    return name, under, as_stored(name, data, version, under)


@dataclass(frozen=True)
class Upgraded:
    path: Path
    log: Path
    signer: Signer


def _play(path: Path, signer: Signer, rng: random.Random, hands: int) -> None:
    """``hands`` more hands at four tables, one of each game; the tables
    are found again if they are open, and play on from where they were."""
    room = Room(Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env))
    ids = open_tables(room, 4)
    players = [Players(room, t, rng) for t in ids]
    until = finished(room, ids) + hands
    while finished(room, ids) < until:
        for p in players:
            p.step()
    room.close()


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> Upgraded:
    scratch = tmp_path_factory.mktemp("upgraded")
    path, signer, rng = scratch / "feltline.db", Signer.generate(), random.Random(12)
    with pytest.MonkeyPatch.context() as older:
        for module in (feltline.domain.hand, feltline.domain.table):
            older.setattr(module, "encode_event", _as_older_server)
        _play(path, signer, rng, 30)
    _play(path, signer, rng, 30)
    out = scratch / "hands.log"
    assert main(["export", "--store", str(path), "--output", str(out)]) == 0
    return Upgraded(path, out, signer)


def test_the_store_holds_both_layouts(upgraded: Upgraded) -> None:
    with upgraded.log.open() as file:
        _, lines = log.read(file)
        versions = Counter((r["type"], r["version"]) for r in lines if r.get("type") in OLDER)
    assert {key for key, n in versions.items() if n > 4} == {
        ("HandStarted", 2),
        ("HandStarted", 3),
        ("HandDealt", 1),
        ("HandDealt", 3),  # this server's, which holds a mixed table's turn
    }


def test_the_store_and_its_log_verify(upgraded: Upgraded) -> None:
    key = upgraded.signer.public_hex
    for source in (["--store", str(upgraded.path)], [str(upgraded.log)]):
        code, report = run(*source, "--public-key", key)
        assert (code, report["failures"]) == (0, [])
        assert report["hands"] >= 60


def test_the_node_verifier_reads_the_log(upgraded: Upgraded) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node")
    verifier = ROOT / "clients/node/src/verify.js"
    args = [node, str(verifier), str(upgraded.log), "--public-key", upgraded.signer.public_hex]
    done = subprocess.run([*args, "--json"], capture_output=True, text=True, check=False)
    report = json.loads(done.stdout)
    assert (done.returncode, report["failures"]) == (0, [])
    assert report["hands"] >= 60
