"""Exporting a set of hands from a store as a portable log.

A table's own stream says which hands it dealt (``HandDealt``: number, time,
players) and finished (``HandFinished``), and a hand's stream id is derived
from its table's id and number (``docs/replay.md``), so hands are chosen
from the table streams alone and then read one stream at a time.
Only finished hands are exported: a hand in progress has not revealed its
seed. Every exported table's whole stream comes with its hands, as its
chain starts at its first record. A log of everything carries every
account's stream too, so that the chips the accounts moved to and from the
tables' seats are compared with what the tables recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from uuid import UUID, uuid5

from feltline.audit.codec import TABLE_EVENT_TYPES, TOURNAMENT_EVENT_TYPES, decode_event
from feltline.engine.table.events import HandDealt
from feltline.engine.tournament import SeatsDrawn
from feltline_replay.log import Record, header
from feltline_replay.store import Rows, record

KEYS = uuid5(UUID("8c2e61d4-7a9f-4f0b-b3d5-1e6a0c9f2b77"), "keys")
"""The server's keys stream: every key that signed the store (docs/audit.md)."""
LOG = uuid5(UUID("8c2e61d4-7a9f-4f0b-b3d5-1e6a0c9f2b77"), "log")
"""The transparency log's stream: every sealed hand's leaf and every
checkpoint (docs/transparency.md)."""


def hand_id(table: UUID, number: int) -> UUID:
    """The stream id of hand ``number`` (from 1) of ``table``."""
    return uuid5(table, f"hand/{number}")


@dataclass(frozen=True)
class Selection:
    """Which hands to export; empty fields select everything. Times are the
    server's clock in whole seconds (UNIX time), compared with the deal's."""

    tables: tuple[UUID, ...] = ()
    hands: tuple[UUID, ...] = ()
    players: tuple[str, ...] = ()
    since: int | None = None
    until: int | None = None
    last: int | None = None

    @property
    def everything(self) -> bool:
        """Whether every finished hand of every chosen table is selected."""
        return (
            not (self.hands or self.players)
            and self.since is None
            and self.until is None
            and (self.last is None)
        )

    def describe(self) -> dict[str, object]:
        return {
            "tables": [str(t) for t in self.tables],
            "hands": [str(h) for h in self.hands],
            "players": list(self.players),
            "since": self.since,
            "until": self.until,
            "last": self.last,
        }


# Whether the hand of this table and number is to be left out of a log.
Withheld = Callable[[UUID, int], bool]


@dataclass(frozen=True)
class Dealt:
    """What a table's stream says of one of its hands."""

    table: UUID
    number: int
    at: int
    players: frozenset[str]

    @property
    def id(self) -> UUID:
        return hand_id(self.table, self.number)


@dataclass
class Plan:
    """The tables to export and, for each, the numbers of its chosen hands;
    the accounts, when every table is (``None`` when not)."""

    tables: list[UUID] = field(default_factory=list)
    hands: dict[UUID, list[int]] = field(default_factory=dict)
    accounts: list[UUID] | None = None
    withheld: int = 0  # finished hands left out on the exporter's word

    @property
    def count(self) -> int:
        return sum(len(h) for h in self.hands.values())


def finished_hands(rows: Rows, table: UUID) -> Iterator[Dealt]:
    """The hands ``table`` dealt and finished, in order, from its stream."""
    dealt: Dealt | None = None
    for row in rows.stream(table):
        line = record(table, *row)
        if line.get("type") == "HandDealt":
            # Decoded, not read as it lies: the deal's layout differs by version.
            event = decode_event("HandDealt", line["version"], line["data"], TABLE_EVENT_TYPES)
            assert isinstance(event, HandDealt)
            players = frozenset(s.player for s in event.deal.seats)
            dealt = Dealt(table, event.hand, event.at, players)
        elif line.get("type") == "HandFinished" and dealt is not None:
            yield dealt
            dealt = None


def plan(rows: Rows, selection: Selection, withheld: Withheld | None = None) -> Plan:
    """Which hands the selection picks, read from the tables' streams,
    but for those ``withheld`` names (noted in the plan)."""
    chosen = Plan()
    wanted = set(selection.hands)
    recent: list[Dealt] = []
    for table in rows.tables():
        if selection.tables and table not in selection.tables:
            continue
        picked = []
        for dealt in finished_hands(rows, table):
            if wanted and dealt.id not in wanted:
                continue
            if withheld is not None and withheld(table, dealt.number):
                chosen.withheld += 1
                continue
            if selection.players and not dealt.players & set(selection.players):
                continue
            if selection.since is not None and dealt.at < selection.since:
                continue
            if selection.until is not None and dealt.at > selection.until:
                continue
            picked.append(dealt)
        if selection.last is not None:
            recent = sorted([*recent, *picked], key=lambda d: d.at)[-selection.last :]
        elif picked or not selection.hands:
            chosen.tables.append(table)
            chosen.hands[table] = [d.number for d in picked]
    if selection.everything and not selection.tables:
        chosen.accounts = rows.accounts()
    if selection.last is not None:
        for dealt in sorted(recent, key=lambda d: (d.table.int, d.number)):
            if dealt.table not in chosen.hands:
                chosen.tables.append(dealt.table)
                chosen.hands[dealt.table] = []
            chosen.hands[dealt.table].append(dealt.number)
        for numbers in chosen.hands.values():
            numbers.sort()
    return chosen


