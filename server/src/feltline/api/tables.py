"""``TableService``: open and close tables (admin), list and read them as the caller
may see them, sit down, sit out, sit in and stand up (players, for themselves)."""

from __future__ import annotations

from uuid import UUID

import grpc

from feltline.api import convert, views
from feltline.api.auth import require_role
from feltline.api.errors import ApiError
from feltline.api.logging import log_action
from feltline.api.redaction import withheld
from feltline.api.tokens import Caller
from feltline.cardroom.clock import Clock
from feltline.cardroom.errors import Unreadable
from feltline.cardroom.room import Room
from feltline.engine.table.events import LeavingAfterHand, SatIn, SatOut, StoodUp, TableEvent
from feltline_protos.v1 import auth_pb2, common_pb2, errors_pb2, tables_pb2, tables_pb2_grpc

R = errors_pb2.ErrorReason
ANYONE = (auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR, auth_pb2.ROLE_AUDITOR, auth_pb2.ROLE_ADMIN)
DEFAULT_PAGE = 50


class TableServicer(tables_pb2_grpc.TableServiceServicer):
    def __init__(self, room: Room, clock: Clock) -> None:
        self.room = room
        self.clock = clock

    def table(self, table_id: str, caller: Caller, *, fresh: bool = False) -> tables_pb2.Table:
        key = views.parse_id(table_id)
        stream = self.room.table(key, fresh=fresh)
        t = stream.table
        hand = self.room.hand(key, t.hands) if t.dealt is not None else None
        if hand is not None and withheld(
            caller, hand.hand.players, unrevealed=self.room.unrevealed(key, t.hands)
        ):
            hand = None
        return views.table_message(stream, hand, caller)

    def CreateTable(
        self, request: tables_pb2.CreateTableRequest, context: grpc.ServicerContext
    ) -> tables_pb2.CreateTableResponse:
        caller = require_role(auth_pb2.ROLE_ADMIN)
        config = views.table_config(request.config)
        key = self.room.open_table(
            request.request_id, config, at=self.clock.seconds(), name=request.display_name
        )
        self.clock.opened(key)
        log_action("create_table", table_id=str(key), request_id=request.request_id)
        return tables_pb2.CreateTableResponse(table=self.table(str(key), caller))

    def CloseTable(
        self, request: tables_pb2.CloseTableRequest, context: grpc.ServicerContext
    ) -> tables_pb2.CloseTableResponse:
        caller = require_role(auth_pb2.ROLE_ADMIN)
        key = views.parse_id(request.table_id)
        with self.room.lock(key):
            outcome = self.room.close_table(
                key, request.request_id, at=self.clock.seconds(), reason=request.reason
            )
            log_action(
                "close_table",
                table_id=str(key),
                hand_number=outcome.number,
                request_id=request.request_id,
            )
            self.clock.changed(key, deal=False)
            return tables_pb2.CloseTableResponse(table=self.table(request.table_id, caller))

    def ListTables(
        self, request: tables_pb2.ListTablesRequest, context: grpc.ServicerContext
    ) -> tables_pb2.ListTablesResponse:
        caller = require_role(*ANYONE)
        try:
            start = int(request.page_token or "0")
            if start < 0:
                raise ValueError(start)
        except ValueError:
            raise ApiError(
                R.ERROR_REASON_INVALID_REQUEST,
                "page_token is not one this server gave out: send the next_page_token you got",
                violations=[("page_token", "not a page token from this server")],
            ) from None
        size = request.page_size or DEFAULT_PAGE
        wanted = []
        unreadable = []
        # As GetTable: tables opened and moved on through other servers too.
        for key in self.room.tables(fresh=True):
            try:  # one table that cannot be read must not hide the others
                t = self.room.table(key).table
            except Unreadable:  # logged once where it was found
                unreadable.append(str(key))
                continue
            assert t.config is not None
            rotation = t.config.rotation
            dealt = rotation.games if rotation is not None else (t.config.rules.game,)
            games = {common_pb2.GAME_UNSPECIFIED, *map(convert.game, dealt)}
            state = tables_pb2.TABLE_STATE_CLOSED if t.closed else tables_pb2.TABLE_STATE_OPEN
            if request.game in games and request.state in (
                tables_pb2.TABLE_STATE_UNSPECIFIED,
                state,
            ):
                wanted.append(key)
        tables = []
        for key in wanted[start : start + size]:
            try:  # the hand in progress is read only for the page: it costs
                tables.append(self.table(str(key), caller))
            except Unreadable:
                unreadable.append(str(key))
        end = start + size
        return tables_pb2.ListTablesResponse(
            tables=tables,
            next_page_token=str(end) if end < len(wanted) else "",
            unreadable_table_ids=unreadable,
        )

    def GetTable(
        self, request: tables_pb2.GetTableRequest, context: grpc.ServicerContext
    ) -> tables_pb2.GetTableResponse:
        caller = require_role(*ANYONE)
        return tables_pb2.GetTableResponse(table=self.table(request.table_id, caller, fresh=True))

    def SitDown(
        self, request: tables_pb2.SitDownRequest, context: grpc.ServicerContext
    ) -> tables_pb2.SitDownResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.table_id)
        with self.room.lock(key):
            self.room.sit_down(
                key,
                request.request_id,
                request.seat,
                caller.player_id,
                request.buy_in,
                at=self.clock.seconds(),
                post_now=request.post_now,
                join_pot=request.join_pot,
            )
            log_action(
                "sit_down",
                table_id=str(key),
                seat=request.seat,
                buy_in=request.buy_in,
                request_id=request.request_id,
            )
            self.clock.changed(key, deal=False)
            return tables_pb2.SitDownResponse(table=self.table(request.table_id, caller))

    def StandUp(
        self, request: tables_pb2.StandUpRequest, context: grpc.ServicerContext
    ) -> tables_pb2.StandUpResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.table_id)
        with self.room.lock(key):
            seat = self._own_seat(key, caller, request.request_id, (StoodUp, LeavingAfterHand))
            outcome = self.room.stand_up(key, request.request_id, seat, at=self.clock.seconds())
            leaving = any(isinstance(e, LeavingAfterHand) for e in outcome.table)
            log_action(
                "stand_up",
                table_id=str(key),
                hand_number=outcome.number,
                seat=seat,
                request_id=request.request_id,
            )
            self.clock.changed(key)
            return tables_pb2.StandUpResponse(
                table=self.table(request.table_id, caller), leaving_after_hand=leaving
            )

    def SitOut(
        self, request: tables_pb2.SitOutRequest, context: grpc.ServicerContext
    ) -> tables_pb2.SitOutResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.table_id)
        with self.room.lock(key):
            seat = self._own_seat(key, caller, request.request_id, (SatOut,))
            self.room.sit_out(key, request.request_id, seat)
            log_action("sit_out", table_id=str(key), seat=seat, request_id=request.request_id)
            self.clock.changed(key, deal=False)
            return tables_pb2.SitOutResponse(table=self.table(request.table_id, caller))

    def SitIn(
        self, request: tables_pb2.SitInRequest, context: grpc.ServicerContext
    ) -> tables_pb2.SitInResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.table_id)
        with self.room.lock(key):
            seat = self._own_seat(key, caller, request.request_id, (SatIn,))
            self.room.sit_in(key, request.request_id, seat, post_now=request.post_now)
            log_action("sit_in", table_id=str(key), seat=seat, request_id=request.request_id)
            self.clock.changed(key, deal=False)  # an idle table deals once it is still
            return tables_pb2.SitInResponse(table=self.table(request.table_id, caller))

    def _own_seat(
        self,
        key: UUID,
        caller: Caller,
        request_id: str,
        made: tuple[type[SatOut | SatIn | StoodUp | LeavingAfterHand], ...],
    ) -> int:
        """The caller's seat, as stored now; for a retried request, the seat
        it was made for, so that it is answered as the first time even after
        standing up."""
        stream = self.room.table(key, fresh=True)
        done = stream.commands.get(request_id)
        events: tuple[TableEvent, ...] = done.events if done is not None else ()
        seat = next((e.seat for e in events if isinstance(e, made)), None)
        return seat if seat is not None else views.player_seat(stream.table, caller, key)
