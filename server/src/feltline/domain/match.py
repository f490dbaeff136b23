"""One stream per duplicate match: its tables, players, deals and seeds.

A match (docs/rules.md, "Duplicate poker") deals the same deck to every one of
its tables on each deal. Its stream holds what makes that checkable and
keeps it secret until it may be known:

- :class:`MatchCreated`: the tables (two or more, one config), the number
  of deals, every deal's starting stack, how far a table may run ahead of
  the slowest, and the commitment to each deal's seed, all stored before
  any table deals;
- :class:`DecksDrawn`: the seeds themselves, the server's secret (like a
  hand's ``DeckShuffled``), never shown to anyone;
- :class:`SeatTaken`: a player's seat at one table, for the whole match;
- :class:`DealPlayed`: a table's final stacks on a deal, stored in the
  transaction that ends the hand;
- :class:`DealRevealed`: a deal's seed, stored in the transaction in which
  the last table ends it, and not before.

Records are chained and signed like every stream's
(:mod:`feltline.domain.chained`, kind ``match``) and their data is the
codec's (:mod:`feltline.audit.codec`). :class:`Match` is the state and
decides: every method returns the events a request causes or refuses it
with a :class:`RuleError`, changing nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import ClassVar, Self
from uuid import UUID

from pyrsistent import pmap
from pyrsistent.typing import PMap

from feltline.domain.requested import RequestRecord, RequestStream, Types
from feltline.engine.cards.deck import SEED_BYTES, commitment
from feltline.engine.duplicate import chip_results, matchpoints, scores
from feltline.engine.errors import ConfigError, Kind, RuleError
from feltline.engine.hand.events import NOBODY, Event
from feltline.engine.table.house import TableConfig

MAX_DEALS = 500
MAX_TABLES = 16


class SeatError(RuleError):
    """A seat that is taken, does not exist, or a player seated already."""

    kind = Kind.PRECONDITION


class WaitingForTables(RuleError):
    """A table may not deal a deal yet: seats are empty, the others are
    too far behind, or the match is over."""

    kind = Kind.PRECONDITION


# ---- events


@dataclass(frozen=True, slots=True)
class MatchCreated(Event):
    """``tables`` are the tables' ids in match order; ``config`` is every
    table's (fixed-position dealing, no rake, no time charge);
    ``commitments`` the SHA-256 of each deal's seed, deal 1 first."""

    name: str
    config: TableConfig
    tables: tuple[str, ...]
    deals: int
    stack: int
    ahead: int
    commitments: tuple[str, ...]
    by: str
    at: int


@dataclass(frozen=True, slots=True)
class DecksDrawn(Event):
    """Each deal's seed: seen by nobody until that deal is revealed."""

    seeds: tuple[bytes, ...]

    def audience(self) -> frozenset[int] | None:
        return NOBODY

    def redacted(self) -> Event:
        return replace(self, seeds=())


@dataclass(frozen=True, slots=True)
class SeatTaken(Event):
    table: int
    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class DealPlayed(Event):
    """Table ``table`` ended deal ``deal`` with these stacks, by seat."""

    deal: int
    table: int
    stacks: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class DealRevealed(Event):
    """Every table has ended deal ``deal``: its seed may be known."""

    deal: int
    seed: bytes


MATCH_EVENT_TYPES: Mapping[str, tuple[type[Event], int]] = {
    cls.__name__: (cls, version)
    for cls, version in (
        # 1: settings of before seat entropy; 2: before mixed tables; 3: before time banks
        (MatchCreated, 4),
        (DecksDrawn, 1),
        (SeatTaken, 1),
        (DealPlayed, 1),
        (DealRevealed, 1),
    )
}


# ---- the state


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's totals over the revealed deals."""

    table: int
    seat: int
    player: str
    score: int
    matchpoints: int
    chips: int


