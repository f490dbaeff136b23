import dataclasses
import json
import random
from dataclasses import replace
from types import MappingProxyType

import pytest

from feltline.audit.codec import (
    EVENT_TYPES,
    TABLE_EVENT_TYPES,
    TOURNAMENT_EVENT_TYPES,
    UPCASTERS,
    CodecError,
    canonical,
    decode_event,
    encode_command,
    encode_event,
)
from feltline.engine.cards.card import Card
from feltline.engine.cards.deck import DECK_ALGORITHM
from feltline.engine.hand.commands import Draw
from feltline.engine.hand.events import (
    Acted,
    Action,
    Deal,
    Entropy,
    HandStarted,
    PassedOut,
    SeatAtStart,
)
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.table import events as table_events
from feltline.engine.table.commands import (
    AddChips,
    ChangeStakes,
    CloseTable,
    DealHand,
    EndHand,
    OpenTable,
    SitDown,
    SitIn,
    SitOut,
    StandUp,
    UseTimeBank,
)
from feltline.engine.table.decide import decide
from feltline.engine.table.events import (
    HandDealt,
    SatDown,
    TableEvent,
    TableOpened,
    TimeBankUsed,
)
from feltline.engine.table.evolve import evolve
from feltline.engine.table.house import (
    DEFAULT_CONTRIBUTION_WINDOW_MS,
    TableConfig,
    TimeBank,
    TimeCharge,
)
from feltline.engine.table.state import Entry, Table

from .layouts import as_stored
from .play import play


@pytest.mark.parametrize("game", list(Game))
def test_every_event_of_a_hand_survives_json(game: Game) -> None:
    rng = random.Random(7)
    for _ in range(5):
        for event in play(game, rng):
            name, version, data = encode_event(event)
            again = decode_event(name, version, _through_json(data))
            assert again == event
            assert [type(v) for v in _values(again)] == [type(v) for v in _values(event)]


def _through_json(data: object) -> dict[str, object]:
    decoded: dict[str, object] = json.loads(canonical(data))
    return decoded


def _values(event: object) -> list[object]:
    return [getattr(event, f) for f in event.__dataclass_fields__]  # type: ignore[attr-defined]


def test_every_engine_event_class_is_registered() -> None:
    from feltline.engine.hand import events

    declared = {
        cls
        for cls in vars(events).values()
        if isinstance(cls, type) and issubclass(cls, events.Event) and cls is not events.Event
    }
    assert declared == {cls for cls, _ in EVENT_TYPES.values()}


def test_hand_started_stored_as_version_1_loads_with_its_algorithm() -> None:
    event = play(Game.HOLDEM, random.Random(1))[0]
    assert isinstance(event, HandStarted)
    _, version, data = encode_event(event)
    assert version == 3
    old = as_stored("HandStarted", data, version, 1)
    assert "algorithm" not in old
    assert decode_event("HandStarted", 1, _through_json(old)) == event
    assert event.algorithm == DECK_ALGORITHM


# As a server stored them before the deal was one record: its fields beside
# the event's own (HandStarted version 2, HandDealt version 1).
HAND_STARTED_V2 = """{"rules": {"game": "holdem", "stakes": {"structure": "no-limit",
 "small_bet": 10, "big_bet": 0, "ante": 0, "small_blind": 5, "big_blind": 10, "bring_in": 0,
 "raise_cap": null, "uncapped_heads_up": true}, "low": "ace-to-five", "joker": false,
 "draw_limit_small": 5, "draw_limit_large": 3, "rake": {"basis_points": 500, "cap": 20},
 "fixed_seats": 0}, "button": 6, "seats": [{"seat": 2, "player": "ann", "stack": 823,
 "carried": 0}, {"seat": 3, "player": "bob", "stack": 917, "carried": 0}, {"seat": 6,
 "player": "cy", "stack": 999, "carried": 0}], "commitment": "fe", "algorithm":
 "feltline-deck-v1", "antes": true, "small_blind": 2, "big_blind": 3, "extra_big_blinds": [6],
 "dead": 0}"""
HAND_DEALT_V1 = """{"hand": 4, "at": 78, "button": 1, "seats": [{"seat": 1, "player": "ann",
 "stack": 198, "carried": 15}, {"seat": 5, "player": "bob", "stack": 362, "carried": 15}],
 "commitment": "12", "antes": false, "small_blind": null, "big_blind": null,
 "extra_big_blinds": [], "dead": 15}"""


