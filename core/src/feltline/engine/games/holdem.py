"""Texas hold'em (``holdem``).

Blinds (no limit by default; fixed and pot limit too), two cards down to
each player, then a flop of three common cards, a turn and a river of one
each; the best five of a player's seven cards wins. Before the flop the
player left of the big blind acts first and the big blind may raise an
unraised pot; after it, the first active player left of the button. The
small bet in fixed limit before the flop and on it, the big bet on the turn
and the river. Heads-up the button posts the small blind, acts first before
the flop and last after it. 2 to 10 players, also at a duplicate table,
where the board comes from fixed positions after the hole cards. Odd chips
of a split pot go one at a time clockwise from the left of the button.

A hand, dealt from a seed of 32 zero bytes: heads-up the button (bob) posts
the small blind and calls, and both check it down.

>>> from feltline.engine.cards.card import format_cards
>>> from feltline.engine.hand.commands import Act, StartHand
>>> from feltline.engine.hand.events import Action, Deal, SeatAtStart
>>> from feltline.engine.hand.decide import NEW_HAND, play
>>> from feltline.engine.hand.rules import Game, Rules
>>> seats = (SeatAtStart(0, "ann", 500), SeatAtStart(1, "bob", 500))
>>> deal = Deal(button=1, seats=seats, small_blind=1, big_blind=0)
>>> _, hand = play(NEW_HAND, StartHand(Rules.house(Game.HOLDEM), deal, bytes(32)))
>>> format_cards(hand.player(0).cards), format_cards(hand.player(1).cards)
('6c Qd', '7c 8c')
>>> _, hand = play(hand, Act(1, Action.CALL))
>>> while hand.to_act is not None:
...     events, hand = play(hand, Act(hand.to_act, Action.CHECK))
>>> format_cards(hand.board)
'7s 5c 9s 3s Ts'
>>> events[-2].shares
(Share(seat=1, amount=20, half='all', hand='pair of sevens'),)
"""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.cards.card import Card
from feltline.engine.cards.values import HandValue, System, high
from feltline.engine.games.variant import Game, Variant
from feltline.engine.hand.script import DOWN, FORCED, SHOWDOWN, Opening, bet, board, deal
from feltline.engine.hand.stakes import Stakes, Structure


def _values(cards: Sequence[Card], common: Sequence[Card], low: System) -> tuple[HandValue, None]:
    return high((*cards, *common)), None


VARIANT = Variant(
    game=Game.HOLDEM,
    title="hold'em",
    steps=(
        FORCED,
        deal("hole cards", DOWN, DOWN),
        bet("preflop betting", big=False, opening=Opening.BLINDS),
        board("flop", 3),
        bet("flop betting", big=False),
        board("turn", 1),
        bet("turn betting", big=True),
        board("river", 1),
        bet("river betting", big=True),
        SHOWDOWN,
    ),
    stakes=Stakes(Structure.NO_LIMIT, small_bet=10, small_blind=5, big_blind=10),
    values=_values,
    hole_cards=2,
    max_seats=10,
    duplicate_seats=10,
    mixed=True,
    blinds=True,
)
