"""One explicit, versioned mapping between engine events and plain JSON data.

Every engine event class is listed under a stable name and a version: a
hand's in :data:`EVENT_TYPES`, the table's in :data:`TABLE_EVENT_TYPES`, each
stream decoding only its own kind. Encoding walks the dataclass fields by value; decoding walks
them by their type hints, so cards, enums, bytes and tuples come back as the
engine made them. Writing this once, generically, beats a hand-written
transcoding per class: a new event needs one line here, and the canonical JSON
it gives is exactly what the hash chain covers (see ``docs/audit.md``).

A stored event keeps the version it was written under and is upcast when it
is read (:data:`UPCASTERS`), never rewritten, so its chain link stays valid.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from functools import cache
from typing import Any, Union

from feltline.engine import tournament
from feltline.engine.cards.card import Card
from feltline.engine.cards.deck import DECK_ALGORITHM
from feltline.engine.hand import commands, events
from feltline.engine.table import events as table_events
from feltline.engine.table.house import DEFAULT_CONTRIBUTION_WINDOW_MS

JSON = Any
"""A value made of dicts with string keys, lists, strings, ints, bools and None."""


class CodecError(ValueError):
    """Data that does not decode to the event or value it claims to be."""


EVENT_TYPES: Mapping[str, tuple[type[events.Event], int]] = {
    cls.__name__: (cls, version)
    for cls, version in (
        (events.HandStarted, 3),
        (events.DeckShuffled, 1),
        (events.SeedDrawn, 1),
        (events.ContributionsOpened, 1),
        (events.ContributionCommitted, 1),
        (events.RevealsOpened, 1),
        (events.ContributionRevealed, 1),
        (events.StreetBegan, 1),
        (events.Posted, 1),
        (events.CardDealt, 1),
        (events.BoardDealt, 1),
        (events.Acted, 1),
        (events.BetsCollected, 1),
        (events.Drew, 1),
        (events.StubReshuffled, 1),
        (events.Declared, 1),
        (events.DeclarationsRevealed, 1),
        (events.Shown, 1),
        (events.PotAwarded, 1),
        (events.PassedOut, 1),
        (events.HandEnded, 1),
    )
}
"""Event name -> (class, current version). Bump the version with each change
of a class's fields and add an upcaster from the old version."""

TABLE_EVENT_TYPES: Mapping[str, tuple[type[events.Event], int]] = {
    cls.__name__: (cls, version)
    for cls, version in (
        (table_events.TableOpened, 5),
        (table_events.SatDown, 2),
        (table_events.JoinedPot, 1),
        (table_events.ChipsAdded, 1),
        (table_events.LeavingAfterHand, 1),
        (table_events.SatOut, 1),
        (table_events.SatIn, 1),
        (table_events.StoodUp, 1),
        (table_events.TimeCharged, 1),
        (table_events.TimeBankUsed, 1),
        (table_events.HandDealt, 3),
        (table_events.HandFinished, 1),
        (table_events.CarriedPotWon, 1),
        (table_events.StakesChanged, 1),
        (table_events.TableClosed, 1),
    )
}
"""The table decider's events, versioned like a hand's."""

TOURNAMENT_EVENT_TYPES: Mapping[str, tuple[type[events.Event], int]] = {
    cls.__name__: (cls, 3 if cls is tournament.TournamentCreated else 1)
    for cls in (
        tournament.TournamentCreated,
        tournament.SeedDrawn,
        tournament.Registered,
        tournament.Unregistered,
        tournament.Started,
        tournament.SeatsDrawn,
        tournament.LevelChanged,
        tournament.RegistrationClosed,
        tournament.HandBegun,
        tournament.HandPlayed,
        tournament.Eliminated,
        tournament.Placed,
        tournament.Paid,
        tournament.PlayerMoved,
        tournament.TableBroken,
        tournament.HandForHandBegun,
        tournament.RoundPlayed,
        tournament.HandForHandEnded,
        tournament.Finished,
        tournament.Cancelled,
        tournament.SeedRevealed,
    )
}
"""A tournament's events (its stream's, not a table's), versioned alike."""


