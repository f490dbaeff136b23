"""Verifying a log (or a store read as one) without the server.

Each table's stream is folded through the engine's table rules, checking
its chain, signatures, that hand numbers follow without a gap and that each
deal starts every seat from the stack the table holds (the last hand's
result plus buy-ins, less stand-ups and time charges), and that a mixed
table deals each game in its turn of the rotation. Each hand is checked
on its own: chain, signatures and seal, the seed against its commitment,
under ``feltline-deck-v2`` each seat's contribution against its own
commitment (listing the seats that committed and did not reveal), the deck
and every dealt card against the seed's derivation, and every
action, pot, payout and rake by playing it again through the engine
(:mod:`feltline.audit.rerun`); then tied to its table's deal and finish,
and to the game and rules its table's turn deals it at.
A stream's last signature is verified and covers the rest (:class:`Found`).
Every account's stream (and, from a store, every match's) is chained and
signed like a table's; with every account and every table at hand, the
chips the accounts moved to and from each table's seats are compared with
the buy-ins, chips added and stand-ups the table recorded (``chips``), so
a stream cut back to an earlier commit shows as chips that do not add up.
A record the store could not read fails its stream alone.

The records come in *shares* (:class:`LogShare`, :class:`StoreShare`,
:class:`LinesShare`): a run of whole streams that one process reads,
parses and checks on its own, so that with several processes each reads
its own part of the log or the store. What a stream shows alone comes
back small (:class:`Found`, :class:`Folded`); the first process keeps the
tables' deals and ties each hand to its deal, in the log's order.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from functools import partial
from typing import Any
from uuid import UUID

import orjson

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
from feltline.engine.cards.card import Card
from feltline.engine.cards.deck import ALGORITHMS, SEED_BYTES, commitment, deck_seed, shuffle
from feltline.engine.hand.dealing import fresh_deck
from feltline.engine.hand.events import (
    BoardDealt,
    CardDealt,
    ContributionCommitted,
    ContributionRevealed,
    ContributionsOpened,
    Deal,
    DeckShuffled,
    Event,
    HandEnded,
    HandStarted,
    RevealsOpened,
    SeatAtStart,
    StubReshuffled,
)
from feltline.engine.hand.rules import Rules
from feltline.engine.table.events import ChipsAdded, HandDealt, HandFinished, SatDown, StoodUp
from feltline.engine.table.evolve import evolve
from feltline.engine.table.house import Turn
from feltline.engine.table.state import Table
from feltline_replay.canonical import canonical as fast_canonical
from feltline_replay.export import KEYS, hand_id
from feltline_replay.log import Record, parse
from feltline_replay.store import DAMAGED, Rows, open_rows
from feltline_replay.store import record as stored


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


@dataclass(frozen=True)
class Withheld:
    """A ``feltline-deck-v2`` hand whose deck left out seats that committed
    to a contribution and did not reveal it: not a failure (a connection
    drops), but a seat colluding with the operator could withhold to
    choose between two decks, so an auditor sees every one (docs/deck.md)."""

    id: str
    seats: tuple[int, ...]
    table: str | None = None
    number: int | None = None

    def __str__(self) -> str:
        where = f"hand {self.id}"
        if self.table is not None:
            where = f"hand {self.number} of table {self.table} ({self.id})"
        seats = ", ".join(str(s) for s in self.seats)
        return f"{where}: seats {seats} committed and did not reveal"


@dataclass
class Report:
    tables: int = 0
    hands: int = 0
    accounts: int = 0
    matches: int = 0
    verified: int = 0  # signatures and seals verified
    formed: int = 0  # signatures only checked for their form and key (docs/audit.md)
    failures: list[Failure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    withheld: list[Withheld] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "tables": self.tables,
            "hands": self.hands,
            "accounts": self.accounts,
            "matches": self.matches,
            "signatures_verified": self.verified,
            "signatures_checked_for_form": self.formed,
            "failures": [asdict(f) for f in self.failures],
            "warnings": self.warnings,
            "withheld": [asdict(w) for w in self.withheld],
        }

    def failed_hands(self) -> set[str]:
        return {f.id for f in self.failures if f.kind == "hand"}


Start = tuple[str, int, tuple[tuple[int, str, int, int], ...]]
"""What a hand starts from: commitment, button and each seat's
:class:`SeatAtStart` fields (plain values pickle fast)."""


def _start(commitment: str, deal: Deal) -> Start:
    return (
        commitment,
        deal.button,
        tuple((s.seat, s.player, s.stack, s.carried) for s in deal.seats),
    )


Result = tuple[tuple[tuple[int, int], ...], int]
"""What a hand ends with: each seat's stack, by seat, and the rake."""


