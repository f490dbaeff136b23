"""Benchmark the hand engine against PokerKit: hands per second to a showdown.

Run with ``uv run python bench/engine.py``. Every player checks or calls to
the showdown (bringing in when due; in jackpots the first player with jacks
or better opens, or the deal is passed out). A Feltline hand is the engine
alone: ``play`` (decide, evolving each event once) from the ``StartHand`` command (deck
derivation from the seed included) through the payouts, showdown
evaluation included. PokerKit plays the same stakes and stacks with every
automation on but the players' actions. Times are the process's CPU time,
which other jobs on a shared machine disturb less than the wall clock; each
figure is the best of a few passes.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pokerkit import (
    Automation,
    FixedLimitOmahaHoldemHighLowSplitEightOrBetter,
    FixedLimitRazz,
    FixedLimitSevenCardStud,
    FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    Mode,
    NoLimitTexasHoldem,
    PotLimitOmahaHoldem,
    State,
)

from feltline.engine.hand.events import PassedOut, Shown
from feltline.engine.hand.rules import Game, Rules

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' players

PASSES = 3
TARGET = 0.4  # seconds per measurement
PLAYERS = (2, 6)
STACK = 1000
AUTOMATIONS = tuple(Automation)


def pokerkit_holdem(players: int) -> State:
    state = NoLimitTexasHoldem.create_state(
        AUTOMATIONS, True, 0, (5, 10), 10, STACK, players, mode=Mode.CASH_GAME
    )
    while state.status:
        state.check_or_call()
    return state


def stud_game(
    variant: type[FixedLimitSevenCardStudHighLowSplitEightOrBetter]
    | type[FixedLimitSevenCardStud]
    | type[FixedLimitRazz],
) -> Callable[[int], State]:
    """One of PokerKit's stud games at the house stakes, played passively."""

    def play(players: int) -> State:
        state = variant.create_state(
            AUTOMATIONS, True, 2, 3, 10, 20, STACK, players, mode=Mode.CASH_GAME
        )
        while state.status:
            if state.can_post_bring_in():
                state.post_bring_in()
            else:
                state.check_or_call()
        return state

    return play


def pokerkit_omaha(players: int) -> State:
    state = PotLimitOmahaHoldem.create_state(
        AUTOMATIONS, True, 0, (5, 10), 10, STACK, players, mode=Mode.CASH_GAME
    )
    while state.status:
        state.check_or_call()
    return state


def pokerkit_omaha_hi_lo(players: int) -> State:
    state = FixedLimitOmahaHoldemHighLowSplitEightOrBetter.create_state(
        AUTOMATIONS, True, 0, (5, 10), 10, 20, STACK, players, mode=Mode.CASH_GAME
    )
    while state.status:
        state.check_or_call()
    return state


def pokerkit(play: Callable[[int], State], players: int) -> Callable[[int], object]:
    return lambda _: play(players)


def feltline(game: Game, players: int) -> Callable[[int], object]:
    """A function that plays hand ``i`` of ``game`` (seed i) to its end."""
    from tests.engine.players import passive, play_fast, rules, start

    table = rules(game, Rules.house(game).stakes.structure)
    stacks = dict.fromkeys(range(players), STACK)
    commands = [start(table, stacks, hashlib.sha256(b"bench %d" % i).digest()) for i in range(4096)]
    return lambda i: play_fast(commands[i % len(commands)], passive)


def rate(play: Callable[[int], object]) -> float:
    """Hands per second: calibrated to about TARGET seconds, best of PASSES."""
    hands, spent = 1, 0.0
    while spent < TARGET / 4:
        hands *= 2
        start = time.process_time()
        for i in range(hands):
            play(i)
        spent = time.process_time() - start
    hands = max(1, int(hands * TARGET / spent))
    best = float("inf")
    for _ in range(PASSES):
        start = time.process_time()
        for i in range(hands):
            play(i)
        best = min(best, time.process_time() - start)
    return hands / best


def showdowns(game: Game, players: int) -> str:
    """How the benchmark's hands of ``game`` end, from a sample."""
    from tests.engine.players import Played, passive, play, rules, start

    table = rules(game, Rules.house(game).stakes.structure)
    sample: list[Played] = [
        play(start(table, dict.fromkeys(range(players), STACK), bytes([i]) * 32), passive)
        for i in range(50)
    ]
    shown = sum(any(isinstance(e, Shown) for e in p.events) for p in sample)
    passed = sum(any(isinstance(e, PassedOut) for e in p.events) for p in sample)
    return f"{shown * 2}% showdowns" + (f", {passed * 2}% passed out" if passed else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    print(f"hands per second, every player checking or calling, stacks {STACK}")
    print(f"{'':34}" + "".join(f"{n:>10} players" for n in PLAYERS))
    ours: dict[tuple[Game, int], float] = {}
    for game in Game:
        for n in PLAYERS:
            ours[game, n] = rate(feltline(game, n))
        structure = Rules.house(game).stakes.structure
        label = f"Feltline {game} ({structure})"
        print(f"{label:34}" + "".join(f"{ours[game, n]:>18,.0f}" for n in PLAYERS), end="")
        print(f"   ({showdowns(game, PLAYERS[-1])})")
    for name, game, theirs in (
        ("no-limit hold'em", Game.HOLDEM, pokerkit_holdem),
        (
            "fixed-limit stud high-low",
            Game.STUD_HI_LO,
            stud_game(FixedLimitSevenCardStudHighLowSplitEightOrBetter),
        ),
        ("pot-limit Omaha", Game.OMAHA, pokerkit_omaha),
        ("fixed-limit Omaha high-low", Game.OMAHA_HI_LO, pokerkit_omaha_hi_lo),
        ("fixed-limit seven-card stud", Game.STUD, stud_game(FixedLimitSevenCardStud)),
        ("fixed-limit razz", Game.RAZZ, stud_game(FixedLimitRazz)),
    ):
        pk = {n: rate(pokerkit(theirs, n)) for n in PLAYERS}
        print(f"{'PokerKit ' + name:34}" + "".join(f"{pk[n]:>18,.0f}" for n in PLAYERS))
        ratios = "".join(f"{ours[game, n] / pk[n]:>17,.1f}x" for n in PLAYERS)
        print(f"{'  Feltline / PokerKit':34}{ratios}")


if __name__ == "__main__":
    main()
