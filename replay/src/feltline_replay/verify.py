"""Verifying a log (or a store read as one) without the server.

Each table's stream is folded through the engine's table rules, checking
its chain, signatures, that hand numbers follow without a gap and that each
deal starts every seat from the stack the table holds (the last hand's
result plus buy-ins, less stand-ups and time charges). Each hand is checked
on its own: chain, signatures and seal, the seed against its commitment,
the deck and every dealt card against the seed's derivation, and every
action, pot, payout and rake by playing it again through the engine
(:mod:`feltline.audit.rerun`); then tied to its table's deal and finish.
A stream's last signature is verified and covers the rest (:class:`Found`).
"""

from __future__ import annotations

import json
import multiprocessing
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any
from uuid import UUID

from feltline.audit import chain, keys
from feltline.audit.codec import (
    EVENT_TYPES,
    TABLE_EVENT_TYPES,
    CodecError,
    canonical,
    decode_event,
    encode_event,
)
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
from feltline_replay.canonical import canonical as fast_canonical
from feltline_replay.export import hand_id
from feltline_replay.log import Record, parse


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


_NAMED = HandDealt(0, 0, 0, (), "")
"""What a checked hand keeps of its deal: nothing but its table and number."""


def _show(event: Event | None, kinds: Any = None) -> str:
    if event is None:
        return "nothing"
    name, _, data = encode_event(event, *(() if kinds is None else (kinds,)))
    text = f"{name} {json.dumps(data, separators=(',', ':'), sort_keys=True)}"
    return text if len(text) <= 400 else text[:400] + "..."


_SIGNATURE = re.compile(r"[0-9a-f]{128}")
"""An Ed25519 signature as the store writes it: 64 bytes in lowercase hex."""


