"""An independent judge of bet sizes, written from docs/rules.md alone.

The property tests hold ``decide`` to accept exactly the legal commands.
Asking the engine's own ``betting.options`` what is legal would only show
that the two agree, so this judge keeps its own account of each betting
round from the events as they come (the bet to call, the last full bet or
raise, how many have been made, who acted at what level, whether the cap
was reached) and applies the house rules to it. From the hand it reads
only what the referee checks elsewhere: who is to act, stacks, chips in
front, the pot, the cards and who has folded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from feltline.engine.cards.card import parse_cards
from feltline.engine.cards.values import high
from feltline.engine.hand.events import Acted, Action, Event, HandStarted, StreetBegan
from feltline.engine.hand.rules import Rules, Structure
from feltline.engine.hand.script import Opening, Phase
from feltline.engine.hand.state import Hand, Player

# Fixed limit: the big bet from the turn, from fifth street, after the draw.
BIG_BET_ROUNDS = frozenset(
    {
        "turn betting",
        "river betting",
        "fifth street betting",
        "sixth street betting",
        "seventh street betting",
        "second betting round",
    }
)
# Jacks or better: at least a pair of jacks with the lowest kickers.
LEAST_OPENERS = high(parse_cards("Jc Jd 4h 3s 2c"))
RAISES = (Action.BET, Action.RAISE, Action.COMPLETE)


@dataclass(frozen=True)
class Allowed:
    """What the seat to act may do: each non-raising action with the total
    it leaves in front of the seat, and the raising action (BET, RAISE or
    COMPLETE, or None) with its least and most total."""

    seat: int
    moves: dict[Action, int]
    raising: Action | None = None
    least: int = 0
    most: int = 0


@dataclass
class Street:
    """One betting round as the judge keeps it."""

    size: int  # the bet in fixed limit, the minimum bet in pot and no limit
    level: int = 0  # the bet to call
    full: int = 0  # the level after the last bet or raise that counted in full
    raised_by: int = 0  # the size of that bet or raise: the least raise
    bets: int = 0  # full bets and raises, the blind or completion counting as the bet
    cap_reached: bool = False  # with more than two players active
    acted_at: dict[int, int] = field(default_factory=dict)
    bring_in_due: bool = False
    first: bool = False


class Judge:
    """Follows a hand's events; :meth:`allowed` judges the seat to act."""

    def __init__(self) -> None:
        self.rules: Rules | None = None
        self.blinds = False
        self.street: Street | None = None
        self.opened = False  # jackpots: somebody has bet in the first round

    def __call__(self, before: Hand, event: Event, after: Hand) -> None:
        """Take in ``event``, which turned ``before`` into ``after``."""
        if isinstance(event, HandStarted):
            self.rules = event.rules
            self.blinds = event.deal.big_blind is not None
            self.street = None
            self.opened = False
        elif isinstance(event, StreetBegan) and after.phase is Phase.BETTING:
            self._begin(event.name)
        elif isinstance(event, Acted) and self.street is not None:
            self._acted(before, event)

    def _begin(self, name: str) -> None:
        assert self.rules is not None
        stakes = self.rules.stakes
        first = self.street is None
        if stakes.structure is Structure.FIXED_LIMIT:
            size = stakes.big_bet if name in BIG_BET_ROUNDS else stakes.small_bet
        else:
            # The big blind; in ante games the small bet setting. docs/rules.md
            # does not say which for an ante game given a big blind setting
            # too (validate() allows it): like the engine, the big blind.
            size = stakes.big_blind or stakes.small_bet
        street = Street(size, raised_by=size, first=first)
        if first and self.blinds:
            # The big blind counts as the bet, even when posted short.
            bb = stakes.big_blind
            street = Street(size, level=bb, full=bb, raised_by=bb, bets=1, first=True)
        street.bring_in_due = first and self.rules.variant.bring_in
        self.street = street

    def _acted(self, before: Hand, e: Acted) -> None:
        s = self.street
        assert s is not None
        assert self.rules is not None
        if e.action is Action.FOLD:
            return
        if e.action is Action.BRING_IN:
            s.level = self.rules.stakes.bring_in  # a short bring-in does not shrink it
            s.bring_in_due = False
        elif e.action in RAISES and e.total > s.level:
            if self._in_full(e.total):
                s.raised_by = e.total - (s.level if s.bets else s.full)
                s.full = e.total
                s.bets += 1
                crowded = sum(p.active for p in before.players) > 2
                if self._cap is not None and s.bets >= 1 + self._cap and crowded:
                    s.cap_reached = True
            s.level = e.total
            s.bring_in_due = False
            if s.first and e.action is Action.BET:
                self.opened = True
        s.acted_at[e.seat] = s.level

    @property
    def _cap(self) -> int | None:
        assert self.rules is not None
        fixed = self.rules.stakes.structure is Structure.FIXED_LIMIT
        return self.rules.raise_cap if fixed else None

    def _target(self) -> int:
        """The least total that is a full bet or raise: a full bet on top of
        the last full level in fixed limit; in pot and no limit the minimum
        bet (or completion) when nobody has bet in full, else the bet to call
        plus the last full bet or raise."""
        s = self.street
        assert s is not None
        assert self.rules is not None
        if self.rules.stakes.structure is Structure.FIXED_LIMIT or s.bets == 0:
            return s.full + s.size
        return s.level + s.raised_by

    def _in_full(self, total: int) -> bool:
        """Fixed limit: at least half a bet over the last full level; pot and
        no limit: at least a full raise."""
        s = self.street
        assert s is not None
        assert self.rules is not None
        if self.rules.stakes.structure is Structure.FIXED_LIMIT:
            return 2 * (total - s.full) >= s.size
        return total >= self._target()

    def allowed(self, hand: Hand) -> Allowed:
        """What the seat to act may do, by docs/rules.md."""
        s = self.street
        seat = hand.to_act
        assert s is not None
        assert self.rules is not None
        assert seat is not None
        stakes = self.rules.stakes
        p = hand.player(seat)
        reach = p.bet + p.stack
        others = any(o.active and o.seat != seat for o in hand.players)
        if s.bring_in_due and others:
            # The lowest up card (razz: the highest, the ace low) must bring
            # in or complete; left of it, when it is all in from the ante,
            # the seat may also fold.
            ups = [o for o in hand.players if not o.folded and o.up]
            if any(step.opening is Opening.HIGH_CARD for step in self.rules.variant.steps):
                owes = max(ups, key=lambda o: ((o.up[0].rank + 1) % 13, o.up[0].suit))
            else:
                owes = min(ups, key=lambda o: o.up[0])
            moves = {Action.BRING_IN: p.bet + min(stakes.bring_in, reach)}
            if owes.seat != seat:
                moves[Action.FOLD] = p.bet
            if reach <= stakes.bring_in:
                return Allowed(seat, moves)
            complete = min(stakes.small_bet, reach)
            return Allowed(seat, moves, Action.COMPLETE, complete, complete)
        call = max(0, min(s.level, reach) - p.bet)
        moves = {Action.FOLD: p.bet}  # folding when a check is possible is allowed
        if call:
            moves[Action.CALL] = p.bet + call
        else:
            moves[Action.CHECK] = p.bet
        if not self._may_raise(hand, p, others):
            return Allowed(seat, moves)
        raising = Action.BET if s.level == 0 else Action.COMPLETE if s.bets == 0 else Action.RAISE
        least = min(self._target(), reach)
        if stakes.structure is Structure.FIXED_LIMIT:
            most = least
        elif stakes.structure is Structure.POT_LIMIT:
            # C to call, P every pot and every bet in front: at most level + P + C.
            to_call = max(0, s.level - p.bet)
            in_middle = hand.pot + sum(o.bet for o in hand.players)
            most = max(least, min(s.level + in_middle + to_call, reach))
        else:
            most = reach
        return Allowed(seat, moves, raising, least, most)

    def _may_raise(self, hand: Hand, p: Player, others: bool) -> bool:
        s = self.street
        assert s is not None
        assert self.rules is not None
        if p.stack <= max(0, s.level - p.bet):  # all in to call, or short of it
            return False
        if not others:  # nobody left to bet against: call only
            return False
        if (
            self.rules.variant.openers
            and s.first
            and not self.opened
            and high(p.cards) < LEAST_OPENERS
        ):
            return False
        if p.seat in s.acted_at:
            before = s.acted_at[p.seat]
            if self.rules.stakes.structure is Structure.FIXED_LIMIT:
                reopened = s.full > before  # a full raise, or an all-in of half a bet
            else:  # a full raise, or short all-ins adding up to one
                reopened = s.level - before >= s.raised_by
            if not reopened:
                return False
        if self._cap is None or s.bets < 1 + self._cap:
            return True
        heads_up = sum(o.active for o in hand.players) <= 2
        return not s.cap_reached and self.rules.stakes.uncapped_heads_up and heads_up
