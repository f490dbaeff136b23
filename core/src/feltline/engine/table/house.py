"""The house's settings for a table: seats, buy-ins, time charge, ante cap,
action clock and time bank, seat entropy, and a mixed table's rotation of
games.

The hand's own settings travel in :class:`Rules`; these are the ones only
the table needs. Chip amounts are whole numbers of chips, time whole
seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from feltline.engine.errors import ConfigError
from feltline.engine.games import VARIANTS, named
from feltline.engine.hand.events import Entropy
from feltline.engine.hand.rules import Game, Rules, Structure

DEFAULT_ANTE_CAP = 3
DEFAULT_WINDOW = 1800
DEFAULT_ACTION_CLOCK = 30
# How long seats have to commit, and then to reveal, their contributions to
# a feltline-deck-v2 deck: a round trip on a LAN is a millisecond or two.
DEFAULT_CONTRIBUTION_WINDOW_MS = 500
MOST_CONTRIBUTION_WINDOW_MS = 60_000
# Buy-ins in big bets (fixed limit) or big blinds (pot and no limit; the
# minimum bet in an antes game): the house minimum and default maximum.
FIXED_LIMIT_BUY_IN = (10, 25)
BIG_BLIND_BUY_IN = (40, 100)


@dataclass(frozen=True, slots=True)
class TimeCharge:
    """Every seated player pays ``amount`` once per ``window`` seconds,
    windows counted from the table's opening."""

    amount: int
    window: int = DEFAULT_WINDOW


@dataclass(frozen=True, slots=True)
class TimeBank:
    """Time a player may spend beyond the action clock: each seat sits down
    with ``seconds`` of it, and after each hand it was dealt into gains
    ``refill`` seconds, never above ``seconds``. Once its action clock runs
    out, a seat with bank left has all of it put on its clock, spent
    whether it uses it all or not."""

    seconds: int
    refill: int = 0


MOST_TIME_BANK = 3600


@dataclass(frozen=True, slots=True)
class Rotation:
    """A mixed table's games, each once, dealt in turn and round again: each
    for ``hands`` hands, or for an orbit when ``hands`` is 0, that is as many
    hands as players were dealt into its first hand (the button has then
    passed each of them once)."""

    games: tuple[Game, ...]
    hands: int = 0


@dataclass(frozen=True, slots=True)
class Turn:
    """Where a mixed table is in its rotation: a hand dealt is hand
    ``hand`` (from 1) of ``hands`` of ``game``, and ``next`` is the game
    dealt after them: what the players are told, recorded with the deal."""

    game: Game
    hand: int
    hands: int
    next: Game


MOST_HANDS_PER_GAME = 100


