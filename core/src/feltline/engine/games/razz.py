"""Razz: seven-card stud for the low (``razz``).

Seven-card stud's deal and betting (antes, fixed limit by default; two
cards down and one up, then three up and one down, dealt one at a time;
the small bet on third and fourth street, the big bet from fifth, a bet and
three raises a round, no doubled bet), but the lowest hand wins. The
highest up card brings in or completes to the small bet: the ace is low,
so a king is the highest, and ties go by suit, spades highest, then
hearts, diamonds, clubs; action goes clockwise from it; if nobody
completes, the bring-in has no option; if the highest card is all in from
the ante, the player to its left acts first and may fold. From fourth
street the best low showing acts first: unpaired cards beat a pair, a pair
beats two pair, two pair beats trips; then the highest ranks are compared,
the lower the better (ties to the first such seat left of the button).
When the deck cannot give every live player a seventh-street card, one
common card is dealt face up in the middle. A hand is the best ace-to-five
low of five of a player's cards: the ace low, straights and flushes
ignored, pairs bad; 5-4-3-2-A is the best. There is no qualifier: the
best low takes the whole pot. Tied lows split it, the odd chip to the one
holding the lowest card, by rank (the ace low) then suit (clubs lowest).
No joker. 2 to 8 players; at most 7 at a duplicate table.

A hand, dealt from a seed of 32 zero bytes: ann's seven is the highest up
card and brings in, bob calls; on fourth street bob's 5-3 showing is
lower than ann's 9-7, so bob acts first; both check to the end, and bob's
8-7-5-4-3 beats ann's 9-7-6-4-3.

>>> from feltline.engine.cards.card import format_cards
>>> from feltline.engine.hand.commands import Act, StartHand
>>> from feltline.engine.hand.events import Action, Deal, SeatAtStart
>>> from feltline.engine.hand.decide import NEW_HAND, play
>>> from feltline.engine.hand.rules import Game, Rules
>>> seats = (SeatAtStart(0, "ann", 500), SeatAtStart(1, "bob", 500))
>>> deal = Deal(button=1, seats=seats)
>>> _, hand = play(NEW_HAND, StartHand(Rules.house(Game.RAZZ), deal, bytes(32)))
>>> format_cards(hand.player(0).up), format_cards(hand.player(1).up)
('7s', '5c')
>>> _, hand = play(hand, Act(0, Action.BRING_IN))
>>> _, hand = play(hand, Act(1, Action.CALL))
>>> format_cards(hand.player(0).up), format_cards(hand.player(1).up), hand.to_act
('7s 9s', '5c 3s', 1)
>>> while hand.to_act is not None:
...     events, hand = play(hand, Act(hand.to_act, Action.CHECK))
>>> format_cards(hand.player(0).cards), format_cards(hand.player(1).cards)
('6c Qd 7s 9s Ts 3c 4h', '7c 8c 5c 3s Kh 9c 4d')
>>> events[-2].shares
(Share(seat=1, amount=10, half='all', hand='8-7-5-4-3 low'),)
"""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.cards.card import Card
from feltline.engine.cards.values import HandValue, System, ace_to_five_low
from feltline.engine.games import stud
from feltline.engine.games.variant import Game, OddChips, Variant
from feltline.engine.hand.script import Opening


def _values(cards: Sequence[Card], common: Sequence[Card], low: System) -> tuple[HandValue, None]:
    return ace_to_five_low((*cards, *common)), None


VARIANT = Variant(
    game=Game.RAZZ,
    title="razz",
    steps=stud.streets(Opening.HIGH_CARD, Opening.LOW_SHOWING),
    stakes=stud.VARIANT.stakes,
    values=_values,
    hole_cards=7,
    max_seats=stud.VARIANT.max_seats,
    duplicate_seats=stud.VARIANT.duplicate_seats,
    mixed=True,
    odd_chips=OddChips.LOW_CARD,
    button_shown=False,
)
