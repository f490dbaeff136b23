"""What must hold of every hand, checked event by event and at its end.

:class:`Referee` follows a hand as its events come and fails an assertion
as soon as one of the engine's promises breaks: chips are conserved, no card
is in two places, replaying gives the same state, playing the hand's
commands again from its start makes the same events, and no seat can see a
card dealt face down to another before it is shown. Every check fails with a
message of its own, which ``test_referee.py`` asserts exactly.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from feltline.engine.cards.card import Card, deck
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
from feltline.engine.hand.decide import NEW_HAND, decide, replay
from feltline.engine.hand.events import (
    EVERYONE,
    NOBODY,
    Acted,
    Action,
    BoardDealt,
    CardDealt,
    ContributionCommitted,
    ContributionRevealed,
    ContributionsOpened,
    DeckShuffled,
    DeclarationsRevealed,
    Declared,
    Drew,
    Event,
    HandEnded,
    HandStarted,
    PassedOut,
    RevealsOpened,
    SeedDrawn,
    Shown,
    StubReshuffled,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.script import Kind, Phase
from feltline.engine.hand.state import Hand


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
    return sum(s.stack + s.carried for s in command.deal.seats) + command.deal.dead


def command_bound(command: StartHand) -> int:
    """More commands than a hand can take: in each betting round every
    active seat acts at most once per raise, and each raise either lifts
    the bet by at least one unit or puts its raiser all in. Then one draw
    and one declaration per seat, and a cancel."""
    stakes = command.rules.stakes
    units = [x for x in (stakes.small_bet, stakes.bring_in, stakes.big_blind) if x > 0]
    raises = starting_chips(command) // min(units) + len(command.deal.seats) + 2
    rounds = sum(1 for step in command.rules.variant.steps if step.kind is Kind.BET)
    n = len(command.deal.seats)
    return rounds * n * (raises + 1) + 4 * n + 4


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
        negative = [p.seat for p in hand.players if p.stack < 0 or p.bet < 0]
        assert not negative, f"after {event}: a negative stack or bet at seats {negative}"
        assert hand.pot >= 0, f"after {event}: a pot of {hand.pot}"
        kept, counted = (hand.live_count, hand.active_count), (len(hand.live), len(hand.active))
        assert kept == counted, f"after {event}: live and active kept as {kept}, not {counted}"
        self.check_cards(hand, event)

    def check_cards(self, hand: Hand, event: Event) -> None:
        """No card in two places; without fixed positions, every card of the
        deck is in exactly one place: a live hand, the board, the muck (with
        the folded hands), set aside, or the stub still to deal."""
        if isinstance(event, HandStarted) or not hand.deck_seed:
            return  # no deck yet: the seats are still contributing to it
        if isinstance(event, CardDealt):
            stub = hand.stub[event.position]
            assert event.card == stub, f"{event} deals {event.card}, the stub has {stub} there"
        placed = [c for p in hand.players if p.live for c in p.cards]
        placed += [*hand.board, *hand.muck, *hand.set_aside]
        counts = Counter(placed)
        twice = sorted(c for c, n in counts.items() if n > 1)
        assert not twice, f"after {event}: {twice} in two places"
        if not self.fixed:
            everywhere = counts + Counter(hand.stub[hand.next :])
            lost, made = sorted(self.deck - everywhere), sorted(everywhere - self.deck)
            assert (lost, made) == ([], []), f"after {event}: cards lost {lost}, made {made}"

    def finish(self, events: Sequence[Event], final: Hand, states: Sequence[Hand]) -> None:
        """At the end: the last event ends the hand, final stacks and rake
        account for every chip, replay agrees with the incremental states,
        and nothing leaks."""
        assert final.phase is Phase.ENDED, f"the hand is {final.phase}, not ended"
        ends = [i for i, e in enumerate(events) if isinstance(e, HandEnded)]
        assert ends == [len(events) - 1], f"HandEnded at {ends}, not once and last"
        ended = events[-1]
        assert isinstance(ended, HandEnded)
        stacks = dict(ended.stacks)
        players = {p.seat: p.stack for p in final.players}
        assert stacks == players, f"HandEnded has stacks {stacks}, the players {players}"
        passed = [e for e in events if isinstance(e, PassedOut)]
        out = sum(stacks.values())
        if ended.cancelled:
            out += self.command.deal.dead
            assert ended.rake == 0, f"a cancelled hand raked {ended.rake}"
        elif passed:
            carried = sum(c for _, c in passed[0].carried) + passed[0].dead
            out += carried
            assert final.pot == carried, f"a pot of {final.pot} carries {carried}"
        else:
            out += ended.rake
            assert final.pot == 0, f"{final.pot} chips left in the pot"
            assert final.rake == ended.rake, f"raked {final.rake}, HandEnded says {ended.rake}"
        assert out == self.total, f"the hand ends with {out} chips, not {self.total}"
        assert replay(events) == final, "folding evolve over the events gives another hand"
        self.check_rerun(events)
        check_no_leaks(events, [s.seat for s in self.command.deal.seats])

    def check_rerun(self, events: Sequence[Event]) -> None:
        """Play the hand again from the command that started it, with each
        decision its events record: the engine must decide exactly those
        events again. Folding ``evolve`` cannot see an event that ``decide``
        would never have made (a doctored record, a decision that depends
        on something outside the hand); this can."""
        hand, again = NEW_HAND, list[Event]()
        for command in decisions(self.command, events):
            try:
                made = decide(hand, command)
            except RuleError as e:
                raise AssertionError(f"re-running the hand, {command} is refused: {e}") from e
            for event in made:
                hand = evolve(hand, event)
            again += made
        for i, (stored, made) in enumerate(zip(events, again, strict=False)):
            assert stored == made, f"re-run, event {i} is {made}, not {stored}"
        assert len(again) == len(events), f"re-run, {len(again)} events, not {len(events)}"


def decisions(start: StartHand, events: Sequence[Event]) -> list[Command]:
    """``start`` and the commands the events record: each commitment and
    reveal, the window closed where a seat did not keep up, each bet, draw
    and declaration, a time-out where the clock acted, a cancel that ended
    it."""
    made: list[Command] = [start]
    invited: tuple[int, ...] = ()
    committed: list[int] = []
    revealing: tuple[int, ...] = ()
    revealed = 0
    for event in events:
        if isinstance(event, ContributionsOpened):
            invited = event.seats
        elif isinstance(event, ContributionCommitted):
            committed.append(event.seat)
            made.append(Commit(event.seat, event.commitment))
        elif isinstance(event, RevealsOpened):
            revealing = event.seats
            if len(committed) < len(invited):
                made.append(CloseContributions())
        elif isinstance(event, ContributionRevealed):
            revealed += 1
            made.append(Reveal(event.seat, event.contribution))
        elif isinstance(event, DeckShuffled) and invited and revealed < len(revealing):
            made.append(CloseContributions())
        elif isinstance(event, Acted | Drew | Declared) and event.timed_out:
            made.append(TimeOut(event.seat))
        elif isinstance(event, Acted):
            raising = event.action in (Action.BET, Action.RAISE, Action.COMPLETE)
            made.append(Act(event.seat, event.action, event.total if raising else 0))
        elif isinstance(event, Drew):
            made.append(Draw(event.seat, event.discards or ()))
        elif isinstance(event, Declared) and event.choice is not None:
            made.append(Declare(event.seat, event.choice))
        elif isinstance(event, HandEnded) and event.cancelled:
            made.append(Cancel())
    return made


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
    kind = type(event).__name__
    assert type(hidden) is type(event), f"{kind} redacted is a {type(hidden).__name__}"
    assert not list(cards_in(hidden)), f"{kind} redacted still holds cards: {hidden}"
    if isinstance(hidden, CardDealt):
        assert hidden.card is None, f"{kind} redacted names a card: {hidden}"
    if isinstance(hidden, Drew):
        assert hidden.discards is None, f"{kind} redacted names the discards: {hidden}"
    if isinstance(hidden, SeedDrawn):
        assert hidden.seed == b"", f"{kind} redacted keeps the seed"
    if isinstance(hidden, DeckShuffled):
        assert hidden.seed == b"", f"{kind} redacted keeps the seed"
        assert hidden.cards == (), f"{kind} redacted keeps the deck"
    if isinstance(hidden, Declared):
        assert hidden.choice is None, f"{kind} redacted keeps the choice: {hidden}"
    if isinstance(hidden, StubReshuffled):
        assert hidden.cards is None, f"{kind} redacted keeps the stub: {hidden}"
    if isinstance(event, DeckShuffled | StubReshuffled | SeedDrawn):
        assert audience == NOBODY, f"{kind} is shown to {audience}, not to nobody"
    if isinstance(event, CardDealt | Drew | Declared):
        assert audience == frozenset({event.seat}), f"{kind} is shown to {audience}"


def check_no_leaks(events: Iterable[Event], seats: Sequence[int]) -> None:
    """For each seat and a spectator, nothing it is shown holds a card
    dealt face down to another seat before that card is shown, the deck's
    seed before the hand ends, or another seat's declaration before all
    are revealed."""
    events = list(events)
    seeds = {e.seed for e in events if isinstance(e, DeckShuffled | SeedDrawn)} - {b""}
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
            if not isinstance(event, HandEnded):
                shown = seeds & set(_bytes_in(seen))
                assert not shown, f"seat {seat} sees a seed in {seen}"


def _bytes_in(event: Event) -> list[bytes]:
    return [
        getattr(event, f.name)
        for f in dataclasses.fields(event)
        if isinstance(getattr(event, f.name), bytes)
    ]
