"""Omaha (``omaha``): pot limit by default; no limit and fixed limit too.

As hold'em (blinds, the flop, turn and river, who acts first, the heads-up
rules, odd chips clockwise from the left of the button), but each player is
dealt four cards down, and a hand is exactly two of them with exactly three
of the five common cards: a board of four hearts gives no flush to a player
with one heart, four of a kind on the board plays as three of them with two
hole cards, and a board straight is no straight without two hole cards that
fit it. The best such high hand wins. In pot limit a player may raise to at
most the highest bet, plus every chip in the pots and in front of the
players, plus what they must add to call. 2 to 10 players, also at a
duplicate table, the board dealt from fixed positions after the hole cards.

A hand, dealt from a seed of 32 zero bytes: the button (bob) posts the small
blind and calls, ann checks, and both check it down. Bob holds three
clubs and the board two: no flush, for a hand takes three of the board.
Ann's nine of spades with the board's nine makes the best hand.

>>> from feltline.engine.cards.card import format_cards
>>> from feltline.engine.hand.commands import Act, StartHand
>>> from feltline.engine.hand.events import Action, Deal, SeatAtStart
>>> from feltline.engine.hand.decide import NEW_HAND, play
>>> from feltline.engine.hand.rules import Game, Rules
>>> seats = (SeatAtStart(0, "ann", 500), SeatAtStart(1, "bob", 500))
>>> deal = Deal(button=1, seats=seats, small_blind=1, big_blind=0)
>>> _, hand = play(NEW_HAND, StartHand(Rules.house(Game.OMAHA), deal, bytes(32)))
>>> format_cards(hand.player(0).cards), format_cards(hand.player(1).cards)
('6c Qd 7s 9s', '7c 8c 5c 3s')
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
from feltline.engine.cards.values import HandValue, System, high, two_plus_three
from feltline.engine.games import holdem
from feltline.engine.games.variant import Game, Variant
from feltline.engine.hand.script import DOWN, FORCED, SHOWDOWN, Opening, bet, board, deal
from feltline.engine.hand.stakes import Stakes, Structure

STEPS = (
    FORCED,
    deal("hole cards", DOWN, DOWN, DOWN, DOWN),
    bet("preflop betting", big=False, opening=Opening.BLINDS),
    board("flop", 3),
    bet("flop betting", big=False),
    board("turn", 1),
    bet("turn betting", big=True),
    board("river", 1),
    bet("river betting", big=True),
    SHOWDOWN,
)


def _values(cards: Sequence[Card], common: Sequence[Card], low: System) -> tuple[HandValue, None]:
    best = two_plus_three(cards, common, high)
    assert best is not None  # every five cards have a high
    return best, None


VARIANT = Variant(
    game=Game.OMAHA,
    title="Omaha",
    steps=STEPS,
    stakes=Stakes(Structure.POT_LIMIT, small_bet=10, small_blind=5, big_blind=10),
    values=_values,
    hole_cards=4,
    max_seats=holdem.VARIANT.max_seats,
    duplicate_seats=10,
    mixed=True,
    blinds=True,
)
