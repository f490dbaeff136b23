"""Crash recovery: a process playing at several tables is killed with
SIGKILL at random moments and started again until 200 hands are finished.
After every kill the store, opened afresh, must hold every request the
process had reported stored, account for every chip, and hold every hand
either finished or resumable; the next process resumes every table where
it was."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path
from uuid import UUID

from feltline.audit.keys import Signer
from feltline.store.check import check

from .conftest import Store

CHILD = Path(__file__).with_name("crash_child.py")
HANDS = 200
TABLES = 4
ACK_BYTES = len(f"{uuid.uuid4()} 1000\n")  # about one reported request


def test_a_killed_process_leaves_every_table_resumable_and_every_chip_accounted_for(
    every_store: Store, tmp_path: Path
) -> None:
    store = every_store
    key, acks, errors = tmp_path / "feltline.key", tmp_path / "acks", tmp_path / "stderr"
    store.signer = Signer.create(key)
    args = {
        # A lease of a second: each new process waits for the killed one's to lapse.
        "env": {**store.env, "FELTLINE_KEY_FILE": str(key), "FELTLINE_LEASE_SECONDS": "1"},
        "acks": str(acks),
        "tables": TABLES,
        "hands": HANDS,
    }
    rng = random.Random(2026)
    kills = 0
    for _ in range(60):
        with errors.open("wb") as stderr:
            played = acks.stat().st_size if acks.exists() else 0
            child = subprocess.Popen(
                [sys.executable, str(CHILD), json.dumps({**args, "seed": rng.random()})],
                stderr=stderr,
            )
            code = _kill_once_playing(child, acks, played, rng.randint(20, 400))
            kills += code is None
        assert code in (None, 0), errors.read_text()
        streams = store.streams()
        acked: dict[str, int] = {}
        for line in acks.read_text().splitlines():
            table, version = line.split()
            acked[table] = max(acked.get(table, 0), int(version))
        for table, version in acked.items():
            assert streams.table(UUID(table)).version >= version
        ledger = check(streams)
        assert ledger.problems == []
        if code == 0:
            break
    else:
        raise AssertionError(f"{HANDS} hands were not finished in 60 runs")
    assert kills >= 3
    assert ledger.tables == TABLES
    assert ledger.finished >= HANDS


def _kill_once_playing(
    child: subprocess.Popen[bytes], acks: Path, played: int, requests: int
) -> int | None:
    """Kill the child (SIGKILL: no cleanup, no flush, perhaps a transaction
    half sent) once it has stored about ``requests`` more requests, unless
    it finishes first; its exit code, or None if killed."""
    started = time.monotonic()
    while child.poll() is None and time.monotonic() - started < 60:
        if acks.exists() and acks.stat().st_size >= played + requests * ACK_BYTES:
            break
        time.sleep(0.005)
    else:
        return child.wait()
    child.kill()
    child.wait()
    return None