def test_a_version_2_hand_started_loads_with_its_deal_as_one_record() -> None:
    stakes = Stakes(Structure.NO_LIMIT, small_bet=10, small_blind=5, big_blind=10)
    seats = (SeatAtStart(2, "ann", 823), SeatAtStart(3, "bob", 917), SeatAtStart(6, "cy", 999))
    deal = Deal(6, seats, antes=True, small_blind=2, big_blind=3, extra_big_blinds=(6,))
    rules = Rules(Game.HOLDEM, stakes, rake=Rake(500, 20))
    expected = HandStarted(rules, deal, "fe", DECK_ALGORITHM)
    assert decode_event("HandStarted", 2, json.loads(HAND_STARTED_V2)) == expected
    _, version, data = encode_event(expected)
    assert version == 3
    assert set(data) == {"rules", "deal", "commitment", "algorithm"}
    assert data["deal"]["extra_big_blinds"] == [6]


def test_a_version_1_hand_dealt_loads_with_its_deal_as_one_record() -> None:
    seats = (SeatAtStart(1, "ann", 198, carried=15), SeatAtStart(5, "bob", 362, carried=15))
    expected = HandDealt(4, 78, Deal(1, seats, antes=False, dead=15), "12")
    old = json.loads(HAND_DEALT_V1)
    assert decode_event("HandDealt", 1, old, TABLE_EVENT_TYPES) == expected
    assert old == json.loads(HAND_DEALT_V1)  # the stored data, which the chain covers, untouched
    _, version, data = encode_event(expected, TABLE_EVENT_TYPES)
    assert version == 3
    assert set(data) == {"hand", "at", "deal", "commitment", "turn"}


def test_a_flat_deal_missing_a_field_is_refused() -> None:
    old = json.loads(HAND_DEALT_V1)
    del old["dead"]
    with pytest.raises(CodecError, match="Deal needs exactly the fields"):
        decode_event("HandDealt", 1, old, TABLE_EVENT_TYPES)


def test_every_deal_stored_flat_loads_as_the_event_it_was() -> None:
    """The flat layouts (tests/audit/layouts.py) hold exactly what one
    ``Deal`` does, for hands of every game and a table's deals."""
    rng = random.Random(3)
    samples = [(play(game, rng)[0], EVENT_TYPES) for game in Game]
    samples += [(e, TABLE_EVENT_TYPES) for e in _table_events() if isinstance(e, HandDealt)]
    for event, kinds in samples:
        name, version, data = encode_event(event, kinds)
        flat = {"HandStarted": 2, "HandDealt": 1}[name]  # the last flat version
        for under in range(1, flat + 1):
            old = as_stored(name, data, version, under)
            assert "deal" not in old
            assert decode_event(name, under, _through_json(old), kinds) == event


def test_cards_are_written_in_their_notation() -> None:
    assert encode_command(Draw(2, (Card.parse("As"), Card.parse("Td")))) == {
        "type": "Draw",
        "data": {"seat": 2, "discards": ["As", "Td"]},
    }


ACTED = {"seat": 1, "action": "fold", "amount": 0, "total": 0, "all_in": False, "timed_out": False}
ENDED = {"stacks": [[0, 10]], "seed": "00", "rake": 0, "cancelled": False}
DEALT = {"seat": 1, "card": "As", "face_up": False, "position": 0, "stub": 0}


@pytest.mark.parametrize(
    ("name", "version", "data", "refusal"),
    [
        ("Nope", 1, {}, "unknown event type 'Nope'"),
        ("Acted", 2, ACTED, "Acted has no version 2 (the current one is 1)"),
        ("Acted", 0, ACTED, "Acted has no version 0 (the current one is 1)"),
        (
            "Acted",
            1,
            {"seat": 1},
            "Acted needs exactly the fields "
            "['action', 'all_in', 'amount', 'seat', 'timed_out', 'total']",
        ),
        ("Acted", 1, {**ACTED, "seat": True}, "expected int, got True"),
        ("Acted", 1, {**ACTED, "all_in": 0}, "expected bool, got 0"),
        ("Acted", 1, {**ACTED, "action": "dance"}, "'dance' is not a valid Action"),
        ("Acted", 1, {**ACTED, "action": ["fold"]}, "['fold'] is not a valid Action"),
        ("HandEnded", 1, {**ENDED, "stacks": 5}, "expected a list, got 5"),
        ("HandEnded", 1, {**ENDED, "stacks": [[0, 1, 2]]}, "expected 2 items, got [0, 1, 2]"),
        ("HandEnded", 1, {**ENDED, "seed": "zz"}, "bad hex 'zz'"),
        ("HandEnded", 1, {**ENDED, "seed": 0}, "bad hex 0"),
        ("CardDealt", 1, {**DEALT, "card": ["As"]}, "expected str, got ['As']"),
        ("CardDealt", 1, {**DEALT, "card": 5}, "expected str, got 5"),
    ],
)
def test_bad_data_is_refused_saying_what_is_wrong(
    name: str, version: int, data: dict[str, object], refusal: str
) -> None:
    with pytest.raises(CodecError) as refused:
        decode_event(name, version, data)
    assert str(refused.value) == refusal


