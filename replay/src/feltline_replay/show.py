"""Stepping through a stored hand in the terminal, as one viewer saw it.

Each frame is the hand after one more event, folded by the engine; what
the viewer may see of it follows the events' own audiences (the rule the
server redacts by): an auditor sees every card and the seed, a seat its
own face-down cards, everyone the face-up cards and those shown at the
showdown. Keys: ``n``, space or right arrow forward; ``p``, ``b`` or left
arrow back; ``g`` to the start, ``G`` to the end; ``q`` quits. Without a
terminal the keys are read from standard input as typed (``nnpq``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from itertools import islice
from typing import IO

from feltline.audit.codec import decode_event
from feltline.engine.cards.card import Card
from feltline.engine.hand.decide import NEW_HAND
from feltline.engine.hand.events import (
    CardDealt,
    DeckShuffled,
    Event,
    HandStarted,
    Shown,
    StubReshuffled,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.script import Phase
from feltline.engine.hand.state import Hand
from feltline_replay import history
from feltline_replay.log import Record


@dataclass(frozen=True)
class Viewer:
    """``seat`` is None for an auditor or a spectator. ``player`` names a
    player in whichever seat it held: :meth:`seated` makes it the seat of
    one hand, so a player's hands at many tables are each shown as it saw
    them."""

    role: str
    seat: int | None = None
    player: str | None = None

    def seated(self, started: HandStarted) -> Viewer:
        """This viewer at the hand ``started`` began: a player as its seat
        there, or as a spectator of a hand it was not dealt into."""
        if self.player is None:
            return self
        seat = next((s.seat for s in started.deal.seats if s.player == self.player), None)
        return Viewer("spectator") if seat is None else Viewer("seat", seat)

    @classmethod
    def parse(cls, text: str) -> Viewer:
        words = text.replace("=", " ").split()
        if words in (["auditor"], ["spectator"]):
            return cls(words[0])
        if len(words) == 2 and words[0] == "seat" and words[1].isdigit():
            return cls("seat", int(words[1]))
        raise ValueError(f"--as is auditor, spectator or 'seat N', not {text!r}")

    def sees(self, event: Event) -> Event:
        """The event as this viewer may see it."""
        if self.role == "auditor":
            return event
        audience = event.audience()
        if audience is None or (self.seat is not None and self.seat in audience):
            return event
        return event.redacted()

    def may_see(self, seat: int) -> bool:
        return self.role == "auditor" or seat == self.seat


def load_hand(records: Sequence[Record]) -> list[Event]:
    """The engine events of a hand's records (its seal left out)."""
    return [
        decode_event(r["type"], r["version"], r["data"]) for r in records if r.get("kind") == "hand"
    ]


@dataclass(frozen=True)
class Seat:
    """One seat as the viewer sees it: ``cards`` are (token, public), the
    token None for a card the viewer may not see, public for one everyone
    sees (face up, or shown)."""

    seat: int
    player: str
    stack: int
    bet: int
    cards: tuple[tuple[str | None, bool], ...]
    folded: bool
    to_act: bool


@dataclass(frozen=True)
class Frame:
    """The hand after one more step, as one viewer may see it: what the
    terminal prints and the HTML replayer draws. A step is one event, or
    the run of cards of one deal, the shuffle with the event before it
    (nothing a person reads); ``last`` is its last event's index."""

    step: int
    steps: int
    title: str
    viewer: Viewer
    said: str
    board: tuple[str, ...]
    seats: tuple[Seat, ...]
    pot: int
    last: int


def steps(events: Sequence[Event]) -> list[range]:
    """The events of each step, as ranges of their indexes."""
    ends: list[int] = []
    for n, event in enumerate(events):
        dealt = isinstance(event, CardDealt) and n and isinstance(events[n - 1], CardDealt)
        if ends and (dealt or isinstance(event, DeckShuffled | StubReshuffled)):
            ends[-1] = n
        else:
            ends.append(n)
    return [range(a + 1, b + 1) for a, b in zip([-1, *ends], ends, strict=False)]


def _said(events: Sequence[Event], viewer: Viewer) -> str:
    """A step's lines: a deal as each seat's cards, one line a seat."""
    dealt: dict[int, tuple[list[str], list[str]]] = {}
    lines = []
    for event in events:
        seen = viewer.sees(event)
        if isinstance(seen, CardDealt):
            token = "??" if seen.card is None else str(seen.card)
            dealt.setdefault(seen.seat, ([], []))[seen.face_up].append(token)
        elif said := history.line(seen):
            lines.append(said)
    for seat, (down, up) in dealt.items():
        cards = [f"{' '.join(down)} down"] if down else []
        cards += [f"{' '.join(up)} up"] if up else []
        lines.append(f"seat {seat} gets {', '.join(cards)}")
    return "\n".join(lines)


