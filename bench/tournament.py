"""A multi-table tournament of bots played to its end through the Room,
as fast as the bots act: hands per second, the director's CPU per hand,
and the peak memory, at a small field (the anchor) and at a large one in
the same run.

    uv run python bench/tournament.py [--players 1000] [--anchor 100] [--size 9]

A sit-and-go of ``--players`` no-limit hold'em bots at tables of
``--size`` (1,000 players: 112 tables) in a temporary SQLite store (in
/dev/shm where there is one), every entry, deal, action and hand's end a
committed request, as a server makes them; the blinds double every 6
hands. The bots, one request at a time from one thread, call or check,
fold one time in five to a bet (and nearly always to one of more than a
third of their stack), and go all in one time in twenty-five. The tables
are dealt in turn, each playing its hand
out before the next is dealt, until one player is left. The director's
CPU is the thread time spent in :mod:`feltline.cardroom.director`'s work
at each hand (the clock, its begin and its end: reading the tournament,
deciding, recording and carrying out the moves, places and prizes); the
goal the issue sets is that it does not grow with the number of tables, so
the large field's per-hand figure is printed against the anchor's.

A script, never a test: it prints figures and a ratio and never fails.
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from feltline.audit.keys import Signer
from feltline.cardroom import director
from feltline.cardroom.room import CreateTournament, Room
from feltline.domain.ids import tournament_table_id
from feltline.engine.errors import RuleError
from feltline.engine.games.variant import Game
from feltline.engine.hand import betting
from feltline.engine.hand.events import Action
from feltline.engine.hand.rules import Rules
from feltline.engine.hand.stakes import Stakes, Structure
from feltline.engine.table.house import TableConfig
from feltline.engine.tournament import Band, Level, Start
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams

STACK = 1_000
SHARES = (4000, 2500, 1500, 1000, 600, 400)


class DirectorClock:
    """The thread CPU spent in the director's per-hand entry points."""

    NAMES = ("advance", "begin_hand", "hand_ended")

    def __init__(self) -> None:
        self.seconds = 0.0
        self._saved: dict[str, Callable[..., Any]] = {}

    def __enter__(self) -> DirectorClock:
        for name in self.NAMES:
            original = self._saved[name] = getattr(director, name)
            setattr(director, name, self._timed(original))
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self._saved.items():
            setattr(director, name, original)

    def _timed(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.thread_time() - started

        return timed


def cid() -> str:
    return uuid.uuid4().hex


def create(room: Room, players: int, size: int) -> uuid.UUID:
    levels = tuple(
        Level(
            Stakes(Structure.NO_LIMIT, 10 * 2**n, small_blind=5 * 2**n, big_blind=10 * 2**n),
            hands=4,
        )
        for n in range(16)
    )
    shares = SHARES if players > len(SHARES) else (10_000,)
    setup = CreateTournament(
        "Bench",
        TableConfig(Rules(Game.HOLDEM, levels[0].stakes), size),  # type: ignore[arg-type]
        levels,
        buy_in=100,
        fee=10,
        stack=STACK,
        payouts=(Band(players, shares),),
        start=Start.SIT_AND_GO,
        entrants=players,
        by="bench",
    )
    return room.create_tournament(cid(), setup, at=0)


def act(room: Room, table: uuid.UUID, rng: random.Random) -> None:
    number = room.table(table).table.hands
    hand = room.hand(table, number).hand
    o = betting.options(hand)
    roll = rng.random()
    action, amount = (Action.CALL if o.to_call else Action.CHECK), 0
    if o.raise_action is not None and roll < 0.04:
        action, amount = o.raise_action, o.most
    elif o.to_call and roll > (0.15 if 3 * o.to_call > hand.player(o.seat).stack else 0.8):
        action = Action.FOLD
    room.act(table, number, cid(), o.seat, action, amount=amount, at=0)


def run(players: int, size: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    shm = Path("/dev/shm")  # in memory if it can be: disk syncs are not what is measured
    folder = tempfile.mkdtemp(prefix="feltline-tournament-", dir=shm if shm.is_dir() else None)
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(Path(folder) / "feltline.db")}).env
    room = Room(Streams(Signer.generate(), env=env))
    key = create(room, players, size)
    for i in range(players):
        name = f"bot{i:04}"
        room.mint(cid(), name, 1_000, by="bench")
        room.register_tournament(key, cid(), name, at=0)
    tables = len(room.tournament(key).tournament.tables)
    hands = actions = 0
    wall, cpu = time.perf_counter(), time.process_time()
    with DirectorClock() as clock:
        while not (state := room.tournament(key).tournament).over:
            for number in sorted(state.tables):
                table = tournament_table_id(key, number)
                try:
                    room.deal_tournament(table, at=0)
                except RuleError:
                    continue
                hands += 1
                while room.table(table).table.dealt is not None:
                    act(room, table, rng)
                    actions += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    length = room.tournament(key).version
    room.close()
    return {
        "players": players,
        "tables": tables,
        "hands": hands,
        "actions": actions,
        "events": length,
        "hands_per_s": hands / wall,
        "cpu_ms_per_hand": 1000 * cpu / hands,
        "director_ms_per_hand": 1000 * clock.seconds / hands,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000, help="the large field (default 1000)")
    parser.add_argument("--anchor", type=int, default=100, help="the small field (default 100)")
    parser.add_argument("--size", type=int, default=9, help="players a table (default 9)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("players tables  hands actions events  hands/s  CPU ms/hand  director ms/hand  peak MiB")
    results = []
    for players in (args.anchor, args.players):
        r = run(players, args.size, args.seed)
        results.append(r)
        print(
            f"{r['players']:7.0f} {r['tables']:6.0f} {r['hands']:6.0f} {r['actions']:7.0f}"
            f" {r['events']:6.0f} {r['hands_per_s']:8.1f} {r['cpu_ms_per_hand']:12.2f}"
            f" {r['director_ms_per_hand']:17.2f} {r['peak_mib']:9.0f}",
            flush=True,
        )
    anchor, large = results
    print(
        f"director CPU per hand, {large['players']:.0f} players against {anchor['players']:.0f}: "
        f"x{large['director_ms_per_hand'] / anchor['director_ms_per_hand']:.2f}"
    )


if __name__ == "__main__":
    main()
