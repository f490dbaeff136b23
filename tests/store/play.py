"""Whole hands through the Room, the server's one way of writing them."""

from __future__ import annotations

import random
from uuid import UUID

from feltline.cardroom.room import Room
from feltline.domain.ids import hand_id
from feltline.engine.errors import RuleError
from feltline.engine.games import VARIANTS
from feltline.engine.hand.commands import Act, Declare, Draw, StartHand
from feltline.engine.hand.events import Deal, SeatAtStart
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from tests.engine.players import choose
from tests.tables import TABLES

from .players import cid


def start(game: Game) -> StartHand:
    """A first hand of ``game`` for the engine alone, seedless: for tests
    that write a hand's records themselves."""
    holdem = VARIANTS[game].blinds
    deal = Deal(
        button=3,
        seats=tuple(SeatAtStart(s, f"bot {s}", 500) for s in range(4)),
        small_blind=0 if holdem else None,
        big_blind=1 if holdem else None,
    )
    return StartHand(TABLES[game], deal, seed=b"")


def play_out(room: Room, table: UUID, number: int, rng: random.Random, *, at: int = 0) -> None:
    """Random moves until hand ``number`` ends."""
    while room.table(table).table.dealt is not None:
        move = choose(room.hand(table, number).hand, rng)
        try:
            if isinstance(move, Act):
                room.act(table, number, cid(), move.seat, move.action, amount=move.amount, at=at)
            elif isinstance(move, Draw):
                room.draw(table, number, cid(), move.seat, move.discards, at=at)
            elif isinstance(move, Declare):
                room.declare(table, number, cid(), move.seat, move.choice, at=at)
        except RuleError:
            continue


def play(room: Room, game: Game, rng: random.Random) -> tuple[UUID, UUID]:
    """A new table of ``game`` whose four bots, bought in for the most the
    table allows, play its first hand to the end: the table's id and the hand's."""
    config = TableConfig(TABLES[game], 6)
    table = room.open_table(cid(), config, at=0)
    buy_in = config.buy_in_limits()[1]
    for seat in range(1, 5):
        room.mint(cid(), f"bot {seat}", buy_in, by="admin")
        room.sit_down(table, cid(), seat, f"bot {seat}", buy_in, at=0)
    room.deal(table, cid(), at=0)
    play_out(room, table, 1, rng)
    return table, hand_id(table, 1)
