"""Playing a stored hand again: the first place a forgery parts from what
the engine makes, and what is said there, is what the verifier reports."""

from __future__ import annotations

import dataclasses
import random

import pytest

from feltline.audit.rerun import Difference, commands, difference, replays
from feltline.engine.hand.commands import Act, Cancel
from feltline.engine.hand.decide import NEW_HAND, play
from feltline.engine.hand.events import Acted, Action, BetsCollected, Event, HandEnded, PotAwarded
from feltline.engine.hand.rules import Game
from tests.tables import TABLES

from .play import play as play_hand
from .play import start

WHOLE = "only a whole hand replays: HandStarted to HandEnded"


def _hand() -> list[Event]:
    """A hold'em hand of four bots with a raise, a showdown and a pot."""
    return play_hand(Game.HOLDEM, random.Random(5))


def _index(events: list[Event], kind: type[Event]) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, kind))


def test_a_hand_as_played_replays() -> None:
    for game in Game:
        events = play_hand(game, random.Random(11))
        assert difference(events) is None
        assert replays(events)


@pytest.mark.parametrize("cut", ["start", "end"])
def test_a_hand_without_its_start_or_its_end_is_refused_at_its_first_event(cut: str) -> None:
    events = _hand()
    partial = events[1:] if cut == "start" else events[:-1]
    with pytest.raises(ValueError, match=f"^{WHOLE}$"):
        commands(partial)
    assert difference(partial) == Difference(0, None, partial[0], WHOLE)
    assert not replays(partial)


def test_a_result_changed_is_found_where_the_engine_makes_the_true_one() -> None:
    events = _hand()
    at = _index(events, PotAwarded)
    true = events[at]
    assert isinstance(true, PotAwarded)
    forged = [*events]
    forged[at] = dataclasses.replace(true, rake=true.rake + 1)
    assert difference(forged) == Difference(at, true, forged[at])
    assert not replays(forged)


def test_an_illegal_decision_is_found_with_the_engine_s_refusal() -> None:
    events = _hand()
    at = _index(events, Acted)  # seat 2, first to act, facing the big blind
    forged = [*events]
    forged[at] = Acted(2, Action.CHECK, 0, 10)
    assert difference(forged) == Difference(at, None, forged[at], "seat 2 cannot check: 10 to call")


def test_an_event_dropped_is_found_where_the_engine_makes_it() -> None:
    events = _hand()
    at = _index(events, BetsCollected)
    forged = events[:at] + events[at + 1 :]
    assert difference(forged) == Difference(at, events[at], forged[at])


def test_an_event_stored_past_the_hand_s_end_is_found() -> None:
    events = _hand()
    forged = [*events, events[-1]]  # still ends with its HandEnded
    assert difference(forged) == Difference(len(events), None, events[-1])
    assert not replays(forged)


def test_a_cancelled_hand_replays_through_its_cancellation() -> None:
    rng = random.Random(2)
    made, hand = play(NEW_HAND, start(TABLES[Game.HOLDEM], rng.randbytes(32)))
    for command in (Act(2, Action.CALL), Act(3, Action.RAISE, 30), Cancel()):
        more, hand = play(hand, command)
        made += more
    ended = made[-1]
    assert isinstance(ended, HandEnded)
    assert ended.cancelled
    assert commands(made)[-1] == Cancel()
    assert difference(made) is None
    uncancelled = [*made[:-1], dataclasses.replace(ended, cancelled=False)]
    assert difference(uncancelled) == Difference(len(made) - 1, None, uncancelled[-1])


def test_a_hand_of_no_events_is_refused_not_crashed_on() -> None:
    assert difference([]) == Difference(0, None, None, WHOLE)