@dataclass
class _Deal:
    """What a table recorded of one hand (nothing but its table and number
    once the hand is checked); ``rules`` are those its rotation deals it at."""

    table: UUID
    number: int
    start: Start | None = None
    result: Result | None = None
    finished: bool = False
    rules: Rules | None = None


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
    process (:func:`check_hand`) and sent back small. ``failures`` are
    (check, position, expected, found); ``signers`` each signing key with
    the positions it signed and their notification ids, in the order met; a hand's ``start`` and
    ``result`` are what its table must have dealt and taken.

    The chain makes a stream's last signature (a table's last record, a
    hand's seal) cover every record before it, so only that one is verified
    unless ``every`` signature is asked for; the others, which mark where
    earlier commits ended, are checked for their form and their key."""

    def __init__(self, kind: str, stream: str, *, every: bool = False) -> None:
        self.kind, self.id, self.every = kind, stream, every
        self.failures: list[tuple[str, int | None, str, str]] = []
        self.signers: dict[str, list[tuple[int, int | None]]] = {}
        self.events: list[Event | None] = []
        self.start: Start | None = None
        self.result: Result | None = None
        self.rules: Rules | None = None
        self.withheld: tuple[int, ...] = ()
        self.length = 0
        self.verified = 0  # signatures (and seals) verified
        self.formed = 0  # signatures only checked for their form and key

    def __getstate__(self) -> tuple[Any, ...]:
        """Sent back as plain values, without the attributes' names: the
        first process reads what every other one sends."""
        return (
            self.kind,
            self.id,
            self.failures,
            self.signers,
            self.start,
            self.result,
            self.rules,
            self.withheld,
            self.length,
            self.verified,
            self.formed,
        )

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (
            self.kind,
            self.id,
            self.failures,
            self.signers,
            self.start,
            self.result,
            self.rules,
            self.withheld,
            self.length,
            self.verified,
            self.formed,
        ) = state
        self.every, self.events = False, []

    def fail(self, check: str, position: int | None, expected: object, found: object) -> None:
        self.failures.append((check, position, str(expected), str(found)))

    def chained(self, records: list[Record], *, sealed: bool) -> None:
        """Positions, links and signatures; the decoded events. Unless a
        seal follows, the last signed record holds the final signature."""
        kinds = TABLE_EVENT_TYPES if self.kind == "table" else None
        decodes = self.kind in {"table", "hand"}  # an account's or a match's are not events
        previous: bytes | None = chain.GENESIS
        signed = [n for n, r in enumerate(records, 1) if r.get("signature")]
        final = signed[-1] if signed and not sealed else 0
        for expected, record in enumerate(records, 1):
            if record.get("position") != expected:
                self.fail("order", expected, expected, record.get("position"))
            if self.damaged(expected, record):
                previous = None  # unknown: the next link is not compared
                self.events.append(None)
                continue
            if record.get("withheld"):
                previous = self.secret(expected, record, records, final)
                self.events.append(None)
                continue
            event, problem = _decoded(record, kinds) if decodes else (None, None)
            exact = event is not None and _as_written(record, kinds)
            try:
                link = chain.link(
                    previous or chain.GENESIS,
                    kind=self.kind,
                    stream=self.id,
                    position=expected,
                    name=record["type"],
                    version=record["version"],
                    data=record["data"],
                    encode=fast_canonical if exact else canonical,
                    at=record["at"] if record.get("timed") else None,
                )
                stored = bytes.fromhex(record["link"])
            except (KeyError, TypeError, ValueError) as e:
                self.fail("record", expected, "a chained record", e)
                self.events.append(None)
                continue
            if link != stored and previous is not None:
                self.fail("chain", expected, link.hex(), stored.hex())
            if record.get("signature"):
                self.signed(
                    expected,
                    record,
                    stored if previous is None else link,
                    verify=self.every or expected == final,
                )
            previous = stored
            if problem is not None:
                self.fail("decode", expected, "a valid event", problem)
            self.events.append(event)
        if self.kind != "hand" and records and _unsigned(records[-1]):
            self.fail("signature", len(records), "the last record signed", "unsigned")

    def secret(
        self, position: int, record: Record, records: list[Record], final: int
    ) -> bytes | None:
        """A running tournament's seed record, ``withheld`` from its log
        (docs/replay.md): its link is taken as stored, the records after it
        chained from there and its signature verified on it; the records
        before it are checked once the tournament is over. Withheld
        anywhere else, or once the seed is revealed, it fails. The stored
        link, for the next record's."""
        running = not any(r.get("type") == "SeedRevealed" for r in records)
        if self.kind == "tournament" and record.get("type") == "SeedDrawn" and running:
            self.withheld = (*self.withheld, position)
        else:
            self.fail(
                "record", position, "every record but a running tournament's seed", "withheld"
            )
        try:
            stored = bytes.fromhex(record["link"])
        except (KeyError, TypeError, ValueError) as e:
            self.fail("record", position, "a chained record", e)
            return None
        if record.get("signature"):
            self.signed(position, record, stored, verify=self.every or position == final)
        return stored

    def damaged(self, position: int, record: Record) -> bool:
        """Whether the store could not read the record; if so, it fails here."""
        if DAMAGED not in record:
            return False
        self.fail("record", position, "a stored record the store can read", record[DAMAGED])
        return True

    def signer(self, position: int, key: str, notification: object) -> None:
        place = notification if isinstance(notification, int) else None
        self.signers.setdefault(key, []).append((position, place))

    def signed(self, position: int, record: Record, link: bytes, *, verify: bool) -> None:
        """A record's signature: verified, or (if a later one covers it)
        only well-formed; its key is compared with the trusted one later."""
        signer, signature = str(record.get("signed_by", "")), str(record["signature"])
        self.signer(position, signer, record.get("notification"))
        if verify:
            self.verified += 1
            if not keys.verify(signer, link, signature):
                self.fail("signature", position, "a valid signature", signature)
            return
        self.formed += 1
        if not _SIGNATURE.fullmatch(signature):
            self.fail("signature", position, "an Ed25519 signature (128 hex digits)", signature)

    def seal(self, seal: Record, body: list[Record]) -> None:
        position = len(body) + 1
        if seal.get("position") != position:
            self.fail("order", position, position, seal.get("position"))
        if self.damaged(position, seal):
            return
        last = body[-1].get("link") if body else None
        if seal.get("link") != last or seal.get("algorithm") != chain.CHAIN_ALGORITHM:
            self.fail("seal", position, f"{chain.CHAIN_ALGORITHM} over {last}", seal.get("link"))
        key = str(seal.get("public_key", ""))
        self.signer(position, key, seal.get("notification"))
        try:
            digest = bytes.fromhex(str(seal.get("link")))
        except ValueError:
            digest = b""
        self.verified += 1
        if not keys.verify(key, digest, str(seal.get("signature", ""))):
            self.fail("seal signature", position, "a valid signature", seal.get("signature"))

    def deal(self, events: list[Event]) -> None:
        """The seed, the deck and every card, and the rules played again."""
        started, ended = events[0], events[-1]
        if not isinstance(started, HandStarted) or not isinstance(ended, HandEnded):
            first, last = type(started).__name__, type(ended).__name__
            self.fail("rules", 1, "HandStarted ... HandEnded", f"{first} ... {last}")
            return
        self.start = _start(started.commitment, started.deal)
        self.rules = started.rules
        self.result = (tuple(sorted(ended.stacks)), ended.rake)
        seed = ended.seed
        if len(seed) != SEED_BYTES or commitment(seed) != started.commitment:
            self.fail(
                "commitment",
                len(events),
                f"a {SEED_BYTES}-byte seed hashing to {started.commitment}",
                f"{seed.hex()} hashing to {commitment(seed)}",
            )
        self.cards(events, started, self.contributed(events, started, seed))
        moved = difference(events)
        if moved is not None:
            expected = _show(moved.expected) + (f" ({moved.refused})" if moved.refused else "")
            self.fail("rules", moved.index + 1, expected, _show(moved.found))

    def contributed(self, events: list[Event], started: HandStarted, seed: bytes) -> bytes:
        """The seed the deck comes from: the server's under
        ``feltline-deck-v1``; under v2 mixed with each contribution revealed,
        every one checked against its seat's commitment. The seats that
        committed and did not reveal are kept to be listed."""
        if started.algorithm not in ALGORITHMS:
            self.fail("deck", 1, " or ".join(ALGORITHMS), started.algorithm)
        committed: dict[int, str] = {}
        revealed: dict[int, bytes] = {}
        opened = False
        for position, event in enumerate(events, 1):
            match event:
                case ContributionsOpened():
                    opened = True
                case ContributionCommitted(seat=seat, commitment=digest):
                    committed[seat] = digest
                case ContributionRevealed(seat=seat, contribution=contribution):
                    digest = committed.get(seat, "no commitment")
                    if len(contribution) != SEED_BYTES or commitment(contribution) != digest:
                        self.fail(
                            "contribution",
                            position,
                            f"seat {seat}'s {SEED_BYTES} bytes hashing to {digest}",
                            contribution.hex(),
                        )
                    revealed[seat] = contribution
                case RevealsOpened(seats=seats):
                    committed = {s: committed[s] for s in seats if s in committed}
        if not opened:
            return seed
        self.withheld = tuple(sorted(set(committed) - set(revealed)))
        if len(seed) != SEED_BYTES or any(len(c) != SEED_BYTES for c in revealed.values()):
            return seed  # already failed: nothing to mix
        return deck_seed(seed, revealed)

    def cards(self, events: list[Event], started: HandStarted, seed: bytes) -> None:
        """Every card against the order the seed derives."""
        derived = shuffle(seed, fresh_deck(started.rules))
        stubs: list[tuple[Card, ...]] = []
        for position, event in enumerate(events, 1):
            match event:
                case DeckShuffled(seed=shuffled, cards=cards):
                    if cards != derived:
                        self.fail("deck", position, _cards(derived), _cards(cards))
                    if shuffled != seed:
                        self.fail("deck seed", position, seed.hex(), shuffled.hex())
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