class Found:
    """What one stream's own records show, before its keys are compared with
    the trusted one and it is tied to its table: so a hand is checked in any
    process (:func:`check_hand`). ``failures`` are (check, position,
    expected, found); ``signers`` the (position, key) of each signature.

    The chain makes a stream's last signature (a table's last record, a
    hand's seal) cover every record before it, so only that one is verified
    unless ``every`` signature is asked for; the others, which mark where
    earlier commits ended, are checked for their form and their key."""

    def __init__(self, kind: str, stream: str, *, every: bool = False) -> None:
        self.kind, self.id, self.every = kind, stream, every
        self.failures: list[tuple[str, int | None, str, str]] = []
        self.signers: list[tuple[int, str]] = []
        self.events: list[Event | None] = []
        self.started: HandStarted | None = None
        self.ended: HandEnded | None = None
        self.length = 0

    def fail(self, check: str, position: int | None, expected: object, found: object) -> None:
        self.failures.append((check, position, str(expected), str(found)))

    def chained(self, records: list[Record], *, sealed: bool) -> None:
        """Positions, links and signatures; the decoded events. Unless a
        seal follows, the last signed record holds the final signature."""
        kinds = TABLE_EVENT_TYPES if self.kind == "table" else None
        previous = chain.GENESIS
        signed = [n for n, r in enumerate(records, 1) if r.get("signature")]
        final = signed[-1] if signed and not sealed else 0
        for expected, record in enumerate(records, 1):
            if record.get("position") != expected:
                self.fail("order", expected, expected, record.get("position"))
            event, problem = _decoded(record, kinds)
            exact = event is not None and _as_written(record, kinds)
            try:
                link = chain.link(
                    previous,
                    kind=self.kind,
                    stream=self.id,
                    position=expected,
                    name=record["type"],
                    version=record["version"],
                    data=record["data"],
                    encode=fast_canonical if exact else canonical,
                )
                stored = bytes.fromhex(record["link"])
            except (KeyError, TypeError, ValueError) as e:
                self.fail("record", expected, "a chained record", e)
                self.events.append(None)
                continue
            if link != stored:
                self.fail("chain", expected, link.hex(), stored.hex())
            previous = stored
            if record.get("signature"):
                self.signed(expected, record, link, verify=self.every or expected == final)
            if problem is not None:
                self.fail("decode", expected, "a valid event", problem)
            self.events.append(event)
        if self.kind == "table" and records and not records[-1].get("signature"):
            self.fail("signature", len(records), "the last record signed", "unsigned")

    def signed(self, position: int, record: Record, link: bytes, *, verify: bool) -> None:
        """A record's signature: verified, or (if a later one covers it)
        only well-formed; its key is compared with the trusted one later."""
        signer, signature = str(record.get("signed_by", "")), str(record["signature"])
        self.signers.append((position, signer))
        if verify:
            if not keys.verify(signer, link, signature):
                self.fail("signature", position, "a valid signature", signature)
        elif not _SIGNATURE.fullmatch(signature):
            self.fail("signature", position, "an Ed25519 signature (128 hex digits)", signature)

    def seal(self, seal: Record, body: list[Record]) -> None:
        position = len(body) + 1
        if seal.get("position") != position:
            self.fail("order", position, position, seal.get("position"))
        last = body[-1].get("link") if body else None
        if seal.get("link") != last or seal.get("algorithm") != chain.CHAIN_ALGORITHM:
            self.fail("seal", position, f"{chain.CHAIN_ALGORITHM} over {last}", seal.get("link"))
        key = str(seal.get("public_key", ""))
        self.signers.append((position, key))
        try:
            digest = bytes.fromhex(str(seal.get("link")))
        except ValueError:
            digest = b""
        if not keys.verify(key, digest, str(seal.get("signature", ""))):
            self.fail("seal signature", position, "a valid signature", seal.get("signature"))

    def deal(self, events: list[Event]) -> None:
        """The seed, the deck and every card, and the rules played again."""
        started, ended = events[0], events[-1]
        if not isinstance(started, HandStarted) or not isinstance(ended, HandEnded):
            first, last = type(started).__name__, type(ended).__name__
            self.fail("rules", 1, "HandStarted ... HandEnded", f"{first} ... {last}")
            return
        self.started, self.ended = started, ended
        seed = ended.seed
        if len(seed) != SEED_BYTES or commitment(seed) != started.commitment:
            self.fail(
                "commitment",
                len(events),
                f"a {SEED_BYTES}-byte seed hashing to {started.commitment}",
                f"{seed.hex()} hashing to {commitment(seed)}",
            )
        self.cards(events, started, seed)
        moved = difference(events)
        if moved is not None:
            expected = _show(moved.expected) + (f" ({moved.refused})" if moved.refused else "")
            self.fail("rules", moved.index + 1, expected, _show(moved.found))

    def cards(self, events: list[Event], started: HandStarted, seed: bytes) -> None:
        """Every card against the order the seed derives."""
        derived = shuffle(seed, fresh_deck(started.rules))
        stubs: list[tuple[Card, ...]] = []
        for position, event in enumerate(events, 1):
            match event:
                case DeckShuffled(cards=cards):
                    if cards != derived:
                        self.fail("deck", position, _cards(derived), _cards(cards))
                case StubReshuffled(cards=cards):
                    stubs.append(cards or ())
                case CardDealt(card=card, position=at, stub=stub):
                    order = derived if stub == 0 else _nth(stubs, stub)
                    want = order[at] if 0 <= at < len(order) else None
                    if want != card:
                        self.fail("card", position, f"{want} (card {at} of stub {stub})", card)
                case BoardDealt(cards=cards, positions=ats, stub=stub):
                    order = derived if stub == 0 else _nth(stubs, stub)
                    board = tuple(order[a] if 0 <= a < len(order) else None for a in ats)
                    if board != cards:
                        self.fail("card", position, _cards(board), _cards(cards))


def _decoded(
    record: Record, kinds: Mapping[str, tuple[type[Event], int]] | None
) -> tuple[Event | None, Exception | None]:
    """The record's event, or why it has none (a record without its fields
    fails as a whole, before this is reported)."""
    try:
        args = () if kinds is None else (kinds,)
        return decode_event(record["type"], record["version"], record["data"], *args), None
    except (CodecError, KeyError, ValueError, TypeError) as e:
        return None, e


