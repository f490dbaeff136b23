"""Replay a stored hand by playing it again: rebuild the commands its
events record (the start, from ``HandStarted`` and the seed ``HandEnded``
reveals; each decision from its ``Acted``, ``Drew`` or ``Declared``) and run
them through the engine. A hand replays when the engine makes exactly the
events that were stored, so its deal, every decision and its result are
the ones the store holds."""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.commands import Act, Command, Declare, Draw, StartHand, TimeOut
from feltline.engine.errors import RuleError
from feltline.engine.events import (
    Acted,
    Action,
    Declared,
    Drew,
    Event,
    HandEnded,
    HandStarted,
)
from feltline.engine.hand import NEW_HAND, play

AMOUNTS = (Action.BET, Action.RAISE, Action.COMPLETE)


def commands(events: Sequence[Event]) -> list[Command]:
    """The commands the events of an ended hand record."""
    started, ended = events[0], events[-1]
    if not isinstance(started, HandStarted) or not isinstance(ended, HandEnded):
        raise ValueError("only a whole hand replays: HandStarted to HandEnded")
    made: list[Command] = [
        StartHand(
            started.rules,
            button=started.button,
            seats=started.seats,
            seed=ended.seed,
            antes=started.antes,
            small_blind=started.small_blind,
            big_blind=started.big_blind,
            extra_big_blinds=started.extra_big_blinds,
            dead=started.dead,
        )
    ]
    for event in events:
        match event:
            case Acted(timed_out=True) | Drew(timed_out=True) | Declared(timed_out=True):
                made.append(TimeOut(event.seat))
            case Acted(seat=seat, action=action, total=total):
                made.append(Act(seat, action, total if action in AMOUNTS else 0))
            case Drew(seat=seat, discards=discards):
                made.append(Draw(seat, discards or ()))
            case Declared(seat=seat, choice=choice) if choice is not None:
                made.append(Declare(seat, choice))
    return made


def replays(events: Sequence[Event]) -> bool:
    """Whether playing the hand's commands again makes exactly ``events``."""
    hand = NEW_HAND
    again: list[Event] = []
    try:
        for command in commands(events):
            made, hand = play(hand, command)
            again += made
    except (RuleError, ValueError):
        return False
    return again == list(events)