@dataclass(frozen=True, slots=True)
class TableConfig:
    """A table's settings. Buy-ins left as None take the house defaults,
    which :meth:`validate` fills in so the opening records real numbers.
    ``action_clock`` is how many seconds a player has before a time-out may
    act for them; the caller's clock decides, the time coming with each
    command. ``seat_entropy`` says whether the seats contribute to each
    hand's deck (``feltline-deck-v2``, docs/deck.md), and
    ``contribution_window_ms`` how long they have to commit, and then to
    reveal, before the hand goes on without them (or, when every seat must
    contribute and one did not commit, is cancelled). A ``time_bank``
    gives each seat time beyond the action clock; None: none.

    A mixed table has a ``rotation``; its ``rules`` name the rotation's
    first game, and their stakes every game's forced bets, of which each
    game takes its own (:meth:`rules_at`)."""

    rules: Rules
    seats: int
    min_buy_in: int | None = None
    max_buy_in: int | None = None
    time_charge: TimeCharge | None = None
    ante_cap: int = DEFAULT_ANTE_CAP
    action_clock: int = DEFAULT_ACTION_CLOCK
    seat_entropy: Entropy = Entropy.OFF
    contribution_window_ms: int = DEFAULT_CONTRIBUTION_WINDOW_MS
    rotation: Rotation | None = None
    time_bank: TimeBank | None = None

    def rules_at(self, turn: Turn | None) -> Rules:
        """The rules of a hand dealt at ``turn`` of the rotation (None at a
        table of one game): its game, with the forced bets that game posts."""
        if self.rotation is None or turn is None:
            return self.rules
        stakes = VARIANTS[turn.game].forced_bets(self.rules.stakes)
        return replace(self.rules, game=turn.game, stakes=stakes)

    def next_turn(self, last: Turn | None, players: int) -> Turn | None:
        """The turn of the hand dealt after one at ``last`` to ``players``
        players: the same game's next hand, or the next game's first once
        its turn is played (its length, for an orbit, the players now)."""
        rotation = self.rotation
        if rotation is None:
            return None
        if last is not None and last.hand < last.hands:
            return replace(last, hand=last.hand + 1)
        games = rotation.games
        game = games[0] if last is None else last.next
        after = games[(games.index(game) + 1) % len(games)]
        return Turn(game, 1, rotation.hands or players, after)

    def buy_in_limits(self) -> tuple[int, int]:
        """The smallest and largest stack a player may sit down with."""
        stakes = self.rules.stakes
        if stakes.structure is Structure.FIXED_LIMIT:
            unit, (low, high) = stakes.big_bet, FIXED_LIMIT_BUY_IN
        else:
            unit, (low, high) = stakes.minimum_bet, BIG_BLIND_BUY_IN
        return (
            low * unit if self.min_buy_in is None else self.min_buy_in,
            high * unit if self.max_buy_in is None else self.max_buy_in,
        )

    def validate(self) -> TableConfig:
        """Refuse a table nobody could play at; return it with its buy-ins set."""
        rules = self.rules.validate()
        game = rules.game
        duplicate = bool(rules.fixed_seats)
        if duplicate and rules.fixed_seats != self.seats:
            raise ConfigError(
                f"a duplicate table deals for its own {self.seats} seats, "
                f"not for {rules.fixed_seats}"
            )
        # Rules.validate has refused a duplicate table of a game not offered in one.
        most = rules.variant.duplicate_seats if duplicate else rules.variant.max_seats
        if self.rotation is not None:
            most = min(most, *(self._mixed(rules).values()))
        if not 2 <= self.seats <= most:
            kind = "a duplicate" if duplicate else "a"
            what = "mixed" if self.rotation is not None else game
            raise ConfigError(f"{kind} {what} table has 2 to {most} seats, not {self.seats}")
        low, high = self.buy_in_limits()
        if not 0 < low <= high:
            raise ConfigError(
                f"the buy-in must be at least one chip and its minimum ({low}) "
                f"no more than its maximum ({high})"
            )
        charge = self.time_charge
        if charge is not None:
            if charge.amount <= 0 or charge.window <= 0:
                raise ConfigError(
                    "a time charge is at least one chip per window of at least a second"
                )
            if rules.rake is not None:
                raise ConfigError("a table takes a rake or a time charge, not both")
        if duplicate and (charge is not None or rules.rake is not None):
            raise ConfigError("a duplicate match takes no rake or time charge")
        if self.ante_cap < 1:
            raise ConfigError("a jackpots pot takes antes on at least one deal")
        if self.action_clock < 1:
            raise ConfigError("the action clock gives a player at least a second")
        bank = self.time_bank
        if bank is not None:
            if not 1 <= bank.seconds <= MOST_TIME_BANK:
                raise ConfigError(
                    f"a time bank holds 1 to {MOST_TIME_BANK} seconds, not {bank.seconds}"
                )
            if not 0 <= bank.refill <= bank.seconds:
                raise ConfigError(
                    f"a time bank refills 0 to its {bank.seconds} seconds a hand, not {bank.refill}"
                )
        if not 1 <= self.contribution_window_ms <= MOST_CONTRIBUTION_WINDOW_MS:
            raise ConfigError(
                "the contribution window is 1 to 60000 milliseconds,"
                f" not {self.contribution_window_ms}"
            )
        if duplicate and self.seat_entropy is not Entropy.OFF:
            raise ConfigError(
                "a duplicate match deals one deck at every table: its seats cannot contribute"
            )
        return replace(self, rules=rules, min_buy_in=low, max_buy_in=high)

    def _mixed(self, rules: Rules) -> dict[Game, int]:
        """Refuse a rotation no table could deal; each game's most seats."""
        rotation = self.rotation
        assert rotation is not None
        games = rotation.games
        if len(games) < 2:
            raise ConfigError("a mixed table rotates two games or more")
        if len(set(games)) < len(games):
            raise ConfigError("a mixed table deals each of its games once a round")
        unmixed = [g for g in games if not VARIANTS[g].mixed]
        if unmixed:
            raise ConfigError(
                f"{VARIANTS[unmixed[0]].title} is not dealt at a mixed table, only "
                f"{named(lambda v: v.mixed)}"
            )
        if rules.game is not games[0]:
            raise ConfigError(
                f"a mixed table's game is its rotation's first, {games[0]}, not {rules.game}"
            )
        if rules.fixed_seats:
            raise ConfigError("a duplicate match deals one game, not a rotation")
        if not 0 <= rotation.hands <= MOST_HANDS_PER_GAME:
            raise ConfigError(
                f"a mixed table deals each game for an orbit (0) or 1 to "
                f"{MOST_HANDS_PER_GAME} hands, not {rotation.hands}"
            )
        for game in games:
            self.rules_at(Turn(game, 1, 1, game)).validate()
        return {g: VARIANTS[g].max_seats for g in games}
