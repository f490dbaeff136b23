"""Log lines: JSON or readable, one per action, and never a card."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator

import pytest
import structlog

from feltline.api.logging import HANDLER_NAME, configure, log_action
from feltline.engine.cards import Card
from feltline.engine.events import CardDealt


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