def _hand_started_v1_v2(data: dict[str, JSON]) -> dict[str, JSON]:
    """Version 1 did not name the deck algorithm: only feltline-deck-v1 existed."""
    return {**data, "algorithm": DECK_ALGORITHM}


def table_config_v2(config: dict[str, JSON]) -> dict[str, JSON]:
    """A table's settings stored before seats could contribute to the deck:
    they did not (``feltline-deck-v1``), and the window, unused, is the
    default."""
    return {
        **config,
        "seat_entropy": events.Entropy.OFF.value,
        "contribution_window_ms": DEFAULT_CONTRIBUTION_WINDOW_MS,
    }


def table_config_v3(config: dict[str, JSON]) -> dict[str, JSON]:
    """A table's settings stored before mixed tables: one game, no rotation."""
    return {**config, "rotation": None}


def _config_v3(data: dict[str, JSON]) -> dict[str, JSON]:
    """``TableOpened`` version 3, a match's ``MatchCreated`` version 2 and a
    tournament's ``TournamentCreated`` version 1 hold a table's settings of
    before mixed tables."""
    config = data.get("config")
    return {**data, "config": table_config_v3(config)} if isinstance(config, dict) else data


def table_config_v4(config: dict[str, JSON]) -> dict[str, JSON]:
    """A table's settings stored before time banks: none."""
    return {**config, "time_bank": None}


def _config_v4(data: dict[str, JSON]) -> dict[str, JSON]:
    """``TableOpened`` version 4, a match's ``MatchCreated`` version 3 and a
    tournament's ``TournamentCreated`` version 2 hold a table's settings of
    before time banks."""
    config = data.get("config")
    return {**data, "config": table_config_v4(config)} if isinstance(config, dict) else data


def _hand_dealt_v2_v3(data: dict[str, JSON]) -> dict[str, JSON]:
    """Version 2 was dealt at a table of one game: no turn of a rotation."""
    return {**data, "turn": None}


def _sat_down_v1_v2(data: dict[str, JSON]) -> dict[str, JSON]:
    """Version 1 had no ``bank``: every seat sat down with the table's
    whole time bank, a moved player's too."""
    return {**data, "bank": None}


def _config_v2(data: dict[str, JSON]) -> dict[str, JSON]:
    """``TableOpened`` version 2 and a match's ``MatchCreated`` version 1
    hold a table's settings of before seat entropy. Settings that are not an
    object stay as they are, for the decoder to refuse."""
    config = data.get("config")
    return {**data, "config": table_config_v2(config)} if isinstance(config, dict) else data


def _table_opened_v1_v2(data: dict[str, JSON]) -> dict[str, JSON]:
    """Version 1 did not store the table's name (the server kept it in
    memory only), so a table opened then has none."""
    return {**data, "name": ""}


# The deal's fields as the flat layouts held them: fixed, as those layouts
# are, whatever ``events.Deal`` becomes.
_FLAT_DEAL = ("button", "seats", "antes", "small_blind", "big_blind", "extra_big_blinds", "dead")


def _deal_nested(data: dict[str, JSON]) -> dict[str, JSON]:
    """``HandStarted`` version 2 and ``HandDealt`` version 1 held the deal's
    fields beside the event's own; later versions nest them in one ``deal``
    record. A field missing stays missing, for the decoder to refuse."""
    rest = {k: v for k, v in data.items() if k not in _FLAT_DEAL}
    return {**rest, "deal": {k: data[k] for k in _FLAT_DEAL if k in data}}


UPCASTERS: Mapping[tuple[str, int], Callable[[dict[str, JSON]], dict[str, JSON]]] = {
    ("HandStarted", 1): _hand_started_v1_v2,
    ("HandStarted", 2): _deal_nested,
    ("HandDealt", 1): _deal_nested,
    ("HandDealt", 2): _hand_dealt_v2_v3,
    ("SatDown", 1): _sat_down_v1_v2,
    ("TableOpened", 1): _table_opened_v1_v2,
    ("TableOpened", 2): _config_v2,
    ("TableOpened", 3): _config_v3,
    ("TableOpened", 4): _config_v4,
    ("MatchCreated", 1): _config_v2,
    ("MatchCreated", 2): _config_v3,
    ("MatchCreated", 3): _config_v4,
    ("TournamentCreated", 1): _config_v3,
    ("TournamentCreated", 2): _config_v4,
}
"""(event name, version) -> a function from that version's data to the next's."""

