"""Random players driven in-process through a Room.

They buy in, play every hand with random legal moves, let the clock run out
now and then, stand up mid-hand and come back, top up, cash out, and ask
the admin for chips when they run short. A shared pool of players sits at
several tables at once, so their accounts are written from many tables.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from uuid import UUID

from feltline.cardroom.room import Room
from feltline.cardroom.work import Outcome
from feltline.engine.errors import RuleError
from feltline.engine.games import VARIANTS
from feltline.engine.hand.commands import Act, Draw
from feltline.engine.hand.rules import Game, Rake
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.house import TableConfig, TimeCharge
from feltline.engine.table.state import Table
from tests.engine.players import choose
from tests.tables import TABLES

RAKE = Rake(basis_points=500, cap=20)
CONFIGS = (
    TableConfig(replace(TABLES[Game.HOLDEM], rake=RAKE), 6),
    TableConfig(replace(TABLES[Game.STUD_HI_LO], rake=RAKE), 6),
    TableConfig(TABLES[Game.JACKPOTS], 6, time_charge=TimeCharge(5, 300)),
    TableConfig(TABLES[Game.DRAW_DECLARE], 6, time_charge=TimeCharge(5, 300)),
)
PLAYERS = tuple(f"player {n}" for n in range(14))


def cid() -> str:
    return uuid.uuid4().hex


def open_tables(room: Room, count: int, first: int = 0) -> list[UUID]:
    """Tables ``first`` to ``count - 1`` of every game in turn; opening again
    finds them."""
    return [
        room.open_table(f"table-{n}", CONFIGS[n % len(CONFIGS)], at=0) for n in range(first, count)
    ]


def finished(room: Room, tables: Sequence[UUID]) -> int:
    """Hands finished at these tables."""
    return sum(t.hands - (t.dealt is not None) for t in (room.table(i).table for i in tables))


class Players:
    """The players at one table, drawn from ``pool``; :meth:`step` makes
    one request. ``committed(table, version)`` hears of every request stored."""

    def __init__(
        self,
        room: Room,
        table_id: UUID,
        rng: random.Random,
        committed: Callable[[UUID, int], None] = lambda _table, _version: None,
        pool: Sequence[str] = PLAYERS,
    ) -> None:
        self.room, self.id, self.rng, self.committed = room, table_id, rng, committed
        self.pool = pool
        self.now = 0

    def step(self) -> None:
        table = self.room.table(self.id).table
        last = self.room.hand(self.id, table.hands).since if table.hands else table.opened_at
        self.now = max(self.now, last) + self.rng.randint(1, 8)
        try:
            if table.dealt is None:
                self._between_hands(table)
            else:
                self._in_hand(table)
        except RuleError:
            return  # a random choice the rules refuse: choose again next step

    def _request(self, send: Callable[[str], Outcome]) -> Outcome:
        command_id = cid()
        outcome = send(command_id)
        self.committed(self.id, self.room.table(self.id).version)
        if self.rng.random() < 0.03:
            assert send(command_id) == outcome
        return outcome

    def _between_hands(self, table: Table) -> None:
        rng, room, at = self.rng, self.room, self.now
        assert table.config is not None
        low, high = table.config.buy_in_limits()
        broke = [s for s in table.seats if s.stack == 0]
        if broke or (table.seats and rng.random() < 0.1):
            seat = (broke or list(table.seats))[0 if broke else rng.randrange(len(table.seats))]
            self._request(lambda c: room.stand_up(self.id, c, seat.number, at=at))
            return
        if rng.random() < 0.05:
            player = rng.choice(self.pool)
            balance = room.balance(player)
            if balance:
                room.cash_out(cid(), player, rng.randint(1, balance))
        empty = [n for n in range(1, table.config.seats + 1) if table.seat(n) is None]
        if empty and (len(table.seats) < 2 or rng.random() < 0.3):
            seated = {s.player for s in table.seats}
            player = rng.choice([p for p in self.pool if p not in seated])
            buy_in = rng.randint(low, high)
            self._fund(player, buy_in)
            game = table.config.rules.game
            seat = rng.choice(empty)
            post_now = VARIANTS[game].blinds and rng.random() < 0.5
            join_pot = game is Game.JACKPOTS and rng.random() < 0.5
            self._request(
                lambda c: room.sit_down(
                    self.id, c, seat, player, buy_in, at=at, post_now=post_now, join_pot=join_pot
                )
            )
            return
        short = [s for s in table.seats if s.stack < low]
        if short and rng.random() < 0.3:
            seat = rng.choice(short)
            self._fund(seat.player, high - seat.stack)
            self._request(lambda c: room.add_chips(self.id, c, seat.number, high - seat.stack))
            return
        self._request(lambda c: room.deal(self.id, c, at=at))

    def _in_hand(self, table: Table) -> None:
        rng, room, number = self.rng, self.room, table.hands
        stream = room.hand(self.id, number)
        hand = stream.hand
        roll = rng.random()
        if roll < 0.02:
            leaving = set(table.leaving)
            staying = [s for s in hand.seats if s not in leaving]
            seat = rng.choice(staying)
            self._request(lambda c: room.stand_up(self.id, c, seat, at=self.now))
        elif roll < 0.06:
            assert table.config is not None
            late = stream.since + table.config.action_clock
            seat = waiting_on(hand)[0]
            self._request(lambda c: room.time_out(self.id, number, c, seat, at=late))
        else:
            move, at = choose(hand, rng), self.now
            if isinstance(move, Act):
                self._request(
                    lambda c: room.act(
                        self.id, number, c, move.seat, move.action, amount=move.amount, at=at
                    )
                )
            elif isinstance(move, Draw):
                self._request(
                    lambda c: room.draw(self.id, number, c, move.seat, move.discards, at=at)
                )
            else:
                self._request(
                    lambda c: room.declare(self.id, number, c, move.seat, move.choice, at=at)
                )

    def _fund(self, player: str, amount: int) -> None:
        """The admin mints what the player lacks."""
        short = amount - self.room.balance(player)
        if short > 0:
            self.room.mint(cid(), player, short, by="admin")
