"""A sit-and-go of random players, for the tournament's crash test, which
kills this process at random moments and starts it again: each run makes
the same requests for the set-up (repeats store nothing) and plays on
where the store says the tournament is. Each hand dealt is reported to an
append-only file.

    python tournament_child.py '{"env": {...}, "acks": ..., "seed": 1}'
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import uuid

from feltline.cardroom.errors import OwnedElsewhere
from feltline.cardroom.room import CreateTournament, open_room
from feltline.domain.ids import tournament_table_id
from feltline.engine.errors import RuleError
from feltline.engine.hand import betting
from feltline.engine.hand.events import Action
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.table.house import TableConfig
from feltline.engine.tournament import Band, Level, Start
from feltline.store.config import StoreConfig

PLAYERS = tuple(f"p{n}" for n in range(6))
BUY_IN, FEE, STACK = 100, 10, 300


def _blinds(n: int) -> Stakes:
    return Stakes(Structure.NO_LIMIT, 10 * 2**n, small_blind=5 * 2**n, big_blind=10 * 2**n)


def main() -> None:
    args = json.loads(sys.argv[1])
    room = open_room(StoreConfig.from_env(args["env"]))
    room.owners.start()
    acks = os.open(args["acks"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    rng = random.Random(args["seed"])
    levels = tuple(Level(_blinds(n), hands=3) for n in range(10))
    setup = CreateTournament(
        "Crash",
        TableConfig(Rules(Game.HOLDEM, _blinds(0)), 6),
        levels,
        buy_in=BUY_IN,
        fee=FEE,
        stack=STACK,
        payouts=(Band(6, (6500, 3500)),),
        start=Start.SIT_AND_GO,
        entrants=6,
        by="admin",
    )
    key = room.create_tournament("crash", setup, at=0)
    for player in PLAYERS:
        room.mint(f"mint-{player}", player, 1_000, by="admin")
        room.register_tournament(key, f"enter-{player}", player, at=0)
    table = tournament_table_id(key, 1)
    while not room.tournament(key).tournament.over:
        try:
            if room.table(table).table.dealt is None:
                number = room.deal_tournament(table, at=0).number
                os.write(acks, f"{number}\n".encode())
                continue
            number = room.table(table).table.hands
            o = betting.options(room.hand(table, number).hand)
            action, amount = (Action.CALL if o.to_call else Action.CHECK), 0
            roll = rng.random()
            if o.raise_action is not None and roll < 0.1:
                action, amount = o.raise_action, o.most if roll < 0.03 else o.least
            elif o.to_call and roll > 0.8:
                action = Action.FOLD
            room.act(table, number, uuid.uuid4().hex, o.seat, action, amount=amount, at=0)
        except OwnedElsewhere:  # the killed process's lease, until it lapses
            time.sleep(0.1)
        except RuleError:
            continue
    room.close()


if __name__ == "__main__":
    main()
