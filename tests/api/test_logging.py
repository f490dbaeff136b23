"""Log lines: JSON or readable, one per action, and never a card."""

from __future__ import annotations

import io
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial

import pytest
import structlog

from feltline.api import convert, tokens
from feltline.api.logging import HANDLER_NAME, configure, log_action
from feltline.audit.keys import Signer
from feltline.engine.cards.card import Card
from feltline.engine.hand.events import CardDealt
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client import Client, FeltlineError, Seen
from feltline_protos.v1 import auth_pb2
from tests.tables import TABLES

from .conftest import Live

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
HOUR = timedelta(hours=1)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    yield
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()
    for handler in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(handler)
    root.setLevel(level)


def _lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_an_action_is_one_json_line_with_table_hand_seat_and_caller() -> None:
    out = io.StringIO()
    configure(stream=out, json=True)
    with structlog.contextvars.bound_contextvars(role="player", player_id="alice"):
        log_action("act", table_id="t-1", hand_number=3, seat=2, action="raise", to=40)
    (line,) = _lines(out)
    assert line["event"] == "act"
    assert (line["table_id"], line["hand_number"], line["seat"]) == ("t-1", 3, 2)
    assert (line["role"], line["player_id"], line["action"], line["to"]) == (
        "player",
        "alice",
        "raise",
        40,
    )
    assert line["level"] == "info"
    assert line["logger"] == "feltline.actions"
    assert str(line["timestamp"]).endswith("Z")


def test_no_line_shows_a_card() -> None:
    out = io.StringIO()
    configure(stream=out, json=True)
    dealt = CardDealt(seat=2, card=Card.parse("Qh"), face_up=False, position=4)
    log_action(
        "draw",
        table_id="t",
        seat=2,
        discards=["As", "Kd"],
        hand={"cards": ["2c"], "pot": 30, "note": ["seat 2 keeps Th"]},
        last=dealt,
        seed=b"\x01" * 32,
        reason="does not hold 9s",
    )
    try:
        raise ValueError("seat 3 holds Jc")
    except ValueError:
        structlog.get_logger("feltline.api").exception("fault")
    logging.getLogger("grpc").warning("a stray %s from a library", "Td")
    text = out.getvalue()
    for card in ("As", "Kd", "2c", "Th", "Qh", "9s", "Jc", "Td"):
        # As a word: the traceback's file path may hold "Kd" inside a name.
        assert re.search(rf"\b{card}\b", text) is None, card
    draw, fault, stray = _lines(out)
    assert draw["discards"] == "[hidden]"
    assert draw["hand"] == {"cards": "[hidden]", "pot": 30, "note": ["seat 2 keeps [card]"]}
    assert draw["seed"] == "[hidden]"
    assert "CardDealt(seat=2" in str(draw["last"])
    assert draw["reason"] == "does not hold [card]"
    assert "ValueError: seat 3 holds [card]" in str(fault["exception"])
    assert (stray["event"], stray["logger"]) == ("a stray [card] from a library", "grpc")


def test_a_terminal_gets_readable_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FELTLINE_LOG_FORMAT", raising=False)
    out = Terminal()
    configure(stream=out)
    log_action("sit_down", table_id="t-9", seat=4, cards=["Ah"])
    text = out.getvalue()
    assert "sit_down" in text
    assert "t-9" in text
    assert "Ah" not in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


@pytest.mark.parametrize(
    ("setting", "stream", "is_json"),
    [
        ("", io.StringIO, True),  # not a terminal: production
        ("", Terminal, False),
        ("json", Terminal, True),
        ("console", io.StringIO, False),
    ],
)
def test_the_format_follows_the_setting_else_the_terminal(
    monkeypatch: pytest.MonkeyPatch, setting: str, stream: type[io.StringIO], is_json: bool
) -> None:
    monkeypatch.setenv("FELTLINE_LOG_FORMAT", setting)
    out = stream()
    configure(stream=out)
    log_action("stand_up", table_id="t", seat=1)
    assert out.getvalue().startswith("{") is is_json


def test_configuring_again_replaces_the_handler() -> None:
    first, second = io.StringIO(), io.StringIO()
    configure(stream=first, json=True)
    configure(stream=second, json=True)
    log_action("deal", table_id="t", hand_number=1)
    assert first.getvalue() == ""
    assert len(_lines(second)) == 1


def test_every_refusal_is_one_line_with_its_code_method_and_caller_and_no_token(
    live: Live,
) -> None:
    out = io.StringIO()
    configure(stream=out, json=True)
    table = live.client(ADMIN).create_table(
        convert.table_config(TableConfig(TABLES[Game.HOLDEM], 2, action_clock=30)), "logged"
    )
    admin = live.client(ADMIN)
    players = {}
    for n in (1, 2):
        admin.mint_chips(f"p{n}", 1000)
        players[n] = live.client(PLAYER, f"p{n}")
        players[n].sit_down(table.table_id, n, 500)
    deadline = time.monotonic() + 10
    while not players[1].get_table(table.table_id).HasField("current_hand"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    forged = tokens.mint(Signer.generate(), ADMIN, now=datetime.now(UTC), ttl=HOUR)
    expired = tokens.mint(
        live.signer, PLAYER, now=datetime.now(UTC) - 2 * HOUR, ttl=HOUR, player_id="p1"
    )
    sent = [forged, expired, *(c.metadata()[0][1].removeprefix("Bearer ") for c in live.clients)]
    forger, late = Client(live.server.target, forged), Client(live.server.target, expired)
    live.clients += [forger, late]  # closed with the others
    refused: list[tuple[Callable[[], object], str, str, dict[str, str]]] = [
        (
            lambda: list(forger.list_tables()),
            "TableService/ListTables",
            "TOKEN_INVALID",
            {},
        ),
        (
            partial(late.get_table, table.table_id),
            "TableService/GetTable",
            "TOKEN_EXPIRED",
            {"role": "player", "player_id": "p1"},
        ),
        (
            partial(players[1].mint_chips, "p1", 5),
            "AccountService/MintChips",
            "ROLE_FORBIDDEN",
            {"role": "player", "player_id": "p1"},
        ),
        (
            partial(admin.get_table, "not a table id"),
            "TableService/GetTable",
            "INVALID_REQUEST",
            {"role": "admin", "player_id": ""},
        ),
    ]
    view = players[1].get_table(table.table_id).current_hand
    stale = Seen(view.hand_number, view.sequence - 1)
    seat = view.turn.seat
    refused.append(
        (
            partial(players[seat].call, table.table_id, stale),
            "PlayService/Act",
            "STALE_STATE",
            {"role": "player", "player_id": f"p{seat}"},
        )
    )
    for call, method, reason, who in refused:
        before = len(_lines(out))
        with pytest.raises(FeltlineError) as caught:
            call()
        assert caught.value.reason == reason
        lines = [line for line in _lines(out)[before:] if line["event"] == "refused"]
        assert len(lines) == 1, (reason, lines)
        (line,) = lines
        assert line["method"] == f"/feltline.v1.{method}"
        assert (line["code"], line["reason"]) == (caught.value.code.name, reason)
        assert line["message"] == caught.value.message
        assert line["level"] == ("warning" if reason.startswith("TOKEN_") else "info")
        assert str(line["peer"]).startswith(("ipv4:127.0.0.1:", "ipv6:[::1]:"))
        assert {key: line.get(key) for key in who} == who
        if who:
            assert line["token_id"]
    text = out.getvalue()
    for token in sent:
        for part in token.split("."):
            if len(part) > 2:
                assert part not in text
