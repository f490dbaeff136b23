"""What each of the hand's speed tricks (``engine/hand/fast.py``) buys: each
beside the slow path it replaces, in the same run.

Run with ``uv run python bench/fast.py``. The records are a six-player
hold'em hand's state after its first ten events and its first player; the
event class is an ``Acted``'s. Each figure is the best of a few passes, in
nanoseconds a call.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import sys
import timeit
from pathlib import Path

from feltline.engine.hand import evolve, fast
from feltline.engine.hand.decide import replay
from feltline.engine.hand.events import Acted
from feltline.engine.hand.rules import Game, Rules
from feltline.engine.hand.script import Phase

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' players

CALLS = 50_000
PASSES = 5


def nanoseconds(call: str, names: dict[str, object]) -> float:
    """The best pass's time per call of ``call``."""
    passes = timeit.repeat(call, globals=names, number=CALLS, repeat=PASSES)
    return min(passes) / CALLS * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    from tests.engine.players import passive, play, rules, start

    table = rules(Game.HOLDEM, Rules.house(Game.HOLDEM).stakes.structure)
    played = play(
        start(table, dict.fromkeys(range(6), 1000), hashlib.sha256(b"fast").digest()), passive
    )
    hand = replay(played.events[:10])
    names = {
        "Phase": Phase,
        "BETTING": fast.BETTING,
        "slow": dataclasses.replace,
        "fast": fast,
        "hand": hand,
        "player": hand.players[0],
        "mutate": evolve._mutate,
        "rules": evolve._RULES,
        "acted": Acted,
    }
    pairs = (
        ("an enum member", "Phase.BETTING", "BETTING"),
        (
            "a hand's state changed",
            "dataclasses.replace(hand, button=2)",
            "fast.replace(hand, button=2)",
        ),
        (
            "a player changed",
            "dataclasses.replace(player, stack=2)",
            "fast.replace(player, stack=2)",
        ),
        ("an event's rule found", "mutate.dispatch(acted)", "rules[acted]"),
    )
    print(f"{'ns a call, best of ' + str(PASSES):34}{'slow path':>12}{'fast.py':>12}{'ratio':>8}")
    for label, slow, quick in pairs:
        before, after = nanoseconds(slow, names), nanoseconds(quick, names)
        print(f"{label:34}{before:>12,.0f}{after:>12,.0f}{before / after:>7.1f}x")


if __name__ == "__main__":
    main()
