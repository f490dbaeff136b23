"""The projector's speed: notifications projected per second rebuilding
every view from zero (in one pass), beside the rate the cardroom stored them while bots
played (same run, same store), and the lag p50/p99 while they played with
the projector in the process.

    uv run python bench/projector.py --hands 2000 [--store postgres]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.projections.projector import PROJECTIONS, Projector
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.postgres import store_env
from tests.store.players import Players, finished, open_tables


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.store == "sqlite":
            raw = {"SQLITE_DBNAME": str(Path(tmp) / "bench.db")}
        else:
            import psycopg

            from tests.postgres import PG

            schema = f"feltline_bench_{random.getrandbits(32):x}"
            with psycopg.connect(**PG, autocommit=True) as conn:
                conn.execute(f"CREATE SCHEMA {schema}")
            raw = store_env(schema)
        env = StoreConfig.from_env(raw).env
        streams = Streams(Signer.generate(), env=env)
        room = Room(streams)
        projector = Projector(streams, env)
        room.listen(projector.poke)
        projector.start()
        lags: list[float] = []
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.01):
                lags.append(max(lag.seconds for lag in projector.lags()))

        sampler = threading.Thread(target=sample)
        rng = random.Random(1)
        tables = open_tables(room, args.tables)
        players = [Players(room, t, rng) for t in tables]
        sampler.start()
        began = time.monotonic()
        while finished(room, tables) < args.hands:
            for p in players:
                for _ in range(50):
                    p.step()
        played = time.monotonic() - began
        done.set()
        sampler.join()
        projector.stop()
        projector.follower.catch_up()
        stored = int(streams.recorder.max_notification_id() or 0)
        began = time.monotonic()
        projector.rebuild()
        rebuilt = time.monotonic() - began
        hands = finished(room, tables)
        cuts = statistics.quantiles(lags, n=100)
        print(f"store {args.store}: {hands} hands, {stored} notifications")
        print(f"  stored by the cardroom: {stored / played:,.0f} notifications/s ({played:.1f} s)")
        print(
            f"  rebuilt, all {len(PROJECTIONS)} views: {stored / rebuilt:,.0f} notifications/s "
            f"({rebuilt:.1f} s, {played / rebuilt:.1f}x the rate they were stored)"
        )
        print(
            f"  lag while bots played: p50 {cuts[49] * 1000:.0f} ms, p99 {cuts[98] * 1000:.0f} ms"
        )
        streams.close()


if __name__ == "__main__":
    main()
