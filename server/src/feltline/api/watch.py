"""``WatchService.WatchTable``: a snapshot of the table, then every event
of the table and its hands as the caller may see them, and whose turn it is;
``WatchTableBatches``: the same, a batch per change.

Everything is read back from the store, so a watch resumes from its cursor
after a dropped connection or a restart. A cursor is the position reached
in the table's stream and in its hand in progress, and whether the turn at
that point was sent: ``<table>.<hand number>.<hand position>.<turn sent>``.
The server sends exactly what comes after it; the order is the table's
events with each hand's events right after its ``HandDealt`` (and whatever
the table recorded during the hand after what the hand recorded before).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from contextlib import aclosing
from dataclasses import dataclass
from functools import partial
from typing import Any
from uuid import UUID

import grpc

from feltline import metrics
from feltline.api import views
from feltline.api.auth import require_role
from feltline.api.convert import Where
from feltline.api.errors import ApiError
from feltline.api.feed import Stored
from feltline.api.intercept import Handler
from feltline.api.rail import POLL, Rail
from feltline.api.redaction import Viewer, may_see, view, withheld
from feltline.api.tables import ANYONE
from feltline.api.tokens import Caller
from feltline.cardroom.room import Room
from feltline.domain.ids import hand_id
from feltline.engine.hand.decide import NEW_HAND
from feltline.engine.hand.events import HandEnded
from feltline.engine.hand.state import Hand
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.events import HandDealt, HandFinished, TableClosed, TimeBankUsed
from feltline_protos.v1 import auth_pb2, errors_pb2, watch_pb2, watch_pb2_grpc

R = errors_pb2.ErrorReason


@dataclass
class Position:
    table: int = 0
    hand: int = 0
    at: int = 0  # the last position read in the hand (its seal included)
    turn: bool = False

    def cursor(self) -> str:
        return f"{self.table}.{self.hand}.{self.at}.{int(self.turn)}"

    @classmethod
    def parse(cls, text: str) -> Position:
        try:
            parts = [int(p) for p in text.split(".")]
            table, hand, at, turn = parts
            if min(parts) < 0 or turn > 1:
                raise ValueError(text)
        except ValueError:
            raise _bad_cursor() from None
        return cls(table, hand, at, bool(turn))


def _bad_cursor() -> ApiError:
    return ApiError(
        R.ERROR_REASON_INVALID_CURSOR,
        "after is not a cursor of this table: send the last cursor received, or none",
        violations=[("after", "not a cursor this server gave out for this table")],
    )


class Watcher:
    """One watch of one table by one caller."""

    def __init__(self, room: Room, rail: Rail, key: UUID, caller: Caller, where: Position) -> None:
        self.room = room
        self.rail = rail
        self.key = key
        self.caller = caller
        self.pos = where
        self.hand: Hand = NEW_HAND
        self.last: Stored | None = None  # the hand's record last sent
        self.ended = False
        self.since = 0
        self._seated: tuple[tuple[int, bool], Viewer] | None = None  # and for which hand
        stream = room.table(key)
        config = stream.table.config
        assert config is not None
        self.clock = config.action_clock
        # A watch from at or after a closed table's last event has nothing to wait for.
        self.closed = stream.table.closed and where.table >= stream.version

    def who(self) -> Viewer:
        """The caller as a viewer of the hand being sent: a player by the
        seat it was dealt, whether or not it sits there now."""
        dealt = self.pos.hand, bool(self.hand.players)  # who sits where is set at the start
        if self._seated is None or self._seated[0] != dealt:
            self._seated = dealt, Viewer.of(self.caller, self.hand.players)
        return self._seated[1]

    def rebuild(self) -> list[Stored]:
        """The hand's state at the cursor, from the store."""
        made: list[Stored] = []
        if self.pos.hand:
            for s in self.rail.hand_records(self.key, self.pos.hand)[: self.pos.at]:
                if s is not None:
                    self._fold(s)
                    made.append(s)
        return made

    def _fold(self, s: Stored) -> None:
        assert s.after is not None  # hand records come folded
        self.hand, self.last = s.after, s
        self.ended = self.ended or isinstance(s.event, HandEnded)
        self.since = s.at or 0

    def _hand_event(self, s: Stored) -> bytes:
        self._fold(s)
        self.pos.at, self.pos.turn = s.position, False
        number = self.pos.hand

        def where() -> Where:
            the_hand = str(hand_id(self.key, number))
            return Where(str(self.key), s.position, number, the_hand, views.when(s.at))

        return _sent(self.who(), s, where, self.pos.cursor(), ended=self.ended)

    def drain(self) -> Iterator[bytes]:
        if not self.pos.hand:
            return
        for s in self.rail.hand_records(self.key, self.pos.hand, self.pos.at):
            if s is None:  # the seal: no event, but a position
                self.pos.at += 1
                continue
            yield self._hand_event(s)

    def step(self) -> Iterator[bytes]:
        """Everything stored after the position; then the turn, if not sent:
        each a serialized ``WatchTableResponse``."""
        for s in self.rail.table_records(self.key, self.pos.table):
            yield from self.drain()
            if isinstance(s.event, HandDealt) and self.held(s.event):
                return  # until the match reveals the deal; its end at the last table wakes this
            self.pos.table = s.position
            hand = ""
            if isinstance(s.event, HandDealt):
                self.pos.hand, self.pos.at, self.pos.turn = s.event.hand, 0, False
                self.hand, self.last, self.ended = NEW_HAND, None, False
                hand = str(hand_id(self.key, s.event.hand))
            if isinstance(s.event, HandFinished):
                self.pos.hand, self.pos.at = 0, 0
            if isinstance(s.event, TableClosed):
                self.closed = True
            if isinstance(s.event, TimeBankUsed):
                self.pos.turn = False  # the turn again, with its new deadline
            where = partial(Where, str(self.key), s.position, hand_id=hand)
            yield _sent(self.who(), s, where, self.pos.cursor(), ended=True)
        yield from self.drain()
        if self.pos.hand and not self.pos.turn and not self.ended and self.last is not None:
            turn = self._turn(self.last)
            if turn is not None:
                self.pos.turn = True
                yield turn

    def held(self, dealt: HandDealt) -> bool:
        """Whether the hand ``dealt`` begins is withheld from this caller
        (:func:`feltline.api.redaction.withheld`)."""
        unrevealed = self.room.unrevealed(self.key, dealt.hand)
        return withheld(self.caller, dealt.deal.seats, unrevealed=unrevealed)

    def hold_back(self) -> None:
        """Move a position inside a hand withheld from this caller back to
        just before the hand's ``HandDealt``, where the watch waits for it."""
        if not self.pos.hand:
            return
        for s in self.rail.table_records(self.key, 0):
            if isinstance(s.event, HandDealt) and s.event.hand == self.pos.hand:
                if self.held(s.event):
                    self.pos = Position(s.position - 1)
                return

    def _turn(self, last: Stored) -> bytes | None:
        """Whose turn it is after ``last``, worked out once for the players
        it waits on, each shown its options, and once for everyone else."""
        who = self.who()
        cursor = Position(self.pos.table, self.pos.hand, self.pos.at, True).cursor()
        waited_on = who.role == auth_pb2.ROLE_PLAYER and who.seat in waiting_on(self.hand)
        key = who if waited_on else None, cursor
        if key not in last.turns:
            clock = self._clock()
            turn = views.turn_of(self.hand, self.since + clock, who, banked=clock > self.clock)
            last.turns[key] = (
                None
                if turn is None
                else watch_pb2.WatchTableResponse(cursor=cursor, turn=turn).SerializeToString()
            )
        return last.turns[key]

    def _clock(self) -> int:
        """The seconds the turn being sent has: the action clock, and the
        time bank when it was put on at this turn (as the table stands now)."""
        table = self.room.table(self.key).table
        if table.dealt is None or table.hands != self.pos.hand:
            return self.clock
        return table.clock_at(self.pos.at)