def _as_written(record: Record, kinds: Mapping[str, tuple[type[Event], int]] | None) -> bool:
    """Whether a record that decoded was decoded as written, not upcast: then
    every value in its data was checked, none is a float, and the fast
    canonical form is exact."""
    return bool(record["version"] == (kinds or EVENT_TYPES)[record["type"]][1])


def check_hand(records: list[Record], *, every: bool = False) -> Found:
    """Everything a hand's own records can show: chain, signatures, seal,
    commitment, deck, cards and rules. Pure, so it runs in any process."""
    found = Found("hand", str(records[0].get("id")), every=every)
    found.length = len(records)
    sealed = records[-1].get("kind") == "seal"
    body = records[:-1] if sealed else records
    found.chained(body, sealed=sealed)
    if sealed:
        found.seal(records[-1], body)
    else:
        found.fail("seal", len(records), "a seal", "none")
    if found.events and None not in found.events:
        found.deal([e for e in found.events if e is not None])
    found.events = []  # not sent back: the tie needs only the start and the end
    return found


def _cards(cards: Iterable[Card | None]) -> str:
    return " ".join(map(str, cards))


class Verifier:
    """Feed it a log's records in order; :meth:`finish` gives the report.
    ``trusted`` is the server's public key (hex); without one, the first
    signing key met is taken, with a warning, which proves only that the
    records agree with one another. With ``workers`` above 1, hands are
    checked in that many processes while tables are folded here. With
    ``all_signatures``, every signature is verified, not only each
    stream's last (:class:`Found`)."""

    def __init__(
        self,
        trusted: str | None,
        *,
        complete: bool = True,
        progress: Callable[[int], None] | None = None,
        workers: int = 1,
        all_signatures: bool = False,
    ) -> None:
        self.trusted = trusted
        self.all_signatures = all_signatures
        self.complete = complete
        self.report = Report()
        self.deals: dict[UUID, _Deal] = {}
        self.seen: dict[UUID, _Deal] = {}
        self.progress = progress
        self.workers = workers

    def run(self, records: Iterable[Line]) -> Report:
        groups = _streams(records)
        check = partial(_check, every=self.all_signatures)
        if self.workers <= 1:
            for group in groups:
                self._take(check(group))
            return self.finish()
        context = multiprocessing.get_context("fork")
        with context.Pool(self.workers) as pool:
            for found in pool.imap(check, groups, chunksize=8):
                self._take(found)
        return self.finish()

    def _take(self, found: Found | list[Record]) -> None:
        if isinstance(found, Found):
            self.hand(found)
        else:
            self.table(found)

    def finish(self) -> Report:
        for key, deal in self.deals.items():
            if deal.finished is not None and self.complete:
                self._fail("missing", "hand", str(key), None, "the hand's records", "none", deal)
        return self.report

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

    def _keys(self, found: Found, deal: _Deal | None) -> None:
        for position, key in found.signers:
            if self.trusted is None:
                self.trusted = key
                self.report.warnings.append(
                    f"no public key given: trusting {key}, the key that signed {found.kind} "
                    f"{found.id}. This shows only that the records agree with one another and "
                    "were signed by one key, not that the key is your server's: give "
                    "--public-key to know."
                )
            elif key != self.trusted:
                self._fail(
                    "key", found.kind, found.id, position, f"signed by {self.trusted}", key, deal
                )

    def _found(self, found: Found, deal: _Deal | None) -> None:
        for check, position, expected, what in found.failures:
            self._fail(check, found.kind, found.id, position, expected, what, deal)
        self._keys(found, deal)

    # -- tables ----------------------------------------------------------

    def table(self, records: list[Record]) -> None:
        """Chain and keys, hand numbers and each deal's starting stacks."""
        self.report.tables += 1
        found = Found("table", str(records[0].get("id")), every=self.all_signatures)
        found.chained(records, sealed=False)
        self._found(found, None)
        stream, table_id = found.id, UUID(found.id)
        table = Table()
        current: _Deal | None = None
        for position, event in enumerate(found.events, 1):
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
                self._stacks(stream, position, table, event)
                current = _Deal(table_id, event.hand, event)
                self.deals[hand_id(table_id, event.hand)] = current
            elif isinstance(event, HandFinished) and current is not None:
                current.finished = event
            try:
                table = evolve(table, event)  # type: ignore[arg-type]
            except Exception as e:
                self._fail("table rules", "table", stream, position, "an event that applies", e)

    def _stacks(self, stream: str, position: int, table: Table, dealt: HandDealt) -> None:
        """Each seat starts with what the table holds for it: the last
        hand's result, plus buy-ins, less stand-ups and time charges."""
        for seat in dealt.seats:
            held = table.seat(seat.seat)
            share = dict(table.pot.shares).get(seat.seat, 0)
            at = (held.player, held.stack, share) if held else None
            if at != (seat.player, seat.stack, seat.carried):
                self._fail(
                    "starting stacks",
                    "table",
                    stream,
                    position,
                    f"hand {dealt.hand} seat {seat.seat} (player, stack, carried) {at}",
                    (seat.player, seat.stack, seat.carried),
                )

    # -- hands -----------------------------------------------------------

    def hand(self, found: Found) -> None:
        """A hand checked on its own, its keys, and its tie to its table."""
        self.report.hands += 1
        try:
            key: UUID | None = UUID(found.id)
        except ValueError:
            key = None
        deal = self.deals.pop(key, None) if key is not None else None
        again = self.seen.get(key) if key is not None else None
        if again is not None:
            self._fail("table", "hand", found.id, None, "the hand once", "again", again)
        elif deal is None:
            self._fail("table", "hand", found.id, None, "a hand its table dealt", "no such deal")
        self._found(found, deal or again)
        if deal is not None:
            # Only its name is kept once it is checked: memory stays small.
            self.seen[UUID(found.id)] = _Deal(deal.table, deal.number, _NAMED)
            if found.started is not None and found.ended is not None:
                self._tie(found, deal)
        if self.progress:
            self.progress(self.report.hands)

    def _tie(self, found: Found, deal: _Deal) -> None:
        """The hand is the one its table dealt and took the result of."""
        started, ended, stream = found.started, found.ended, found.id
        assert started is not None
        assert ended is not None
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
        last = found.length - 1
        finished = deal.finished
        if finished is None:
            self._fail("table", "hand", stream, last, "the table to finish it", "no finish", deal)
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