COMMAND_TYPES: Mapping[str, type[commands.Command]] = {
    cls.__name__: cls
    for cls in (
        commands.StartHand,
        commands.Act,
        commands.Draw,
        commands.Declare,
        commands.TimeOut,
        commands.Cancel,
        commands.Commit,
        commands.Reveal,
        commands.CloseContributions,
    )
}


def encode_event(
    event: events.Event, types: Mapping[str, tuple[type[events.Event], int]] = EVENT_TYPES
) -> tuple[str, int, dict[str, JSON]]:
    """The event's name, current version and data."""
    name = type(event).__name__
    if types.get(name, (None, 0))[0] is not type(event):
        raise CodecError(f"{name} is not a registered event type")
    return name, types[name][1], _fields(event)


def decode_event(
    name: str,
    version: int,
    data: Mapping[str, JSON],
    types: Mapping[str, tuple[type[events.Event], int]] = EVENT_TYPES,
) -> events.Event:
    """The event stored under ``name`` and ``version``, upcast to the current version."""
    try:
        cls, current = types[name]
    except KeyError:
        raise CodecError(f"unknown event type {name!r}") from None
    if not 1 <= version <= current:
        raise CodecError(f"{name} has no version {version} (the current one is {current})")
    upcast = data if type(data) is dict else dict(data)
    for v in range(version, current):
        upcast = UPCASTERS[name, v](upcast)
    return typing.cast(events.Event, _decoder(cls)(upcast))


def encode_command(command: object) -> dict[str, JSON]:
    """A command (any dataclass) as data, named, for fingerprints of
    idempotent requests."""
    return {"type": type(command).__name__, "data": _fields(command)}


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def canonical(value: JSON) -> bytes:
    """The one byte string a value hashes as: sorted keys, no spaces, ASCII."""
    return _CANONICAL.encode(value).encode()


def _fields(obj: Any) -> dict[str, JSON]:
    fields = {}
    for name in _names(obj.__class__):
        value = getattr(obj, name)
        kind = value.__class__
        fields[name] = value if kind is int or kind is str or kind is bool else _encode(value)
    return fields


def _encode(value: object) -> JSON:
    kind = type(value)
    encode = _ENCODERS.get(kind)
    if encode is None:
        encode = _ENCODERS.setdefault(kind, _encoder(kind))
    return encode(value)


def _encoder(kind: type) -> Callable[[Any], JSON]:
    """How to encode every value of type ``kind``: chosen once per type, as
    every request encodes its command and events."""
    if kind in (type(None), bool, int, str):
        return _as_is
    if issubclass(kind, Card):
        return str
    if issubclass(kind, Enum):
        return _enum_value
    if issubclass(kind, bytes):
        return bytes.hex
    if issubclass(kind, tuple):
        return _items
    if dataclasses.is_dataclass(kind):
        return _fields
    raise CodecError(f"cannot encode a {kind.__name__}")


_ENCODERS: dict[type, Callable[[Any], JSON]] = {}


def _as_is(value: JSON) -> JSON:
    return value


def _enum_value(value: Enum) -> JSON:
    return value.value


def _items(value: tuple[object, ...]) -> JSON:
    return [_encode(v) for v in value]


@cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


Decode = Callable[[JSON], Any]

_DECODERS: dict[Any, Decode] = {}


def _decoder(hint: Any) -> Decode:
    """How to decode data of the type ``hint``, worked out once per type: a
    log of a hundred thousand hands decodes millions of fields."""
    decode = _DECODERS.get(hint)
    if decode is None:
        decode = _DECODERS.setdefault(hint, _decoder_of(hint))
    return decode