def _sent(who: Viewer, s: Stored, where: Callable[[], Where], cursor: str, *, ended: bool) -> bytes:
    """The message ``who`` is sent of ``s`` at ``cursor``, serialized once
    per table for all who may see it whole and once for all who may not
    (``where`` follows from ``s``)."""
    whole = may_see(who, s.event, ended=ended)
    key = whole, cursor
    sent = s.sent.get(key)
    if sent is None:
        event = view(who, s.event, where(), ended=ended)
        sent = watch_pb2.WatchTableResponse(cursor=cursor, event=event).SerializeToString()
        s.sent[key] = sent
    return sent


def _framed(batch: list[bytes]) -> bytes:
    """``batch``, serialized ``WatchTableResponse`` messages, as a serialized
    ``WatchTableBatchesResponse``: each its field 1 (length-delimited)."""
    return b"".join(b"\n" + _varint(len(m)) + m for m in batch)


def _varint(n: int) -> bytes:
    """``n`` as a protobuf varint: seven bits a byte, low first, the high
    bit set on all but the last."""
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


class WatchServicer(watch_pb2_grpc.WatchServiceServicer):
    def __init__(self, room: Room, rail: Rail, *, poll: float = POLL) -> None:
        self.room = room
        self.rail = rail
        self.poll = poll

    async def WatchTable(
        self, request: watch_pb2.WatchTableRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[watch_pb2.WatchTableResponse]:
        async for batch in self.follow(request.table_id, request.after):
            for message in batch:
                yield watch_pb2.WatchTableResponse.FromString(message)

    async def WatchTableBatches(  # type: ignore[override]  # sent as serialized
        self,
        request: watch_pb2.WatchTableBatchesRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[bytes]:
        """Serialized ``WatchTableBatchesResponse`` messages: a table's
        watchers share each message's serialization (:func:`add_to_server`)."""
        async for batch in self.follow(request.table_id, request.after):
            yield _framed(batch)

    async def follow(self, table_id: str, after: str) -> AsyncIterator[list[bytes]]:
        """The stream, a batch per change: the snapshot (unless resuming),
        then what each change at the table made; counted while open, and
        each batch until the next is asked for (:mod:`feltline.metrics`)."""
        metrics.WATCHES.inc()
        try:
            async with aclosing(self._follow(table_id, after)) as batches:
                async for batch in batches:
                    metrics.WATCH_QUEUE.inc(len(batch))
                    try:
                        yield batch
                    finally:
                        metrics.WATCH_QUEUE.dec(len(batch))
        finally:
            metrics.WATCHES.dec()

    async def _follow(self, table_id: str, after: str) -> AsyncGenerator[list[bytes], None]:
        caller = require_role(*ANYONE)
        key = views.parse_id(table_id)
        if after:
            pos = Position.parse(after)
            watcher = await asyncio.to_thread(self.resume, key, caller, pos)
        else:
            watcher, first = await asyncio.to_thread(self.snapshot, key, caller)
            yield [first.SerializeToString()]
        feed = self.rail.feed(key)
        while not self.rail.stopping.is_set():
            seen = self.rail.version(key)
            if feed.stale():  # behind, or another process stored something
                await asyncio.to_thread(feed.refresh_if_stale)
            batch = list(watcher.step())
            if batch:
                yield batch
            if watcher.closed:  # nothing comes after TableClosed
                return
            await self.rail.wait(key, seen, self.poll)
        raise ApiError(  # not a clean end: the table goes on, here or on another server
            R.ERROR_REASON_TRY_AGAIN,
            "the server is stopping: resume the watch from the last cursor",
            retry_after=0.5,
        )

    def resume(self, key: UUID, caller: Caller, pos: Position) -> Watcher:
        stream = self.room.table(key)
        if pos.table > stream.version or pos.hand > stream.table.hands:
            # A cursor another process gave out may be ahead of this one's copy.
            stream = self.room.table(key, fresh=True)
        if pos.table > stream.version or pos.hand > stream.table.hands:
            raise _bad_cursor()
        watcher = Watcher(self.room, self.rail, key, caller, pos)
        watcher.hold_back()
        watcher.rebuild()
        return watcher

    def snapshot(self, key: UUID, caller: Caller) -> tuple[Watcher, watch_pb2.WatchTableResponse]:
        with self.room.lock(key):  # every writer holds it: table and hand agree
            stream = self.room.table(key)
            t = stream.table
            hand = self.room.hand(key, t.hands) if t.dealt is not None else None
            pos = Position(stream.version)
            if hand is not None:
                pos.hand, pos.at = t.hands, hand.version
            watcher = Watcher(self.room, self.rail, key, caller, pos)
            watcher.hold_back()
            if watcher.pos is not pos:  # withheld: the snapshot shows the table only
                hand, pos = None, watcher.pos
            message = views.table_message(stream, hand, caller)
        made = watcher.rebuild()
        snapshot = watch_pb2.TableSnapshot(table=message)
        who = watcher.who()
        for s in made:
            where = Where(
                str(key), s.position, pos.hand, str(hand_id(key, pos.hand)), views.when(s.at)
            )
            snapshot.hand_events.append(view(who, s.event, where, ended=False))
        if message.HasField("current_hand") and message.current_hand.HasField("turn"):
            pos.turn = True  # the snapshot carries the turn
        return watcher, watch_pb2.WatchTableResponse(cursor=pos.cursor(), snapshot=snapshot)


def add_to_server(servicer: WatchServicer, server: grpc.aio.Server) -> None:
    """As the generated ``add_WatchServiceServicer_to_server``, except that
    ``WatchTableBatches`` sends what it yields as it is, already serialized."""
    handlers: dict[str, Handler] = {
        "WatchTable": grpc.unary_stream_rpc_method_handler(
            servicer.WatchTable,
            request_deserializer=watch_pb2.WatchTableRequest.FromString,
            response_serializer=watch_pb2.WatchTableResponse.SerializeToString,
        ),
        "WatchTableBatches": grpc.unary_stream_rpc_method_handler(
            servicer.WatchTableBatches,
            request_deserializer=watch_pb2.WatchTableBatchesRequest.FromString,
            response_serializer=bytes,
        ),
    }
    name = watch_pb2.DESCRIPTOR.services_by_name["WatchService"].full_name
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
    server.add_registered_method_handlers(name, handlers)
