"""A tournament, re-checked from its events and its hands without the server.

A tournament's stream (docs/audit.md, Tournament streams) records every
decision its director made, one batch of events per request (an entry, the
clock, a hand begun or ended at a table, a cancellation), and reveals the
seed of its seat draws when it ends. :func:`check_tournament` follows the
stream's chain and signatures, holds the revealed seed to the commitment
made at its creation, and then decides every request again with the
engine's pure rules (:func:`feltline.engine.tournament.decision`) from the
state the stored events before it give: each seat draw, level change,
move, broken table, placing and prize must be what the rules make of it.
A difference is named by what it is about (:data:`ABOUT`), and the check
goes on from the stored events, so one forgery is reported where it is.
Then the moves at the tables: each seated the player at the new table
with the time bank they had left at the old one. Then the hands: each
hand the tournament says a table played was dealt at its level's stakes
and ended with the stacks the tournament recorded; and the prizes: they
add up to the pool, and the pool's account paid each of them into the
winner's account.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from uuid import UUID, uuid5

from feltline.audit.codec import TABLE_EVENT_TYPES, TOURNAMENT_EVENT_TYPES, decode_event
from feltline.engine.cards.deck import commitment
from feltline.engine.errors import RuleError
from feltline.engine.hand.events import Event, HandEnded, HandStarted
from feltline.engine.table.events import SatDown, StoodUp
from feltline.engine.table.evolve import evolve
from feltline.engine.table.state import Table
from feltline.engine.tournament import (
    Eliminated,
    HandBegun,
    HandPlayed,
    LevelChanged,
    Paid,
    Placed,
    PlayerMoved,
    RegistrationClosed,
    SeatsDrawn,
    SeedRevealed,
    TableBroken,
    Tournament,
    TournamentCreated,
    decision,
)
from feltline_replay.duplicate import chained
from feltline_replay.export import hand_id
from feltline_replay.log import Record

ACCOUNTS = UUID("5d0f8a53-3b0e-4d7e-8a61-2f1c9e5b7c42")
"""The namespace of players' account ids (docs/replay.md, Stream ids)."""

ABOUT: dict[type[Event], str] = {
    SeatsDrawn: "seat draw",
    LevelChanged: "level",
    HandBegun: "level",
    PlayerMoved: "move",
    TableBroken: "move",
    Eliminated: "placing",
    Placed: "placing",
    Paid: "payout",
    RegistrationClosed: "payout",
}
"""What a difference in an event of each type is about, as reported."""

UNFIT = (RuleError, LookupError, ValueError, TypeError, AssertionError, AttributeError)
"""What the decider raises on a state no rules would reach: a forged
stream's, reported, never a traceback."""

Streams = Callable[[UUID], list[Record]]
"""A stream's records by its id, from a store or an exported log."""


def table_id(tournament: UUID, number: int) -> UUID:
    """The stream id of a tournament's table ``number`` (from 1)."""
    return uuid5(tournament, f"table/{number}")


def pool_id(tournament: UUID) -> UUID:
    """The account that holds a tournament's prize pool."""
    return uuid5(tournament, "pool")


def account_id(player: str) -> UUID:
    return uuid5(ACCOUNTS, player)


@dataclass
class TournamentReport:
    """What was checked of a tournament and what does not hold, each
    failure beginning with what it is about."""

    requests: int = 0
    hands: int = 0
    failures: list[str] = field(default_factory=list)
    state: Tournament = field(default_factory=Tournament)

    @property
    def ok(self) -> bool:
        return not self.failures


NOT_OVER = (
    "seat draw: the seed is not revealed: the tournament is not over, and its draws "
    "cannot be checked before it is"
)


def check_tournament(
    key: UUID, streams: Streams, public_key: str | None = None
) -> TournamentReport:
    """Re-check tournament ``key``: its chain, its seed, every decision,
    its hands and its prizes."""
    records = streams(key)
    if not records:
        raise ValueError(f"no tournament {key} there")
    if any(r.get("kind") != "tournament" for r in records):
        raise ValueError(f"stream {key} is not a tournament")
    if any(r.get("withheld") for r in records):  # a running one's export: docs/replay.md
        return TournamentReport(failures=[NOT_OVER])
    report = TournamentReport(failures=chained("tournament", key, records, public_key))
    batches = _batches(records, report)
    report.requests = len(batches)
    seed = _seed(batches, report)
    if seed is None:
        return report
    _decided(batches, seed, report)
    _banks(key, records, streams, report)
    _hands(key, batches, streams, report)
    _prizes(key, batches, streams, report)
    return report


