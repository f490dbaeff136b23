"""What must hold of every hand, checked event by event and at its end.

:class:`Referee` follows a hand as its events come and fails an assertion
as soon as one of the engine's promises breaks: chips are conserved, no card
is in two places, replaying gives the same state, and no seat can see a card
dealt face down to another before it is shown.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from feltline.engine.cards import Card, deck
from feltline.engine.commands import StartHand
from feltline.engine.events import (
    EVERYONE,
    NOBODY,
    BoardDealt,
    CardDealt,
    DeckShuffled,
    DeclarationsRevealed,
    Declared,
    Drew,
    Event,
    HandEnded,
    HandStarted,
    PassedOut,
    Shown,
    StubReshuffled,
)
from feltline.engine.hand import replay
from feltline.engine.script import SCRIPTS, Kind
from feltline.engine.state import Hand, Phase


def cards_in(value: object) -> Iterator[Card]:
    """Every card anywhere inside an event (fields, tuples, nested records)."""
    if isinstance(value, Card):
        yield value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from cards_in(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from cards_in(getattr(value, f.name))


def starting_chips(command: StartHand) -> int:
    """Stacks, chips carried from passed deals and dead chips."""
    return sum(s.stack + s.carried for s in command.seats) + command.dead


def command_bound(command: StartHand) -> int:
    """More commands than a hand can take: in each betting round every
    active seat acts at most once per raise, and each raise either lifts
    the bet by at least one unit or puts its raiser all in. Then one draw
    and one declaration per seat, and a cancel."""
    stakes = command.rules.stakes
    units = [x for x in (stakes.small_bet, stakes.bring_in, stakes.big_blind) if x > 0]
    raises = starting_chips(command) // min(units) + len(command.seats) + 2
    rounds = sum(1 for step in SCRIPTS[command.rules.game] if step.kind is Kind.BET)
    n = len(command.seats)
    return rounds * n * (raises + 1) + 2 * n + 2


class Referee:
    """Checks a hand while it is played; feed it each event with the state
    it led to."""

    def __init__(self, command: StartHand) -> None:
        self.command = command
        self.total = starting_chips(command)
        self.fixed = command.rules.fixed_seats
        self.deck = Counter(deck(joker=command.rules.joker))

    def __call__(self, hand: Hand, event: Event) -> None:
        assert hand.chips == self.total, f"after {event}: {hand.chips} chips, not {self.total}"
        assert all(p.stack >= 0 and p.bet >= 0 for p in hand.players), event
        assert hand.pot >= 0
        assert (hand.live_count, hand.active_count) == (len(hand.live), len(hand.active)), event
        self.check_cards(hand, event)

    def check_cards(self, hand: Hand, event: Event) -> None:
        """No card in two places; without fixed positions, every card of the
        deck is in exactly one place: a live hand, the board, the muck (with
        the folded hands), set aside, or the stub still to deal."""
        if isinstance(event, HandStarted):
            return
        if isinstance(event, CardDealt):
            assert event.card == hand.stub[event.position], event
        placed = [c for p in hand.players if p.live for c in p.cards]
        placed += [*hand.board, *hand.muck, *hand.set_aside]
        counts = Counter(placed)
        assert max(counts.values(), default=1) == 1, f"after {event}: a card twice in {counts}"
        if not self.fixed:
            everywhere = counts + Counter(hand.stub[hand.next :])
            assert everywhere == self.deck, f"after {event}: cards lost or made: {everywhere}"

    def finish(self, events: Sequence[Event], final: Hand, states: Sequence[Hand]) -> None:
        """At the end: the last event ends the hand, final stacks and rake
        account for every chip, replay agrees with the incremental states,
        and nothing leaks."""
        assert final.phase is Phase.ENDED
        ends = [i for i, e in enumerate(events) if isinstance(e, HandEnded)]
        assert ends == [len(events) - 1], "one HandEnded, last"
        ended = events[-1]
        assert isinstance(ended, HandEnded)
        stacks = dict(ended.stacks)
        assert stacks == {p.seat: p.stack for p in final.players}
        passed = [e for e in events if isinstance(e, PassedOut)]
        if ended.cancelled:
            assert sum(stacks.values()) + self.command.dead == self.total
            assert ended.rake == 0
        elif passed:
            carried = sum(c for _, c in passed[0].carried) + passed[0].dead
            assert sum(stacks.values()) + carried == self.total
            assert final.pot == carried
        else:
            assert sum(stacks.values()) + ended.rake == self.total
            assert final.pot == 0
            assert final.rake == ended.rake
        assert replay(events) == final
        check_no_leaks(events, [s.seat for s in self.command.seats])


def viewed(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` sees it while the hand runs (None: a spectator)."""
    audience = event.audience()
    if audience is None or (seat is not None and seat in audience):  # None: EVERYONE
        return event
    return event.redacted()


def check_redaction(event: Event) -> None:
    """The redacted form keeps the event's kind and hides every card, the
    seed and the declared choice."""
    audience = event.audience()
    if audience is EVERYONE:
        return
    hidden = event.redacted()
    assert type(hidden) is type(event)
    assert not list(cards_in(hidden)), hidden
    if isinstance(hidden, CardDealt):
        assert hidden.card is None
    if isinstance(hidden, Drew):
        assert hidden.discards is None
    if isinstance(hidden, DeckShuffled):
        assert hidden.seed == b""
        assert hidden.cards == ()
    if isinstance(hidden, Declared):
        assert hidden.choice is None
    if isinstance(hidden, StubReshuffled):
        assert hidden.cards is None
    if isinstance(event, DeckShuffled | StubReshuffled):
        assert audience == NOBODY
    if isinstance(event, CardDealt | Drew | Declared):
        assert audience == frozenset({event.seat})


def check_no_leaks(events: Iterable[Event], seats: Sequence[int]) -> None:
    """For each seat and a spectator, nothing it is shown holds a card
    dealt face down to another seat before that card is shown, the deck's
    seed before the hand ends, or another seat's declaration before all
    are revealed."""
    events = list(events)
    seed = next((e.seed for e in events if isinstance(e, DeckShuffled)), b"")
    for event in events:
        check_redaction(event)
    for seat in [*seats, None]:
        secret: set[Card] = set()
        revealed = False
        for i, event in enumerate(events):
            seen = viewed(event, seat)
            # What the seat may know now: face-up cards, its own cards and
            # cards shown; what it may not: cards dealt face down to others.
            if isinstance(event, CardDealt):
                assert event.card is not None
                if event.face_up or event.seat == seat:
                    secret.discard(event.card)
                else:
                    secret.add(event.card)
            if isinstance(event, BoardDealt):
                secret -= set(event.cards)
            if isinstance(event, Shown):
                secret -= {*event.cards, *event.set_aside}
            leaked = secret & set(cards_in(seen))
            assert not leaked, f"seat {seat} sees {leaked} in event {i}: {seen}"
            if isinstance(event, DeclarationsRevealed):
                revealed = True
            if isinstance(seen, Declared) and seen.seat != seat and not revealed:
                assert seen.choice is None, f"seat {seat} sees a declaration: {seen}"
            if not isinstance(event, HandEnded) and seed:
                assert seed not in _bytes_in(seen), f"seat {seat} sees the seed in {seen}"


def _bytes_in(event: Event) -> list[bytes]:
    return [
        getattr(event, f.name)
        for f in dataclasses.fields(event)
        if isinstance(getattr(event, f.name), bytes)
    ]
