"""Verifying a log (or a store read as one) without the server.

Each table's stream is folded through the engine's table rules, checking
its chain, signatures, that hand numbers follow without a gap and that each
deal starts every seat from the stack the table holds (the last hand's
result plus buy-ins, less stand-ups and time charges). Each hand is checked
on its own: chain, signatures and seal, the seed against its commitment,
the deck and every dealt card against the seed's derivation, and every
action, pot, payout and rake by playing it again through the engine
(:mod:`feltline.audit.rerun`); then tied to its table's deal and finish.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any
from uuid import UUID

from feltline.audit import chain, keys
from feltline.audit.codec import TABLE_EVENT_TYPES, CodecError, decode_event, encode_event
from feltline.audit.rerun import difference
from feltline.engine.cards import Card
from feltline.engine.dealing import fresh_deck
from feltline.engine.deck import SEED_BYTES, commitment, shuffle
from feltline.engine.events import (
    BoardDealt,
    CardDealt,
    DeckShuffled,
    Event,
    HandEnded,
    HandStarted,
    StubReshuffled,
)
from feltline.engine.table import HandDealt, HandFinished, Table, evolve
from feltline_replay.export import hand_id
from feltline_replay.log import Record


@dataclass(frozen=True)
class Failure:
    """One thing that does not hold: which check, in which stream (a hand
    is named by its id and by its table and number), at which position."""

    check: str
    kind: str
    id: str
    position: int | None
    expected: str
    found: str
    table: str | None = None
    number: int | None = None

    def __str__(self) -> str:
        where = f"{self.kind} {self.id}"
        if self.kind == "hand" and self.table is not None:
            where = f"hand {self.number} of table {self.table} ({self.id})"
        at = f" at position {self.position}" if self.position is not None else ""
        return f"{where}{at}: {self.check}: expected {self.expected}, found {self.found}"


@dataclass
class Report:
    tables: int = 0
    hands: int = 0
    failures: list[Failure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "tables": self.tables,
            "hands": self.hands,
            "failures": [asdict(f) for f in self.failures],
            "warnings": self.warnings,
        }

    def failed_hands(self) -> set[str]:
        return {f.id for f in self.failures if f.kind == "hand"}


@dataclass
class _Deal:
    """What a table recorded of one hand."""

    table: UUID
    number: int
    dealt: HandDealt
    finished: HandFinished | None = None
    seen: bool = False


def _show(event: Event | None, kinds: Any = None) -> str:
    if event is None:
        return "nothing"
    name, _, data = encode_event(event, *(() if kinds is None else (kinds,)))
    text = f"{name} {json.dumps(data, separators=(',', ':'), sort_keys=True)}"
    return text if len(text) <= 400 else text[:400] + "..."


class Verifier:
    """Feed it a log's records in order; :meth:`finish` gives the report.
    ``trusted`` is the server's public key (hex); without one, the first
    signing key met is taken, with a warning, which proves only that the
    records agree with one another."""

    def __init__(
        self,
        trusted: str | None,
        *,
        complete: bool = True,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.trusted = trusted
        self.complete = complete
        self.report = Report()
        self.deals: dict[UUID, _Deal] = {}
        self.progress = progress

    def run(self, records: Iterable[Record]) -> Report:
        for group in _streams(records):
            if group[0].get("kind") == "table":
                self.table(group)
            else:
                self.hand(group)
        return self.finish()

    def finish(self) -> Report:
        for key, deal in self.deals.items():
            if deal.finished is not None and not deal.seen and self.complete:
                self._fail(
                    "missing", "hand", str(key), None, "the hand's records", "none", deal=deal
                )
        return self.report

    # -- shared checks ---------------------------------------------------

    def _fail(  # noqa: PLR0917 (where, what was due, what was found: one call per check)
        self,
        check: str,
        kind: str,
        stream: str,
        position: int | None,
        expected: object,
        found: object,
        deal: _Deal | None = None,
    ) -> None:
        self.report.failures.append(
            Failure(
                check,
                kind,
                stream,
                position,
                str(expected),
                str(found),
                str(deal.table) if deal else None,
                deal.number if deal else None,
            )
        )

    def _trust(self, key: str, kind: str, stream: str, position: int, deal: _Deal | None) -> None:
        if self.trusted is None:
            self.trusted = key
            self.report.warnings.append(
                f"no public key given: trusting {key}, the key that signed {kind} {stream}. "
                "This shows only that the records agree with one another and were signed by "
                "one key, not that the key is your server's: give --public-key to know."
            )
        elif key != self.trusted:
            self._fail("key", kind, stream, position, f"signed by {self.trusted}", key, deal)

    def _chained(self, kind: str, records: list[Record], deal: _Deal | None) -> list[Event | None]:
        """Check positions, links and signatures; the decoded events."""
        stream = str(records[0].get("id"))
        kinds = TABLE_EVENT_TYPES if kind == "table" else None
        previous = chain.GENESIS
        made: list[Event | None] = []
        for expected_position, record in enumerate(records, 1):
            position = record.get("position")
            if position != expected_position:
                self._fail(
                    "order", kind, stream, expected_position, expected_position, position, deal
                )
            try:
                link = chain.link(
                    previous,
                    kind=kind,
                    stream=stream,
                    position=expected_position,
                    name=record["type"],
                    version=record["version"],
                    data=record["data"],
                )
                stored = bytes.fromhex(record["link"])
            except (KeyError, TypeError, ValueError) as e:
                self._fail("record", kind, stream, expected_position, "a chained record", e, deal)
                made.append(None)
                continue
            if link != stored:
                self._fail("chain", kind, stream, expected_position, link.hex(), stored.hex(), deal)
            previous = stored
            if record.get("signature"):
                signer = str(record.get("signed_by", ""))
                self._trust(signer, kind, stream, expected_position, deal)
                if not keys.verify(signer, link, str(record["signature"])):
                    self._fail(
                        "signature",
                        kind,
                        stream,
                        expected_position,
                        "a valid signature",
                        record["signature"],
                        deal,
                    )
            try:
                made.append(
                    decode_event(
                        record["type"],
                        record["version"],
                        record["data"],
                        *(() if kinds is None else (kinds,)),
                    )
                )
            except (CodecError, ValueError, TypeError) as e:
                self._fail("decode", kind, stream, expected_position, "a valid event", e, deal)
                made.append(None)
        if kind == "table" and records and not records[-1].get("signature"):
            self._fail(
                "signature", kind, stream, len(records), "the last record signed", "unsigned", deal
            )
        return made

    # -- tables ----------------------------------------------------------

    def table(self, records: list[Record]) -> None:
        self.report.tables += 1
        stream = str(records[0].get("id"))
        table_id = UUID(stream)
        events = self._chained("table", records, None)
        table = Table()
        current: _Deal | None = None
        for position, event in enumerate(events, 1):
            if event is None:
                continue
            if isinstance(event, HandDealt):
                if event.hand != table.hands + 1:
                    self._fail(
                        "hand numbers",
                        "table",
                        stream,
                        position,
                        f"hand {table.hands + 1}",
                        f"hand {event.hand}",
                    )
                for seat in event.seats:
                    held = table.seat(seat.seat)
                    share = dict(table.pot.shares).get(seat.seat, 0)
                    at = (held.player, held.stack, share) if held else None
                    if at != (seat.player, seat.stack, seat.carried):
                        self._fail(
                            "starting stacks",
                            "table",
                            stream,
                            position,
                            f"hand {event.hand} seat {seat.seat} (player, stack, carried) {at}",
                            (seat.player, seat.stack, seat.carried),
                        )
                current = _Deal(table_id, event.hand, event)
                self.deals[hand_id(table_id, event.hand)] = current
            elif isinstance(event, HandFinished) and current is not None:
                current.finished = event
            try:
                table = evolve(table, event)  # type: ignore[arg-type]
            except Exception as e:
                self._fail("table rules", "table", stream, position, "an event that applies", e)

    # -- hands -----------------------------------------------------------

    def hand(self, records: list[Record]) -> None:
        stream = str(records[0].get("id"))
        try:
            deal = self.deals.get(UUID(stream))
        except ValueError:
            deal = None
        if deal is None:
            self._fail("table", "hand", stream, None, "a hand its table dealt", "no such deal")
        elif deal.seen:
            self._fail("table", "hand", stream, None, "the hand once", "again", deal)
        if deal is not None:
            deal.seen = True
        self.report.hands += 1
        sealed = records[-1].get("kind") == "seal"
        body = records[:-1] if sealed else records
        events = self._chained("hand", body, deal)
        if not sealed:
            self._fail("seal", "hand", stream, len(records), "a seal", "none", deal)
        else:
            self._seal(stream, records[-1], body, deal)
        if None not in events and events:
            self._deal(stream, [e for e in events if e is not None], deal)
        if self.progress:
            self.progress(self.report.hands)

    def _seal(self, stream: str, seal: Record, body: list[Record], deal: _Deal | None) -> None:
        position = len(body) + 1
        if seal.get("position") != position:
            self._fail("order", "hand", stream, position, position, seal.get("position"), deal)
        last = body[-1].get("link") if body else None
        if seal.get("link") != last or seal.get("algorithm") != chain.CHAIN_ALGORITHM:
            self._fail(
                "seal",
                "hand",
                stream,
                position,
                f"{chain.CHAIN_ALGORITHM} over {last}",
                seal.get("link"),
                deal,
            )
        key = str(seal.get("public_key", ""))
        self._trust(key, "hand", stream, position, deal)
        try:
            digest = bytes.fromhex(str(seal.get("link")))
        except ValueError:
            digest = b""
        if not keys.verify(key, digest, str(seal.get("signature", ""))):
            self._fail(
                "seal signature",
                "hand",
                stream,
                position,
                "a valid signature",
                seal.get("signature"),
                deal,
            )

    def _deal(self, stream: str, events: list[Event], deal: _Deal | None) -> None:
        started, ended = events[0], events[-1]
        if not isinstance(started, HandStarted) or not isinstance(ended, HandEnded):
            self._fail(
                "rules",
                "hand",
                stream,
                1,
                "HandStarted ... HandEnded",
                f"{type(started).__name__} ... {type(ended).__name__}",
                deal,
            )
            return
        seed = ended.seed
        if len(seed) != SEED_BYTES or commitment(seed) != started.commitment:
            self._fail(
                "commitment",
                "hand",
                stream,
                len(events),
                f"a {SEED_BYTES}-byte seed hashing to {started.commitment}",
                f"{seed.hex()} hashing to {commitment(seed)}",
                deal,
            )
        self._cards(stream, events, seed, deal)
        moved = difference(events)
        if moved is not None:
            expected = _show(moved.expected) + (f" ({moved.refused})" if moved.refused else "")
            self._fail("rules", "hand", stream, moved.index + 1, expected, _show(moved.found), deal)
        if deal is not None:
            self._tie(stream, started, ended, len(events), deal)

    def _cards(self, stream: str, events: list[Event], seed: bytes, deal: _Deal | None) -> None:
        """Every card against the order the seed derives."""
        started = events[0]
        assert isinstance(started, HandStarted)
        derived = shuffle(seed, fresh_deck(started.rules))
        stubs: list[tuple[Card, ...]] = []
        for position, event in enumerate(events, 1):
            match event:
                case DeckShuffled(cards=cards):
                    if cards != derived:
                        self._fail(
                            "deck",
                            "hand",
                            stream,
                            position,
                            " ".join(map(str, derived)),
                            " ".join(map(str, cards)),
                            deal,
                        )
                case StubReshuffled(cards=cards):
                    stubs.append(cards or ())
                case CardDealt(card=card, position=at, stub=stub):
                    order = derived if stub == 0 else _nth(stubs, stub)
                    want = order[at] if 0 <= at < len(order) else None
                    if want != card:
                        self._fail(
                            "card",
                            "hand",
                            stream,
                            position,
                            f"{want} (card {at} of stub {stub})",
                            card,
                            deal,
                        )
                case BoardDealt(cards=cards, positions=ats, stub=stub):
                    order = derived if stub == 0 else _nth(stubs, stub)
                    want_board = tuple(order[a] if 0 <= a < len(order) else None for a in ats)
                    if want_board != cards:
                        self._fail(
                            "card",
                            "hand",
                            stream,
                            position,
                            " ".join(map(str, want_board)),
                            " ".join(map(str, cards)),
                            deal,
                        )

    def _tie(
        self, stream: str, started: HandStarted, ended: HandEnded, last: int, deal: _Deal
    ) -> None:
        """The hand is the one its table dealt and took the result of."""
        dealt = deal.dealt
        if started.commitment != dealt.commitment:
            self._fail(
                "table",
                "hand",
                stream,
                1,
                f"commitment {dealt.commitment}",
                started.commitment,
                deal,
            )
        start = (started.button, tuple(started.seats))
        at_table = (dealt.button, tuple(dealt.seats))
        if start != at_table:
            self._fail("table", "hand", stream, 1, f"the deal {at_table}", start, deal)
        finished = deal.finished
        if finished is None:
            self._fail(
                "table", "hand", stream, last, "the table to finish the hand", "no finish", deal
            )
            return
        result = (tuple(sorted(ended.stacks)), ended.rake)
        if result != (finished.stacks, finished.rake):
            self._fail(
                "table",
                "hand",
                stream,
                last,
                f"stacks and rake {(finished.stacks, finished.rake)} as the table took them",
                result,
                deal,
            )


def _nth(stubs: list[tuple[Card, ...]], stub: int) -> tuple[Card, ...]:
    return stubs[stub - 1] if 0 < stub <= len(stubs) else ()


def _streams(records: Iterable[Record]) -> Iterator[list[Record]]:
    """Consecutive records of one stream (a hand with its seal)."""
    group: list[Record] = []
    key: tuple[str, object] | None = None
    for record in records:
        kind = "table" if record.get("kind") == "table" else "hand"
        this = (kind, record.get("id"))
        if group and (this != key or group[-1].get("kind") == "seal"):
            yield group
            group = []
        key = this
        group.append(record)
    if group:
        yield group


def verify(
    records: Iterable[Record],
    trusted: str | None,
    *,
    complete: bool = True,
    progress: Callable[[int], None] | None = None,
) -> Report:
    """Check every table and hand in ``records`` (docs/replay.md)."""
    return Verifier(trusted, complete=complete, progress=progress).run(records)
