"""Helpers shared by the draw-game scenario tests (draw-declare, jackpots).

:class:`Checked` is a stacked :class:`~stacked.Table` that checks, after
every command, what must hold after every command: the chips on the table
never change, the new events applied one by one to the state before the
command give the state that replaying every event from scratch gives, and
deciding the same command again gives the same events.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import reduce

from feltline.engine.cards.card import Card, deck, parse_cards
from feltline.engine.hand.commands import Command, StartHand
from feltline.engine.hand.decide import NEW_HAND, advance, decide, replay
from feltline.engine.hand.events import (
    CardDealt,
    Deal,
    DeckShuffled,
    Event,
    HandEnded,
    PassedOut,
    PotAwarded,
    SeatAtStart,
    Share,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure

from .stacked import SEED, Table, order

FIXED = Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5, raise_cap=4)
DECLARE = Rules(Game.DRAW_DECLARE, FIXED)
JACKPOTS = Rules(Game.JACKPOTS, FIXED)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def top(
    hands: Mapping[int, str],
    *,
    button: int,
    then: str = "",
    seats: Iterable[int] = (),
) -> str:
    """The top of a deck that deals ``hands`` (seat -> five cards, in the
    order each seat receives them) one card at a time clockwise from the
    first seat left of the button, followed by ``then``. Other ``seats``
    dealt in get the first unused cards of the deck in index order."""
    everyone = sorted({*hands, *seats})
    named = {c for text in (*hands.values(), then) for c in parse_cards(text)}
    spare = iter(c for c in deck() if c not in named)
    held = {
        s: hands[s].split() if s in hands else [str(next(spare)) for _ in range(5)]
        for s in everyone
    }
    start = next((i for i, s in enumerate(everyone) if s > button), 0)
    clockwise = everyone[start:] + everyone[:start]
    dealt = [held[s][k] for k in range(5) for s in clockwise]
    assert len(set(dealt + then.split())) == len(dealt) + len(then.split()), "a card twice"
    return " ".join([*dealt, *then.split()])


@dataclass
class Checked(Table):
    """A stacked table whose every command is checked (see the module)."""

    total: int = 0

    def do(self, *commands: Command) -> list[Event]:
        new: list[Event] = []
        for command in commands:
            hand = self.hand
            got = decide(hand, command)
            assert decide(hand, command) == got, "deciding twice gave other events"
            self.events.extend(got)
            new.extend(got)
            after = self.hand
            assert reduce(evolve, got, hand) == after, "replay differs from evolving"
            assert after.chips == self.total, f"{after.chips} chips, not {self.total}"
            end = [e for e in got if isinstance(e, HandEnded)]
            if end:
                left = after.pot if any(isinstance(e, PassedOut) for e in got) else 0
                assert sum(c for _, c in end[0].stacks) + end[0].rake + left == self.total
        return new

    def dealt(self, seat: int) -> list[CardDealt]:
        return [e for e in self.of(CardDealt) if isinstance(e, CardDealt) and e.seat == seat]

    def holding(self, seat: int) -> tuple[Card, ...]:
        return self.hand.player(seat).cards

    def stack(self, seat: int) -> int:
        return self.hand.player(seat).stack

    def awards(self) -> list[PotAwarded]:
        return [e for e in self.events if isinstance(e, PotAwarded)]

    def shares(self, pot: int = 0) -> list[tuple[int, int, str]]:
        """(seat, chips, half) of one pot's award."""
        award = self.awards()[pot]
        return [(s.seat, s.amount, s.half) for s in award.shares]

    def won(self) -> dict[int, int]:
        """Chips each seat took from every pot."""
        total: dict[int, int] = {}
        for award in self.awards():
            for share in award.shares:
                total[share.seat] = total.get(share.seat, 0) + share.amount
        return total


def share_of(shares: tuple[Share, ...]) -> list[tuple[int, int, str]]:
    return [(s.seat, s.amount, s.half) for s in shares]


def deal(
    rules: Rules,
    stacks: Mapping[int, int] | list[int],
    top_cards: str = "",
    *,
    button: int,
    carried: Mapping[int, int] | None = None,
    dead: int = 0,
    antes: bool = True,
) -> Checked:
    """Deal a draw hand from a deck whose top cards are ``top_cards``; a
    seat may bring ``carried`` chips from earlier passed jackpots deals."""
    if not isinstance(stacks, Mapping):
        stacks = dict(enumerate(stacks))
    carried = carried or {}
    seats = tuple(
        SeatAtStart(s, f"player {s}", chips, carried.get(s, 0))
        for s, chips in sorted(stacks.items())
    )
    command = StartHand(rules, Deal(button, seats, antes=antes, dead=dead), SEED)
    started, shuffled = decide(NEW_HAND, command)[:2]
    assert isinstance(shuffled, DeckShuffled)
    stacked = replace(shuffled, cards=order(top_cards))
    events: list[Event] = [started, stacked]
    events += advance(replay(events))
    table = Checked(events)
    table.total = sum(stacks.values()) + sum(carried.values()) + dead
    assert table.hand.chips == table.total
    return table