def export(
    rows: Rows,
    selection: Selection,
    *,
    public_key: str | None = None,
    now: datetime | None = None,
    withheld: Withheld | None = None,
) -> Iterator[Record]:
    """The log's lines: the header, then each chosen table's records and its
    chosen hands' records, as stored. A hand ``withheld`` names is left
    out, and the log then says it is not complete (a server withholds a
    duplicate match's deal until every table has played it)."""
    chosen = plan(rows, selection, withheld)
    yield heading(rows, selection, chosen, public_key=public_key, now=now)
    whole = chosen.accounts is not None
    tournaments = rows.tournaments() if whole else played_at(rows, chosen.tables)
    yield from records(rows, chosen.tables, chosen.hands, chosen.accounts or (), tournaments)


def heading(
    rows: Rows,
    selection: Selection,
    chosen: Plan,
    *,
    public_key: str | None = None,
    now: datetime | None = None,
) -> Record:
    """The log's header for the hands ``chosen``."""
    return header(
        public_key=public_key,
        exported_at=(now or datetime.now(UTC)).isoformat(timespec="seconds"),
        source=rows.source,
        selection={**selection.describe(), "exported_hands": chosen.count},
        complete=selection.everything and not chosen.withheld,
        accounts=chosen.accounts is not None,
    )


def records(
    rows: Rows,
    tables: Sequence[UUID],
    hands: dict[UUID, list[int]],
    accounts: Sequence[UUID] = (),
    tournaments: Sequence[UUID] = (),
) -> Iterator[Record]:
    """The server's keys stream, then each of ``tournaments`` before the
    tables, so that a reader knows each of their hands' level as the hand
    comes (a running one's seat draws' seed withheld: :func:`public`); then
    each table's stored records and its hands' in order, then each
    account's, then the transparency log's (every leaf, so that any hand's
    inclusion and, in a log of every hand, that no leaf is missing are
    checked against a checkpoint)."""
    yield from keys(rows)
    for tournament in tournaments:
        yield from public([record(tournament, *row) for row in rows.stream(tournament)])
    for table in tables:
        for row in rows.stream(table):
            yield record(table, *row)
        for number in hands[table]:
            stream = hand_id(table, number)
            for row in rows.stream(stream):
                yield record(stream, *row)
    for account in accounts:
        for row in rows.stream(account):
            yield record(account, *row)
    for row in rows.stream(LOG):
        yield record(LOG, *row)


def public(lines: list[Record]) -> list[Record]:
    """A tournament's records as a log may carry them: whole once it is
    over (its seat draws' seed revealed), and while it runs without what
    nobody may see yet, the seed's record: that one keeps its place, type,
    link and signature, so the chain is checked from its link on, but not
    its ``data`` (``withheld`` true instead)."""
    if any(line.get("type") == "SeedRevealed" for line in lines):
        return lines
    return [_withheld(line) if line.get("type") == "SeedDrawn" else line for line in lines]


def _withheld(line: Record) -> Record:
    kept = {k: v for k, v in line.items() if k not in ("data", "fingerprint")}
    return {**kept, "withheld": True}


def played_at(rows: Rows, tables: Sequence[UUID]) -> list[UUID]:
    """The tournaments that had any of ``tables`` (a tournament's seat draws
    opened every table it had), whose streams a log of those tables carries
    (a running one's without its seed: :func:`public`)."""
    chosen, found = set(tables), []
    for tournament in rows.tournaments():
        for row in rows.stream(tournament):
            line = record(tournament, *row)
            if line.get("type") != "SeatsDrawn":
                continue
            event = decode_event(
                "SeatsDrawn", line["version"], line["data"], TOURNAMENT_EVENT_TYPES
            )
            assert isinstance(event, SeatsDrawn)
            if chosen & {uuid5(tournament, f"table/{c.table}") for c in event.chairs}:
                found.append(tournament)
                break
    return found


def keys(rows: Rows) -> Iterator[Record]:
    """The server's keys stream: which keys signed the store, each
    introduced by the one before (none in a store older than it)."""
    for row in rows.stream(KEYS):
        yield record(KEYS, *row)
