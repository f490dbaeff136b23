"""A player of every seat of a two-table sit-and-go, for the tournament
lease tests, which run several of these processes on one PostgreSQL store
and kill or freeze the one holding the tournament's lease: each makes the
same requests for the set-up (repeats store nothing), then plays whatever
the store says is next at each table, its requests served only while it
holds the tournament (else OwnedElsewhere, and it waits). Each request
stored is reported as a line of its ``acks`` file; it exits once the
tournament is over.

    python tournament_owner.py '{"env": {...}, "acks": ..., "seed": 1}'
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
from feltline.engine.games.variant import Game
from feltline.engine.hand import betting
from feltline.engine.hand.events import Action
from feltline.engine.hand.rules import Rules
from feltline.engine.hand.stakes import Stakes, Structure
from feltline.engine.table.house import TableConfig
from feltline.engine.tournament import Band, Level, Start
from feltline.store.config import StoreConfig
from feltline.store.streams import Conflict

ENTRANTS = 12
PLAYERS = tuple(f"p{n}" for n in range(ENTRANTS))
BUY_IN, FEE, STACK = 100, 10, 300
NAME = "lease"


def _blinds(n: int) -> Stakes:
    return Stakes(Structure.NO_LIMIT, 10 * 2**n, small_blind=5 * 2**n, big_blind=10 * 2**n)


SETUP = CreateTournament(
    "Lease",
    TableConfig(Rules(Game.HOLDEM, _blinds(0)), 6),
    tuple(Level(_blinds(n), hands=4) for n in range(20)),
    buy_in=BUY_IN,
    fee=FEE,
    stack=STACK,
    payouts=(Band(ENTRANTS, (5000, 3000, 2000)),),
    start=Start.SIT_AND_GO,
    entrants=ENTRANTS,
    by="admin",
)


def main() -> None:
    args = json.loads(sys.argv[1])
    room = open_room(StoreConfig.from_env(args["env"]))
    room.owners.start()
    acks = os.open(args["acks"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    rng = random.Random(args["seed"])

    def stored(what: str) -> None:
        os.write(acks, f"{what}\n".encode())

    while True:
        try:
            key = room.create_tournament(NAME, SETUP, at=0)
            for player in PLAYERS:
                room.mint(f"mint-{player}", player, 1_000, by="admin")
                room.register_tournament(key, f"enter-{player}", player, at=0)
            break
        except (OwnedElsewhere, Conflict):
            time.sleep(0.05)
    tables = [tournament_table_id(key, n) for n in (1, 2)]
    while True:
        try:
            room.look()
            open_ = [t for t in tables if not room.table(t).table.closed]
            if not open_:
                if room.tournament(key, fresh=True).tournament.over:
                    break
                continue
            for table in open_:
                if room.table(table).table.dealt is None:
                    if room.deal_tournament(table, at=0).number:
                        stored("deal")
                    continue
                number = room.table(table).table.hands
                hand = room.hand(table, number).hand
                if hand.round is None or not hand.round.pending:
                    continue  # a copy of another owner's table, behind it
                o = betting.options(hand)
                action, amount = (Action.CALL if o.to_call else Action.CHECK), 0
                roll = rng.random()
                if o.raise_action is not None and roll < 0.15:
                    action, amount = o.raise_action, o.most if roll < 0.01 else o.least
                elif o.to_call and roll > 0.8:
                    action = Action.FOLD
                room.act(table, number, uuid.uuid4().hex, o.seat, action, amount=amount, at=0)
                stored("act")
        except OwnedElsewhere:  # another process holds the tournament
            time.sleep(0.05)
        except (RuleError, Conflict):
            continue
    room.close()


if __name__ == "__main__":
    main()