class Folded(Found):
    """A table stream's own checks: its chain and keys, then its hand
    numbers and starting stacks (``ruled``, reported after the keys), and
    each hand it dealt, by the hand's stream id."""

    def __init__(self, stream: str, *, every: bool = False) -> None:
        super().__init__("table", stream, every=every)
        self.ruled: list[tuple[str, int | None, str, str]] = []
        self.deals: list[tuple[UUID, _Deal]] = []
        self.moves: list[Move] = []

    def __getstate__(self) -> tuple[Any, ...]:
        deals = [(h.int, d.number, d.start, d.result, d.finished, d.rules) for h, d in self.deals]
        return super().__getstate__(), self.ruled, deals, self.moves

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        found, self.ruled, deals, self.moves = state
        super().__setstate__(found)
        table = UUID(self.id)
        self.deals = [(UUID(int=h), _Deal(table, *deal)) for h, *deal in deals]

    def rule(self, check: str, position: int, expected: object, found: object) -> None:
        self.ruled.append((check, position, str(expected), str(found)))

    def fold(self) -> None:
        """Hand numbers and each deal's starting stacks, through the table
        rules."""
        table_id = UUID(self.id)
        table = Table()
        current: _Deal | None = None
        for position, event in enumerate(self.events, 1):
            if event is None:
                continue
            if isinstance(event, HandDealt):
                if event.hand != table.hands + 1:
                    self.rule(
                        "hand numbers", position, f"hand {table.hands + 1}", f"hand {event.hand}"
                    )
                self.stacks(position, table, event)
                start = _start(event.commitment, event.deal)
                rules = self.turn(position, table, event)
                current = _Deal(table_id, event.hand, start, rules=rules)
                self.deals.append((hand_id(table_id, event.hand), current))
            elif isinstance(event, HandFinished) and current is not None:
                current.result = (event.stacks, event.rake)
                current.finished = True
            self.moved(event)
            try:
                table = evolve(table, event)  # type: ignore[arg-type]
            except Exception as e:
                self.rule("table rules", position, "an event that applies", e)

    def turn(self, position: int, table: Table, dealt: HandDealt) -> Rules | None:
        """The turn of a mixed table's rotation the hand is due at, as the
        table's settings and the hand before it say; and the rules it is
        dealt at (its game's, at the table's stakes)."""
        config = table.config
        if config is None:
            return None
        due = config.next_turn(table.turn, len(dealt.deal.seats))
        if dealt.turn != due:
            self.rule("rotation", position, f"hand {dealt.hand} at {_turn(due)}", _turn(dealt.turn))
        return config.rules_at(due)

    def moved(self, event: Event) -> None:
        """Chips the event brings to a seat from its player's account, or
        takes back to it. A move of no chips is none (no server writes one):
        its sign could not say which way it went."""
        match event:
            case SatDown(seat=seat, buy_in=amount) | ChipsAdded(seat=seat, amount=amount) if amount:
                self.moves.append((self.id, seat, amount))
            case StoodUp(seat=seat, stack=amount) if amount > 0:
                self.moves.append((self.id, seat, -amount))

    def stacks(self, position: int, table: Table, dealt: HandDealt) -> None:
        """Each seat starts with what the table holds for it: the last
        hand's result, plus buy-ins, less stand-ups and time charges."""
        for seat in dealt.deal.seats:
            held = table.seat(seat.seat)
            share = dict(table.pot.shares).get(seat.seat, 0)
            at = (held.player, held.stack, share) if held else None
            if at != (seat.player, seat.stack, seat.carried):
                self.rule(
                    "starting stacks",
                    position,
                    f"hand {dealt.hand} seat {seat.seat} (player, stack, carried) {at}",
                    (seat.player, seat.stack, seat.carried),
                )


