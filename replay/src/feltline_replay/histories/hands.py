"""The hands of a portable log, one at a time, as a converter reads them.

A log holds each table's stream before its hands (docs/replay.md), so the
table's name, size and each hand's number and time are known when the hand
comes; only that much is kept of a table (its name and size, and a number
and a time for each deal whose hand is still to come), so memory does not
grow with the hands' records, however long the log. A tournament's stream
comes before its tables' (a running one's with its seed withheld), so
each of its hands' level is known too, from the tournament's ``HandBegun``.
Each hand's events are decoded from its records, and shown as the chosen
viewer may see them (:class:`feltline_replay.show.Viewer`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from uuid import UUID

from feltline.audit.codec import TABLE_EVENT_TYPES, TOURNAMENT_EVENT_TYPES, decode_event
from feltline.engine.hand.decide import replay
from feltline.engine.hand.events import Event, HandEnded, HandStarted
from feltline.engine.table.events import HandDealt, TableOpened
from feltline.engine.table.house import Turn
from feltline.engine.tournament import HandBegun, SeatsDrawn, Started, TournamentCreated
from feltline_replay.export import hand_id
from feltline_replay.log import Record
from feltline_replay.show import Viewer, load_hand
from feltline_replay.tournament import table_id


@dataclass(frozen=True)
class Seating:
    """What a history says of the table a hand was played at."""

    id: str
    name: str
    seats: int


@dataclass(frozen=True)
class Stage:
    """What a tournament says of one of its hands: the tournament (its id,
    name, buy-in and fee in account chips, starting stack, when it started
    and on how many tables) and the level the hand was dealt at, with that
    level's minutes (0 for a level of so many hands)."""

    tournament: str
    name: str
    buy_in: int
    fee: int
    stack: int
    started_at: int
    tables: int
    level: int
    minutes: int


@dataclass(frozen=True)
class LoggedHand:
    """One hand of a log: its events as ``viewer`` may see them, and where
    and when it was played (``number`` from 1 at its table; ``at`` UNIX
    seconds). ``table`` is None when the log holds the hand without its
    table's stream. ``played`` are the events whole, for a writer to fold
    through the rules (whose turn, who is all in), never to write: what is
    written comes from ``events``. ``records`` are the hand's lines as
    logged, seal last, for a format that checks them (the HTML replayer);
    they too hold every card, so nothing is written from them. ``turn``
    is a mixed table's: the hand's game, which of its hands, the game
    after (None at a table of one game, or without the table's stream).
    ``stage`` is a tournament hand's level (None for any other hand, or
    without the tournament's stream)."""

    id: str
    events: tuple[Event, ...]
    played: tuple[Event, ...]
    viewer: Viewer
    table: Seating | None = None
    number: int | None = None
    at: int | None = None
    records: tuple[Record, ...] = ()
    turn: Turn | None = None
    stage: Stage | None = None

    @property
    def ended(self) -> HandEnded:
        last = self.events[-1]
        assert isinstance(last, HandEnded)
        return last

    def refunds(self) -> dict[int, int]:
        """What a cancelled hand hands back to each seat: all it had put
        in, chips carried from earlier deals included (none otherwise)."""
        if not self.ended.cancelled:
            return {}
        before = replay(self.played[:-1])
        return {p.seat: p.paid for p in before.players if p.paid}

    @property
    def started(self) -> HandStarted:
        first = self.events[0]
        assert isinstance(first, HandStarted)
        return first


_AUDITOR = Viewer("auditor")


def logged_hands(records: Iterable[Record], viewer: Viewer = _AUDITOR) -> Iterator[LoggedHand]:
    """Each hand of the log's records, in the log's order."""
    tables: dict[str, Seating] = {}
    deals: dict[str, Deal] = {}
    stages: dict[str, Stage] = {}
    tournaments: dict[str, Tourney] = {}
    body: list[Record] = []
    for record in records:
        kind = record.get("kind")
        if kind == "tournament":
            _tournament(record, tournaments, stages)
        elif kind == "table":
            _table(record, tables, deals)
        elif kind == "hand":
            if body and body[0].get("id") != record.get("id"):
                yield _hand(body, viewer, deals, stages)
                body = []
            body.append(record)
        elif kind == "seal" and body:
            yield _hand(body, viewer, deals, stages, record)
            body = []
    if body:
        yield _hand(body, viewer, deals, stages)


Deal = tuple[Seating, int, int, Turn | None]
"""What a table's stream says of a hand to come: its table, number, time
and turn of a rotation."""


def _table(record: Record, tables: dict[str, Seating], deals: dict[str, Deal]) -> None:
    name = record.get("type")
    if name not in ("TableOpened", "HandDealt"):
        return
    event = decode_event(str(name), record["version"], record["data"], TABLE_EVENT_TYPES)
    stream = str(record["id"])
    if isinstance(event, TableOpened):
        tables[stream] = Seating(stream, event.name, event.config.seats)
    elif isinstance(event, HandDealt) and stream in tables:
        key = str(hand_id(UUID(stream), event.hand))
        deals[key] = (tables[stream], event.hand, event.at, event.turn)


def _tournament(record: Record, tournaments: dict[str, Tourney], stages: dict[str, Stage]) -> None:
    """A tournament's set-up, start and first seat draw, kept for its
    hands, and each hand's stage by the hand's stream id."""
    name = record.get("type")
    if name not in ("TournamentCreated", "Started", "SeatsDrawn", "HandBegun"):
        return
    event = decode_event(str(name), record["version"], record["data"], TOURNAMENT_EVENT_TYPES)
    stream = str(record["id"])
    if isinstance(event, TournamentCreated):
        stage = Stage(stream, event.name, event.buy_in, event.fee, event.stack, 0, 0, 0, 0)
        tournaments[stream] = (stage, tuple(level.minutes for level in event.levels))
        return
    if stream not in tournaments:
        return
    stage, minutes = tournaments[stream]
    if isinstance(event, Started):
        tournaments[stream] = (replace(stage, started_at=event.at), minutes)
    elif isinstance(event, SeatsDrawn) and not stage.tables:
        tables = len({c.table for c in event.chairs})
        tournaments[stream] = (replace(stage, tables=tables), minutes)
    elif isinstance(event, HandBegun):
        key = str(hand_id(table_id(UUID(stream), event.table), event.hand))
        known = 0 < event.level <= len(minutes)  # else forged: `tournament` reports it
        time = minutes[event.level - 1] if known else 0
        stages[key] = replace(stage, level=event.level, minutes=time)


Tourney = tuple[Stage, tuple[int, ...]]
"""A tournament as its hands' stages need it: the stage of a hand at no
level yet, and each level's minutes."""


def _hand(
    body: list[Record],
    viewer: Viewer,
    deals: dict[str, Deal],
    stages: dict[str, Stage],
    seal: Record | None = None,
) -> LoggedHand:
    stream = str(body[0].get("id"))
    played = tuple(load_hand(body))
    started = played[0]
    if isinstance(started, HandStarted):
        viewer = viewer.seated(started)
    events = tuple(viewer.sees(e) for e in played)
    table, number, at, turn = deals.pop(stream, (None, None, body[0].get("at"), None))
    records = (*body, seal) if seal is not None else tuple(body)
    stage = stages.pop(stream, None)
    return LoggedHand(stream, events, played, viewer, table, number, at, records, turn, stage)
