"""Five-card draw, high-low declare (``draw-declare``).

Antes (fixed limit by default), five cards down to each player. A betting
round from the left of the button; the draw in turn from the left of the
button, up to five cards with fewer than six players dealt in, three with
six or more (the bottom card is never dealt: when the stub runs out, the
bottom card, the discards and folded hands since the last reshuffle are
reshuffled); a second betting round at the big bet, begun by the first
round's first bettor (left of the button if nobody bet). Then every live
player declares in secret LOW, HIGH or BOTH, revealed at once. Each pot is
judged alone among its players: a BOTH declarer scoops only by beating, with
no tie, every other declarer for high and for low, and otherwise wins
nothing from it; the rest is split half to the best HIGH declarer and half
to the best LOW (no qualifier), one side alone taking all. The low is
ace-to-five unless the table chooses deuce-to-seven or ace-to-six. A bet and
four raises in fixed limit. 2 to 8 players; at most 6 at a duplicate table,
where each seat draws from its own reserved part of the deck.

A hand, dealt from a seed of 32 zero bytes: both check, stand pat and
check; ann declares low, bob high, and they split the pot.

>>> from feltline.engine.cards.card import format_cards
>>> from feltline.engine.hand.commands import Act, Declare, Draw, StartHand
>>> from feltline.engine.hand.events import Action, Choice, Deal, SeatAtStart
>>> from feltline.engine.hand.decide import NEW_HAND, play
>>> from feltline.engine.hand.rules import Game, Rules
>>> seats = (SeatAtStart(0, "ann", 500), SeatAtStart(1, "bob", 500))
>>> deal = Deal(button=1, seats=seats)
>>> _, hand = play(NEW_HAND, StartHand(Rules.house(Game.DRAW_DECLARE), deal, bytes(32)))
>>> format_cards(hand.player(0).cards), format_cards(hand.player(1).cards)
('6c Qd 7s 9s Ts', '7c 8c 5c 3s Kh')
>>> for command in (
...     Act(0, Action.CHECK), Act(1, Action.CHECK), Draw(0, ()), Draw(1, ()),
...     Act(0, Action.CHECK), Act(1, Action.CHECK),
...     Declare(0, Choice.LOW), Declare(1, Choice.HIGH),
... ):
...     events, hand = play(hand, command)
>>> for share in events[-2].shares:
...     print(share.seat, share.amount, share.half, share.hand)
1 5 high king high
0 5 low Q-T-9-7-6 low
"""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.cards.card import Card
from feltline.engine.cards.values import HandValue, System, high
from feltline.engine.cards.values import low as low_value
from feltline.engine.games.variant import Game, Variant
from feltline.engine.hand.script import DECLARE, DOWN, DRAW, FORCED, SHOWDOWN, Opening, bet, deal
from feltline.engine.hand.stakes import Stakes, Structure


def _values(
    cards: Sequence[Card], common: Sequence[Card], low: System
) -> tuple[HandValue, HandValue]:
    return high(cards), low_value(cards, low)


VARIANT = Variant(
    game=Game.DRAW_DECLARE,
    title="draw-declare",
    steps=(
        FORCED,
        deal("the deal", DOWN, DOWN, DOWN, DOWN, DOWN),
        bet("first betting round", big=False),
        DRAW,
        bet("second betting round", big=True, opening=Opening.FIRST_BETTOR),
        DECLARE,
        SHOWDOWN,
    ),
    stakes=Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5, raise_cap=4),
    values=_values,
    hole_cards=5,
    max_seats=8,
    duplicate_seats=6,
    mixed=True,
    high_low=True,
    chooses_low=True,
    raise_cap=4,
)
