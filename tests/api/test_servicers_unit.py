"""Each servicer's methods called in-process through ``grpc_testing``, over
a real Room on a temporary SQLite store.

grpc_testing runs no server interceptors, so :class:`Served` does their
part as docs/api-server.md describes: it sets the caller for the call (and
for each step of a response stream), and ends a call that raised with the
status and ``ErrorInfo`` the error maps to.
"""

from __future__ import annotations

import asyncio
import contextvars
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import grpc
import grpc_testing
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from feltline.api import auth, convert
from feltline.api.accounts import AccountServicer
from feltline.api.errors import from_exception
from feltline.api.logging import log_action
from feltline.api.play import PlayServicer
from feltline.api.rail import Rail
from feltline.api.tables import TableServicer
from feltline.api.tokens import Caller, Role
from feltline.api.watch import WatchServicer
from feltline.audit.keys import Signer
from feltline.cardroom.clock import Clock
from feltline.cardroom.room import Room
from feltline.engine.hand.rules import Game
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.house import TableConfig
from feltline.store.check import check
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_protos.v1 import (
    accounts_pb2,
    auth_pb2,
    play_pb2,
    tables_pb2,
    watch_pb2,
)
from tests.tables import TABLES

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
SPECTATOR, AUDITOR = auth_pb2.ROLE_SPECTATOR, auth_pb2.ROLE_AUDITOR
TABLES_SVC = tables_pb2.DESCRIPTOR.services_by_name["TableService"]
PLAY_SVC = play_pb2.DESCRIPTOR.services_by_name["PlayService"]
WATCH_SVC = watch_pb2.DESCRIPTOR.services_by_name["WatchService"]
ACCOUNTS_SVC = accounts_pb2.DESCRIPTOR.services_by_name["AccountService"]
MISSING = str(uuid.UUID(int=7))


def _caller(role: Role, player: str = "") -> Caller:
    return Caller(role, player, uuid.uuid4().hex, datetime.now(UTC) + timedelta(hours=1))


class Served:
    """A servicer as the interceptors would serve it to ``caller``."""

    def __init__(self, servicer: object, caller: Callable[[], Caller]) -> None:
        self._servicer = servicer
        self._caller = caller

    def __getattr__(self, name: str) -> Callable[[Message, grpc.ServicerContext], Any]:
        method = getattr(self._servicer, name)

        def call(request: Message, context: grpc.ServicerContext) -> Any:
            scope = contextvars.copy_context()
            scope.run(auth._CALLER.set, self._caller())
            try:
                result = scope.run(method, request, context)
            except Exception as e:
                return self._fail(context, e)
            if isinstance(result, AsyncIterator):
                return self._stream(scope, result, context)
            return result

        return call

    def _stream(
        self,
        scope: contextvars.Context,
        items: AsyncIterator[Message],
        context: grpc.ServicerContext,
    ) -> Iterator[Message]:
        """The servicer's async stream, driven on a loop of its own, as the
        server's event loop would."""
        loop = asyncio.new_event_loop()
        try:
            while True:
                try:
                    yield scope.run(loop.run_until_complete, anext(items))
                except StopAsyncIteration:
                    return
                except Exception as e:
                    self._fail(context, e)
                    return
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    @staticmethod
    def _fail(context: grpc.ServicerContext, error: Exception) -> None:
        """End the call as ErrorInterceptor would. grpc_testing's ``abort``
        drops trailing metadata, so set the status and return instead."""
        status = from_exception(error).status()
        context.set_trailing_metadata(status.trailing_metadata)
        context.set_code(status.code)
        context.set_details(status.details)


@dataclass
class Ended:
    """How a unary call ended."""

    response: Any
    code: grpc.StatusCode
    details: str
    reason: str


