"""A server whose SQLite store sits on a filesystem that fills up: actions
are refused UNAVAILABLE saying the store cannot write, the action clock
keeps ticking without failing, the episode is logged once, and play goes
on by itself once space is freed.

The filesystem is a real one, a small tmpfs mounted for the test, which
needs root (CI runs as root); elsewhere the test skips."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from structlog.testing import capture_logs

from feltline.api import convert
from feltline.api.app import Feltline
from feltline.audit.keys import Signer
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store.check import check
from feltline_client import Client, FeltlineError, Seen
from feltline_protos.v1 import auth_pb2
from tests.tables import TABLES

from .conftest import Live, Seconds, open_room

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs, unmounted after the test."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem to fill up needs root (CI runs as root)")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here, even as root: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)


@pytest.fixture
def live_on(small_disk: Path) -> Iterator[Live]:
    signer = Signer.generate()
    path = small_disk / "live.db"
    clock = Seconds()
    room = open_room(path, signer)
    server = Feltline(room, signer.public_key, clock=clock, tick=0.1).start()
    running = Live(path, signer, clock, room, server)
    yield running
    for client in running.clients:
        client.close()
    running.server.stop()
    running.room.close()


def _fill(disk: Path) -> Path:
    """Leave the filesystem no free block: the WAL emptied into the
    database first (so a commit cannot reuse its pages), then a filler
    file written until the disk refuses."""
    with sqlite3.connect(disk / "live.db") as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError:
            pass
    return filler


def _until(what: Callable[[], bool], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def test_a_full_disk_refuses_actions_unavailable_logs_once_and_play_resumes_when_freed(
    live_on: Live, small_disk: Path
) -> None:
    live = live_on
    admin = live.client(ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 4, action_clock=30))
    table = admin.create_table(config, "full").table_id
    players: dict[int, Client] = {}
    for seat in (1, 2):
        admin.mint_chips(f"p{seat}", 2_000)
        players[seat] = live.client(PLAYER, f"p{seat}")
        players[seat].retries = 0  # see each refusal, not the SDK's retries
        players[seat].sit_down(table, seat, 400)
    _until(lambda: admin.get_table(table).HasField("current_hand"))
    hand = admin.get_table(table).current_hand

    with capture_logs() as logs:
        filler = _fill(small_disk)
        request = str(uuid.uuid4())
        for _ in range(2):  # the same request again: refused the same way
            with pytest.raises(FeltlineError) as refused:
                players[hand.turn.seat].call(table, Seen.of(hand), request_id=request)
            error = refused.value
            assert error.code is grpc.StatusCode.UNAVAILABLE
            assert error.reason == "TRY_AGAIN"
            assert "the store cannot write: its disk is full" in error.message
            assert error.retry_after == 2.0
        live.clock.now += 31  # the player's time is up: the clock tries to act, and cannot
        time.sleep(1.0)  # about ten ticks
        assert admin.get_table(table).current_hand.sequence == hand.sequence
        full = [line for line in logs if line["log_level"] in ("error", "critical")]
        assert [line["event"] for line in full] == ["store_full"], full

        filler.unlink()  # space returns: the clock folds the player, the next hand is dealt
        _until(lambda: admin.get_table(table).hands_dealt == 2)
        after = admin.get_table(table).current_hand
        players[after.turn.seat].call(table, Seen.of(after))

    events = [line["event"] for line in logs if line["event"].startswith("store_")]
    assert events == ["store_full", "store_writable"]
    assert not [line for line in logs if line["log_level"] == "error"][1:]
    assert check(live.room.streams).problems == []
