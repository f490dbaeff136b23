"""Benchmark Feltline's hand values against treys and PokerKit.

Run with ``uv run python bench/values.py``. Every library evaluates the same
random seven-card hands (fixed seed), with its cards converted beforehand so
that only evaluation is timed; each figure is the best of a few passes.
Slow libraries get fewer hands: the rates are per second either way. Table
building is measured in fresh interpreters, where the first evaluation
builds them.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from pokerkit import Card as PokerKitCard
from pokerkit import EightOrBetterLowHand, StandardHighHand
from treys import Card as TreysCard
from treys import Evaluator

from feltline.engine.cards.card import STANDARD_DECK
from feltline.engine.cards.values import eight_or_better, high

PASSES = 5
IMPORT_TIME = """
import time
start = time.perf_counter()
import feltline.engine.cards.values
feltline.engine.cards.values.build_tables()
print(time.perf_counter() - start)
"""
IMPORT_MEMORY = """
import tracemalloc
tracemalloc.start()
import feltline.engine.cards.values
feltline.engine.cards.values.build_tables()
current, peak = tracemalloc.get_traced_memory()
print(current, peak)
"""


def rates(contenders: dict[str, tuple[Callable[[Any], object], Sequence[Any]]]) -> list[float]:
    """Evaluations per second of each contender, best of a few passes.

    The contenders take turns within each pass, so that a busy machine slows
    them alike and the ratios hold.
    """
    best = dict.fromkeys(contenders, float("inf"))
    for _ in range(PASSES):
        for name, (evaluate, hands) in contenders.items():
            start = time.perf_counter()
            for hand in hands:
                evaluate(hand)
            best[name] = min(best[name], time.perf_counter() - start)
    return [len(hands) / best[name] for name, (_, hands) in contenders.items()]


def show(library: str, what: str, per_second: float, feltline: float | None = None) -> None:
    ratio = "" if feltline is None else f"   Feltline/{library} {feltline / per_second:,.1f}x"
    print(f"  {library + ' ' + what:<34}{per_second:>12,.0f}{ratio}")


def fresh_python(code: str) -> list[float]:
    output = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return [float(word) for word in output.split()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000, help="hands for the fast libraries")
    parser.add_argument("--slow-hands", type=int, default=4_000, help="hands for PokerKit")
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(STANDARD_DECK, 7)) for _ in range(args.hands)]
    treys_hands = [[TreysCard.new(str(card)) for card in hand] for hand in hands]
    treys_split = [(hand[:2], hand[2:]) for hand in treys_hands]
    pokerkit_split = [
        (
            tuple(PokerKitCard.parse("".join(map(str, hand[:2])))),
            tuple(PokerKitCard.parse("".join(map(str, hand[2:])))),
        )
        for hand in hands[: args.slow_hands]
    ]

    # The libraries must agree before their speeds mean anything.
    treys = Evaluator()
    ours = [high(hand).strength for hand in hands[:2000]]
    theirs = [-treys.evaluate(*split) for split in treys_split[:2000]]
    assert all(
        (a < b) == (c < d) for a, b, c, d in zip(ours, ours[1:], theirs, theirs[1:], strict=False)
    ), "Feltline and treys disagree"

    def pokerkit_high(split: tuple[Any, Any]) -> object:
        return StandardHighHand.from_game(*split)

    def pokerkit_high_low(split: tuple[Any, Any]) -> object:
        return (
            StandardHighHand.from_game(*split),
            EightOrBetterLowHand.from_game_or_none(*split),
        )

    def feltline_high_low(hand: Sequence[int]) -> object:
        return high(hand), eight_or_better(hand)

    print(f"{args.hands:,} random 7-card hands (seed {args.seed}), PokerKit on {args.slow_hands:,}")
    print("\n7-card high, evaluations per second")
    feltline, treys_rate, pokerkit = rates(
        {
            "Feltline": (high, hands),
            "treys": (lambda split: treys.evaluate(*split), treys_split),
            "PokerKit": (pokerkit_high, pokerkit_split),
        }
    )
    show("Feltline", "high", feltline)
    show("treys", "Evaluator.evaluate", treys_rate, feltline)
    show("PokerKit", "StandardHighHand", pokerkit, feltline)
    print("\n7-card high + eight-or-better low, evaluations per second")
    feltline, pokerkit = rates(
        {
            "Feltline": (feltline_high_low, hands),
            "PokerKit": (pokerkit_high_low, pokerkit_split),
        }
    )
    show("Feltline", "high + eight_or_better", feltline)
    show("PokerKit", "high + EightOrBetterLow", pokerkit, feltline)

    seconds = min(fresh_python(IMPORT_TIME)[0] for _ in range(PASSES))
    current, peak = fresh_python(IMPORT_MEMORY)
    print("\nBuilding the tables (in a fresh interpreter)")
    print(f"  time {seconds:.2f} s; memory kept {current / 1e6:.1f} MB, peak {peak / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
