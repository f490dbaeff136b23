"""Whole hands of every game, played by the demo's random bots."""

from __future__ import annotations

import random

from feltline.engine.errors import RuleError
from feltline.engine.hand.commands import StartHand
from feltline.engine.hand.decide import NEW_HAND, decide
from feltline.engine.hand.events import Deal, Event, SeatAtStart
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game, Rules
from feltline.engine.hand.script import Phase
from tests.engine.players import choose
from tests.tables import TABLES


def start(rules: Rules, seed: bytes, players: int = 4) -> StartHand:
    holdem = rules.variant.blinds
    deal = Deal(
        button=players - 1,
        seats=tuple(SeatAtStart(s, f"bot {s}", 500) for s in range(players)),
        small_blind=0 if holdem else None,
        big_blind=1 if holdem else None,
    )
    return StartHand(rules, deal, seed)


def play(game: Game, rng: random.Random) -> list[Event]:
    seed = rng.randbytes(32)
    events = decide(NEW_HAND, start(TABLES[game], seed))
    hand = NEW_HAND
    for event in events:
        hand = evolve(hand, event)
    while hand.phase is not Phase.ENDED:
        try:
            more = decide(hand, choose(hand, rng))
        except RuleError:
            continue
        for event in more:
            hand = evolve(hand, event)
        events.extend(more)
    return events
