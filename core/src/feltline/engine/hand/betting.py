"""What the seat to act may do, under fixed, pot or no limit.

One function, :func:`options`, turns the round's state into the choices a
player has; the decider validates against it and clients can show it.
"""

from __future__ import annotations

from dataclasses import dataclass

from feltline.engine.cards import openers
from feltline.engine.hand.events import Action
from feltline.engine.hand.fast import BET, COMPLETE, FIXED_LIMIT, POT_LIMIT, RAISE
from feltline.engine.hand.state import Hand, Player, Round


@dataclass(frozen=True, slots=True)
class Options:
    """``raise_action`` is BET, RAISE or COMPLETE, or None when the seat may
    not put in more than a call; ``least``/``most`` bound its total."""

    seat: int
    to_call: int
    call_total: int
    raise_action: Action | None
    least: int
    most: int
    bring_in: int = 0

    @property
    def can_check(self) -> bool:
        return self.to_call == 0 and not self.bring_in


def options(hand: Hand) -> Options:
    r = hand.round
    seat = r.pending[0]
    p = hand.player(seat)
    reach = p.bet + p.stack
    to_call, bring_in = owed(hand, p)
    if bring_in:
        stakes = hand.rules.stakes
        if reach <= stakes.bring_in:  # all in to bring in: nothing is left to complete
            return Options(seat, 0, p.bet, None, 0, 0, bring_in)
        complete = min(stakes.small_bet, reach)
        return Options(seat, 0, p.bet, COMPLETE, complete, complete, bring_in)
    action = _raise_action(r) if _may_raise(hand, p) else None
    if action is None:
        return Options(seat, to_call, p.bet + to_call, None, 0, 0)
    target = raise_target(hand)
    least = min(target, reach)
    most = min(_pot_limit(hand, p), reach) if _is_pot_limit(hand) else reach
    if hand.rules.stakes.structure is FIXED_LIMIT:
        most = least
    return Options(seat, to_call, p.bet + to_call, action, least, max(least, most))


def owed(hand: Hand, p: Player) -> tuple[int, int]:
    """What ``p`` must add to stay in, as (to call, bring-in): the bring-in
    when it is due (with nothing to call), else the call, all in when short.
    The part of :func:`options` a check, call, fold or bring-in needs."""
    r = hand.round
    reach = p.bet + p.stack
    # Left of an all-in low card, the bring-in is due unless nobody else is
    # active: then nobody may bet, and the seat may only check or fold.
    if r.bring_in_due and others_active(hand, p):
        return 0, min(hand.rules.stakes.bring_in, reach)
    return max(0, min(r.level, reach) - p.bet), 0


def raise_target(hand: Hand) -> int:
    """The smallest total that counts as a full bet or raise."""
    r = hand.round
    if hand.rules.stakes.structure is FIXED_LIMIT or r.bets == 0:
        return r.full + r.bet_size
    return r.level + r.increment


def counts_in_full(hand: Hand, total: int) -> bool:
    """Whether a bet or raise to ``total`` reopens the betting: a full raise
    in pot and no limit, at least half a bet in fixed limit."""
    r = hand.round
    if total <= r.level:
        return False
    if hand.rules.stakes.structure is FIXED_LIMIT:
        return 2 * (total - r.full) >= r.bet_size
    return total >= raise_target(hand)


def _raise_action(r: Round) -> Action:
    if r.level == 0:
        return BET
    return COMPLETE if r.bets == 0 else RAISE


def _may_raise(hand: Hand, p: Player) -> bool:
    r = hand.round
    if p.stack <= max(0, r.level - p.bet):
        return False
    if not others_active(hand, p):
        return False
    if lacks_openers(hand, p):
        return False
    if p.acted_at is not None:
        reopened = (
            r.full > p.acted_at
            if hand.rules.stakes.structure is FIXED_LIMIT
            else r.level - p.acted_at >= r.increment
        )
        if not reopened:
            return False
    return not capped(hand)


def others_active(hand: Hand, p: Player) -> bool:
    """Whether a player other than ``p`` is active."""
    return hand.active_count > p.active


def lacks_openers(hand: Hand, p: Player) -> bool:
    """Jackpots: the first bet of the first round needs jacks or better."""
    return (
        hand.rounds == 0
        and hand.first_bettor is None
        and hand.rules.variant.openers
        and openers.combination(p.cards) is None
    )


def capped(hand: Hand) -> bool:
    """A bet and ``raise_cap`` raises, unless at most two players are active
    and the cap had not been reached before."""
    stakes = hand.rules.stakes
    r = hand.round
    if stakes.structure is not FIXED_LIMIT:
        return False
    if r.bets < 1 + hand.rules.raise_cap:
        return False
    heads_up = hand.active_count <= 2
    return r.capped or not (stakes.uncapped_heads_up and heads_up)


def _is_pot_limit(hand: Hand) -> bool:
    return hand.rules.stakes.structure is POT_LIMIT


def _pot_limit(hand: Hand, p: Player) -> int:
    """Raise to at most the bet to call, plus every chip in the middle and
    in front of the players after the call."""
    call = max(0, hand.round.level - p.bet)
    in_middle = hand.pot + sum(o.bet for o in hand.players)
    return hand.round.level + in_middle + call