def test_a_record_with_a_field_too_many_is_refused_even_where_its_init_decodes_it() -> None:
    from feltline.audit.codec import _decoder
    from feltline.engine.hand.pot import Pot

    with pytest.raises(CodecError) as refused:
        _decoder(Pot)({"amount": 5, "eligible": [1], "extra": 1})
    assert str(refused.value) == "Pot needs exactly the fields ['amount', 'eligible']"


def test_a_type_the_codec_does_not_know_is_refused_by_name() -> None:
    from feltline.audit.codec import _decoder

    @dataclasses.dataclass(frozen=True)
    class Odds:
        value: float

    with pytest.raises(CodecError) as refused:
        encode_command(Odds(1.5))
    assert str(refused.value) == "cannot encode a float"
    with pytest.raises(CodecError) as refused:
        _decoder(float)
    assert str(refused.value) == "cannot decode a <class 'float'>"


def test_data_read_as_any_mapping_decodes_as_a_dict_does() -> None:
    """A store may hand over its data as a read-only mapping: decoded (and
    upcast) from a copy, never refused for not being a ``dict``."""
    event = play(Game.HOLDEM, random.Random(1))[0]
    name, version, data = encode_event(event)
    assert decode_event(name, version, MappingProxyType(data)) == event
    old = as_stored(name, data, version, 1)
    assert decode_event(name, 1, MappingProxyType(_through_json(old))) == event


def test_canonical_form_is_sorted_and_compact() -> None:
    _, _, data = encode_event(Acted(seat=1, action=Action.CALL, amount=5, total=10))
    assert canonical(data) == (
        b'{"action":"call","all_in":false,"amount":5,"seat":1,"timed_out":false,"total":10}'
    )


def _table_events() -> list[TableEvent]:
    """One of each table event: a jackpots table's two passed deals."""
    rules = Rules(Game.JACKPOTS, Stakes(Structure.FIXED_LIMIT, small_bet=2, big_bet=4, ante=1))
    state = Table()
    made: list[TableEvent] = []
    for command in (
        OpenTable(
            TableConfig(rules, 6, time_charge=TimeCharge(1, 60), time_bank=TimeBank(20, 5)),
            at=0,
            name="Pots",
        ),
        SitDown(1, "ann", 50, at=0),
        SitDown(2, "bob", 50, at=0),
        AddChips(2, 10),
        DealHand(at=5, seed=bytes(32)),
        EndHand(((1, 48), (2, 58)), passed_out=PassedOut(((1, 1), (2, 1)), dead=0)),
        SitDown(3, "cy", 50, at=6, join_pot=True),
        DealHand(at=7, seed=bytes(32)),
        SitOut(2),
        UseTimeBank(2, turn=4),
        SitIn(2),
        StandUp(1),
        EndHand(
            ((1, 47), (2, 57), (3, 47)), passed_out=PassedOut(((1, 2), (2, 2), (3, 2)), dead=0)
        ),
        StandUp(3),
        ChangeStakes(Stakes(Structure.FIXED_LIMIT, small_bet=4, big_bet=8, ante=2)),
        CloseTable(at=9, reason="the night is over"),
    ):
        for event in decide(state, command):
            state = evolve(state, event)
            made.append(event)
    return made


def test_every_table_event_class_is_registered_and_survives_json() -> None:
    declared = {
        cls
        for cls in vars(table_events).values()
        if isinstance(cls, type) and issubclass(cls, TableEvent) and cls is not TableEvent
    }
    assert declared == {cls for cls, _ in TABLE_EVENT_TYPES.values()}
    made = _table_events()
    assert {type(e) for e in made} == declared
    for event in made:
        name, version, data = encode_event(event, TABLE_EVENT_TYPES)
        assert decode_event(name, version, _through_json(data), TABLE_EVENT_TYPES) == event
    with pytest.raises(CodecError, match="not a registered"):
        encode_event(made[0])