def _unsigned(record: Record) -> bool:
    """Whether a record the store could read holds no signature."""
    return not record.get("signature") and DAMAGED not in record


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
    found.events = []  # not sent back: the tie needs only the start and the result
    return found


Move = tuple[str, int, int]
"""Chips moved between an account and a seat: the table's id, the seat,
and the amount, to the seat (a buy-in or chips added) or, negative, back
from it (a stand-up)."""


class Accounted(Found):
    """An account's stream: its chain and keys, and the chips it moved to
    and from seats (``moves``), read from its records' data as chained."""

    def __init__(self, stream: str, *, every: bool = False) -> None:
        super().__init__("account", stream, every=every)
        self.moves: list[Move] = []

    def __getstate__(self) -> tuple[Any, ...]:
        return super().__getstate__(), self.moves

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        found, self.moves = state
        super().__setstate__(found)


def check_account(records: list[Record], *, every: bool = False) -> Accounted:
    """Everything an account's own records show: chain and signatures, and
    the chips it moved to seats and back."""
    accounted = Accounted(str(records[0].get("id")), every=every)
    accounted.chained(records, sealed=False)
    for position, record in enumerate(records, 1):
        data = record.get("data")
        sign = {"BoughtIn": 1, "Returned": -1}.get(str(record.get("type")), 0)
        if not sign or not isinstance(data, dict):
            continue
        try:
            move = (str(UUID(str(data["table"]))), int(data["seat"]), sign * int(data["amount"]))
        except (KeyError, TypeError, ValueError) as e:
            accounted.fail("record", position, "a table, a seat and an amount", e)
            continue
        if move[2]:  # a move of no chips is none, as a stand-up with nothing is at the table
            accounted.moves.append(move)
    return accounted


def check_stream(records: list[Record], *, every: bool = False) -> Found:
    """A match's or a tournament's stream: its chain and signatures (a
    match's seeds and its tables' deals are the ``match`` command's to
    check; a tournament's decisions, :func:`feltline.engine.tournament.rerun`'s)."""
    found = Found(str(records[0].get("kind")), str(records[0].get("id")), every=every)
    found.chained(records, sealed=False)
    return found


def fold_table(records: list[Record], *, every: bool = False) -> Folded:
    """Everything a table's own records can show: chain, signatures, hand
    numbers and starting stacks, and the deals to tie its hands to."""
    folded = Folded(str(records[0].get("id")), every=every)
    folded.chained(records, sealed=False)
    folded.fold()
    folded.events = []
    return folded