def frames(events: Sequence[Event], viewer: Viewer) -> Iterator[Frame]:
    """Each step of the hand in turn, the events folded once and only as
    far as the frames are taken."""
    hand: Hand = NEW_HAND
    shown: dict[int, tuple[Card, ...]] = {}
    started = events[0] if events else None
    title = ""
    if isinstance(started, HandStarted):
        title = f"{started.rules.game} {started.rules.stakes.structure}"
    grouped = steps(events)
    for step, indexes in enumerate(grouped):
        for n in indexes:
            hand = evolve(hand, events[n])
            if isinstance(event := events[n], Shown):
                shown[event.seat] = event.cards
        waiting = _waiting(hand)
        seats = tuple(
            Seat(
                p.seat,
                p.player,
                p.stack,
                p.bet,
                tuple(
                    (
                        str(c)
                        if viewer.may_see(p.seat) or c in p.up or c in shown.get(p.seat, ())
                        else None,
                        c in p.up or c in shown.get(p.seat, ()),
                    )
                    for c in p.cards
                ),
                p.folded,
                p.seat in waiting,
            )
            for p in hand.players
        )
        yield Frame(
            step,
            len(grouped),
            title,
            viewer,
            _said([events[n] for n in indexes], viewer),
            tuple(map(str, hand.board)),
            seats,
            hand.pot + sum(p.bet for p in hand.players),
            indexes[-1],
        )


def frame(events: Sequence[Event], step: int, viewer: Viewer) -> str:
    """The screen after step ``step`` (from 0) of the hand."""
    return text(next(islice(frames(events, viewer), step, None)))


def text(shot: Frame) -> str:
    """A frame as the terminal shows it."""
    viewer = shot.viewer
    title = f"{shot.title}, " if shot.title else ""
    lines = [
        f"{title}step {shot.step + 1} of {shot.steps}, as {viewer.role}"
        + (f" {viewer.seat}" if viewer.seat is not None else ""),
        f"> {shot.said}",
        "board: " + (" ".join(shot.board) or "-"),
    ]
    for s in shot.seats:
        cards = " ".join(token or "??" for token, _ in s.cards)
        state = " folded" if s.folded else ""
        turn = "  <- to act" if s.to_act else ""
        lines.append(
            f"seat {s.seat} {s.player:<12} stack {s.stack:>6} bet {s.bet:>5}"
            f"  [{cards}]{state}{turn}"
        )
    lines.append(f"pot: {shot.pot}")
    return "\n".join(lines)


def _waiting(hand: Hand) -> tuple[int, ...]:
    if hand.phase in (Phase.BETTING, Phase.DRAWING):
        return hand.round.pending[:1]
    if hand.phase is Phase.DECLARING:
        return hand.round.pending
    return ()


def keys(stream: IO[str]) -> Iterator[str]:
    """Key presses: letters, and the arrows as ``left`` and ``right``."""
    while ch := stream.read(1):
        if ch == "\x1b":
            if stream.read(1) == "[":
                arrow = stream.read(1)
                yield {"C": "right", "D": "left"}.get(arrow, "")
            continue
        yield ch


@contextmanager
def _cbreak(stream: IO[str]) -> Iterator[None]:
    """Keys one at a time on a terminal; nothing changes otherwise."""
    if not stream.isatty():
        yield
        return
    import termios  # noqa: PLC0415 (POSIX terminals only)
    import tty  # noqa: PLC0415

    saved = termios.tcgetattr(stream)
    try:
        tty.setcbreak(stream)
        yield
    finally:
        termios.tcsetattr(stream, termios.TCSADRAIN, saved)


def run(events: Sequence[Event], viewer: Viewer, keyboard: IO[str], out: IO[str]) -> int:
    """Show the hand from its first event and follow the keys; the step
    shown last."""
    step = 0
    last = len(steps(events)) - 1
    clear = "\x1b[H\x1b[2J" if out.isatty() else "-" * 40 + "\n"
    moves = {"n": 1, " ": 1, "right": 1, "p": -1, "b": -1, "left": -1}
    with _cbreak(keyboard):
        out.write(clear + frame(events, step, viewer) + "\n")
        for key in keys(keyboard):
            if key == "q":
                break
            if key in moves:
                step = min(max(step + moves[key], 0), last)
            elif key == "g":
                step = 0
            elif key == "G":
                step = last
            else:
                continue
            out.write(clear + frame(events, step, viewer) + "\n")
            with suppress(AttributeError):
                out.flush()
    return step


__all__ = [
    "Frame",
    "Seat",
    "Viewer",
    "frame",
    "frames",
    "keys",
    "load_hand",
    "run",
    "steps",
    "text",
]
