"""A table whose stored history does not decode or does not fit: the server
lists the other tables and names the bad one, refuses every call on it with
DATA_LOSS, logs it once, and keeps playing at the other tables."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import grpc
import pytest
from structlog.testing import capture_logs

from feltline.api import convert
from feltline.domain.ids import account_id, hand_id
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client import Client, FeltlineError, Seen
from feltline_protos.v1 import auth_pb2, tables_pb2
from tests.tables import TABLES

from .conftest import Live

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
UNREADABLE = "stored history does not verify"


def _open(admin: Client, name: str) -> str:
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 4, action_clock=30))
    return admin.create_table(config, name).table_id


def _undecodable(state: dict[str, Any]) -> bytes:
    return b"{not json"


def _misfit(state: dict[str, Any]) -> bytes:
    """Someone stands up from a seat nobody sits in: it decodes, but it
    does not fold into the table."""
    state.update(type="StoodUp", version=1, data={"seat": 3, "player": "x", "stack": 0})
    return json.dumps(state).encode()


def _unchained(state: dict[str, Any]) -> bytes:
    """A hand event's chain link rewritten: it decodes, but does not verify."""
    state["link"] = "00" * 32
    return json.dumps(state).encode()


def _corrupt(path: Path, stream: UUID, change: Callable[[dict[str, Any]], bytes]) -> None:
    """Rewrite the stream's second event as ``change`` says."""
    key = (stream.hex, 2)
    with sqlite3.connect(path) as db:
        sql = "SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = ?"
        (state,) = db.execute(sql, key).fetchone()
        db.execute(
            "UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (change(json.loads(bytes(state))), *key),
        )


def _refusal(call: Callable[[], object]) -> FeltlineError:
    with pytest.raises(FeltlineError) as caught:
        call()
    return caught.value


def _until(what: Callable[[], bool], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


@pytest.mark.parametrize("change", [_undecodable, _misfit], ids=["undecodable", "misfit"])
def test_one_unreadable_table_is_named_refused_logged_once_and_the_others_play(
    live: Live, change: Callable[[dict[str, Any]], bytes]
) -> None:
    admin = live.client(ADMIN)
    first, bad, last = (_open(admin, name) for name in ("first", "bad", "last"))
    for n in (1, 2):
        admin.mint_chips(f"p{n}", 2_000)
    live.client(PLAYER, "p1").sit_down(bad, 1, 400)
    _corrupt(live.path, UUID(bad), change)  # p1 sitting down

    with capture_logs() as logs:
        live.restart()  # a server that never held the table in memory
        admin = live.client(ADMIN)
        p1, p2 = live.client(PLAYER, "p1"), live.client(PLAYER, "p2")

        for _ in range(2):
            page = admin.list_tables_page()
            assert [t.table_id for t in page.tables] == [first, last]
            assert list(page.unreadable_table_ids) == [bad]
        closed = admin.list_tables_page(state=tables_pb2.TABLE_STATE_CLOSED)
        assert (list(closed.tables), list(closed.unreadable_table_ids)) == ([], [bad])

        calls: list[Callable[[], object]] = [
            lambda: admin.get_table(bad),
            lambda: p2.sit_down(bad, 2, 400),
            lambda: p1.stand_up(bad),
            lambda: p1.call(bad, Seen(1, 1)),
            lambda: next(iter(admin.watch(bad, reconnect=False))),
        ]
        for call in calls:
            error = _refusal(call)
            assert error.code is grpc.StatusCode.DATA_LOSS
            assert error.reason == "TABLE_UNREADABLE"
            assert error.metadata == {"table_id": bad}
            assert UNREADABLE in error.message, error.message

        # The clock passes over the bad table (opened before "last") to the others.
        p1.sit_down(last, 1, 400)
        p2.sit_down(last, 2, 400)
        _until(lambda: admin.get_table(last).HasField("current_hand"))
        hand = admin.get_table(last).current_hand
        players = {1: p1, 2: p2}
        players[hand.turn.seat].call(last, Seen.of(hand))
        seen = admin.get_table(last).current_hand.sequence
        live.clock.now += 31  # the next player's time runs out
        _until(lambda: admin.get_table(last).current_hand.sequence > seen)

    errors = [line for line in logs if line["log_level"] == "error"]
    assert [(e["event"], e["table_id"]) for e in errors] == [("table_unreadable", bad)], errors


def test_a_table_whose_hand_in_progress_does_not_verify_is_unreadable(live: Live) -> None:
    admin = live.client(ADMIN)
    good, bad = _open(admin, "good"), _open(admin, "bad")
    for n in (1, 2):
        admin.mint_chips(f"p{n}", 2_000)
        live.client(PLAYER, f"p{n}").sit_down(bad, n, 400)
    _until(lambda: admin.get_table(bad).HasField("current_hand"))
    _corrupt(live.path, hand_id(UUID(bad), 1), _unchained)
    with capture_logs() as logs:
        live.restart()
        admin = live.client(ADMIN)
        page = admin.list_tables_page()
        assert [t.table_id for t in page.tables] == [good]
        assert list(page.unreadable_table_ids) == [bad]
        error = _refusal(lambda: admin.get_table(bad))
        assert (error.code, error.reason) == (grpc.StatusCode.DATA_LOSS, "TABLE_UNREADABLE")
        assert admin.get_table(good).table_id == good
    errors = [line for line in logs if line["log_level"] == "error"]
    assert [(e["event"], e["table_id"]) for e in errors] == [("table_unreadable", bad)], errors
    assert "hand 1" in errors[0]["error"]
    assert "chain link" in errors[0]["error"]


def _minted_more(state: dict[str, Any]) -> bytes:
    """A mint raised by 1,000 chips, its link as it was: it decodes, but
    does not verify."""
    state["amount"] += 1000
    return json.dumps(state).encode()


def test_an_account_that_does_not_verify_is_refused_and_the_others_serve(live: Live) -> None:
    admin = live.client(ADMIN)
    table = _open(admin, "table")
    admin.mint_chips("p1", 2_000)
    admin.mint_chips("p1", 500)
    admin.mint_chips("p2", 2_000)
    _corrupt(live.path, account_id("p1"), _minted_more)
    bad = str(account_id("p1"))

    with capture_logs() as logs:
        live.restart()
        admin = live.client(ADMIN)
        p1, p2 = live.client(PLAYER, "p1"), live.client(PLAYER, "p2")
        calls: list[Callable[[], object]] = [
            p1.get_account,
            lambda: admin.get_account("p1"),
            lambda: admin.mint_chips("p1", 100),
            lambda: p1.sit_down(table, 1, 400),
        ]
        for call in calls:
            error = _refusal(call)
            assert error.code is grpc.StatusCode.DATA_LOSS
            assert error.reason == "ACCOUNT_UNREADABLE"
            assert error.metadata == {"account_id": bad}
            assert UNREADABLE in error.message, error.message

        assert p2.get_account().balance == 2_000
        p2.sit_down(table, 2, 400)
        assert p2.get_account().balance == 1_600
        assert len(admin.get_table(table).seats) == 1

    errors = [line for line in logs if line["log_level"] == "error"]
    assert [(e["event"], e["account_id"]) for e in errors] == [("account_unreadable", bad)]
    assert "chain link" in errors[0]["error"]