class Keyed(Found):
    """The server's keys stream (docs/audit.md, The server's keys): its
    chain, every signature, and its ``history``: each record's position,
    type and key, with the key whose valid signature vouches for it (the
    first signature at or after it; "" if none does) and, for a
    revocation, the notification it revokes the key from."""

    def __init__(self, stream: str) -> None:
        super().__init__("server", stream)
        self.history: list[tuple[int, str, str, str, int]] = []

    def __getstate__(self) -> tuple[Any, ...]:
        return super().__getstate__(), self.history

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        found, self.history = state
        super().__setstate__(found)


def check_keys(records: list[Record]) -> Keyed:
    """Everything the keys stream shows on its own."""
    keyed = Keyed(str(records[0].get("id")))
    previous = chain.GENESIS
    waiting: list[tuple[int, str, str, str, int]] = []
    for expected, record in enumerate(records, 1):
        if record.get("position") != expected:
            keyed.fail("order", expected, expected, record.get("position"))
        if keyed.damaged(expected, record):
            continue
        try:
            link = chain.link(
                previous,
                kind="server",
                stream=keyed.id,
                position=expected,
                name=record["type"],
                version=record["version"],
                data=record["data"],
            )
            stored, key = bytes.fromhex(record["link"]), str(record["data"]["public_key"])
            since = int(record["data"].get("since") or 0)
        except (KeyError, TypeError, ValueError) as e:
            keyed.fail("record", expected, "a key record", e)
            continue
        if link != stored:
            keyed.fail("chain", expected, link.hex(), stored.hex())
        previous = stored
        waiting.append((expected, str(record["type"]), key, "", since))
        if signature := str(record.get("signature") or ""):
            signer = str(record.get("signed_by", ""))
            keyed.verified += 1
            if keys.verify(signer, link, signature):
                keyed.history += [(p, kind, k, signer, n) for p, kind, k, _, n in waiting]
                waiting = []
            else:
                keyed.fail("signature", expected, "a valid signature", signature)
    keyed.history += waiting
    if records and _unsigned(records[-1]):
        keyed.fail("signature", len(records), "the last record signed", "unsigned")
    return keyed


def trusted_keys(
    history: Sequence[tuple[int, str, str, str, int]], anchor: str
) -> tuple[frozenset[str], dict[str, int]]:
    """The keys a store's key history lets one trust from ``anchor``: each
    key adopted at or before the last record a trusted key signed (its
    signature covers every link before it), until no more are added. So a
    rotation, signed by the key it retires, carries trust forward from the
    first key; an adoption only its own key signed (``--new-key``) does not.
    With them, the revocations those signatures cover: each revoked key and
    the first notification it is not trusted for. A key's signature after
    its revocation in this stream vouches for nothing."""
    revoked_at: dict[str, int] = {}
    for p, kind, key, _, _ in history:
        if kind == "KeyRevoked":
            revoked_at.setdefault(key, p)
    trusted = {anchor}
    while True:
        last = max(
            (
                p
                for p, _, _, voucher, _ in history
                if voucher in trusted and revoked_at.get(voucher, p) >= p
            ),
            default=0,
        )
        covered = [h for h in history if h[0] <= last]
        more = {key for _, kind, key, _, _ in covered if kind == "KeyAdopted"}
        if more <= trusted:
            revoked: dict[str, int] = {}
            for _, kind, key, _, since in covered:
                if kind == "KeyRevoked":
                    revoked[key] = min(since, revoked.get(key, since))
            return frozenset(trusted), revoked
        trusted |= more


def _cards(cards: Iterable[Card | None]) -> str:
    return " ".join(map(str, cards))


def _nth(stubs: list[tuple[Card, ...]], stub: int) -> tuple[Card, ...]:
    return stubs[stub - 1] if 0 < stub <= len(stubs) else ()


# -- shares -------------------------------------------------------------


Line = Record | str | bytes
"""A record, parsed or as its line of the log: a line is parsed where it is
checked, so processes checking hands share the parsing too."""


STREAMS = frozenset({"table", "server", "account", "match", "tournament", "log"})
"""The kinds of record that are a stream's own; any other is a hand's."""


def _stream(kind: str) -> str:
    """The stream a record of ``kind`` belongs to: a seal to its hand."""
    return kind if kind in STREAMS else "hand"


def _streams(records: Iterable[Record]) -> Iterator[list[Record]]:
    """Consecutive records of one stream (a hand with its seal)."""
    group: list[Record] = []
    key: tuple[str, object] | None = None
    last = ""
    for record in records:
        kind = str(record.get("kind"))
        this = (_stream(kind), record.get("id"))
        if group and (this != key or last == "seal"):
            yield group
            group = []
        key, last = this, kind
        group.append(record)
    if group:
        yield group


def check_records(records: Iterable[Record], *, every: bool = False) -> list[Found]:
    """Each stream's own checks, in order: a share's work in any process."""
    checks: dict[str, Callable[[list[Record]], Found]] = {
        "table": partial(fold_table, every=every),
        "server": check_keys,
        "account": partial(check_account, every=every),
        "match": partial(check_stream, every=every),
        "tournament": partial(check_stream, every=every),
        "log": partial(check_stream, every=every),
    }
    return [
        checks.get(str(group[0].get("kind")), partial(check_hand, every=every))(group)
        for group in _streams(records)
    ]


class Share:
    """A run of whole streams, read where it is checked."""

    def records(self) -> Iterator[Record]:
        raise NotImplementedError