def _batches(records: Sequence[Record], report: TournamentReport) -> list[list[Event]]:
    """The stored events, one list per request (its command id)."""
    batches: list[list[Event]] = []
    last: object = None
    for r in records:
        try:
            event = decode_event(r["type"], r["version"], r["data"], TOURNAMENT_EVENT_TYPES)
        except (KeyError, TypeError, ValueError) as e:
            report.failures.append(f"record: {r.get('position')} is no tournament event: {e}")
            continue
        if r.get("command_id") != last or not batches:
            batches.append([])
            last = r.get("command_id")
        batches[-1].append(event)
    return batches


def _seed(batches: Sequence[Sequence[Event]], report: TournamentReport) -> bytes | None:
    """The revealed seed of the seat draws, if it hashes to the commitment."""
    events = [e for batch in batches for e in batch]
    created = next((e for e in events if isinstance(e, TournamentCreated)), None)
    revealed = next((e for e in events if isinstance(e, SeedRevealed)), None)
    if created is None:
        report.failures.append("seat draw: the stream does not begin with the tournament created")
        return None
    if revealed is None:
        report.failures.append(NOT_OVER)
        return None
    if commitment(revealed.seed) != created.commitment:
        report.failures.append(
            f"seat draw: the revealed seed hashes to {commitment(revealed.seed)}, not to the "
            f"commitment {created.commitment} made when the tournament was created"
        )
        return None
    return revealed.seed


def _decided(batches: Sequence[Sequence[Event]], seed: bytes, report: TournamentReport) -> None:
    """Every request decided again from the stored events before it."""
    state = Tournament()
    for number, batch in enumerate(batches, 1):
        try:
            expected = decision(state, batch, seed)
        except UNFIT as e:
            report.failures.append(
                f"{_about(batch[0])}: request {number} ({type(batch[0]).__name__}) is one the "
                f"rules refuse: {e}"
            )
            expected = None
        if expected is not None:
            stored = [e.redacted() for e in batch]
            due = [e.redacted() for e in expected]
            if stored != due:
                at = next(
                    (i for i, (a, b) in enumerate(zip(stored, due, strict=False)) if a != b),
                    min(len(stored), len(due)),
                )
                found = stored[at] if at < len(stored) else None
                wanted = due[at] if at < len(due) else None
                report.failures.append(
                    f"{_about(found or wanted)}: request {number}, event {at + 1}: "
                    f"the rules give {wanted or 'nothing'}, the stream holds {found or 'nothing'}"
                )
        try:
            state = state.then(batch)
        except UNFIT as e:
            report.failures.append(f"decision: request {number}'s events do not apply: {e!r}")
            break
    report.state = state


def _about(event: Event | None) -> str:
    return "decision" if event is None else ABOUT.get(type(event), "decision")


Seating = tuple[str, str]
"""A player seated or stood up at a table, by the request (its command id)."""


def _banks(
    key: UUID, records: Sequence[Record], streams: Streams, report: TournamentReport
) -> None:
    """Each move took the player's time bank with them: the table they
    were moved to seated them with the bank they had left at the table they
    left (docs/rules.md, "The time bank"). A seat stored before moves
    carried banks (``SatDown`` version 1) had the whole bank, as the rules
    then said."""
    moves: list[tuple[object, str, PlayerMoved]] = []
    for r in records:
        if r.get("type") == "PlayerMoved":
            try:
                event = decode_event(r["type"], r["version"], r["data"], TOURNAMENT_EVENT_TYPES)
            except (KeyError, TypeError, ValueError):
                continue  # reported with the stream's events
            assert isinstance(event, PlayerMoved)
            moves.append((r.get("position"), f"tournament/{key}/{r.get('command_id')}", event))
    left: dict[int, dict[Seating, int | None]] = {}
    seated: dict[int, dict[Seating, tuple[int | None, int]]] = {}
    for table in sorted({n for _, _, m in moves for n in (m.from_table, m.to_table)}):
        left[table], seated[table] = _seatings(streams(table_id(key, table)))
    for position, request, move in moves:
        where = (
            f"move: {move.player}'s move from table {move.from_table} to table "
            f"{move.to_table} (record {position})"
        )
        seating = (request, move.player)
        sat = seated[move.to_table].get(seating)
        if seating not in left[move.from_table] or sat is None:
            report.failures.append(f"{where} is not carried out at the tables")
            continue
        had, (bank, version) = left[move.from_table][seating], sat
        if bank != had and (bank, version) != (None, 1):
            report.failures.append(
                f"{where} seated them with a time bank of {_seconds(bank)}, they had "
                f"{_seconds(had)} left"
            )