@dataclass(frozen=True)
class Match:
    """``played`` is each deal's stacks by table; ``revealed`` the seeds of
    deals 1 to ``len(revealed)``. ``seeds`` is the secret: nothing outside
    the cardroom's dealing reads it."""

    created: MatchCreated | None = None
    seeds: tuple[bytes, ...] = ()
    players: PMap[tuple[int, int], str] = field(default_factory=pmap)
    played: PMap[int, PMap[int, tuple[tuple[int, int], ...]]] = field(default_factory=pmap)
    revealed: tuple[bytes, ...] = ()

    @property
    def setup(self) -> MatchCreated:
        if self.created is None:
            raise RuleError("the match has not been created")
        return self.created

    @property
    def tables(self) -> tuple[UUID, ...]:
        return tuple(UUID(t) for t in self.setup.tables)

    @property
    def full(self) -> bool:
        setup = self.setup
        return len(self.players) == len(setup.tables) * setup.config.seats

    @property
    def finished(self) -> bool:
        return len(self.revealed) == self.setup.deals

    def dealt_to(self, table: int) -> int:
        """How many deals ``table`` has ended."""
        return sum(1 for by_table in self.played.values() if table in by_table)

    def seat_of(self, player: str) -> tuple[int, int] | None:
        return next((at for at, p in self.players.items() if p == player), None)

    # ---- decisions

    @staticmethod
    def create(
        name: str,
        config: TableConfig,
        tables: tuple[UUID, ...],
        *,
        deals: int,
        stack: int,
        ahead: int,
        seeds: tuple[bytes, ...],
        by: str,
        at: int,
    ) -> list[Event]:
        """A new match's events; ``config`` must be a valid duplicate table's."""
        game = config.rules.game
        if not config.rules.variant.duplicate_seats:
            raise ConfigError(f"{game} is not offered in a duplicate match")
        if not 2 <= len(tables) <= MAX_TABLES:
            raise ConfigError(f"a match has 2 to {MAX_TABLES} tables, not {len(tables)}")
        if not 1 <= deals <= MAX_DEALS:
            raise ConfigError(f"a match has 1 to {MAX_DEALS} deals, not {deals}")
        if stack < 1:
            raise ConfigError(f"every deal starts each player with at least 1 chip, not {stack}")
        if not 0 <= ahead < deals:
            raise ConfigError(f"a table may run 0 to {deals - 1} deals ahead, not {ahead}")
        if len(seeds) != deals or any(len(s) != SEED_BYTES for s in seeds):
            raise ConfigError(f"a match needs one {SEED_BYTES}-byte seed per deal")
        created = MatchCreated(
            name,
            config,
            tuple(str(t) for t in tables),
            deals,
            stack,
            ahead,
            tuple(commitment(s) for s in seeds),
            by,
            at,
        )
        return [created, DecksDrawn(seeds)]

    def take(self, table: int, seat: int, player: str) -> list[Event]:
        setup = self.setup
        if not 0 <= table < len(setup.tables):
            raise SeatError(f"the match has tables 0 to {len(setup.tables) - 1}, not {table}")
        if not 1 <= seat <= setup.config.seats:
            raise SeatError(
                f"a table of this match has seats 1 to {setup.config.seats}, not {seat}"
            )
        taken = self.players.get((table, seat))
        if taken is not None:
            raise SeatError(f"seat {seat} at table {table} is taken by {taken}")
        already = self.seat_of(player)
        if already is not None:
            raise SeatError(f"{player} already plays seat {already[1]} at table {already[0]}")
        return [SeatTaken(table, seat, player)]

    def next_deal(self, table: int) -> int:
        """The deal ``table`` may deal now, or :class:`WaitingForTables` why not."""
        setup = self.setup
        if not self.full:
            empty = len(setup.tables) * setup.config.seats - len(self.players)
            raise WaitingForTables(f"the match waits for {empty} more players to take seats")
        deal = self.dealt_to(table) + 1
        if deal > setup.deals:
            raise WaitingForTables(f"table {table} has played all {setup.deals} deals")
        slowest = min(self.dealt_to(t) for t in range(len(setup.tables)))
        if deal > slowest + 1 + setup.ahead:
            raise WaitingForTables(
                f"table {table} waits at deal {deal}: the slowest table has ended {slowest}, "
                f"and a table may run {setup.ahead} ahead"
            )
        return deal

    def seed(self, deal: int) -> bytes:
        """Deal ``deal``'s seed, for the dealer only."""
        return self.seeds[deal - 1]

    def end_deal(self, table: int, deal: int, stacks: Mapping[int, int]) -> list[Event]:
        """A table ended ``deal``: its stacks, and the seed once every table has."""
        setup = self.setup
        if self.dealt_to(table) + 1 != deal:
            raise WaitingForTables(f"table {table} is not playing deal {deal}")
        events: list[Event] = [DealPlayed(deal, table, tuple(sorted(stacks.items())))]
        if len(self.played.get(deal, pmap())) + 1 == len(setup.tables):
            events.append(DealRevealed(deal, self.seed(deal)))
        return events

    # ---- scores

    def results(self, deal: int) -> list[dict[int, int]]:
        """Each table's chip results on a revealed deal, in table order."""
        by_table = self.played[deal]
        stack = self.setup.stack
        return [chip_results(stack, dict(by_table[t])) for t in range(len(self.setup.tables))]

    def standings(self) -> list[Standing]:
        """Every player's score, matchpoints and chips won over the revealed
        deals only: a deal some table still plays tells nothing yet."""
        totals = {at: [0, 0, 0] for at in self.players}
        for deal in range(1, len(self.revealed) + 1):
            results = self.results(deal)
            for t, (score, points, chips) in enumerate(
                zip(scores(results), matchpoints(results), results, strict=True)
            ):
                for seat in score:
                    if (t, seat) in totals:
                        total = totals[t, seat]
                        total[0] += score[seat]
                        total[1] += points[seat]
                        total[2] += chips[seat]
        ranked = [Standing(t, s, self.players[t, s], *v) for (t, s), v in totals.items()]
        return sorted(ranked, key=lambda r: (-r.score, -r.matchpoints, r.table, r.seat))