@dataclass(frozen=True)
class LogShare(Share):
    """The lines of a log file from byte ``start`` to ``end``: both at the
    start of a line that begins a stream (:func:`log_shares`)."""

    path: str
    start: int
    end: int

    def records(self) -> Iterator[Record]:
        with open(self.path, "rb") as file:
            file.seek(self.start)
            text = file.read(self.end - self.start)
        at = self.start
        for line in text.split(b"\n"):
            if line.strip():
                yield parse(line, f"the line at byte {at}")
            at += len(line) + 1


@dataclass(frozen=True)
class StoreShare(Share):
    """Streams of a store: for each table, its own stream if ``whole``, and
    the hands of these numbers, then the ``others`` (accounts, matches)
    whole (each process opens the store itself)."""

    store: str
    pieces: tuple[tuple[UUID, bool, tuple[int, ...]], ...]
    keys: bool = False  # the server's keys stream first (the first share's)
    others: tuple[UUID, ...] = ()

    def records(self) -> Iterator[Record]:
        rows = _rows(self.store)
        if self.keys:
            for row in rows.stream(KEYS):
                yield stored(KEYS, *row)
        for table, whole, numbers in self.pieces:
            streams = [table] if whole else []
            for stream in [*streams, *(hand_id(table, n) for n in numbers)]:
                for row in rows.stream(stream):
                    yield stored(stream, *row)
        for stream in self.others:
            for row in rows.stream(stream):
                yield stored(stream, *row)


@dataclass(frozen=True)
class LinesShare(Share):
    """Records or lines already read (standard input, a caller's records)."""

    lines: tuple[Line, ...]

    def records(self) -> Iterator[Record]:
        for line in self.lines:
            if isinstance(line, dict):
                yield line
            else:
                yield parse(line)  # bytes as read: orjson refuses any not UTF-8


_OPEN: dict[tuple[int, str], Rows] = {}
"""The store each process reads its shares from, opened once by it."""


def _rows(store: str) -> Rows:
    key = (os.getpid(), store)
    rows = _OPEN.get(key)
    if rows is None:
        rows = _OPEN[key] = open_rows(store)
    return rows


def _close_rows() -> None:
    for key in [k for k in _OPEN if k[0] == os.getpid()]:
        _OPEN.pop(key).close()


SHARE_BYTES = 1 << 20
"""About how much of a log one share reads: some forty hands."""

SHARE_HANDS = 40
"""About how many hands of a store one share reads."""

SHARE_STREAMS = 400
"""How many accounts or matches of a store one share reads."""


def log_shares(path: str, start: int, size: int = SHARE_BYTES) -> Iterator[LogShare]:
    """The log from byte ``start`` (a line's start) in shares of about
    ``size`` bytes, each cut where a stream begins. Only the lines about
    each cut are read here."""
    end = os.path.getsize(path)
    with open(path, "rb") as file:
        while start < end:
            cut = end
            if start + size < end:
                file.seek(start + size)
                file.readline()  # the rest of a line begun before
                before = None
                while line := file.readline():
                    this = _key(line)
                    if before is not None and this is not None and _begins(before, this):
                        cut = file.tell() - len(line)
                        break
                    before = this if this is not None else before
            yield LogShare(path, start, cut)
            start = cut


def store_shares(
    store: str,
    tables: Sequence[UUID],
    hands: Mapping[UUID, Sequence[int]],
    size: int = SHARE_HANDS,
    others: Sequence[UUID] = (),
) -> Iterator[StoreShare]:
    """A store's chosen tables and hands, in export order, in shares of
    about ``size`` hands; a table's own stream goes with its first hands.
    Then the ``others``, :data:`SHARE_STREAMS` streams a share."""
    pieces: list[tuple[UUID, bool, tuple[int, ...]]] = []
    count = 0
    first = True
    for table in tables:
        numbers = list(hands[table])
        whole = True
        while whole or numbers:
            taken, numbers = numbers[: size - count], numbers[size - count :]
            pieces.append((table, whole, tuple(taken)))
            whole, count = False, count + len(taken)
            if count >= size:
                yield StoreShare(store, tuple(pieces), keys=first)
                pieces, count, first = [], 0, False
    if pieces or first:
        yield StoreShare(store, tuple(pieces), keys=first)
    for at in range(0, len(others), SHARE_STREAMS):
        yield StoreShare(store, (), others=tuple(others[at : at + SHARE_STREAMS]))


def line_shares(lines: Iterable[Line], size: int = 2000) -> Iterator[LinesShare]:
    """Lines or records in shares of about ``size``, each cut where a
    stream begins."""
    batch: list[Line] = []
    before: Key | None = None
    for line in lines:
        if len(batch) < size:
            before = None  # not read yet: most lines are not
        else:
            before = before or next(filter(None, map(_key, reversed(batch))), None)
            this = _key(line)
            if before is not None and this is not None and _begins(before, this):
                yield LinesShare(tuple(batch))
                batch = []
            before = this or before
        batch.append(line)
    if batch:
        yield LinesShare(tuple(batch))


Key = tuple[str, object]
"""A line's kind and stream id, as :func:`_streams` groups it."""