def _seatings(
    records: Sequence[Record],
) -> tuple[dict[Seating, int | None], dict[Seating, tuple[int | None, int]]]:
    """A table's stand-ups, each with the time bank the seat had left (None
    at a table without banks), and its seatings, each with the bank it
    brought and the version ``SatDown`` was stored at."""
    table = Table()
    left: dict[Seating, int | None] = {}
    seated: dict[Seating, tuple[int | None, int]] = {}
    for r in records:
        try:
            event = decode_event(r["type"], r["version"], r["data"], TABLE_EVENT_TYPES)
        except (KeyError, TypeError, ValueError):
            continue  # the table's own check reports it
        request = str(r.get("command_id"))
        match event:
            case StoodUp(seat=number, player=player) if seat := table.seat(number):
                banked = table.config is not None and table.config.time_bank is not None
                left.setdefault((request, player), seat.bank if banked else None)
            case SatDown(player=player, bank=bank):
                seated.setdefault((request, player), (bank, int(r["version"])))
        try:
            table = evolve(table, event)  # type: ignore[arg-type]
        except UNFIT:
            break  # the table's own check reports it
    return left, seated


def _seconds(bank: int | None) -> str:
    return "none" if bank is None else f"{bank} s"


def _hands(
    key: UUID, batches: Sequence[Sequence[Event]], streams: Streams, report: TournamentReport
) -> None:
    """Each hand the tournament records: dealt at its level's stakes, ended
    with the stacks the tournament took from it."""
    state = Tournament()
    begun: dict[tuple[int, int], HandBegun] = {}
    for batch in batches:
        for event in batch:
            if isinstance(event, TournamentCreated):
                state = state.then([event])
            elif isinstance(event, HandBegun):
                begun[event.table, event.hand] = event
            elif isinstance(event, HandPlayed):
                report.hands += 1
                _hand(
                    key,
                    state,
                    begun.get((event.table, event.hand)),
                    event,
                    streams=streams,
                    report=report,
                )


def _hand(
    key: UUID,
    state: Tournament,
    begun: HandBegun | None,
    played: HandPlayed,
    *,
    streams: Streams,
    report: TournamentReport,
) -> None:
    where = f"hand {played.hand} of table {played.table}"
    events = []
    for r in streams(hand_id(table_id(key, played.table), played.hand)):
        if r.get("kind") == "hand" and "type" in r:
            try:
                events.append(decode_event(r["type"], r["version"], r["data"]))
            except (KeyError, TypeError, ValueError) as e:
                report.failures.append(f"hand: {where}'s record {r.get('position')}: {e}")
                return
    started = next((e for e in events if isinstance(e, HandStarted)), None)
    ended = next((e for e in events if isinstance(e, HandEnded)), None)
    if started is None or ended is None:
        report.failures.append(f"hand: {where} is not there to compare")
        return
    if begun is not None:
        stakes = state.stakes(begun.level)
        if started.rules.stakes != stakes:
            report.failures.append(
                f"level: {where} was dealt at {started.rules.stakes}, level {begun.level}'s "
                f"stakes are {stakes}"
            )
    if dict(ended.stacks) != dict(played.stacks):
        report.failures.append(
            f"hand: {where} ended with stacks {dict(ended.stacks)}, the tournament recorded "
            f"{dict(played.stacks)}"
        )


def _prizes(
    key: UUID, batches: Sequence[Sequence[Event]], streams: Streams, report: TournamentReport
) -> None:
    """The prizes add up to the pool, and the pool's account paid each
    prize (or refund) into its player's account."""
    events = [e for batch in batches for e in batch]
    created, state = report.state.created, report.state
    closed = next((e for e in events if isinstance(e, RegistrationClosed)), None)
    credits: dict[str, int] = {}
    for e in events:
        if isinstance(e, Paid):
            credits[e.player] = credits.get(e.player, 0) + e.amount
    if created is not None and closed is not None:
        if closed.pool != closed.entrants * created.buy_in:
            report.failures.append(
                f"payout: a pool of {closed.pool} from {closed.entrants} buy-ins of "
                f"{created.buy_in}"
            )
        if state.finished is not None and sum(credits.values()) != closed.pool:
            report.failures.append(
                f"payout: the prizes add up to {sum(credits.values())}, the pool is {closed.pool}"
            )
    if created is not None and state.cancelled is not None:
        fee = created.fee if state.started_at is None else 0
        for refund in state.cancelled.refunds:
            credits[refund.player] = credits.get(refund.player, 0) + refund.amount - fee
    pool = str(pool_id(key))
    for player, amount in sorted(credits.items()):
        received = sum(
            int(r["data"]["amount"])
            for r in streams(account_id(player))
            if r.get("type") == "Received" and r["data"].get("source") == pool
        )
        if received != amount:
            report.failures.append(
                f"payout: {player}'s account received {received} from the prize pool, "
                f"the tournament paid them {amount}"
            )
