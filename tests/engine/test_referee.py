"""The referee of the property tests catches what it claims to catch.

Each test doctors a real hand the way a broken engine would and expects
the referee to fail it, so a green property test means something.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from feltline.engine.commands import StartHand
from feltline.engine.events import (
    EVERYONE,
    Acted,
    CardDealt,
    Declared,
    Event,
    HandEnded,
)
from feltline.engine.evolve import evolve
from feltline.engine.hand import NEW_HAND
from feltline.engine.rules import Game, Structure

from .players import Played, passive, play, rules, start
from .referee import Referee, check_no_leaks, check_redaction

SEED = bytes(range(32))


@dataclass(frozen=True, slots=True)
class ShownToAll(CardDealt):
    """A face-down card whose event forgets to name its audience."""

    def audience(self) -> frozenset[int] | None:
        return EVERYONE


@dataclass(frozen=True, slots=True)
class BadlyRedacted(CardDealt):
    def redacted(self) -> Event:
        return self


@dataclass(frozen=True, slots=True)
class OpenDeclaration(Declared):
    def redacted(self) -> Event:
        return self


def holdem() -> tuple[StartHand, Played]:
    command = start(rules(Game.HOLDEM, Structure.NO_LIMIT), dict.fromkeys(range(3), 500), SEED)
    return command, play(command, passive)


def referee_all(command: StartHand, events: list[Event]) -> None:
    """Evolve ``events`` one by one under the referee's eye."""
    referee, hand = Referee(command), NEW_HAND
    for event in events:
        hand = evolve(hand, event)
        referee(hand, event)


def first_down_card(events: list[Event]) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, CardDealt) and not e.face_up)


def test_an_honest_hand_passes() -> None:
    command, played = holdem()
    referee = Referee(command)
    for hand, event in zip(played.states, played.events, strict=True):
        referee(hand, event)
    referee.finish(played.events, played.hand, played.states)


def test_a_face_down_card_shown_to_everyone_is_a_leak() -> None:
    _, played = holdem()
    events = list(played.events)
    i = first_down_card(events)
    dealt = events[i]
    assert isinstance(dealt, CardDealt)
    events[i] = ShownToAll(dealt.seat, dealt.card, dealt.face_up, dealt.position)
    with pytest.raises(AssertionError, match="sees"):
        check_no_leaks(events, [0, 1, 2])


def test_a_redaction_that_hides_nothing_is_caught() -> None:
    _, played = holdem()
    dealt = played.events[first_down_card(played.events)]
    assert isinstance(dealt, CardDealt)
    with pytest.raises(AssertionError):
        check_redaction(BadlyRedacted(dealt.seat, dealt.card, dealt.face_up, dealt.position))


def test_a_declaration_seen_before_the_reveal_is_caught() -> None:
    command = start(rules(Game.DRAW_DECLARE, Structure.FIXED_LIMIT), {0: 200, 1: 200}, SEED)
    played = play(command, passive)
    events = list(played.events)
    i = next(i for i, e in enumerate(events) if isinstance(e, Declared))
    declared = events[i]
    assert isinstance(declared, Declared)
    events[i] = OpenDeclaration(declared.seat, declared.choice)
    with pytest.raises(AssertionError):
        check_no_leaks(events, [0, 1])


def test_chips_made_out_of_nothing_are_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    i = next(i for i, e in enumerate(events) if isinstance(e, Acted) and e.amount)
    acted = events[i]
    assert isinstance(acted, Acted)
    events[i] = replace(acted, amount=acted.amount - 1)  # the bet grows by more than it costs
    with pytest.raises(AssertionError, match="chips"):
        referee_all(command, events)


def test_a_card_dealt_twice_is_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    i = first_down_card(events)
    first, second = events[i], events[i + 1]
    assert isinstance(first, CardDealt)
    assert isinstance(second, CardDealt)
    events[i + 1] = replace(second, card=first.card, position=first.position)
    with pytest.raises(AssertionError, match="twice"):
        referee_all(command, events)


def test_final_stacks_that_do_not_add_up_are_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    stacks = ((ended.stacks[0][0], ended.stacks[0][1] + 1), *ended.stacks[1:])
    events[-1] = replace(ended, stacks=stacks)
    with pytest.raises(AssertionError):
        Referee(command).finish(events, played.hand, played.states)