def _key(line: Line) -> Key | None:
    """The line's kind and id, parsed as its share will parse it; None for
    a blank line or one that is not a JSON object (its share says so)."""
    if isinstance(line, dict):
        return str(line.get("kind")), line.get("id")
    if not line.strip():
        return None
    try:
        parsed = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return (str(parsed.get("kind")), parsed.get("id")) if isinstance(parsed, dict) else None


def _begins(before: Key, this: Key) -> bool:
    """Whether a line begins a stream, after ``before``: as in :func:`_streams`."""
    (last, stream), (kind, id_) = before, this
    return last == "seal" or _stream(last) != _stream(kind) or stream != id_


def check_share(share: Share, *, every: bool = False) -> list[Found]:
    """A share's streams, read and checked here."""
    return check_records(share.records(), every=every)


class Verifier:
    """Give it shares in the log's order (:meth:`run`); it gives the report.
    ``trusted`` is the server's public key (hex); without one, the first
    signing key met is taken, with a warning, which proves only that the
    records agree with one another. With ``workers`` above 1, shares are
    read and checked in that many processes while this one ties hands to
    their tables. With ``all_signatures``, every signature is verified,
    not only each stream's last (:class:`Found`). With ``chips``, the log
    holds every account and every table: the chips the accounts moved to
    and from seats are compared with what the tables recorded."""

    def __init__(
        self,
        trusted: str | None,
        *,
        complete: bool = True,
        progress: Callable[[int], None] | None = None,
        workers: int = 1,
        all_signatures: bool = False,
        chips: bool = False,
    ) -> None:
        self.trusted = trusted
        self.chips = chips
        self.moved: dict[str, Counter[tuple[int, int]]] = {}  # by the accounts, by table
        self.recorded: dict[str, Counter[tuple[int, int]]] = {}  # by each table
        self.keyring: frozenset[str] = frozenset()  # what the log's key history trusts
        self.revoked: dict[str, int] = {}  # and from which notification on it does not
        self.all_signatures = all_signatures
        self.complete = complete
        self.report = Report()
        self.deals: dict[UUID, _Deal] = {}
        self.seen: dict[UUID, _Deal] = {}
        self.progress = progress
        self.workers = workers

    def run(self, shares: Iterable[Share]) -> Report:
        check = partial(check_share, every=self.all_signatures)
        try:
            if self.workers <= 1:
                for share in shares:
                    self._take(check(share))
                return self.finish()
            context = multiprocessing.get_context("fork")
            with context.Pool(self.workers) as pool:
                for found in pool.imap(check, shares):
                    self._take(found)
        finally:
            _close_rows()
        return self.finish()

    def _take(self, found: list[Found]) -> None:
        for stream in found:
            if isinstance(stream, Folded):
                self.table(stream)
            elif isinstance(stream, Keyed):
                self.key_history(stream)
            elif isinstance(stream, Accounted):
                self.account(stream)
            elif stream.kind == "match":
                self.report.matches += 1
                self._found(stream, None)
            elif stream.kind in ("tournament", "log"):
                self._found(stream, None)
                if stream.withheld:
                    self.report.warnings.append(
                        f"tournament {stream.id} is running: its seed's record is withheld, "
                        "so its set-up before it is checked once it is over"
                    )
            else:
                self.hand(stream)

    def finish(self) -> Report:
        for key, deal in self.deals.items():
            if deal.finished and self.complete:
                self._fail("missing", "hand", str(key), None, "the hand's records", "none", deal)
        if self.chips:
            self._compare_chips()
        return self.report

    def account(self, accounted: Accounted) -> None:
        self.report.accounts += 1
        self._found(accounted, None)
        for table, seat, amount in accounted.moves:
            self.moved.setdefault(table, Counter())[seat, amount] += 1

    def _compare_chips(self) -> None:
        """Each move of chips between an account and a seat, as the account
        recorded it and as the table did: every one must be in both."""
        for table in sorted(self.moved.keys() | self.recorded.keys()):
            moved, recorded = self.moved.get(table, Counter()), self.recorded.get(table, Counter())
            if moved == recorded:
                continue
            unrecorded, unmoved = moved - recorded, recorded - moved
            self._fail(
                "chips",
                "table",
                table,
                None,
                "every move of chips between an account and a seat in both streams",
                f"moved by the accounts, not at the table: {_moves(unrecorded)}; "
                f"at the table, moved by no account: {_moves(unmoved)}",
            )

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
        for key, places in found.signers.items():
            if self.trusted is None:
                self.trusted = key
                self.report.warnings.append(
                    f"no public key given: trusting {key}, the key that signed {found.kind} "
                    f"{found.id}. This shows only that the records agree with one another and "
                    "were signed by one key, not that the key is your server's: give "
                    "--public-key to know."
                )
            if key != self.trusted and key not in self.keyring:
                expected = f"signed by {self.trusted}"
                if self.keyring:
                    expected = f"signed by a key the store's key history trusts from {self.trusted}"
                for position, _ in places:
                    self._fail("key", found.kind, found.id, position, expected, key, deal)
            elif key in self.revoked:
                self._revoked(found, deal, key, places)

    def _revoked(
        self, found: Found, deal: _Deal | None, key: str, places: list[tuple[int, int | None]]
    ) -> None:
        """What a revoked key signed at or after the notification it is revoked from."""
        since = self.revoked[key]
        for position, notification in places:
            if notification is None or notification >= since:
                expected = f"signed by key {key} before notification {since}, its revocation"
                at = "no notification" if notification is None else f"notification {notification}"
                self._fail("revoked", found.kind, found.id, position, expected, at, deal)

    def _found(self, found: Found, deal: _Deal | None) -> None:
        self.report.verified += found.verified
        self.report.formed += found.formed
        for check, position, expected, what in found.failures:
            self._fail(check, found.kind, found.id, position, expected, what, deal)
        self._keys(found, deal)

    def key_history(self, keyed: Keyed) -> None:
        """The keys the store's history trusts from the given key (without
        one, from its first key, with a warning)."""
        self._found(keyed, None)
        if not keyed.history:
            return
        if self.trusted is None:
            self.trusted = keyed.history[0][2]
            self.report.warnings.append(
                f"no public key given: trusting {self.trusted}, the first key of the store's "
                "key history. This shows only that the records agree with one another, not "
                "that the key is your server's: give --public-key to know."
            )
        self.keyring, self.revoked = trusted_keys(keyed.history, self.trusted)

    def table(self, folded: Folded) -> None:
        """A table checked on its own; its deals kept for its hands."""
        self.report.tables += 1
        self._found(folded, None)
        for check, position, expected, what in folded.ruled:
            self._fail(check, "table", folded.id, position, expected, what)
        self.deals.update(folded.deals)
        recorded = self.recorded.setdefault(folded.id, Counter())
        for _, seat, amount in folded.moves:
            recorded[seat, amount] += 1

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
        if found.withheld:
            at = deal or again
            self.report.withheld.append(
                Withheld(
                    found.id,
                    found.withheld,
                    str(at.table) if at else None,
                    at.number if at else None,
                )
            )
        if deal is not None and key is not None:
            # Only its name is kept once it is checked: memory stays small.
            self.seen[key] = _Deal(deal.table, deal.number)
            if found.start is not None and found.result is not None:
                self._tie(found, deal)
        if self.progress:
            self.progress(self.report.hands)

    def _tie(self, found: Found, deal: _Deal) -> None:
        """The hand is the one its table dealt and took the result of."""
        assert found.start is not None
        assert found.result is not None
        assert deal.start is not None
        stream = found.id
        (signed, *start), (dealt, *at_table) = found.start, deal.start
        if signed != dealt:
            self._fail("table", "hand", stream, 1, f"commitment {dealt}", signed, deal)
        if start != at_table:
            self._fail(
                "table", "hand", stream, 1, f"the deal {_seated(at_table)}", _seated(start), deal
            )
        if deal.rules is not None and found.rules != deal.rules:
            due, played = _differing(deal.rules, found.rules)
            self._fail("game", "hand", stream, 1, f"its table's turn: {due}", played, deal)
        last = found.length - 1
        if not deal.finished:
            self._fail("table", "hand", stream, last, "the table to finish it", "no finish", deal)
            return
        if found.result != deal.result:
            self._fail(
                "table",
                "hand",
                stream,
                last,
                f"stacks and rake {deal.result} as the table took them",
                found.result,
                deal,
            )