def test_table_opened_stored_as_version_1_loads_without_a_name() -> None:
    stakes = Stakes(Structure.NO_LIMIT, small_bet=2, small_blind=1, big_blind=2)
    config = TableConfig(Rules(Game.HOLDEM, stakes), 6).validate()
    event = TableOpened(config, 3, "Friday")
    name, version, data = encode_event(event, TABLE_EVENT_TYPES)
    assert (name, version) == ("TableOpened", 5)
    del data["name"]
    for field in ("seat_entropy", "contribution_window_ms", "rotation", "time_bank"):
        del data["config"][field]
    old = decode_event(name, 1, _through_json(data), TABLE_EVENT_TYPES)
    assert old == TableOpened(config, 3, "")
    assert evolve(Table(), old).name == ""


def test_settings_stored_before_seat_entropy_load_with_it_off() -> None:
    """TableOpened version 2 and MatchCreated version 1 hold a table's
    settings without seat entropy: the seats did not contribute."""
    stakes = Stakes(Structure.NO_LIMIT, small_bet=2, small_blind=1, big_blind=2)
    config = TableConfig(
        Rules(Game.HOLDEM, stakes), 6, seat_entropy=Entropy.REQUIRED, contribution_window_ms=80
    ).validate()
    name, version, data = encode_event(TableOpened(config, 3, "Friday"), TABLE_EVENT_TYPES)
    assert version == 5
    assert data["config"]["seat_entropy"] == "required"
    assert data["config"]["contribution_window_ms"] == 80
    for field in ("seat_entropy", "contribution_window_ms", "rotation", "time_bank"):
        del data["config"][field]
    old = decode_event(name, 2, _through_json(data), TABLE_EVENT_TYPES)
    assert isinstance(old, TableOpened)
    assert old.config == replace(
        config, seat_entropy=Entropy.OFF, contribution_window_ms=DEFAULT_CONTRIBUTION_WINDOW_MS
    )
    with pytest.raises(CodecError, match="TableConfig needs exactly the fields"):
        decode_event(name, 3, _through_json(data), TABLE_EVENT_TYPES)
    from feltline.domain.match import MATCH_EVENT_TYPES, MatchCreated

    plain = replace(config, seat_entropy=Entropy.OFF, contribution_window_ms=500)
    created = MatchCreated("m", plain, ("t",), 1, 500, 1, ("ab" * 32,), "admin", 3)
    name, version, data = encode_event(created, MATCH_EVENT_TYPES)
    assert (name, version) == ("MatchCreated", 4)
    for field in ("seat_entropy", "contribution_window_ms", "rotation", "time_bank"):
        del data["config"][field]
    assert decode_event(name, 1, _through_json(data), MATCH_EVENT_TYPES) == created


def test_settings_and_deals_stored_before_mixed_tables_load_with_one_game() -> None:
    """TableOpened version 3, MatchCreated version 2 and TournamentCreated
    version 1 hold a table's settings without a rotation, HandDealt version
    2 a deal without a turn: a table of one game."""
    from feltline.domain.match import MATCH_EVENT_TYPES, MatchCreated

    stakes = Stakes(Structure.NO_LIMIT, small_bet=2, small_blind=1, big_blind=2)
    config = TableConfig(Rules(Game.HOLDEM, stakes), 6).validate()
    for types, event, name, old in (
        (TABLE_EVENT_TYPES, TableOpened(config, 3, "Friday"), "TableOpened", 3),
        (
            MATCH_EVENT_TYPES,
            MatchCreated("m", config, ("t",), 1, 500, 1, ("ab" * 32,), "admin", 3),
            "MatchCreated",
            2,
        ),
    ):
        _, version, data = encode_event(event, types)
        assert version == old + 2
        assert data["config"]["rotation"] is None
        del data["config"]["rotation"]
        del data["config"]["time_bank"]
        assert decode_event(name, old, _through_json(data), types) == event
        with pytest.raises(CodecError, match="TableConfig needs exactly the fields"):
            decode_event(name, version, _through_json(data), types)
    assert UPCASTERS["TournamentCreated", 1]({"config": {"seats": 6}}) == {
        "config": {"seats": 6, "rotation": None}
    }
    dealt = HandDealt(4, 78, Deal(1, ()), "12")
    _, version, data = encode_event(dealt, TABLE_EVENT_TYPES)
    del data["turn"]
    assert decode_event("HandDealt", 2, _through_json(data), TABLE_EVENT_TYPES) == dealt


