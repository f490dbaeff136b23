"""Showing hands and awarding every pot, by the game's hand values and odd-chip rule.

Each pot is judged on its own among the live seats eligible for it. Odd
chips go to the high half of a split pot, and among tied hands clockwise
from the left of the button; in stud, to the tied high hand holding the
highest card and the tied low hand holding the lowest (RRoP), and in razz
to the tied low holding the lowest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from feltline.engine.cards.card import Card, ace_low
from feltline.engine.cards.values import HandValue
from feltline.engine.games.variant import OddChips
from feltline.engine.hand import pot as pots
from feltline.engine.hand.events import Choice, Event, PotAwarded, Share, Shown
from feltline.engine.hand.state import Hand


class Holding(NamedTuple):  # a tuple: made for every live seat, four times faster
    seat: int
    high: HandValue
    low: HandValue | None
    cards: tuple[Card, ...]


def show(hand: Hand) -> list[Event]:
    """Every live player shows all their cards at once; nobody mucks. The
    jackpots opener shows any discards set aside with them."""
    return [
        Shown(
            p.seat,
            p.cards,
            hand.set_aside if p.seat == hand.opener else (),
        )
        for p in hand.clockwise(hand.button)
        if p.live
    ]


def prove_openers(hand: Hand) -> list[Event]:
    """When the jackpots opener won without a showdown, the opening cards
    and any set-aside discards are shown all the same. (An opener who
    folded proved them when folding: :func:`openers_shown`.)"""
    if hand.opener is None:
        return []
    opener = hand.player(hand.opener)
    if not opener.live or hand.live_count > 1:
        return []
    return [openers_shown(hand, opener.seat)]


def openers_shown(hand: Hand, opener: int) -> Shown:
    """The jackpots opener's opening cards and set-aside discards, face up."""
    return Shown(opener, hand.openers, hand.set_aside)


def award(hand: Hand) -> list[PotAwarded]:
    contributions = {p.seat: p.paid for p in hand.players}
    formed = list(pots.collect(contributions, [p.seat for p in hand.players if not p.folded]))
    if hand.dead:  # a pot of dead chips alone goes to the live players
        main = formed[0] if formed else pots.Pot(0, tuple(p.seat for p in hand.live))
        formed[:1] = [pots.Pot(main.amount + hand.dead, main.eligible)]
    raked = formed
    rule = hand.rules.rake
    if rule is not None and hand.raked:
        raked = list(pots.rake(formed, basis_points=rule.basis_points, cap=rule.cap)[0])
    holdings = _holdings(hand) if hand.live_count > 1 else {}
    return [
        PotAwarded(
            index=i,
            amount=whole.amount,
            eligible=whole.eligible,
            rake=whole.amount - left.amount,
            shares=_shares(hand, left.amount, whole.eligible, holdings),
        )
        for i, (whole, left) in enumerate(zip(formed, raked, strict=True))
    ]


def _holdings(hand: Hand) -> dict[int, Holding]:
    rules = hand.rules
    values = rules.variant.values
    result = {}
    for p in hand.live:
        hi, lo = values(p.cards, hand.board, rules.low)
        result[p.seat] = Holding(p.seat, hi, lo, p.cards + hand.board)
    return result


def _shares(
    hand: Hand, amount: int, eligible: Sequence[int], holdings: dict[int, Holding]
) -> tuple[Share, ...]:
    if len(eligible) == 1 or not holdings:
        return (Share(eligible[0], amount, "all", ""),)
    contenders = [holdings[s] for s in eligible]
    if hand.rules.variant.declares:
        return _declared(hand, amount, contenders)
    return _high_low(hand, amount, contenders, [h for h in contenders if h.low])


def _declared(hand: Hand, amount: int, contenders: list[Holding]) -> tuple[Share, ...]:
    choice = {p.seat: p.choice for p in hand.players}
    for h in contenders:
        if choice[h.seat] is Choice.BOTH and _scoops(h, contenders, choice):
            return (Share(h.seat, amount, "scoop", f"{h.high.description}; {_low(h)}"),)
    remaining = [h for h in contenders if choice[h.seat] is not Choice.BOTH]
    highs = [h for h in remaining if choice[h.seat] is Choice.HIGH]
    lows = [h for h in remaining if choice[h.seat] is Choice.LOW]
    if not remaining:
        return _high_low(hand, amount, contenders, contenders)
    return _high_low(hand, amount, highs, lows)


def _scoops(h: Holding, contenders: list[Holding], choice: dict[int, Choice | None]) -> bool:
    """Beats, with no tie, every other high declarer for high and every
    other low declarer for low."""
    for o in contenders:
        if o.seat == h.seat:
            continue
        if choice[o.seat] in (Choice.HIGH, Choice.BOTH) and not h.high > o.high:
            return False
        if choice[o.seat] in (Choice.LOW, Choice.BOTH) and not _lo(h) > _lo(o):
            return False
    return True


def _lo(h: Holding) -> HandValue:
    if h.low is None:
        raise ValueError(f"seat {h.seat} has no low")
    return h.low


def _low(h: Holding) -> str:
    return h.low.description if h.low else "no low"


def _high_low(
    hand: Hand, amount: int, highs: list[Holding], lows: list[Holding]
) -> tuple[Share, ...]:
    """Half to the best high, half to the best low; one side alone takes all."""
    if not lows:
        return _one_side(hand, amount, highs, "all")
    if not highs:
        return _one_side(hand, amount, lows, "all", by_low=True)
    high_half, low_half = pots.split_high_low(amount)
    return _one_side(hand, high_half, highs, "high") + _one_side(
        hand, low_half, lows, "low", by_low=True
    )


def _one_side(
    hand: Hand, amount: int, contenders: list[Holding], half: str, *, by_low: bool = False
) -> tuple[Share, ...]:
    value: Callable[[Holding], HandValue] = _lo if by_low else (lambda h: h.high)
    best = max(value(h) for h in contenders)
    winners = [h for h in contenders if value(h) == best]
    if len(winners) == 1:  # no odd chips to place
        return (Share(winners[0].seat, amount, half, best.description),)
    ordered = _odd_chip_order(hand, winners, by_low)
    return tuple(
        Share(seat, chips, half, best.description)
        for seat, chips in pots.split(amount, [h.seat for h in ordered]).items()
    )


def _odd_chip_order(hand: Hand, winners: list[Holding], by_low: bool) -> list[Holding]:
    """By the cards (stud): the highest (high) or lowest (low, and razz's
    whole pot) card; a common card is in every tied hand, so the next card
    decides, and so on.
    Else by seat, clockwise from the left of the button."""
    rule = hand.rules.variant.odd_chips
    if rule is OddChips.LOW_CARD or (rule is OddChips.CARDS and by_low):
        return sorted(winners, key=lambda h: sorted(ace_low(c) for c in h.cards))
    if rule is OddChips.CARDS:
        return sorted(winners, key=lambda h: sorted(h.cards, reverse=True), reverse=True)
    order = [p.seat for p in hand.clockwise(hand.button)]
    return sorted(winners, key=lambda h: order.index(h.seat))