def evolve(match: Match, event: Event) -> Match:
    match event:
        case MatchCreated():
            return replace(match, created=event)
        case DecksDrawn(seeds=seeds):
            return replace(match, seeds=seeds)
        case SeatTaken(table=table, seat=seat, player=player):
            return replace(match, players=match.players.set((table, seat), player))
        case DealPlayed(deal=deal, table=table, stacks=stacks):
            by_table = match.played.get(deal, pmap()).set(table, stacks)
            return replace(match, played=match.played.set(deal, by_table))
        case DealRevealed(seed=seed):
            return replace(match, revealed=(*match.revealed, seed))
    raise TypeError(f"not a match event: {event!r}")


# ---- the stream


@dataclass(frozen=True)
class MatchRecord(RequestRecord):
    """One match event as stored (:class:`feltline.domain.requested.RequestRecord`)."""

    class_version: ClassVar[int] = 1


@dataclass(frozen=True)
class MatchStream(RequestStream[MatchRecord, Match]):
    """A match as stored (:class:`feltline.domain.requested.RequestStream`)."""

    kind: ClassVar[str] = "match"
    types: ClassVar[Types] = MATCH_EVENT_TYPES

    match: Match = field(kw_only=True)

    @classmethod
    def new(cls, match_id: UUID) -> MatchStream:
        return cls(match_id, 0, pmap(), match=Match())

    def _record(self) -> type[MatchRecord]:
        return MatchRecord

    def _state(self) -> Match:
        return self.match

    def _with(self, state: Match) -> Self:
        return replace(self, match=state)

    def _evolve(self, state: Match, event: Event) -> Match:
        return evolve(state, event)


def project(stream: MatchStream | None, records: Iterable[MatchRecord]) -> MatchStream | None:
    """Fold stored records into a match, checking its chain as it goes."""
    records = list(records)
    if not records:
        return stream
    return (stream or MatchStream.new(records[0].originator_id)).extend(records)