def _turn(turn: Turn | None) -> str:
    if turn is None:
        return "no turn"
    return f"{turn.game} hand {turn.hand} of {turn.hands}, then {turn.next}"


def _differing(due: Rules, played: Rules | None) -> tuple[str, str]:
    """The rules' fields that differ, as due and as played."""
    if played is None:
        return str(due), "no rules"
    names = [f.name for f in fields(due) if getattr(due, f.name) != getattr(played, f.name)]
    return (
        ", ".join(f"{n} {getattr(due, n)}" for n in names),
        ", ".join(f"{n} {getattr(played, n)}" for n in names),
    )


def _moves(moves: Counter[tuple[int, int]]) -> str:
    """Moves of chips to show: to seat 3, 500 (twice); back from seat 1, 480."""
    if not moves:
        return "none"
    shown = []
    for (seat, amount), times in sorted(moves.items()):
        way = f"to seat {seat}, {amount}" if amount > 0 else f"back from seat {seat}, {-amount}"
        shown.append(way + (f" ({times} times)" if times > 1 else ""))
    return "; ".join(shown)


def _seated(start: list[Any]) -> tuple[int, tuple[SeatAtStart, ...]]:
    """A deal's button and seats, to show."""
    button, seats = start
    return button, tuple(SeatAtStart(*seat) for seat in seats)


def verify(
    records: Iterable[Line],
    trusted: str | None,
    *,
    complete: bool = True,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    all_signatures: bool = False,
    chips: bool = False,
) -> Report:
    """Check every stream in ``records``, a log's records or lines in
    order (docs/replay.md)."""
    return verify_shares(
        line_shares(records),
        trusted,
        complete=complete,
        progress=progress,
        workers=workers,
        all_signatures=all_signatures,
        chips=chips,
    )


def verify_shares(
    shares: Iterable[Share],
    trusted: str | None,
    *,
    complete: bool = True,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    all_signatures: bool = False,
    chips: bool = False,
) -> Report:
    """:func:`verify` on shares in the log's order (:func:`log_shares`,
    :func:`store_shares`), each read where it is checked."""
    verifier = Verifier(
        trusted,
        complete=complete,
        progress=progress,
        workers=workers,
        all_signatures=all_signatures,
        chips=chips,
    )
    return verifier.run(shares)
