"""How fast the Room stores play, and how much a hand takes.

    uv run python bench/store.py [--seconds 5] [--tables 50] [--store sqlite|postgres]

For each store (a temporary SQLite file; a fresh schema of the PostgreSQL
at POSTGRES_HOST, default 127.0.0.1:5432, user postgres, database test):

- raw: the eventsourcing library appending one event per Application.save,
  from one thread and from as many threads as there are tables;
- one table: six random players at a no-limit hold'em table, counting
  actions (bets, draws, declarations), each one committed save;
- many tables: one thread per table, all at once, with group commit, and
  again with each request committed alone;
- raw once more: a shared VM's disk drifts, so ratios are against the
  mean of both raw runs.

Then storage: six-player stud high-low hands, the bytes their streams take
in the database beside the size of their PHH text (feltline_replay.histories.phh).

A script, never a test: it prints figures and ratios and never fails.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import threading
import time
import uuid
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.engine.errors import RuleError
from feltline.engine.hand.commands import Act, Draw
from feltline.engine.hand.rules import Game, Rules
from feltline.engine.table.house import TableConfig
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_replay.histories import LoggedHand, phh
from feltline_replay.show import Viewer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' players

from tests.engine.players import choose
from tests.postgres import PG, store_env

RICH = 10**12  # every player's account: nobody runs out of chips
Sizes = tuple[int, dict[str, tuple[int, int, int]]]  # the database's size; each stream's rows


class Counter(Aggregate):
    @event("Counted")
    def count(self) -> None:
        pass


def raw_rate(env: dict[str, str], seconds: float, threads: int) -> tuple[float, float]:
    """Library saves per second, one event each, from ``threads`` threads,
    and the CPU seconds each took (its threads' own time)."""
    app: Application[uuid.UUID] = Application(env=env)
    done, cpu = [0] * threads, [0.0] * threads

    def run(n: int, until: float) -> None:
        counter = Counter()
        app.save(counter)
        start = time.thread_time()
        while time.perf_counter() < until:
            counter.count()
            app.save(counter)
            done[n] += 1
        cpu[n] = time.thread_time() - start

    elapsed = _in_threads(threads, seconds, run)
    app.close()
    return sum(done) / elapsed, sum(cpu) / max(1, sum(done))


class Players:
    """Six random players at one table; each :meth:`act` is one action stored."""

    def __init__(self, room: Room, game: Game, name: str) -> None:
        self.room, self.rng = room, random.Random(name)
        self.config = TableConfig(Rules.house(game), 6)
        self.table = room.open_table(name, self.config, at=0)
        self.high = self.config.buy_in_limits()[1]
        for seat in range(1, 7):
            player = f"{name} p{seat}"
            room.mint(_cid(), player, RICH, by="bench")
            room.sit_down(self.table, _cid(), seat, player, self.high, at=0)

    def act(self) -> bool:
        """One request: an action if a hand is on, else top-ups and a deal.
        Whether it stored an action."""
        room, table = self.room, self.room.table(self.table).table
        if table.dealt is None:
            for seat in table.seats:
                if seat.stack < self.high // 2:
                    room.add_chips(self.table, _cid(), seat.number, self.high - seat.stack)
            room.deal(self.table, _cid(), at=0)
            return False
        number = table.hands
        move = choose(room.hand(self.table, number).hand, self.rng)
        try:
            if isinstance(move, Act):
                room.act(
                    self.table, number, _cid(), move.seat, move.action, amount=move.amount, at=0
                )
            elif isinstance(move, Draw):
                room.draw(self.table, number, _cid(), move.seat, move.discards, at=0)
            else:
                room.declare(self.table, number, _cid(), move.seat, move.choice, at=0)
        except RuleError:
            return False
        return True


def seat(room: Room, tables: int, run: str) -> list[Players]:
    """``tables`` tables of six players, ready to play."""
    return [Players(room, Game.HOLDEM, f"{run} {n}") for n in range(tables)]


def action_rate(players: list[Players], seconds: float) -> tuple[float, float]:
    """Stored actions per second over the tables of ``players`` played at
    once, and the CPU seconds each took in the playing threads."""
    done, cpu = [0] * len(players), [0.0] * len(players)

    def play(n: int, until: float) -> None:
        start = time.thread_time()
        while time.perf_counter() < until:
            done[n] += players[n].act()
        cpu[n] = time.thread_time() - start

    elapsed = _in_threads(len(players), seconds, play)
    return sum(done) / elapsed, sum(cpu) / max(1, sum(done))


def storage(room: Room, sizes: Callable[[], Sizes], hands: int) -> None:
    """Bytes per six-player stud hand in the database, beside its PHH text."""
    before, _ = sizes()
    players = Players(room, Game.STUD_HI_LO, "storage")
    while room.table(players.table).table.hands < hands or room.table(players.table).table.dealt:
        players.act()
    after, streams = sizes()
    ids = [str(players.table)] + [str(room.hand(players.table, n).id) for n in range(1, hands + 1)]
    rows, stored, packed = (sum(streams[i][k] for i in ids) / hands for k in range(3))
    text = 0.0
    for number in range(1, hands + 1):
        stream = room.hand(players.table, number)
        made = tuple(e for _, events in stream.commands.values() for e in events)
        hand = LoggedHand(str(stream.id), made, made, Viewer("auditor"))
        text += len(phh.one(hand).encode()) / hands
    print(f"  storage, {hands} six-player stud hi-lo hands, per hand (the hand and its table):")
    print(f"    stored event data: {stored:,.0f} bytes in {rows:.0f} rows; ", end="")
    print(f"{packed:,.0f} bytes if each row were zlib-compressed (ZlibCompressor)")
    print(f"    database growth, indexes and free space included: {(after - before) / hands:,.0f}")
    print(f"    PHH text: {text:,.0f} bytes; stored / PHH = {stored / text:.0f}x, ", end="")
    print(f"compressed / PHH = {packed / text:.0f}x")


def bench(name: str, env: dict[str, str], sizes: Callable[[], Sizes], args: Any) -> None:
    print(f"\n== {name}")
    raw, raw_cpu = raw_rate(env, args.seconds, 1)
    raw_many, _ = raw_rate(env, args.seconds, args.tables)
    room = Room(Streams(Signer.generate(), env=env))
    one, one_cpu = action_rate(seat(room, 1, "one"), args.seconds)
    tables = seat(room, args.tables, "many")
    commit = room.streams.group_commit
    before = commit.requests, commit.transactions
    many, _ = action_rate(tables, args.seconds)
    per_transaction = (commit.requests - before[0]) / (commit.transactions - before[1])
    storage(room, sizes, args.hands)
    room.close()
    alone = Room(Streams(Signer.generate(), env=env))
    # Bench only: bypass group commit to show what it buys.
    alone.streams.group_commit = alone.streams.recorder.insert_events  # type: ignore[assignment]
    many_alone, _ = action_rate(seat(alone, args.tables, "alone"), args.seconds)
    alone.close()
    raw_after, _ = raw_rate(env, args.seconds, 1)
    base = (raw + raw_after) / 2
    print(f"  raw library appends, one event per save, 1 thread: {raw:,.0f} /s, ", end="")
    print(f"{raw_after:,.0f} /s at the end (mean {base:,.0f})")
    print(f"  raw library appends, {args.tables} threads: {raw_many:,.0f} /s")
    print(f"  Room, 1 table: {one:,.0f} actions/s = {one / base:.0%} of raw; ", end="")
    print(f"{one_cpu * 1e6:.0f} us CPU per action, {raw_cpu * 1e6:.0f} per raw save")
    print(f"  Room, {args.tables} tables, group commit: {many:,.0f} actions/s = ", end="")
    print(f"{many / base:.0%} of raw ({per_transaction:.1f} requests per transaction)")
    print(f"  Room, {args.tables} tables, one commit each: {many_alone:,.0f} actions/s = ", end="")
    print(f"{many_alone / base:.0%} of raw")


@contextmanager
def sqlite() -> Any:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bench.db"
        env = StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env

        def sizes() -> Sizes:
            with sqlite3.connect(path) as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                rows = conn.execute("SELECT originator_id, state FROM stored_events").fetchall()
            return path.stat().st_size, _by_stream((uuid.UUID(str(i)), s) for i, s in rows)

        yield env, sizes


@contextmanager
def postgres() -> Any:
    schema = f"feltline_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(**PG, autocommit=True) as conn:  # type: ignore[arg-type]
        conn.execute(f"CREATE SCHEMA {schema}")
        env = StoreConfig.from_env(store_env(schema, POSTGRES_POOL_SIZE="20")).env

        def sizes() -> Sizes:
            table = f"{schema}.cardroom_events"
            total = conn.execute(f"SELECT pg_total_relation_size('{table}')").fetchone()
            rows = conn.execute(f"SELECT originator_id, state FROM {table}").fetchall()
            return int(total[0]) if total else 0, _by_stream(rows)

        try:
            yield env, sizes
        finally:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _in_threads(count: int, seconds: float, run: Callable[[int, float], None]) -> float:
    """Run ``run(n, until)`` in ``count`` threads for about ``seconds``; the
    time they took."""
    start = time.perf_counter()
    until = start + seconds
    threads = [threading.Thread(target=run, args=(n, until)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start


def _by_stream(rows: Iterable[tuple[uuid.UUID, bytes]]) -> dict[str, tuple[int, int, int]]:
    """Rows, bytes and zlib-compressed bytes of each stream."""
    streams: dict[str, tuple[int, int, int]] = defaultdict(lambda: (0, 0, 0))
    for originator, state in rows:
        n, size, packed = streams[str(originator)]
        streams[str(originator)] = (n + 1, size + len(state), packed + len(zlib.compress(state)))
    return streams


_IDS = random.Random()


def _cid() -> str:
    """A command id, made as cheaply as a version-4 UUID can be: in a
    cardroom the clients make them, so their cost is not the Room's, and
    uuid4's getrandom call would hand the GIL to another thread."""
    return uuid.UUID(int=_IDS.getrandbits(128), version=4).hex


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--hands", type=int, default=30, help="stud hands for the storage figure")
    parser.add_argument("--store", choices=["sqlite", "postgres"], action="append")
    args = parser.parse_args()
    for name in args.store or ["sqlite", "postgres"]:
        with (sqlite if name == "sqlite" else postgres)() as (env, sizes):
            bench(name, env, sizes, args)


if __name__ == "__main__":
    main()
