"""The Event oneof mirrors every engine event, hand and table alike."""

import dataclasses
import re
import typing

import pytest
from google.protobuf.descriptor import Descriptor

from feltline.engine.hand import events as hand_events
from feltline.engine.hand.events import Event
from feltline.engine.table import events as table_events
from feltline_protos.v1 import events_pb2

# Engine field names the contract spells differently, and why: ids of people
# are `player_id`, instants are Timestamps named for what they time, a hand is
# counted by `hand_number`, names people read are `display_name`, enums
# are named for what they hold, and a seat's bank is its `time_bank`.
RENAMES = {
    "player": "player_id",
    "at": "time",
    "entry": "status",
    "hand": "hand_number",
    "half": "part",
    "name": "display_name",
    "bank": "time_bank",
}
# Events the contract has that the engine does not: none now that tables close.
CONTRACT_ONLY: set[str] = set()


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _engine_events() -> list[type[Event]]:
    found = []
    for module in (hand_events, table_events):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Event)
                and value is not Event
                and value is not table_events.TableEvent
                and value.__module__ == module.__name__
            ):
                found.append(value)
    return found


ENGINE = _engine_events()
ONEOF = events_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"]


def test_every_engine_event_has_a_place_in_the_oneof() -> None:
    names = {field.name for field in ONEOF.fields}
    engine = {_snake(cls.__name__) for cls in ENGINE}
    assert engine <= names, engine - names
    assert names - engine == {_snake(name) for name in CONTRACT_ONLY}


def _proto_field_name(message: Descriptor, name: str) -> str:
    if name in message.fields_by_name:
        return name
    renamed = RENAMES.get(name, name)
    for instant in ("open_time", "close_time"):
        if renamed == "time" and instant in message.fields_by_name:
            return instant
    return renamed


def _fields(cls: type) -> list[tuple[str, object]]:
    """The engine record's fields and their types, a ``Deal``'s spelled out
    among its event's own, as the contract carries them."""
    hints = typing.get_type_hints(cls, vars(hand_events) | vars(table_events))
    found: list[tuple[str, object]] = []
    for field in dataclasses.fields(cls):
        if hints[field.name] is hand_events.Deal:
            found += _fields(hand_events.Deal)
        else:
            found.append((field.name, hints[field.name]))
    return found


@pytest.mark.parametrize("cls", ENGINE, ids=lambda cls: cls.__name__)
def test_every_engine_field_is_carried(cls: type[Event]) -> None:
    message = ONEOF.fields[[f.name for f in ONEOF.fields].index(_snake(cls.__name__))].message_type
    for field, hint in _fields(cls):
        name = _proto_field_name(message, field)
        assert name in message.fields_by_name, f"{cls.__name__}.{field}"
        proto = message.fields_by_name[name]
        if type(None) in typing.get_args(hint) and not proto.is_repeated:
            # None in the engine (a redacted card, no blind) is absence here.
            assert proto.has_presence, f"{cls.__name__}.{field} must be optional"


def test_redacted_fields_can_be_absent() -> None:
    """What ``redacted()`` withholds must be distinguishable from 'none'."""
    for message, fields in {
        events_pb2.DeckShuffled: ("seed", "cards"),
        events_pb2.SeedDrawn: ("seed",),
        events_pb2.CardDealt: ("card",),
        events_pb2.Drew: ("discards",),
        events_pb2.StubReshuffled: ("cards",),
        events_pb2.Declared: ("choice",),
        events_pb2.HandEnded: ("seed",),
    }.items():
        for name in fields:
            assert message.DESCRIPTOR.fields_by_name[name].has_presence, (message, name)


def test_every_redacting_event_is_listed_above() -> None:
    redacting = {cls.__name__ for cls in ENGINE if cls.redacted is not Event.redacted}
    assert redacting == {
        "DeckShuffled",
        "SeedDrawn",
        "CardDealt",
        "Drew",
        "StubReshuffled",
        "Declared",
        "HandEnded",
    }
