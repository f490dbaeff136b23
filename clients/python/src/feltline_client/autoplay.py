"""A self-driving seat for demos and end-to-end tests.

Unlike the strategies in :mod:`feltline_client.bots`, which a ``Runner``
drives from a ``Turn``, a :class:`Bot` here also sits, rebuys and stands
up on its own and reports each hand it saw end. It sits at one table with
its own token, watches it and, when its turn comes with options, picks one
at random among them (mostly checking and calling, now and then betting,
raising or folding, drawing a few cards, declaring at random). A choice the
game refuses (a jackpots bet without openers, say) is replaced by the
safest one. It knows no rules of its own: the server's ``LegalActions``
say what it may do.

When broke between hands it buys in again; when told to stop it stands up
and stops once the table no longer deals it in.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

import grpc

from feltline_client.client import Client, Seen
from feltline_client.errors import FeltlineError
from feltline_protos.v1 import common_pb2, tables_pb2, watch_pb2

K = common_pb2.ActionKind
DECLARE: tuple[Literal["low", "high", "both"], ...] = ("low", "high", "both")


@dataclass
class Tally:
    """What a bot did: decisions sent, refusals it got, hands it saw end."""

    actions: int = 0
    refused: int = 0
    hands: set[int] = field(default_factory=set)


class Bot:
    """One player at one seat of one table."""

    def __init__(
        self,
        client: Client,
        table_id: str,
        seat: int,
        buy_in: int,
        *,
        rng: random.Random | None = None,
        aggression: float = 0.2,
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.seat = seat
        self.buy_in = buy_in
        self.rng = rng or random.Random()
        self.aggression = aggression
        self.tally = Tally()
        self.seen: Seen | None = None
        self.stopping = threading.Event()
        self.left = False

    def sit(self) -> None:
        self.client.sit_down(self.table_id, self.seat, self.buy_in)

    def stop(self) -> None:
        """Stand up (after the hand, if one is played) and stop watching."""
        self.stopping.set()

    def play(self, on_hand: Callable[[int], None] = lambda _n: None) -> Tally:
        """Watch and play until stopped and out of the game. ``on_hand`` hears
        of each hand finished at the table."""
        stream = self.client.watch(self.table_id)
        try:
            for item in stream:
                self._see(item, on_hand)
                if self.left:
                    break
        except FeltlineError as e:
            if e.code is not grpc.StatusCode.CANCELLED:
                raise
        finally:
            close = getattr(stream, "close", None)
            if close is not None:  # cancels the call
                close()
        return self.tally

    def _see(self, item: watch_pb2.WatchTableResponse, on_hand: Callable[[int], None]) -> None:
        case = item.WhichOneof("item")
        if case == "snapshot":
            table = item.snapshot.table
            if table.HasField("current_hand"):
                self.seen = Seen.of(table.current_hand)
                if table.current_hand.HasField("turn"):
                    self._turn(table.current_hand.turn)
        elif case == "event":
            event = item.event
            if event.hand_number:
                self.seen = Seen(event.hand_number, event.sequence)
            body = event.WhichOneof("kind")
            if body == "hand_finished":
                number = self.seen.hand_number if self.seen else 0
                self.tally.hands.add(number)
                on_hand(number)
                self._between_hands(event.hand_finished.stacks)
            elif body == "stood_up" and event.stood_up.seat == self.seat and self.stopping.is_set():
                self.left = True
        elif case == "turn":
            self._turn(item.turn)

    def _between_hands(self, stacks: Iterable[common_pb2.SeatAmount]) -> None:
        if self.stopping.is_set():
            self._leave()
            return
        mine = next((s.amount for s in stacks if s.seat == self.seat), None)
        if mine == 0:  # broke: buy in again
            try:
                self.client.stand_up(self.table_id)
                self.client.sit_down(self.table_id, self.seat, self.buy_in)
            except FeltlineError:
                self.tally.refused += 1

    def _leave(self) -> None:
        try:
            reply = self.client.stand_up(self.table_id)
        except FeltlineError as e:
            if e.reason != "NOT_SEATED":
                raise
            self.left = True
            return
        if not reply.leaving_after_hand:
            self.left = True

    def _turn(self, turn: tables_pb2.Turn) -> None:
        if not turn.HasField("options") or self.seen is None:
            return
        if self.stopping.is_set():
            self._leave()
        options = turn.options
        try:
            self._decide(options, self.seen)
        except FeltlineError as e:
            self.tally.refused += 1
            if e.reason in ("STALE_STATE", "NOT_YOUR_TURN", "WRONG_PHASE", "NOT_SEATED"):
                return  # the hand moved on: the next turn will come
            self._safe(options, self.seen)
        self.tally.actions += 1

    def _decide(self, o: tables_pb2.LegalActions, seen: Seen) -> None:
        c, t, rng = self.client, self.table_id, self.rng
        if o.draw:
            hand = c.get_table(t).current_hand
            mine = next(s for s in hand.seats if s.seat == self.seat)
            cards = list(mine.down_cards) + list(mine.up_cards)
            most = min(o.max_discards, len(cards), 3)
            c.draw(t, seen, rng.sample(cards, rng.randint(0, most)))
            return
        if o.declare:
            c.declare(t, seen, rng.choice(DECLARE))
            return
        kinds = set(o.actions)
        roll = rng.random()
        if K.ACTION_KIND_BRING_IN in kinds:
            c.bring_in(t, seen)
            return
        raise_kind = next(
            (
                k
                for k in (K.ACTION_KIND_BET, K.ACTION_KIND_RAISE, K.ACTION_KIND_COMPLETE)
                if k in kinds
            ),
            None,
        )
        if raise_kind is not None and roll < self.aggression:
            to = rng.randint(o.min_to, max(o.min_to, min(o.max_to, 3 * o.min_to)))
            if raise_kind == K.ACTION_KIND_BET:
                c.bet(t, seen, to)
            elif raise_kind == K.ACTION_KIND_RAISE:
                c.raise_to(t, seen, to)
            else:
                c.complete(t, seen, to)
            return
        if K.ACTION_KIND_CALL in kinds and roll > 0.9:
            c.fold(t, seen)
        elif K.ACTION_KIND_CALL in kinds:
            c.call(t, seen)
        else:
            c.check(t, seen)

    def _safe(self, o: tables_pb2.LegalActions, seen: Seen) -> None:
        """What is always allowed: stand pat, check, call, fold."""
        c, t = self.client, self.table_id
        try:
            if o.draw:
                c.draw(t, seen, [])
            elif o.declare:
                c.declare(t, seen, "high")
            elif K.ACTION_KIND_CHECK in o.actions:
                c.check(t, seen)
            elif K.ACTION_KIND_CALL in o.actions:
                c.call(t, seen)
            else:
                c.fold(t, seen)
        except FeltlineError:
            self.tally.refused += 1