@dataclass
class Unit:
    room: Room
    table_clock: Clock
    rail: Rail
    server: grpc_testing.Server
    as_caller: list[Caller]

    def call(self, role: Role, method: str, request: Message, player: str = "") -> Ended:
        self.as_caller[0] = _caller(role, player)
        service = _service_of(method)
        rpc = self.server.invoke_unary_unary(service.methods_by_name[method], (), request, None)
        response, trailing, code, details = rpc.termination()
        return Ended(response, code, details, _reason(trailing))

    def stream(
        self, role: Role, request: watch_pb2.WatchTableRequest, player: str = ""
    ) -> tuple[list[watch_pb2.WatchTableResponse], grpc.StatusCode, str]:
        """A watch to its end; it ends by itself once the table is closed."""
        self.as_caller[0] = _caller(role, player)
        rpc = self.server.invoke_unary_stream(
            WATCH_SVC.methods_by_name["WatchTable"], (), request, None
        )
        items: list[watch_pb2.WatchTableResponse] = []
        while True:
            try:
                items.append(rpc.take_response())
            except Exception:
                break
        trailing, code, _ = rpc.termination()
        return items, code, _reason(trailing)

    def first_of_watch(
        self, role: Role, request: watch_pb2.WatchTableRequest
    ) -> watch_pb2.WatchTableResponse:
        self.as_caller[0] = _caller(role)
        rpc = self.server.invoke_unary_stream(
            WATCH_SVC.methods_by_name["WatchTable"], (), request, None
        )
        first: watch_pb2.WatchTableResponse = rpc.take_response()
        rpc.cancel()
        return first


def _service_of(method: str) -> Any:
    for service in (TABLES_SVC, PLAY_SVC, ACCOUNTS_SVC, WATCH_SVC):
        if method in service.methods_by_name:
            return service
    raise KeyError(method)


def _reason(trailing: Any) -> str:
    for key, value in trailing or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


@pytest.fixture
def unit(tmp_path: Path) -> Iterator[Unit]:
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / "unit.db")}).env
    room = Room(Streams(Signer.generate(), env=env))
    table_clock = Clock(room, lambda: 1_900_000_000, logged=log_action)
    rail = Rail(room)
    table_clock.on_changed(rail.notify)
    as_caller = [_caller(ADMIN)]

    def current() -> Caller:
        return as_caller[0]

    servicers = {
        TABLES_SVC: Served(TableServicer(room, table_clock), current),
        PLAY_SVC: Served(PlayServicer(room, table_clock, rail), current),
        WATCH_SVC: Served(WatchServicer(room, rail, poll=0.01), current),
        ACCOUNTS_SVC: Served(AccountServicer(room), current),
    }
    server = grpc_testing.server_from_dictionary(servicers, grpc_testing.strict_real_time())
    yield Unit(room, table_clock, rail, server, as_caller)
    rail.stop()
    room.close()


def _rid() -> str:
    return str(uuid.uuid4())


def _create(unit: Unit, game: Game = Game.HOLDEM) -> str:
    config = convert.table_config(TableConfig(TABLES[game], 6))
    request = tables_pb2.CreateTableRequest(config=config, display_name="t", request_id=_rid())
    ended = unit.call(ADMIN, "CreateTable", request)
    assert ended.code is grpc.StatusCode.OK, ended.details
    table_id: str = ended.response.table.table_id
    return table_id


def _seat_two(unit: Unit, table: str) -> None:
    for n in (1, 2):
        minted = unit.call(
            ADMIN,
            "MintChips",
            accounts_pb2.MintChipsRequest(player_id=f"p{n}", amount=5_000, request_id=_rid()),
        )
        assert minted.code is grpc.StatusCode.OK, minted.details
        sat = unit.call(
            PLAYER,
            "SitDown",
            tables_pb2.SitDownRequest(table_id=table, seat=n, buy_in=500, request_id=_rid()),
            f"p{n}",
        )
        assert sat.code is grpc.StatusCode.OK, sat.details


# ---- TableService


def test_create_table_is_for_admins(unit: Unit) -> None:
    table = _create(unit)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
    for role in (PLAYER, SPECTATOR, AUDITOR):
        request = tables_pb2.CreateTableRequest(config=config, request_id=_rid())
        ended = unit.call(role, "CreateTable", request, "p1" if role == PLAYER else "")
        assert ended.code is grpc.StatusCode.PERMISSION_DENIED
        assert ended.reason == "ROLE_FORBIDDEN"
    assert unit.room.table(UUID(table)).table.config is not None


