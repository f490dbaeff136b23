"""Whose turn it is: who acts first in a betting round, by the round's opening rule, whom
the hand waits on now, and what such a seat may do, so that every layer
above asks the engine instead of working the rules out again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from feltline.engine.cards.card import ACE, JOKER_INDEX, Card, ace_low
from feltline.engine.cards.values import ace_to_five_low, high
from feltline.engine.hand import betting
from feltline.engine.hand.events import Action
from feltline.engine.hand.fast import (
    BETTING,
    BLINDS,
    DECLARING,
    DRAWING,
    FIRST_BETTOR,
    FOLD,
    HIGH_CARD,
    HIGH_SHOWING,
    LOW_CARD,
    LOW_SHOWING,
)
from feltline.engine.hand.script import Opening, Step
from feltline.engine.hand.state import Hand


def first_to_act(hand: Hand, street: Step) -> int:
    """The seat the betting round ``street`` starts from; the caller skips
    it when it has folded or is all in, going on clockwise."""
    opening = street.opening
    if opening is LOW_CARD or opening is HIGH_CARD:
        return _bring_in(hand, opening)
    if opening is HIGH_SHOWING:
        return best_showing_seat(hand)
    if opening is LOW_SHOWING:
        return best_low_showing_seat(hand)
    if opening is BLINDS and hand.big_blind_seat is not None:
        return _after(hand, hand.big_blind_seat)
    if opening is FIRST_BETTOR and hand.first_bettor is not None:
        return hand.first_bettor
    return _after(hand, hand.button)


def _after(hand: Hand, seat: int) -> int:
    return hand.clockwise(seat)[0].seat


def bring_in_seat(hand: Hand) -> int:
    """The seat that owes the bring-in of the round being bet."""
    return _bring_in(hand, hand.rules.variant.steps[hand.step].opening)


def _bring_in(hand: Hand, opening: Opening) -> int:
    """The lowest up card: by rank with the ace high, then by suit (clubs,
    diamonds, hearts, spades), which is card order; the joker is highest.
    Or (razz) the highest up card with the ace low, ties to the higher suit."""
    ups = [p for p in hand.live if p.up]
    if opening is HIGH_CARD:
        return max(ups, key=lambda p: ace_low(p.up[0])).seat
    return min(ups, key=lambda p: p.up[0]).seat


def best_showing_seat(hand: Hand) -> int:
    """The best high hand showing; ties to the first seat left of the button."""
    contenders = [p for p in hand.clockwise(hand.button) if p.live]
    return max(contenders, key=lambda p: showing(p.up + hand.board)).seat  # first of equals


def best_low_showing_seat(hand: Hand) -> int:
    """The best ace-to-five low showing; ties to the first seat left of the button."""
    contenders = [p for p in hand.clockwise(hand.button) if p.live]
    return max(contenders, key=lambda p: low_showing(p.up + hand.board)).seat


def showing(cards: Sequence[Card]) -> tuple[int, ...]:
    """An order on up cards. Under five cards only pairs, two pair, trips and
    quads count, and a joker is an ace; five (with a common card) are a hand.

    Under five, the group sizes come first (so two small pairs beat a pair
    of aces), then the ranks; every seat compared shows as many cards, so
    the group sizes of two seats never run into each other's ranks."""
    if len(cards) >= 5:
        return (1, high(cards).strength)
    # Ranks read as card >> 2 (a card is rank * 4 + suit); at most four
    # cards, so counting each rank in a list beats a Counter.
    ranks = [ACE if c == JOKER_INDEX else c >> 2 for c in cards]
    if len(set(ranks)) == len(ranks):  # no pair, the usual case: the ranks, highest first
        return (0, *[1] * len(ranks), *sorted(ranks, reverse=True))
    pattern = sorted({(ranks.count(rank), rank) for rank in ranks}, reverse=True)
    return (0, *[n for n, _ in pattern], *[rank for _, rank in pattern])


def low_showing(cards: Sequence[Card]) -> tuple[int, ...]:
    """An order on up cards for the low, the best largest. Under five cards
    the fewer and smaller groups the better (no pair beats a pair, a pair
    beats two pair, two pair beats trips), then the lower ranks from the
    top, the ace low; five (with a common card) are an ace-to-five low."""
    if len(cards) >= 5:
        return (1, ace_to_five_low(cards).strength)
    ranks = [ace_low(c) >> 2 for c in cards]
    pattern = sorted({(ranks.count(rank), rank) for rank in ranks}, reverse=True)
    return (0, *[-n for n, _ in pattern], *[-rank for _, rank in pattern])


def waiting_on(hand: Hand) -> tuple[int, ...]:
    """The seats the hand waits on: whoever is to bet or draw, or everyone
    still to declare."""
    phase = hand.phase
    if phase is BETTING or phase is DRAWING:
        return hand.round.pending[:1]
    if phase is DECLARING:
        return hand.round.pending
    return ()


@dataclass(frozen=True, slots=True)
class Choices:
    """What a seat the hand waits on may do: betting ``actions`` (with what a
    call or the bring-in costs, and the totals a bet, raise or completion
    may go to), or a draw of at most ``max_discards`` cards, or a
    declaration."""

    actions: tuple[Action, ...] = ()
    call_amount: int = 0
    min_to: int = 0
    max_to: int = 0
    draw: bool = False
    max_discards: int = 0
    declare: bool = False


def choices(hand: Hand, seat: int) -> Choices | None:
    """What ``seat`` may do now, or None when the hand is not waiting on it."""
    if seat not in waiting_on(hand):
        return None
    if hand.phase is DRAWING:
        return Choices(draw=True, max_discards=discard_limit(hand))
    if hand.phase is DECLARING:
        return Choices(declare=True)
    o = betting.options(hand)
    if o.bring_in:
        # Left of a low card all in on the ante, the bring-in may be folded.
        actions = [Action.BRING_IN] if seat == bring_in_seat(hand) else [Action.BRING_IN, FOLD]
        cost = o.bring_in
    else:
        actions = [Action.CALL, FOLD] if o.to_call else [Action.CHECK, FOLD]
        cost = o.to_call
    if o.raise_action is not None:
        actions.append(o.raise_action)
    return Choices(tuple(actions), cost, o.least, o.most)


def discard_limit(hand: Hand) -> int:
    """The most cards a seat may throw in a draw: a duplicate deal reserves
    each seat room for the limit of a full table, so that limit holds."""
    return hand.rules.draw_limit(hand.rules.fixed_seats or len(hand.players))
