"""Replay a stored hand by playing it again: rebuild the commands its
events record (the start, from ``HandStarted`` and the seed ``HandEnded``
reveals; each seat's commitment and reveal, and the contribution window's
close where a seat did not keep up; each decision from its ``Acted``,
``Drew`` or ``Declared``) and run
them through the engine. A hand replays when the engine makes exactly the
events that were stored, so its deal, every decision and its result are
the ones the store holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from feltline.engine.errors import RuleError
from feltline.engine.hand.commands import (
    Act,
    Cancel,
    CloseContributions,
    Command,
    Commit,
    Declare,
    Draw,
    Reveal,
    StartHand,
    TimeOut,
)
from feltline.engine.hand.decide import NEW_HAND, play
from feltline.engine.hand.events import (
    Acted,
    Action,
    ContributionCommitted,
    ContributionRevealed,
    ContributionsOpened,
    DeckShuffled,
    Declared,
    Drew,
    Entropy,
    Event,
    HandEnded,
    HandStarted,
    RevealsOpened,
)

AMOUNTS = (Action.BET, Action.RAISE, Action.COMPLETE)


def commands(events: Sequence[Event]) -> list[Command]:
    """The commands the events of an ended hand record."""
    started, ended = (events[0], events[-1]) if events else (None, None)
    if not isinstance(started, HandStarted) or not isinstance(ended, HandEnded):
        raise ValueError("only a whole hand replays: HandStarted to HandEnded")
    opened = next((e for e in events if isinstance(e, ContributionsOpened)), None)
    entropy = Entropy.OFF
    if opened is not None:
        entropy = Entropy.REQUIRED if opened.required else Entropy.OPTIONAL
    made: list[Command] = [StartHand(started.rules, started.deal, ended.seed, entropy)]
    invited = opened.seats if opened is not None else ()
    committed = revealed = 0
    revealing: tuple[int, ...] = ()
    for event in events:
        match event:
            case ContributionCommitted(seat=seat, commitment=digest):
                committed += 1
                made.append(Commit(seat, digest))
            case RevealsOpened(seats=seats):
                revealing = seats
                if committed < len(invited):
                    made.append(CloseContributions())
            case ContributionRevealed(seat=seat, contribution=contribution):
                revealed += 1
                made.append(Reveal(seat, contribution))
            case DeckShuffled() if invited and revealed < len(revealing):
                made.append(CloseContributions())
            case Acted(timed_out=True) | Drew(timed_out=True) | Declared(timed_out=True):
                made.append(TimeOut(event.seat))
            case Acted(seat=seat, action=action, total=total):
                made.append(Act(seat, action, total if action in AMOUNTS else 0))
            case Drew(seat=seat, discards=discards):
                made.append(Draw(seat, discards or ()))
            case Declared(seat=seat, choice=choice) if choice is not None:
                made.append(Declare(seat, choice))
    if ended.cancelled:  # the table closed mid-hand, after the last decision
        made.append(Cancel())
    return made


def replays(events: Sequence[Event]) -> bool:
    """Whether playing the hand's commands again makes exactly ``events``."""
    return difference(events) is None


@dataclass(frozen=True)
class Difference:
    """Where a re-run parts from the stored hand: the index of the first
    event that differs, what the engine made there (None where it made
    nothing more, or refused the command, ``refused`` saying why) and what
    was stored (None past the stored end)."""

    index: int
    expected: Event | None
    found: Event | None
    refused: str = ""


def difference(events: Sequence[Event]) -> Difference | None:
    """The first place where playing the hand's commands again does not make
    ``events``, or None if it makes exactly them: the deal from the revealed
    seed, every decision's legality and every pot, payout and rake."""
    hand = NEW_HAND
    again: list[Event] = []
    try:
        made_commands = commands(events)
    except ValueError as e:
        return Difference(0, None, events[0] if events else None, str(e))
    for command in made_commands:
        try:
            made, hand = play(hand, command)
        except (RuleError, ValueError) as e:
            at = len(again)
            return Difference(at, None, events[at] if at < len(events) else None, str(e))
        for event in made:
            at = len(again)
            if at >= len(events) or events[at] != event:
                return Difference(at, event, events[at] if at < len(events) else None)
            again.append(event)
    if len(again) != len(events):
        return Difference(len(again), None, events[len(again)])
    return None
