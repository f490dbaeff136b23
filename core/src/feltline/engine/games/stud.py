"""Seven-card stud, high only (``stud``).

Antes (fixed limit by default). Two cards down and one up to each player
(third street), dealt one at a time; the lowest up card (ace high, ties by
suit: clubs, diamonds, hearts, spades) must bring in or complete to the
small bet, and action goes clockwise from it; if nobody completes, the
bring-in has no option; if the lowest card is all in from the ante, the
player to its left acts first and may fold. Fourth, fifth and sixth street
one card up each, seventh street one down; the small bet on third and
fourth street, the big bet from fifth, a bet and three raises a round. An
open pair on fourth street gives no doubled bet (RRoP offers one; the
house keeps stud's bets the same in every stud game). From fourth street
the best high hand showing acts first (under five cards only pairs, two
pair, trips and quads count; ties to the first such seat left of the
button). When the deck cannot give every live player a seventh-street
card, one common card is dealt face up in the middle. The best five of a
player's cards win the whole pot; tied hands split it, the odd chip to the
one holding the highest card, by rank then suit. No joker. 2 to 8 players;
at most 7 at a duplicate table.

A hand, dealt from a seed of 32 zero bytes: bob's five is the lowest up
card and brings in, ann calls, and both check to the end: nobody pairs,
and bob's king beats ann's queen.

>>> from feltline.engine.cards.card import format_cards
>>> from feltline.engine.hand.commands import Act, StartHand
>>> from feltline.engine.hand.events import Action, Deal, SeatAtStart
>>> from feltline.engine.hand.decide import NEW_HAND, play
>>> from feltline.engine.hand.rules import Game, Rules
>>> seats = (SeatAtStart(0, "ann", 500), SeatAtStart(1, "bob", 500))
>>> deal = Deal(button=1, seats=seats)
>>> _, hand = play(NEW_HAND, StartHand(Rules.house(Game.STUD), deal, bytes(32)))
>>> format_cards(hand.player(0).up), format_cards(hand.player(1).up)
('7s', '5c')
>>> _, hand = play(hand, Act(1, Action.BRING_IN))
>>> _, hand = play(hand, Act(0, Action.CALL))
>>> while hand.to_act is not None:
...     events, hand = play(hand, Act(hand.to_act, Action.CHECK))
>>> format_cards(hand.player(0).cards), format_cards(hand.player(1).cards)
('6c Qd 7s 9s Ts 3c 4h', '7c 8c 5c 3s Kh 9c 4d')
>>> events[-2].shares
(Share(seat=1, amount=10, half='all', hand='king high'),)
"""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.cards.card import Card
from feltline.engine.cards.values import HandValue, System, high
from feltline.engine.games.variant import Game, OddChips, Variant
from feltline.engine.hand.script import DOWN, FORCED, SHOWDOWN, UP, Opening, Step, bet, deal
from feltline.engine.hand.stakes import Stakes, Structure


def streets(first: Opening, later: Opening) -> tuple[Step, ...]:
    """A stud game's seven streets, the same in every stud game but for who
    opens the betting: ``first`` on third street, ``later`` from fourth."""
    return (
        FORCED,
        deal("third street", DOWN, DOWN, UP),
        bet("third street betting", big=False, opening=first),
        deal("fourth street", UP),
        bet("fourth street betting", big=False, opening=later),
        deal("fifth street", UP),
        bet("fifth street betting", big=True, opening=later),
        deal("sixth street", UP),
        bet("sixth street betting", big=True, opening=later),
        deal("seventh street", DOWN),
        bet("seventh street betting", big=True, opening=later),
        SHOWDOWN,
    )


STEPS = streets(Opening.LOW_CARD, Opening.HIGH_SHOWING)


def _values(cards: Sequence[Card], common: Sequence[Card], low: System) -> tuple[HandValue, None]:
    return high((*cards, *common)), None


VARIANT = Variant(
    game=Game.STUD,
    title="seven-card stud",
    steps=STEPS,
    stakes=Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=2, bring_in=3, raise_cap=3),
    values=_values,
    hole_cards=7,
    max_seats=8,
    duplicate_seats=7,
    mixed=True,
    odd_chips=OddChips.CARDS,
    button_shown=False,
)