def test_get_and_list_tables_for_every_role(unit: Unit) -> None:
    table = _create(unit)
    for role in (PLAYER, SPECTATOR, AUDITOR, ADMIN):
        got = unit.call(role, "GetTable", tables_pb2.GetTableRequest(table_id=table), "p1")
        assert got.code is grpc.StatusCode.OK
        assert got.response.table.table_id == table
        listed = unit.call(role, "ListTables", tables_pb2.ListTablesRequest(), "p1")
        assert [t.table_id for t in listed.response.tables] == [table]
    missing = unit.call(SPECTATOR, "GetTable", tables_pb2.GetTableRequest(table_id=MISSING))
    assert missing.code is grpc.StatusCode.NOT_FOUND
    bad = unit.call(SPECTATOR, "ListTables", tables_pb2.ListTablesRequest(page_token="x"))
    assert bad.code is grpc.StatusCode.INVALID_ARGUMENT
    assert bad.reason == "INVALID_REQUEST"


def test_sit_down_and_stand_up_are_for_players(unit: Unit) -> None:
    table = _create(unit)
    _seat_two(unit, table)
    taken = unit.call(
        PLAYER,
        "SitDown",
        tables_pb2.SitDownRequest(table_id=table, seat=1, buy_in=500, request_id=_rid()),
        "p3",
    )
    assert taken.code is grpc.StatusCode.FAILED_PRECONDITION
    assert taken.reason == "SEAT_UNAVAILABLE"
    admin = unit.call(
        ADMIN,
        "SitDown",
        tables_pb2.SitDownRequest(table_id=table, seat=3, buy_in=500, request_id=_rid()),
    )
    assert admin.code is grpc.StatusCode.PERMISSION_DENIED
    stood = unit.call(
        PLAYER, "StandUp", tables_pb2.StandUpRequest(table_id=table, request_id=_rid()), "p2"
    )
    assert stood.code is grpc.StatusCode.OK, stood.details
    assert not stood.response.leaving_after_hand
    assert unit.room.balance("p2") == 5_000
    not_seated = unit.call(
        PLAYER, "StandUp", tables_pb2.StandUpRequest(table_id=table, request_id=_rid()), "p2"
    )
    assert not_seated.code is grpc.StatusCode.FAILED_PRECONDITION


def test_close_table_is_for_admins_and_cancels_the_hand(unit: Unit) -> None:
    table = _create(unit)
    _seat_two(unit, table)
    assert unit.table_clock.deal_if_ready(UUID(table))
    close = tables_pb2.CloseTableRequest(table_id=table, reason="late", request_id=_rid())
    for role in (PLAYER, SPECTATOR, AUDITOR):
        denied = unit.call(role, "CloseTable", close, "p1")
        assert denied.code is grpc.StatusCode.PERMISSION_DENIED
        assert denied.reason == "ROLE_FORBIDDEN"
    closed = unit.call(ADMIN, "CloseTable", close)
    assert closed.code is grpc.StatusCode.OK, closed.details
    assert closed.response.table.state == tables_pb2.TABLE_STATE_CLOSED
    assert [unit.room.balance(p) for p in ("p1", "p2")] == [5_000, 5_000]
    assert check(unit.room.streams).problems == []
    again = unit.call(ADMIN, "CloseTable", close)  # a retry answers as before
    assert again.code is grpc.StatusCode.OK
    other = tables_pb2.CloseTableRequest(table_id=table, request_id=_rid())
    refused = unit.call(ADMIN, "CloseTable", other)
    assert refused.code is grpc.StatusCode.FAILED_PRECONDITION
    assert refused.reason == "TABLE_CLOSED"
    missing = tables_pb2.CloseTableRequest(table_id=MISSING, request_id=_rid())
    assert unit.call(ADMIN, "CloseTable", missing).code is grpc.StatusCode.NOT_FOUND


# ---- PlayService