def _check(lines: list[Line], *, every: bool) -> Found | list[Record]:
    """A hand's own checks; a table's records, for the caller."""
    group = _parsed(lines)
    return group if group[0].get("kind") == "table" else check_hand(group, every=every)


def _nth(stubs: list[tuple[Card, ...]], stub: int) -> tuple[Card, ...]:
    return stubs[stub - 1] if 0 < stub <= len(stubs) else ()


Line = Record | str
"""A record, parsed or as its line of the log: a line is parsed where it is
checked, so processes checking hands share the parsing too."""

# The exporter writes each line's kind and id first; other lines are parsed.
_PREFIX = re.compile(r'\{"kind":"(table|hand|seal)","id":"([^"]*)"')


def _peek(line: Line) -> tuple[str, object]:
    if isinstance(line, str):
        match = _PREFIX.match(line)
        if match:
            return match.group(1), match.group(2)
        line = parse(line)
    return str(line.get("kind")), line.get("id")


def _streams(records: Iterable[Line]) -> Iterator[list[Line]]:
    """Consecutive records of one stream (a hand with its seal)."""
    group: list[Line] = []
    key: tuple[str, object] | None = None
    last = ""
    for record in records:
        kind, stream = _peek(record)
        this = ("table" if kind == "table" else "hand", stream)
        if group and (this != key or last == "seal"):
            yield group
            group = []
        key, last = this, kind
        group.append(record)
    if group:
        yield group


def _parsed(group: list[Line]) -> list[Record]:
    return [parse(line) if isinstance(line, str) else line for line in group]


def verify(
    records: Iterable[Line],
    trusted: str | None,
    *,
    complete: bool = True,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    all_signatures: bool = False,
) -> Report:
    """Check every table and hand in ``records`` (docs/replay.md)."""
    verifier = Verifier(
        trusted,
        complete=complete,
        progress=progress,
        workers=workers,
        all_signatures=all_signatures,
    )
    return verifier.run(records)
