"""Jackpots (``jackpots``): five-card draw, jacks or better to open.

Everyone antes (fixed limit by default), five cards down to each player. In
the first betting round, from the left of the button, anyone may check but
the first bet needs jacks or better (the server refuses any other, so false
openers cannot happen; a player all in from the ante cannot open). If nobody
opens the deal is passed out: the pot stays, the button moves and the same
players are dealt again, the pot taking antes on at most three deals (the
table's ante cap); a newcomer joins a carried pot by paying the antes each
player in it paid. Once opened, players call, raise or fold; the opener may
re-raise. The draw as in draw-declare; an opener who breaks their openers
has the discards set aside face down for inspection, never reshuffled. The
second betting round, at the big bet, starts with the opener (the next
active player when the opener is out or all in). The best high hand wins.
The openers are shown whenever the opener wins without a showdown or folds.
A bet and four raises in fixed limit. 2 to 8 players; not offered in a
duplicate match nor at a mixed table, its carried pots outliving the deal.

A deal nobody opens, dealt from a seed of 32 zero bytes: neither player
holds jacks or better, both check, and the pot is carried to the next deal.

>>> from feltline.engine.cards.card import format_cards
>>> from feltline.engine.hand.commands import Act, StartHand
>>> from feltline.engine.hand.events import Action, Deal, SeatAtStart
>>> from feltline.engine.hand.decide import NEW_HAND, play
>>> from feltline.engine.hand.rules import Game, Rules
>>> seats = (SeatAtStart(0, "ann", 500), SeatAtStart(1, "bob", 500))
>>> deal = Deal(button=1, seats=seats)
>>> _, hand = play(NEW_HAND, StartHand(Rules.house(Game.JACKPOTS), deal, bytes(32)))
>>> format_cards(hand.player(0).cards), format_cards(hand.player(1).cards)
('6c Qd 7s 9s Ts', '7c 8c 5c 3s Kh')
>>> _, hand = play(hand, Act(0, Action.CHECK))
>>> events, hand = play(hand, Act(1, Action.CHECK))
>>> events[-2]
PassedOut(carried=((0, 5), (1, 5)), dead=0)
"""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.cards.card import Card
from feltline.engine.cards.values import HandValue, System, high
from feltline.engine.games.variant import Game, Variant
from feltline.engine.hand.script import DOWN, DRAW, FORCED, SHOWDOWN, Opening, bet, deal
from feltline.engine.hand.stakes import Stakes, Structure


def _values(cards: Sequence[Card], common: Sequence[Card], low: System) -> tuple[HandValue, None]:
    return high(cards), None


VARIANT = Variant(
    game=Game.JACKPOTS,
    title="jackpots",
    steps=(
        FORCED,
        deal("the deal", DOWN, DOWN, DOWN, DOWN, DOWN),
        bet("first betting round", big=False),
        DRAW,
        bet("second betting round", big=True, opening=Opening.FIRST_BETTOR),
        SHOWDOWN,
    ),
    stakes=Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5, raise_cap=4),
    values=_values,
    hole_cards=5,
    max_seats=8,
    duplicate_seats=0,
    mixed=False,
    openers=True,
    raise_cap=4,
)