def test_act_plays_the_players_own_seat_on_the_current_hand(unit: Unit) -> None:
    table = _create(unit)
    _seat_two(unit, table)
    assert unit.table_clock.deal_if_ready(UUID(table))
    hand = unit.room.hand(UUID(table), 1)
    seat = waiting_on(hand.hand)[0]

    def fold(player: str, sequence: int, role: Role = PLAYER) -> Ended:
        request = play_pb2.ActRequest(
            table_id=table,
            request_id=_rid(),
            hand_number=1,
            sequence=sequence,
            fold=play_pb2.Fold(),
        )
        return unit.call(role, "Act", request, player)

    assert fold("", hand.version, SPECTATOR).code is grpc.StatusCode.PERMISSION_DENIED
    stale = fold(f"p{seat}", hand.version - 1)
    assert stale.code is grpc.StatusCode.FAILED_PRECONDITION
    assert stale.reason == "STALE_STATE"
    wrong = fold(f"p{3 - seat}", hand.version)
    assert wrong.code is grpc.StatusCode.FAILED_PRECONDITION
    assert wrong.reason == "NOT_YOUR_TURN"
    stranger = fold("p9", hand.version)
    assert stranger.code is grpc.StatusCode.FAILED_PRECONDITION
    assert stranger.reason == "NOT_SEATED"
    done = fold(f"p{seat}", hand.version)
    assert done.code is grpc.StatusCode.OK, done.details
    kinds = [e.WhichOneof("kind") for e in done.response.events]
    assert "hand_ended" in kinds
    assert "hand_finished" in kinds


# ---- AccountService


def test_accounts_mint_for_admins_and_read_for_their_owners(unit: Unit) -> None:
    mint = accounts_pb2.MintChipsRequest(player_id="ann", amount=300, request_id=_rid())
    assert unit.call(PLAYER, "MintChips", mint, "ann").code is grpc.StatusCode.PERMISSION_DENIED
    minted = unit.call(ADMIN, "MintChips", mint)
    assert minted.code is grpc.StatusCode.OK
    assert minted.response.account.balance == 300
    own = unit.call(PLAYER, "GetAccount", accounts_pb2.GetAccountRequest(), "ann")
    assert own.response.account.balance == 300
    other = unit.call(PLAYER, "GetAccount", accounts_pb2.GetAccountRequest(player_id="ann"), "bob")
    assert other.code is grpc.StatusCode.PERMISSION_DENIED
    spectator = unit.call(SPECTATOR, "GetAccount", accounts_pb2.GetAccountRequest())
    assert spectator.code is grpc.StatusCode.PERMISSION_DENIED
    audited = unit.call(AUDITOR, "GetAccount", accounts_pb2.GetAccountRequest(player_id="ann"))
    assert audited.response.account.balance == 300
    nobody = unit.call(ADMIN, "GetAccount", accounts_pb2.GetAccountRequest(player_id="zed"))
    assert nobody.code is grpc.StatusCode.NOT_FOUND
    unsaid = unit.call(ADMIN, "GetAccount", accounts_pb2.GetAccountRequest())
    assert unsaid.code is grpc.StatusCode.INVALID_ARGUMENT


# ---- WatchService


def test_a_watch_starts_with_a_snapshot_and_ends_after_the_table_closes(unit: Unit) -> None:
    table = _create(unit)
    first = unit.first_of_watch(SPECTATOR, watch_pb2.WatchTableRequest(table_id=table))
    assert first.HasField("snapshot")
    close = tables_pb2.CloseTableRequest(table_id=table, request_id=_rid())
    assert unit.call(ADMIN, "CloseTable", close).code is grpc.StatusCode.OK
    items, code, _ = unit.stream(
        SPECTATOR, watch_pb2.WatchTableRequest(table_id=table, after=first.cursor)
    )
    assert code is grpc.StatusCode.OK
    assert [i.event.WhichOneof("kind") for i in items] == ["table_closed"]


def test_a_watch_of_no_table_is_not_found(unit: Unit) -> None:
    _, code, reason = unit.stream(SPECTATOR, watch_pb2.WatchTableRequest(table_id=MISSING))
    assert code is grpc.StatusCode.NOT_FOUND
    assert reason == "TABLE_NOT_FOUND"
