"""Whole hands through the store, one command id per command."""

from __future__ import annotations

import random
import uuid
from uuid import UUID

from feltline.demo import TABLES
from feltline.engine.commands import StartHand
from feltline.engine.errors import RuleError
from feltline.engine.events import SeatAtStart
from feltline.engine.rules import Game
from feltline.engine.state import Phase
from feltline.store.hands import Hands
from tests.engine.players import choose


def start(game: Game) -> StartHand:
    holdem = game is Game.HOLDEM
    return StartHand(
        TABLES[game],
        button=3,
        seats=tuple(SeatAtStart(s, f"bot {s}", 500) for s in range(4)),
        seed=b"",
        small_blind=0 if holdem else None,
        big_blind=1 if holdem else None,
    )


def play(hands: Hands, game: Game, rng: random.Random) -> UUID:
    hand_id = uuid.uuid4()
    hands.execute(hand_id, "start", start(game), at=0)
    n = 0
    while (hand := hands.get(hand_id).hand).phase is not Phase.ENDED:
        n += 1
        try:
            hands.execute(hand_id, f"c{n}", choose(hand, rng), at=0)
        except RuleError:
            continue
    return hand_id