def _decoder_of(hint: Any) -> Decode:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return _optional(hint)
    if origin is tuple:
        return _sequence(typing.get_args(hint))
    if hint is Card:
        return _card
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _named(hint)
    if hint is bytes:
        return _hex
    if hint in (bool, int, str):
        return _exactly(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record(hint)
    raise CodecError(f"cannot decode a {hint!r}")


def _optional(hint: Any) -> Decode:
    options = typing.get_args(hint)
    nullable = type(None) in options
    (inner,) = [o for o in options if o is not type(None)]
    decode = _decoder(inner)

    def optional(data: JSON) -> Any:
        return None if data is None and nullable else decode(data)

    return optional


def _sequence(args: tuple[Any, ...]) -> Decode:
    def listed(data: JSON) -> list[JSON]:
        if not isinstance(data, list):
            raise CodecError(f"expected a list, got {data!r}")
        return data

    if len(args) == 2 and args[1] is Ellipsis:
        each = _decoder(args[0])
        return lambda data: tuple(map(each, listed(data)))
    items = tuple(_decoder(a) for a in args)

    def fixed(data: JSON) -> tuple[Any, ...]:
        if len(listed(data)) != len(items):
            raise CodecError(f"expected {len(items)} items, got {data!r}")
        return tuple(decode(v) for decode, v in zip(items, data, strict=True))

    return fixed


_CARDS: dict[str, Card] = {}


def _card(data: JSON) -> Card:
    card = _CARDS.get(data) if type(data) is str else None
    if card is None:
        card = _CARDS.setdefault(data, Card.parse(_expect(str, data)))
    return card


def _named(hint: type[Enum]) -> Decode:
    members = {member.value: member for member in hint}

    def named(data: JSON) -> Enum:
        try:
            return members[data]
        except (KeyError, TypeError):
            pass
        try:
            return hint(data)
        except ValueError as e:
            raise CodecError(str(e)) from None

    return named


def _hex(data: JSON) -> bytes:
    try:
        return bytes.fromhex(_expect(str, data))
    except ValueError as e:
        raise CodecError(f"bad hex {data!r}") from e


def _exactly(kind: type) -> Decode:
    def exactly(data: JSON) -> Any:
        # bool is an int in Python: refuse it where an int is due, and vice versa.
        if type(data) is not kind:
            raise CodecError(f"expected {kind.__name__}, got {data!r}")
        return data

    return exactly


def _record(hint: type) -> Decode:
    fields = _hints(hint)
    names = frozenset(fields)
    # Plain ints, strings and booleans are checked here, without a call each.
    plain = {h: h for h in (bool, int, str)}
    decoders = [(name, plain.get(h), _decoder(h)) for name, h in fields.items()]
    if not _bare(hint):

        def called(data: JSON) -> Any:
            if not isinstance(data, dict) or data.keys() != names:
                raise CodecError(f"{hint.__name__} needs exactly the fields {sorted(fields)}")
            values = {}
            for name, kind, decode in decoders:
                value = data[name]
                values[name] = value if type(value) is kind else decode(value)
            return hint(**values)

        return called
    made = object.__new__
    setters = [(name, kind, decode, getattr(hint, name).__set__) for name, kind, decode in decoders]

    def record(data: JSON) -> Any:
        if not isinstance(data, dict) or data.keys() != names:
            raise CodecError(f"{hint.__name__} needs exactly the fields {sorted(fields)}")
        # Each field set in its slot, as the frozen class's own __init__
        # does, without the call: a third of decoding a log went to it.
        obj: Any = made(hint)
        for name, kind, decode, put in setters:
            value = data[name]
            put(obj, value if type(value) is kind else decode(value))
        return obj

    return record


def _bare(cls: type) -> bool:
    """Whether an instance is its fields and nothing more: a dataclass whose
    own ``__init__`` only sets each field in its slot, with no
    ``__post_init__`` to check them, so setting the slots makes the same
    instance."""
    params = getattr(cls, "__dataclass_params__", None)
    return (
        params is not None
        and params.init
        and not hasattr(cls, "__post_init__")
        and all(f.init for f in dataclasses.fields(cls))
        and all(
            isinstance(getattr(cls, f.name, None), types.MemberDescriptorType)
            for f in dataclasses.fields(cls)
        )
    )


def _expect(kind: type, data: JSON) -> Any:
    # bool is an int in Python: refuse it where an int is due, and vice versa.
    if type(data) is not kind:
        raise CodecError(f"expected {kind.__name__}, got {data!r}")
    return data


@cache
def _hints(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}
