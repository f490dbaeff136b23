"""Seven-card stud high-low, eight or better (``stud-hi-lo``).

Antes (fixed limit by default). Two cards down and one up to each player
(third street), dealt one at a time; the lowest up card (ace high, ties by
suit: clubs, diamonds, hearts, spades; a joker highest) must bring in or
complete to the small bet, and action goes clockwise from it; if nobody
completes, the bring-in has no option; if the lowest card is all in from
the ante, the player to its left acts first and may fold. Fourth, fifth and
sixth street one card up each, seventh street one down; the small bet on
third and fourth street, the big bet from fifth, no doubled bet for an open
pair. From fourth street the best high hand showing acts first (under five
cards only pairs, two pair, trips and quads count; a joker showing is an
ace; ties to the first such seat left of the button). When the deck cannot
give every live player a seventh-street card, one common card is dealt face
up in the middle. High: the best five cards. Low: ace-to-five, eight or
better to qualify; high and low split the pot, the odd chip to high, and
with no qualifying low, high takes all. Odd chips among tied hands go to the
one holding the highest card (high) or the lowest (low), by rank then suit.
The joker (off by default) is a bug for high and the lowest card missing
for low. 2 to 8 players; at most 7 at a duplicate table.

A hand, dealt from a seed of 32 zero bytes: bob's five is the lowest up
card and brings in, ann calls, and both check to the end: bob's king high
and eight-low take both halves.

>>> from feltline.engine.cards.card import format_cards
>>> from feltline.engine.hand.commands import Act, StartHand
>>> from feltline.engine.hand.events import Action, Deal, SeatAtStart
>>> from feltline.engine.hand.decide import NEW_HAND, play
>>> from feltline.engine.hand.rules import Game, Rules
>>> seats = (SeatAtStart(0, "ann", 500), SeatAtStart(1, "bob", 500))
>>> deal = Deal(button=1, seats=seats)
>>> _, hand = play(NEW_HAND, StartHand(Rules.house(Game.STUD_HI_LO), deal, bytes(32)))
>>> format_cards(hand.player(0).up), format_cards(hand.player(1).up)
('7s', '5c')
>>> _, hand = play(hand, Act(1, Action.BRING_IN))
>>> _, hand = play(hand, Act(0, Action.CALL))
>>> while hand.to_act is not None:
...     events, hand = play(hand, Act(hand.to_act, Action.CHECK))
>>> format_cards(hand.player(1).cards)
'7c 8c 5c 3s Kh 9c 4d'
>>> for share in events[-2].shares:
...     print(share.seat, share.amount, share.half, share.hand)
1 5 high king high
1 5 low 8-7-5-4-3 low
"""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.cards.card import Card
from feltline.engine.cards.values import HandValue, System, eight_or_better, high
from feltline.engine.games import stud
from feltline.engine.games.variant import Game, OddChips, Variant
from feltline.engine.hand.stakes import Stakes, Structure


def _values(
    cards: Sequence[Card], common: Sequence[Card], low: System
) -> tuple[HandValue, HandValue | None]:
    seven = (*cards, *common)
    return high(seven), eight_or_better(seven)


VARIANT = Variant(
    game=Game.STUD_HI_LO,
    title="stud high-low",
    steps=stud.STEPS,
    stakes=Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=2, bring_in=3, raise_cap=3),
    values=_values,
    hole_cards=7,
    max_seats=8,
    duplicate_seats=7,
    mixed=True,
    high_low=True,
    joker=True,
    odd_chips=OddChips.CARDS,
    button_shown=False,
)
