"""Omaha high-low, eight or better (``omaha-hi-lo``): fixed limit by
default; pot limit and no limit too.

Omaha's deal, betting and two-plus-three rule (exactly two of a player's
four hole cards with exactly three of the five common cards), for the high
and for the low separately: a player may use different hole cards for each.
Low: ace-to-five (straights and flushes ignored), eight or better to
qualify; a low needs three different board cards of eight or under and two
more of the player's own. High and low split each pot, the odd chip to high;
with no qualifying low, high takes all. Tied hands share their half (a pot
can be quartered: a player tying the low wins a quarter), the odd chips one
at a time clockwise from the left of the button. A bet and three raises in
fixed limit. 2 to 10 players, also at a duplicate table.

A hand, dealt from a seed of 32 zero bytes: the button (bob) posts the small
blind and calls, ann checks, and both check it down. The board holds only
two cards of eight or under, so nobody has a low and the high takes all.

>>> from feltline.engine.cards.card import format_cards
>>> from feltline.engine.hand.commands import Act, StartHand
>>> from feltline.engine.hand.events import Action, Deal, SeatAtStart
>>> from feltline.engine.hand.decide import NEW_HAND, play
>>> from feltline.engine.hand.rules import Game, Rules
>>> seats = (SeatAtStart(0, "ann", 500), SeatAtStart(1, "bob", 500))
>>> deal = Deal(button=1, seats=seats, small_blind=1, big_blind=0)
>>> _, hand = play(NEW_HAND, StartHand(Rules.house(Game.OMAHA_HI_LO), deal, bytes(32)))
>>> _, hand = play(hand, Act(1, Action.CALL))
>>> while hand.to_act is not None:
...     events, hand = play(hand, Act(hand.to_act, Action.CHECK))
>>> format_cards(hand.board)
'Ts Kh 3c 9c 4h'
>>> events[-2].shares
(Share(seat=0, amount=20, half='all', hand='pair of nines'),)
"""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.cards.card import Card
from feltline.engine.cards.values import HandValue, System, eight_or_better, high, two_plus_three
from feltline.engine.games import omaha
from feltline.engine.games.variant import Game, Variant
from feltline.engine.hand.stakes import Stakes, Structure


def _values(
    cards: Sequence[Card], common: Sequence[Card], low: System
) -> tuple[HandValue, HandValue | None]:
    best = two_plus_three(cards, common, high)
    assert best is not None  # every five cards have a high
    return best, two_plus_three(cards, common, eight_or_better)


VARIANT = Variant(
    game=Game.OMAHA_HI_LO,
    title="Omaha high-low",
    steps=omaha.STEPS,
    stakes=Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, small_blind=5, big_blind=10),
    values=_values,
    hole_cards=4,
    max_seats=omaha.VARIANT.max_seats,
    duplicate_seats=omaha.VARIANT.duplicate_seats,
    mixed=True,
    blinds=True,
    high_low=True,
)
