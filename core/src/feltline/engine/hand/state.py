"""The state of a hand, rebuilt by folding ``evolve`` over its events."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from feltline.engine.cards.card import Card
from feltline.engine.hand.events import Choice
from feltline.engine.hand.fast import BETTING, replace
from feltline.engine.hand.rules import Rules
from feltline.engine.hand.script import Phase


@dataclass(frozen=True)  # no slots: see replace
class Player:
    """One seat dealt in. ``bet`` is in front of the seat this round, ``paid``
    everything it has put in this hand (carried jackpots antes included)."""

    seat: int
    player: str
    stack: int
    bet: int = 0
    paid: int = 0
    folded: bool = False
    cards: tuple[Card, ...] = ()
    up: tuple[Card, ...] = ()
    acted_at: int | None = None
    drawn: bool = False
    choice: Choice | None = None

    @property
    def live(self) -> bool:
        return not self.folded

    @property
    def active(self) -> bool:
        """Live and able to bet: not all in."""
        return not self.folded and self.stack > 0


@dataclass(frozen=True)  # no slots: see replace
class Round:
    """One betting round. ``level`` is the bet to call, which a short blind
    or bring-in does not shrink; ``full`` the level after the last bet or
    raise that counted in full, and ``increment`` its size (the smallest raise
    in pot and no limit)."""

    bet_size: int
    level: int = 0
    full: int = 0
    increment: int = 0
    bets: int = 0
    capped: bool = False
    pending: tuple[int, ...] = ()
    bring_in_due: bool = False


@dataclass(frozen=True)  # no slots: see replace
class Hand:
    rules: Rules
    button: int
    players: tuple[Player, ...]
    phase: Phase = Phase.NOT_STARTED
    step: int = -1
    antes: bool = True
    small_blind_seat: int | None = None
    big_blind_seat: int | None = None
    extra_big_blinds: tuple[int, ...] = ()
    round: Round = field(default_factory=lambda: Round(bet_size=0))
    rounds: int = 0
    stub: tuple[Card, ...] = ()
    next: int = 0
    guarded: bool = True
    board: tuple[Card, ...] = ()
    muck: tuple[Card, ...] = ()
    set_aside: tuple[Card, ...] = ()
    reshuffles: int = 0
    seed: bytes = b""
    """The server's seed, revealed at the end."""
    deck_seed: bytes = b""
    """The seed the deck and its reshuffles come from: the server's seed
    under ``feltline-deck-v1``, mixed with the seats' under v2."""
    contributors: tuple[int, ...] = ()
    """v2: the seats that may commit, and whether every one must."""
    contributions_required: bool = False
    commitments: tuple[tuple[int, str], ...] = ()
    revealing: tuple[int, ...] = ()
    """v2: the seats that committed in time and may reveal."""
    contributions: tuple[tuple[int, bytes], ...] = ()
    pot: int = 0
    dead: int = 0
    rake: int = 0
    first_bettor: int | None = None
    opener: int | None = None
    openers: tuple[Card, ...] = ()
    raked: bool = False
    # Kept by evolve as players fold or go all in or win chips back, so the
    # decider need not count them again and again: len(live), len(active).
    live_count: int = 0
    active_count: int = 0
    seats: tuple[int, ...] = ()
    """The players' seats, in order: where each player is in ``players``."""

    def player(self, seat: int) -> Player:
        try:
            return self.players[self.seats.index(seat)]
        except ValueError:
            raise KeyError(seat) from None

    def with_player(self, updated: Player) -> Hand:
        return replace(self, players=self.players_with(updated))

    def players_with(self, updated: Player) -> tuple[Player, ...]:
        """The players, ``updated`` in place of the player at its seat."""
        try:
            i = self.seats.index(updated.seat)
        except ValueError:
            return self.players
        players = list(self.players)  # a list's item set, then frozen: the cheapest copy
        players[i] = updated
        return tuple(players)

    @property
    def live(self) -> tuple[Player, ...]:
        return tuple(p for p in self.players if not p.folded)

    @property
    def active(self) -> tuple[Player, ...]:
        return tuple(p for p in self.players if p.active)

    def clockwise(self, after: int) -> tuple[Player, ...]:
        """Every player, starting with the first seat clockwise after ``after``."""
        players = self.players
        start = bisect_right(self.seats, after)  # len(players): wraps round to the first
        return players[start:] + players[:start]

    @property
    def blind_round(self) -> bool:
        """The hand's first betting round, and it has blinds: the big blind
        opens it."""
        return self.rounds == 0 and self.big_blind_seat is not None

    @property
    def opening_level(self) -> int:
        """The bet to call as a betting round opens: the big blind in the
        blind round, nothing in any other."""
        return self.rules.stakes.big_blind if self.blind_round else 0

    @property
    def to_act(self) -> int | None:
        pending = self.round.pending
        return pending[0] if pending and self.phase is BETTING else None

    @property
    def chips(self) -> int:
        """Stacks, bets, pots and rake: constant through every hand."""
        return sum(p.stack + p.bet for p in self.players) + self.pot + self.rake
