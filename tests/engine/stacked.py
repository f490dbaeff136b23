"""Stacked decks for rule tests: a path production never takes.

Production decks come only from ``decide(StartHand)``, which derives the
order from the seed. Here a test rewrites the ``DeckShuffled`` event with an
explicit order before anything is dealt, then lets the dealer go on. A
verifier would reject such a hand: its deck does not match its seed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from feltline.engine.cards.card import Card, deck, parse_cards
from feltline.engine.hand.commands import Act, Command, Declare, Draw, StartHand, TimeOut
from feltline.engine.hand.decide import NEW_HAND, advance, decide, replay
from feltline.engine.hand.events import Action, Choice, Deal, DeckShuffled, Event, SeatAtStart
from feltline.engine.hand.rules import Rules
from feltline.engine.hand.state import Hand

SEED = bytes(range(32))


def order(top: str, *, joker: bool = False) -> tuple[Card, ...]:
    """``top`` first, then the rest of the deck in index order."""
    first = parse_cards(top)
    return first + tuple(c for c in deck(joker=joker) if c not in first)


@dataclass
class Table:
    """A hand under test: its events so far and the state they give."""

    events: list[Event] = field(default_factory=list)

    @property
    def hand(self) -> Hand:
        return replay(self.events)

    def do(self, *commands: Command) -> list[Event]:
        new: list[Event] = []
        for command in commands:
            got = decide(self.hand, command)
            self.events.extend(got)
            new.extend(got)
        return new

    def act(self, seat: int, action: str, amount: int = 0) -> list[Event]:
        return self.do(Act(seat, Action(action), amount))

    def draw(self, seat: int, cards: str = "") -> list[Event]:
        return self.do(Draw(seat, parse_cards(cards)))

    def declare(self, seat: int, choice: str) -> list[Event]:
        return self.do(Declare(seat, Choice(choice)))

    def time_out(self, seat: int) -> list[Event]:
        return self.do(TimeOut(seat))

    def of(self, kind: type[Event]) -> list[Event]:
        return [e for e in self.events if isinstance(e, kind)]


def deal(
    rules: Rules,
    stacks: dict[int, int] | Iterable[int],
    top: str = "",
    *,
    button: int | None = None,
    **start: object,
) -> Table:
    """Deal a hand from a deck whose top cards are ``top``."""
    if not isinstance(stacks, dict):
        stacks = dict(enumerate(stacks))
    seats = tuple(SeatAtStart(s, f"player {s}", chips) for s, chips in sorted(stacks.items()))
    first = min(stacks) if button is None else button
    command = StartHand(rules, Deal(first, seats, **start), SEED)  # type: ignore[arg-type]
    started, shuffled = decide(NEW_HAND, command)[:2]
    assert isinstance(shuffled, DeckShuffled)
    stacked = replace(shuffled, cards=order(top, joker=rules.joker))
    events = [started, stacked]
    events += advance(replay(events))
    return Table(events)
