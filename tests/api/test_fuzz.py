"""Random requests, valid and not, from every role against a live server:
each is answered with a status the contract defines, the server stays up,
a refused request stores nothing, and an accepted one does what it says.

Amounts lean to the house's own sizes and an example of each request that
changes something is always tried, so accepted requests are checked every
run, not only when chance makes one valid."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

import grpc
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from feltline.api import convert
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client import Client, FeltlineError
from feltline_protos.v1 import accounts_pb2, auth_pb2, common_pb2, play_pb2, tables_pb2
from tests.tables import TABLES

from .conftest import Live, serving

DEFINED = {
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.UNIMPLEMENTED,
}
ROLES = [auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR, auth_pb2.ROLE_AUDITOR, auth_pb2.ROLE_ADMIN]
TABLE = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))

ids = st.one_of(st.just("TABLE"), st.uuids().map(str), st.text(max_size=40))
request_ids = st.one_of(st.uuids().map(str), st.just(""), st.text(max_size=10))
# Mostly within a table's buy-ins and a mint's bounds, sometimes anywhere.
counts = st.one_of(st.integers(0, 2_000), st.integers(min_value=0, max_value=2**40))
names = st.one_of(st.just("p1"), st.text(max_size=70))


def requests() -> st.SearchStrategy[tuple[str, Any]]:
    act = st.builds(
        lambda t, r, h, s, which, amount, cards: (
            "Act",
            play_pb2.ActRequest(
                table_id=t,
                request_id=r,
                hand_number=h,
                sequence=s,
                **{
                    "check": {"check": play_pb2.Check()},
                    "bet": {"bet": play_pb2.Bet(to=amount)},
                    "raise": {"raise_bet": play_pb2.Raise(to=amount)},
                    "draw": {"draw": play_pb2.Draw(discards=cards)},
                    "declare": {"declare": play_pb2.Declare(declaration=amount % 5)},
                    "none": {},
                }[which],  # type: ignore[arg-type]
            ),
        ),
        ids,
        request_ids,
        counts,
        counts,
        st.sampled_from(["check", "bet", "raise", "draw", "declare", "none"]),
        counts,
        st.lists(st.sampled_from(["As", "Kd", "Jk", "zz", "1c"]), max_size=6),
    )
    sit = st.builds(
        lambda t, r, seat, buy: (
            "SitDown",
            tables_pb2.SitDownRequest(table_id=t, request_id=r, seat=seat, buy_in=buy),
        ),
        ids,
        request_ids,
        st.integers(0, 12),
        counts,
    )
    stand = st.builds(
        lambda t, r: ("StandUp", tables_pb2.StandUpRequest(table_id=t, request_id=r)),
        ids,
        request_ids,
    )
    create = st.builds(
        lambda r, seats, name: (
            "CreateTable",
            tables_pb2.CreateTableRequest(
                config=common_pb2.TableConfig(rules=TABLE.rules, seats=seats),
                display_name=name,
                request_id=r,
            ),
        ),
        request_ids,
        st.integers(0, 12),
        st.text(max_size=90),
    )
    mint = st.builds(
        lambda p, a, r: (
            "MintChips",
            accounts_pb2.MintChipsRequest(player_id=p, amount=a, request_id=r),
        ),
        names,
        counts,
        request_ids,
    )
    get = st.builds(lambda t: ("GetTable", tables_pb2.GetTableRequest(table_id=t)), ids)
    account = st.builds(
        lambda p: ("GetAccount", accounts_pb2.GetAccountRequest(player_id=p)), names
    )
    return st.one_of(act, sit, stand, create, mint, get, account)


ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
ONE, TWO = str(uuid.UUID(int=2)), str(uuid.UUID(int=3))
# Each request that changes something, as it is accepted (role, p1 funded,
# p1 seated, the call): tried every run.
MINT = (
    ADMIN,
    False,
    False,
    ("MintChips", accounts_pb2.MintChipsRequest(player_id="p1", amount=250, request_id=ONE)),
)
SIT = (
    PLAYER,
    True,
    False,
    ("SitDown", tables_pb2.SitDownRequest(table_id="TABLE", request_id=ONE, seat=2, buy_in=400)),
)
STAND = (
    PLAYER,
    True,
    True,
    ("StandUp", tables_pb2.StandUpRequest(table_id="TABLE", request_id=TWO)),
)
CREATE = (
    ADMIN,
    False,
    False,
    (
        "CreateTable",
        tables_pb2.CreateTableRequest(
            config=common_pb2.TableConfig(rules=TABLE.rules, seats=4),
            display_name="two",
            request_id=ONE,
        ),
    ),
)


@settings(max_examples=60, deadline=None)
@given(
    role=st.sampled_from(ROLES),
    funded=st.booleans(),
    seated=st.booleans(),
    call=requests(),
)
@example(*MINT)
@example(*SIT)
@example(*STAND)
@example(*CREATE)
def test_random_requests_get_defined_answers_and_refusals_store_nothing(
    role: auth_pb2.Role.ValueType, funded: bool, seated: bool, call: tuple[str, Any]
) -> None:
    """Each example has a server and store of its own, so a failure
    replays from its example alone."""
    with tempfile.TemporaryDirectory() as tmp, serving(Path(tmp) / "fuzz.db") as live:
        check_one(live, role, funded, seated, call)


def check_one(
    live: Live,
    role: auth_pb2.Role.ValueType,
    funded: bool,
    seated: bool,
    call: tuple[str, Any],
) -> None:
    """``call`` by ``role``, p1 given chips if ``funded`` and then seated at
    seat 1 if ``seated``."""
    admin = live.client(auth_pb2.ROLE_ADMIN)
    table = admin.create_table(TABLE, "fuzz", request_id=str(uuid.UUID(int=1))).table_id
    if funded:
        admin.mint_chips("p1", 1000)
        if seated:
            live.client(PLAYER, "p1").sit_down(table, 1, 500)
    client = live.client(role, "p1" if role == auth_pb2.ROLE_PLAYER else "")
    method, drawn = call
    request = type(drawn)()
    request.CopyFrom(drawn)  # the drawn one stays as drawn, for a replay
    if getattr(request, "table_id", None) == "TABLE":
        request.table_id = table
    stubs = {
        "Act": client.play.Act,
        "SitDown": client.tables.SitDown,
        "StandUp": client.tables.StandUp,
        "CreateTable": client.tables.CreateTable,
        "MintChips": client.accounts.MintChips,
        "GetTable": client.tables.GetTable,
        "GetAccount": client.accounts.GetAccount,
    }
    recorder = live.room.streams.recorder
    before = recorder.max_notification_id()
    balance = admin.get_account("p1").balance if funded else 0
    try:
        response = stubs[method](request, metadata=client.metadata(), timeout=20)
    except grpc.RpcError as e:
        code, message = e.code(), e.details() or ""  # type: ignore[attr-defined]
        assert code in DEFINED, (code, message)
        assert message
        assert recorder.max_notification_id() == before, "a refused request stored something"
    else:
        event(f"accepted: {method}")
        stored = recorder.max_notification_id() != before
        assert stored == (method not in ("GetTable", "GetAccount")), (method, stored)
        check_effect(admin, method, request, response, balance)
    # the server is still up and answers
    try:
        admin.get_table(table)
    except FeltlineError as e:  # pragma: no cover - would be a failure
        raise AssertionError(f"the server stopped answering: {e}") from e


def check_effect(admin: Client, method: str, request: Any, response: Any, balance: int) -> None:
    """What an accepted request did, read back through another client."""
    if method == "MintChips":
        assert response.account.balance == balance + request.amount
        assert admin.get_account(request.player_id).balance == response.account.balance
    elif method == "SitDown":
        seats = {s.seat: s for s in admin.get_table(request.table_id).seats if s.player_id}
        assert seats[request.seat].player_id == "p1"
        assert seats[request.seat].stack == request.buy_in
        assert admin.get_account("p1").balance == balance - request.buy_in
    elif method == "StandUp":
        seated = [s for s in admin.get_table(request.table_id).seats if s.player_id == "p1"]
        assert response.leaving_after_hand or not seated
    elif method == "CreateTable":
        made = admin.get_table(response.table.table_id)
        assert made.display_name == response.table.display_name
        assert made.config.seats == request.config.seats
    elif method == "Act":
        assert response.hand_number >= 1
        assert response.events
