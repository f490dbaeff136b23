"""What the tournament director's decisions cost per hand, by the size of
the field: the pure core only (no store, no server, no hands dealt).

    uv run python bench/director.py [--players 100 1000] [--size 9] [--seed 1]

A scheduled no-limit hold'em tournament of each size is played to its end
through ``feltline.engine.tournament``: every table that may begins a hand,
then every table ends it with a random result (one winner takes what the
others lose, each busting with a chance of 1 in 20), until one player is
left. The clock runs 20 seconds a round, so levels change too. Timed, in
the thread's CPU time (so other jobs on the machine weigh less): each
``begin_hand`` and each ``end_hand`` (the places, prizes, breaking and
balancing it decides) with the state folded after it, as the cardroom would.
The goal the issue sets is that the director's cost per hand does not grow
with the number of tables.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import replace

from feltline.engine.hand.rules import Game, Rules
from feltline.engine.table.house import TableConfig
from feltline.engine.tournament import Band, Level, Start, Tournament, WaitingToDeal


def tournament(players: int, size: int) -> Tournament:
    rules = Rules.house(Game.HOLDEM)
    stakes = rules.stakes
    levels = tuple(
        Level(
            replace(
                stakes,
                small_bet=stakes.small_bet * 2**k,
                small_blind=stakes.small_blind * 2**k,
                big_blind=stakes.big_blind * 2**k,
            ),
            minutes=10,
        )
        for k in range(12)
    )
    events = Tournament.create(
        "bench",
        TableConfig(rules, size),
        levels,
        buy_in=100,
        fee=10,
        stack=10_000,
        payouts=(Band(10_000, (4000, 2500, 1500, 1000, 600, 400)),),
        start=Start.SCHEDULED,
        entrants=players,
        minimum=players,
        starts_at=0,
        seed=bytes(32),
        by="bench",
        at=0,
    )
    state = Tournament().then(events)
    for i in range(players):
        state = state.then(state.register(f"p{i}", 0))
    return state.then(state.start(0))


def run(players: int, size: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    state = tournament(players, size)
    begins: list[float] = []
    ends: list[float] = []
    now = 0
    while not state.over:
        now += 20
        state = state.then(state.tick(now))
        for number in sorted(state.tables):
            started = time.thread_time()
            try:
                events = state.begin_hand(number, now)
            except WaitingToDeal:
                continue
            state = state.then(events)
            begins.append(time.thread_time() - started)
        for number in sorted(state.tables):
            felt = state.tables.get(number)
            if felt is None or felt.dealt is None:
                continue
            stacks = {s: felt.seats[s].stack for s in felt.dealt}
            winner = rng.choice(sorted(stacks))
            end = {
                s: 0 if rng.random() < 0.05 else rng.randint(0, c)
                for s, c in stacks.items()
                if s != winner
            }
            end[winner] = sum(stacks.values()) - sum(end.values())
            started = time.thread_time()
            state = state.then(state.end_hand(number, felt.hands, end, now))
            ends.append(time.thread_time() - started)
    tables = -(-players // size)
    return {
        "players": players,
        "tables": tables,
        "hands": len(ends),
        "begin_ms_p50": 1000 * statistics.median(begins),
        "end_ms_p50": 1000 * statistics.median(ends),
        "end_ms_p99": 1000 * statistics.quantiles(ends, n=100)[98],
        "per_hand_ms": 1000 * (sum(begins) + sum(ends)) / len(ends),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("players tables  hands  begin p50 ms  end p50 ms  end p99 ms  per hand ms")
    for players in args.players:
        r = run(players, args.size, args.seed)
        print(
            f"{r['players']:7.0f} {r['tables']:6.0f} {r['hands']:6.0f} {r['begin_ms_p50']:13.3f}"
            f" {r['end_ms_p50']:11.3f} {r['end_ms_p99']:11.3f} {r['per_hand_ms']:12.3f}"
        )


if __name__ == "__main__":
    main()
