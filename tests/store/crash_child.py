"""Random players at several tables until they have finished enough hands,
for the crash test, which kills this process at random moments and starts
it again. Every stored request is reported, by table and version, to an
append-only file: a line written is in the kernel's hands and survives the
kill.

    python crash_child.py '{"env": {...}, "acks": ..., "tables": 4, "hands": 200, "seed": 1}'

where ``env`` is the store's configuration, signing key file included.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests.engine.players, as in pytest

from players import Players, finished, open_tables

from feltline.cardroom.room import open_room
from feltline.store.config import StoreConfig


def main() -> None:
    args = json.loads(sys.argv[1])
    room = open_room(StoreConfig.from_env(args["env"]))
    tables = open_tables(room, args["tables"])
    # As a server does: keep the leases, and wait for those the process
    # killed before this one held to lapse (FELTLINE_LEASE_SECONDS).
    room.owners.start()
    while not set(tables) <= set(room.owners.served()):
        time.sleep(0.1)
    acks = os.open(args["acks"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    seeds = random.Random(args["seed"])

    def committed(table: UUID, version: int) -> None:
        os.write(acks, f"{table} {version}\n".encode())

    def play(table: UUID, seed: float) -> None:
        players = Players(room, table, random.Random(seed), committed)
        while finished(room, tables) < args["hands"]:
            players.step()

    with ThreadPoolExecutor(len(tables)) as pool:
        list(pool.map(play, tables, [seeds.random() for _ in tables]))
    room.close()


if __name__ == "__main__":
    main()
