"""Every engine event, hand and table alike, becomes its Event oneof case
with every field carried (compared field by field, generically)."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from enum import Enum
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from feltline.api.convert import Where, rules, table_config, to_proto
from feltline.engine.cards.card import parse_cards
from feltline.engine.cards.values import System
from feltline.engine.hand import events as hand
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.table import events as table_events
from feltline.engine.table import state as table_state
from feltline.engine.table.house import TableConfig, TimeCharge
from feltline_protos.v1 import common_pb2, events_pb2

# As in tests/protos/test_events.py: engine names the contract spells otherwise.
RENAMES = {
    "player": "player_id",
    "at": "time",
    "entry": "status",
    "hand": "hand_number",
    "bank": "time_bank",
}
RENAMED_IN = {
    ("TableOpened", "at"): "open_time",
    ("TableOpened", "name"): "display_name",
    ("TableClosed", "at"): "close_time",
    ("Share", "half"): "part",
}

C = parse_cards
STUD = Rules(
    Game.STUD_HI_LO,
    Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=2, bring_in=3, raise_cap=4),
    joker=True,
    rake=Rake(500, 30),
)
HOLDEM = Rules(Game.HOLDEM, Stakes(Structure.NO_LIMIT, small_bet=10, small_blind=5, big_blind=10))
DECLARE = Rules(
    Game.DRAW_DECLARE,
    Stakes(Structure.POT_LIMIT, small_bet=10, ante=5, uncapped_heads_up=False),
    low=System.DEUCE_TO_SEVEN,
    draw_limit_small=4,
    draw_limit_large=2,
    fixed_seats=6,
)
SEATS = (hand.SeatAtStart(1, "alice", 500), hand.SeatAtStart(3, "bob", 720, carried=15))

SAMPLES: list[hand.Event] = [
    hand.HandStarted(
        STUD,
        hand.Deal(3, SEATS, antes=False, extra_big_blinds=(4,), dead=7),
        "ab" * 32,
        "feltline-deck-v1",
    ),
    hand.HandStarted(
        HOLDEM, hand.Deal(1, SEATS, small_blind=1, big_blind=3), "cd" * 32, "feltline-deck-v1"
    ),
    hand.HandStarted(DECLARE, hand.Deal(1, SEATS), "ef" * 32, "feltline-deck-v1"),
    hand.DeckShuffled(bytes(range(32)), C("As Kd 2c Jk")),
    hand.SeedDrawn(bytes(range(32))),
    hand.ContributionsOpened((1, 3, 6), required=True),
    hand.ContributionCommitted(3, "ab" * 32),
    hand.RevealsOpened((1, 3)),
    hand.ContributionRevealed(3, bytes([0x44]) * 32),
    hand.StreetBegan(2, "flop", (3, 1)),
    hand.Posted(3, hand.Forced.BIG_BLIND, 10, all_in=True),
    hand.CardDealt(1, C("Td")[0], face_up=True, position=7, stub=1),
    hand.BoardDealt(C("2c 3d 4h"), (8, 9, 10), stub=0),
    hand.Acted(3, hand.Action.BRING_IN, 3, 5, all_in=False, timed_out=True),
    hand.BetsCollected(3, 40, 120),
    hand.Drew(1, C("As 2c"), 2, set_aside=True, timed_out=False),
    hand.StubReshuffled(C("5s 6s"), 2, "reshuffle/1"),
    hand.Declared(3, hand.Choice.BOTH, timed_out=True),
    hand.DeclarationsRevealed(((1, hand.Choice.LOW), (3, hand.Choice.HIGH))),
    hand.Shown(1, C("As Ks Qs Js Ts"), C("9c")),
    hand.PotAwarded(1, 300, (1, 3), 15, (hand.Share(1, 285, "scoop", "a straight flush"),)),
    hand.PassedOut(((1, 10), (3, 15)), 5),
    hand.HandEnded(((1, 400), (3, 805)), bytes(range(32)), 15, cancelled=True),
    table_events.TableOpened(
        TableConfig(
            dataclasses.replace(STUD, rake=None),
            8,
            200,
            500,
            TimeCharge(6, 900),
            ante_cap=2,
            seat_entropy=hand.Entropy.OPTIONAL,
            contribution_window_ms=250,
        ).validate(),
        1_900_000_000,
        "Friday stud",
    ),
    table_events.SatDown(4, "carol", 300, 1_900_000_100, table_state.Entry.POSTING, bank=15),
    table_events.JoinedPot(4, 30),
    table_events.ChipsAdded(4, 50),
    table_events.LeavingAfterHand(4),
    table_events.SatOut(4),
    table_events.SatIn(4, table_state.Entry.WAITING),
    table_events.StoodUp(4, "carol", 380, forfeited=12),
    table_events.TimeCharged(1, 6, 3),
    table_events.TimeBankUsed(1, 30, 17),
    table_events.HandDealt(
        12,
        1_900_000_200,
        hand.Deal(3, SEATS, antes=False, small_blind=1, big_blind=3, extra_big_blinds=(4,), dead=9),
        "ab" * 32,
    ),
    table_events.HandFinished(
        ((1, 400), (3, 805)), rake=15, passed_out=True, carried=((1, 5),), dead=2
    ),
    table_events.CarriedPotWon(3, 60),
    table_events.StakesChanged(
        Stakes(Structure.FIXED_LIMIT, 20, 40, ante=5, bring_in=5, raise_cap=4)
    ),
    table_events.TableClosed(1_900_000_300, "maintenance"),
]


def _engine_events() -> set[type[hand.Event]]:
    """By module, as tests/protos/test_events.py finds them (a slotted
    dataclass leaves its first draft among ``__subclasses__()``)."""
    return {
        value
        for module in (hand, table_events)
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, hand.Event)
        and value not in (hand.Event, table_events.TableEvent)
        and value.__module__ == module.__name__
    }


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_the_samples_cover_every_engine_event() -> None:
    assert {type(e) for e in SAMPLES} == _engine_events()


def _field(message: Message, owner: str, name: str) -> str:
    if name in message.DESCRIPTOR.fields_by_name:
        return name
    return RENAMED_IN.get((owner, name)) or RENAMES.get(name, name)


def _enum_name(field: Any, number: int) -> str:
    assert field.enum_type is not None
    prefix = _snake(field.enum_type.name).upper() + "_"
    return field.enum_type.values_by_number[number].name.removeprefix(prefix)


def _same(value: object, proto: Any, field: Any, where: str) -> None:
    """The engine's ``value`` says the same as the contract's ``proto``."""
    if isinstance(proto, Timestamp | Duration):
        assert proto.seconds == value, where
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        assert isinstance(proto, Message), where
        owner = type(value).__name__
        for f in dataclasses.fields(value):
            inner = getattr(value, f.name)
            if isinstance(inner, hand.Deal):  # spelled out in the message's own fields
                _same(inner, proto, field, where)
                continue
            if f.name == "contribution_window_ms":  # a Duration, to the millisecond
                assert proto.contribution_window.ToMilliseconds() == inner, where
                continue
            name = _field(proto, owner, f.name)
            descriptor = proto.DESCRIPTOR.fields_by_name[name]
            if inner is None:
                if name == "raise_cap":  # filled in with the game's default
                    continue
                assert not proto.HasField(name), f"{where}.{name}"
            else:
                _same(inner, getattr(proto, name), descriptor, f"{where}.{name}")
    elif isinstance(proto, common_pb2.CardList):
        _same(value, proto.cards, None, where)
    elif isinstance(value, tuple) and isinstance(proto, Message):  # (seat, amount) and the like
        values = [getattr(proto, f.name) for f in proto.DESCRIPTOR.fields]
        for n, (inner, descriptor) in enumerate(zip(value, proto.DESCRIPTOR.fields, strict=False)):
            _same(inner, values[n], descriptor, f"{where}[{n}]")
    elif isinstance(value, tuple):
        assert len(value) == len(proto), where
        for n, (inner, each) in enumerate(zip(value, proto, strict=True)):
            _same(inner, each, field, f"{where}[{n}]")
    elif field is not None and field.type == FieldDescriptor.TYPE_ENUM:
        name = value.name if isinstance(value, Enum) else str(value).upper()
        assert _enum_name(field, proto) == name, where
    elif type(value).__name__ == "Card":
        assert proto == str(value), where
    else:
        assert proto == value, where


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_each_event_fills_its_case_with_every_field(event: hand.Event) -> None:
    when = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    where = Where("table-1", 17, hand_number=4, hand_id="hand-4", time=when)
    message = to_proto(event, where, redacted=True)
    case = _snake(type(event).__name__)
    assert message.WhichOneof("kind") == case
    assert (message.table_id, message.sequence, message.redacted) == ("table-1", 17, True)
    assert message.time.ToDatetime(tzinfo=UTC) == when
    if isinstance(event, table_events.TableEvent):
        assert (message.hand_number, message.hand_id) == (0, "")
    else:
        assert (message.hand_number, message.hand_id) == (4, "hand-4")
    _same(event, getattr(message, case), None, case)


def test_a_dealt_hand_carries_the_id_of_the_hand_it_deals() -> None:
    dealt = next(e for e in SAMPLES if isinstance(e, table_events.HandDealt))
    message = to_proto(dealt, Where("t", 3, hand_id="hand-12"))
    assert message.hand_dealt.hand_id == "hand-12"
    assert not message.HasField("time")  # no time given


@pytest.mark.parametrize(
    "event",
    [
        hand.DeckShuffled(b"", ()),
        hand.CardDealt(2, None, face_up=False, position=1),
        hand.Drew(2, None, 3),
        hand.StubReshuffled(None, 4, "reshuffle/1"),
        hand.Declared(2, None),
    ],
    ids=lambda e: type(e).__name__,
)
def test_withheld_fields_are_absent_not_empty(event: hand.Event) -> None:
    body = getattr(to_proto(event, Where("t", 1)), _snake(type(event).__name__))
    withheld = {
        "DeckShuffled": ("seed", "cards"),
        "CardDealt": ("card",),
        "Drew": ("discards",),
        "StubReshuffled": ("cards",),
        "Declared": ("choice",),
    }[type(event).__name__]
    for name in withheld:
        assert not body.HasField(name), name


def test_rules_fill_in_the_default_raise_cap_of_fixed_limit_only() -> None:
    draw = Rules(Game.JACKPOTS, Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5))
    assert rules(draw).stakes.raise_cap == 4
    assert not rules(HOLDEM).stakes.HasField("raise_cap")
    assert not rules(HOLDEM).HasField("rake")
    assert rules(STUD).rake.basis_points == 500


def test_shown_empty_lists_are_present_and_empty() -> None:
    message = to_proto(hand.Drew(2, (), 0), Where("t", 1))
    assert message.drew.HasField("discards")
    assert list(message.drew.discards.cards) == []
    assert events_pb2.Event.FromString(message.SerializeToString()) == message


@pytest.mark.parametrize("entropy", list(hand.Entropy))
def test_a_table_s_seat_entropy_goes_to_the_contract_and_back(entropy: hand.Entropy) -> None:
    from feltline.api.views import table_config as from_contract

    config = TableConfig(HOLDEM, 6, seat_entropy=entropy, contribution_window_ms=40).validate()
    message = table_config(config)
    assert common_pb2.SeatEntropy.Name(message.seat_entropy) == f"SEAT_ENTROPY_{entropy.name}"
    assert from_contract(message).validate() == config
    message.ClearField("seat_entropy")
    message.ClearField("contribution_window")
    assert from_contract(message).validate() == dataclasses.replace(
        config, seat_entropy=hand.Entropy.OFF, contribution_window_ms=500
    )
