"""Random hands of a game, played through the engine by random legal
players, with short stacks among deep ones so that all-ins and side pots
come often: for the hand-history writers' tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from feltline.engine.hand.events import SeatAtStart
from feltline.engine.hand.rules import Game, Rake, Structure
from feltline_replay.histories import LoggedHand
from feltline_replay.show import Viewer
from tests.engine.players import RandomPlayer, Style, play, rules, start

AUDITOR = Viewer("auditor")


def random_hands(
    game: Game,
    structure: Structure,
    count: int,
    seed: int,
    *,
    rake: Rake | None = None,
    joker: bool = False,
    cancels: float = 0.0,
) -> Iterator[LoggedHand]:
    """``count`` hands of two to six players on a nine-seat table; player
    names have no spaces (``p3``), as some readers need. ``cancels``: the
    chance at each turn that the table closes mid-hand."""
    rng = random.Random(seed)
    table = rules(game, structure, rake=rake, joker=joker)
    for n in range(count):
        seats = sorted(rng.sample(range(1, 10), rng.randint(2, 6)))
        stacks = {
            s: rng.choice([rng.randint(1, 30), rng.randint(20, 150), rng.randint(100, 600)])
            for s in seats
        }
        command = start(table, stacks, rng.randbytes(32), button=rng.choice(seats))
        seated = tuple(SeatAtStart(s.seat, f"p{s.seat}", s.stack) for s in command.deal.seats)
        command = replace(command, deal=replace(command.deal, seats=seated))
        events = tuple(
            play(command, RandomPlayer(rng, Style(time_outs=0.02, cancels=cancels))).events
        )
        yield LoggedHand(f"{seed:08x}-0000-4000-8000-{n:012x}", events, events, AUDITOR, at=n)