def test_settings_stored_before_time_banks_load_with_none() -> None:
    """TableOpened version 4, MatchCreated version 3 and TournamentCreated
    version 2 hold a table's settings without a time bank: the table had
    none. A bank's use is an event of its own."""
    from feltline.domain.match import MATCH_EVENT_TYPES, MatchCreated

    stakes = Stakes(Structure.NO_LIMIT, small_bet=2, small_blind=1, big_blind=2)
    config = TableConfig(Rules(Game.HOLDEM, stakes), 6).validate()
    banked = replace(config, time_bank=TimeBank(60, 5))
    for types, event, name, old in (
        (TABLE_EVENT_TYPES, TableOpened(banked, 3, "Friday"), "TableOpened", 4),
        (
            MATCH_EVENT_TYPES,
            MatchCreated("m", banked, ("t",), 1, 500, 1, ("ab" * 32,), "admin", 3),
            "MatchCreated",
            3,
        ),
    ):
        _, version, data = encode_event(event, types)
        assert version == old + 1
        assert data["config"]["time_bank"] == {"seconds": 60, "refill": 5}
        assert decode_event(name, version, _through_json(data), types) == event
        del data["config"]["time_bank"]
        loaded = decode_event(name, old, _through_json(data), types)
        assert loaded.config == config  # type: ignore[attr-defined]
        with pytest.raises(CodecError, match="TableConfig needs exactly the fields"):
            decode_event(name, version, _through_json(data), types)
    assert TOURNAMENT_EVENT_TYPES["TournamentCreated"][1] == 3
    assert UPCASTERS["TournamentCreated", 2]({"config": {"seats": 6}}) == {
        "config": {"seats": 6, "time_bank": None}
    }
    used = TimeBankUsed(3, 45, 17)
    name, version, data = encode_event(used, TABLE_EVENT_TYPES)
    assert (name, version, data) == ("TimeBankUsed", 1, {"seat": 3, "seconds": 45, "turn": 17})
    assert decode_event(name, version, _through_json(data), TABLE_EVENT_TYPES) == used


def test_a_sat_down_stored_before_moved_banks_loads_with_the_whole_bank() -> None:
    """SatDown version 1 had no ``bank``: every seat sat down with the
    table's whole time bank, as a ``bank`` of None still says. Version 2
    holds the bank a moved tournament player brings."""
    moved = SatDown(2, "ann", 480, 7, Entry.PLAYING, 15)
    name, version, data = encode_event(moved, TABLE_EVENT_TYPES)
    assert (name, version) == ("SatDown", 2)
    assert data["bank"] == 15
    assert decode_event(name, version, _through_json(data), TABLE_EVENT_TYPES) == moved
    old = as_stored(name, data, version, 1)
    assert set(old) == {"seat", "player", "buy_in", "at", "entry"}
    loaded = decode_event(name, 1, _through_json(old), TABLE_EVENT_TYPES)
    assert loaded == SatDown(2, "ann", 480, 7, Entry.PLAYING)
    assert loaded.bank is None  # type: ignore[attr-defined]
    with pytest.raises(CodecError, match="SatDown needs exactly the fields"):
        decode_event(name, version, _through_json(old), TABLE_EVENT_TYPES)


def test_a_record_checked_after_its_init_is_decoded_through_it() -> None:
    """Events are decoded by setting their slots, as their own ``__init__``
    would; a record with a ``__post_init__`` goes through both."""
    from feltline.audit.codec import _decoder
    from feltline.engine.hand.pot import Pot

    assert _decoder(Pot)({"amount": 5, "eligible": [1, 3]}) == Pot(5, (1, 3))
    with pytest.raises(ValueError, match="cannot hold"):
        _decoder(Pot)({"amount": -1, "eligible": [1]})
    acted = decode_event("Acted", 1, encode_event(Acted(2, Action.CALL, 5, 10))[2])
    assert acted == Acted(2, Action.CALL, 5, 10)
    assert hash(acted) == hash(Acted(2, Action.CALL, 5, 10))
    with pytest.raises(AttributeError):
        acted.seat = 3  # type: ignore[misc]
