"""A process frozen while it plays (SIGSTOP, a stalled VM) holds nothing the
others need: once its leases lapse, another process takes its tables over
and stores at each at once, whatever the frozen one was in the middle of;
thawed, it stores nothing there (docs/store.md, "One statement per
append"). Each round freezes a real process at a random moment of its
play, often in the middle of an append."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from uuid import UUID

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.errors import OwnedElsewhere
from feltline.cardroom.room import Room
from feltline.store.check import check
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams

from .conftest import Store
from .players import Players
from .test_crash import ACK_BYTES, CHILD

ROUNDS = 8
TABLES = 4
# Seconds the others may take to store at every table of a frozen process:
# its one-second leases lapse, then one request each, on a shared machine.
TAKEN_WITHIN = 30.0


@pytest.mark.parametrize("store", ["postgres"], indirect=True)
@pytest.mark.timeout(600)
def test_a_process_frozen_while_it_plays_holds_up_no_other(store: Store, tmp_path: Path) -> None:
    key, acks, errors = tmp_path / "feltline.key", tmp_path / "acks", tmp_path / "stderr"
    store.signer = Signer.create(key)
    env = {**store.env, "FELTLINE_KEY_FILE": str(key), "FELTLINE_LEASE_SECONDS": "1"}
    args = {"env": env, "acks": str(acks), "tables": TABLES, "hands": 10**6}
    rng = random.Random(2212)
    for round_ in range(ROUNDS):
        played = acks.stat().st_size if acks.exists() else 0
        with errors.open("wb") as stderr:
            child = subprocess.Popen(
                [sys.executable, str(CHILD), json.dumps({**args, "seed": rng.random()})],
                stderr=stderr,
            )
        try:
            _wait_for(child, acks, played + rng.randint(10, 150) * ACK_BYTES, errors)
            child.send_signal(signal.SIGSTOP)
            tables = sorted({UUID(line.split()[0]) for line in acks.read_text().splitlines()})
            assert len(tables) == TABLES
            streams = Streams(store.signer, env=StoreConfig.from_env(env).env, server=f"r{round_}")
            store.opened.append(streams)
            stored = _store_at_each(Room(streams), tables, rng)
            assert stored == tables, f"round {round_}: the tables taken over and stored at"
            # Thawed, the frozen process finds its leases gone: it stores
            # nothing more at those tables.
            versions = {t: streams.table(t).version for t in tables}
            child.send_signal(signal.SIGCONT)
            time.sleep(1.0)
            child.kill()
            child.wait()
            assert {t: streams.table(t).version for t in tables} == versions
        finally:
            child.kill()
            child.wait()
    ledger = check(store.streams())
    assert ledger.problems == []


def _wait_for(child: subprocess.Popen[bytes], acks: Path, size: int, errors: Path) -> None:
    """Until the child has reported ``size`` bytes of stored requests."""
    started = time.monotonic()
    while not (acks.exists() and acks.stat().st_size >= size):
        assert child.poll() is None, errors.read_text()
        assert time.monotonic() - started < 120, "the child stored too little"
        time.sleep(0.005)


def _store_at_each(room: Room, tables: list[UUID], rng: random.Random) -> list[UUID]:
    """Store one request at each table through ``room``, taking each over
    once the frozen owner's lease lapses; the tables it managed to within
    :data:`TAKEN_WITHIN` (a hang is a failure, not a stuck test)."""
    stored: list[UUID] = []

    done: set[UUID] = set()

    def take() -> None:
        for table in tables:
            players = Players(room, table, random.Random(rng.random()), lambda t, _v: done.add(t))
            while table not in done:
                try:
                    players.step()
                except OwnedElsewhere:
                    time.sleep(0.1)
            stored.append(table)

    thread = threading.Thread(target=take, daemon=True)
    thread.start()
    thread.join(TAKEN_WITHIN)
    return list(stored)
