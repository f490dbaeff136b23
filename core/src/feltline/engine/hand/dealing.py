"""Where each card comes from: the top of the stub, or, in a duplicate match,
a fixed deck position per seat; and the draw, with its reshuffles.
"""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.cards import openers
from feltline.engine.cards.card import Card, deck
from feltline.engine.cards.deck import reshuffle_purpose, shuffle
from feltline.engine.hand.events import BoardDealt, CardDealt, Drew, Event, StubReshuffled
from feltline.engine.hand.rules import Rules
from feltline.engine.hand.script import Step
from feltline.engine.hand.state import Hand, Player


def fresh_deck(rules: Rules) -> tuple[Card, ...]:
    return deck(joker=rules.joker)


def deal_street(hand: Hand, step: Step) -> list[Event]:
    """One card at a time clockwise from left of the button, per face in
    the step. When the stub cannot give every live player a card, the
    next card goes face up in the middle as a common card (stud only)."""
    receivers = [p for p in hand.clockwise(hand.button) if p.live]
    fixed = hand.rules.fixed_seats
    if not fixed and len(hand.stub) - hand.next < len(receivers) * len(step.faces):
        return [BoardDealt(cards=(hand.stub[hand.next],), positions=(hand.next,))]
    events: list[Event] = []
    position = hand.next
    for k, face in enumerate(step.faces):
        for p in receivers:
            if fixed:
                position = (len(p.cards) + k) * fixed + p.seat % fixed
            events.append(CardDealt(p.seat, hand.stub[position], face, position))
            position += 1
    return events


def deal_board(hand: Hand, count: int) -> list[Event]:
    fixed = hand.rules.fixed_seats
    start = fixed * hand.rules.variant.hole_cards + len(hand.board) if fixed else hand.next
    positions = tuple(range(start, start + count))
    return [BoardDealt(cards=tuple(hand.stub[i] for i in positions), positions=positions)]


def draw(
    hand: Hand, p: Player, discards: Sequence[Card], *, timed_out: bool = False
) -> list[Event]:
    """Throw ``discards`` and serve replacements at once. The bottom card of
    the deck is never dealt: when the cards above it run out, the bottom
    card, the discards and folded hands since the last reshuffle (not this
    player's own discards, never the opener's set-aside cards) become a new
    stub in an order derived from the hand's seed."""
    thrown = tuple(discards)
    set_aside = (
        hand.rules.variant.openers
        and p.seat == hand.opener
        and bool(thrown)
        and openers.combination([c for c in p.cards if c not in thrown]) is None
    )
    events: list[Event] = [
        Drew(p.seat, thrown, len(thrown), set_aside=set_aside, timed_out=timed_out)
    ]
    fixed = hand.rules.fixed_seats
    if fixed:
        limit = hand.rules.draw_limit(fixed)
        base = hand.rules.variant.hole_cards * fixed + p.seat % fixed * limit
        for j in range(len(thrown)):
            events.append(CardDealt(p.seat, hand.stub[base + j], False, base + j))
        return events
    stub, position, guarded = hand.stub, hand.next, hand.guarded
    muck = hand.muck if set_aside else hand.muck + thrown
    stub_no = hand.reshuffles
    need = len(thrown)
    while need:
        available = len(stub) - position - (1 if guarded else 0)
        for _ in range(min(need, available)):
            events.append(CardDealt(p.seat, stub[position], False, position, stub_no))
            position += 1
            need -= 1
        if need:
            bottom: tuple[Card, ...] = (stub[-1],) if guarded else ()
            pool = bottom + tuple(c for c in muck if c not in thrown)
            stub_no += 1
            purpose = reshuffle_purpose(stub_no)
            stub = shuffle(hand.deck_seed, pool, purpose)
            events.append(StubReshuffled(cards=stub, count=len(stub), purpose=purpose))
            muck = tuple(c for c in muck if c in thrown)
            position, guarded = 0, False
    return events
