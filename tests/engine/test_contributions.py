"""Seats contribute to the deck (``feltline-deck-v2``): the order of the
commitments and reveals, what the window's close does, and every refusal."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from feltline.engine.cards.card import deck
from feltline.engine.cards.deck import CONTRIBUTED_ALGORITHM, commitment, deck_seed, shuffle
from feltline.engine.errors import (
    IllegalAction,
    IllegalContribution,
    NotInHand,
    RuleError,
    WrongPhase,
)
from feltline.engine.hand.commands import (
    Act,
    CloseContributions,
    Command,
    Commit,
    Reveal,
)
from feltline.engine.hand.decide import NEW_HAND, decide
from feltline.engine.hand.events import (
    Action,
    ContributionsOpened,
    DeckShuffled,
    Entropy,
    Event,
    HandEnded,
    HandStarted,
    Posted,
    RevealsOpened,
    SeedDrawn,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game, Structure
from feltline.engine.hand.script import Phase
from feltline.engine.hand.state import Hand

from .players import contribution, rules, start

SEED = bytes(range(32))
STACKS = {1: 500, 4: 500, 7: 500}


def begin(entropy: Entropy = Entropy.OPTIONAL) -> tuple[Hand, list[Event]]:
    command = start(rules(Game.HOLDEM, Structure.NO_LIMIT), STACKS, SEED, entropy=entropy)
    return run(NEW_HAND, [], command)


def run(hand: Hand, events: list[Event], *commands: Command) -> tuple[Hand, list[Event]]:
    for command in commands:
        for event in decide(hand, command):
            hand = evolve(hand, event)
            events.append(event)
    return hand, events


def commit(seat: int) -> Commit:
    return Commit(seat, hashlib.sha256(contribution(seat)).hexdigest())


def reveal(seat: int) -> Reveal:
    return Reveal(seat, contribution(seat))


def test_the_server_commits_first_and_nothing_is_dealt_until_the_reveals() -> None:
    hand, events = begin()
    assert [type(e) for e in events] == [HandStarted, SeedDrawn, ContributionsOpened]
    started = events[0]
    assert isinstance(started, HandStarted)
    assert started.algorithm == CONTRIBUTED_ALGORITHM == "feltline-deck-v2"
    assert started.commitment == commitment(SEED)
    assert events[2] == ContributionsOpened((1, 4, 7), required=False)
    assert hand.phase is Phase.COMMITTING
    assert hand.stub == ()
    hand, events = run(hand, events, commit(4), commit(1))
    assert hand.phase is Phase.COMMITTING
    hand, events = run(hand, events, commit(7))
    assert events[-1] == RevealsOpened((1, 4, 7))
    hand, events = run(hand, events, reveal(7), reveal(1))
    assert hand.phase is Phase.REVEALING
    assert hand.stub == ()
    hand, events = run(hand, events, reveal(4))
    mixed = deck_seed(SEED, {s: contribution(s) for s in (1, 4, 7)})
    shuffled = events[10]
    assert shuffled == DeckShuffled(seed=mixed, cards=shuffle(mixed, deck()))
    assert isinstance(events[11 + 1], Posted)  # the forced bets follow the deck
    assert hand.phase is Phase.BETTING


def test_a_seat_that_commits_and_does_not_reveal_is_left_out() -> None:
    hand, events = begin()
    hand, events = run(hand, events, commit(1), commit(4), commit(7), reveal(1), reveal(7))
    hand, events = run(hand, events, CloseContributions())
    shuffled = next(e for e in events if isinstance(e, DeckShuffled))
    assert shuffled.seed == deck_seed(SEED, {1: contribution(1), 7: contribution(7)})
    assert hand.phase is Phase.BETTING


def test_optional_the_window_closes_on_the_seats_that_committed() -> None:
    hand, events = begin()
    hand, events = run(hand, events, commit(4), CloseContributions())
    assert events[-1] == RevealsOpened((4,))
    with pytest.raises(IllegalAction, match="seat 1 made no commitment in time"):
        decide(hand, reveal(1))
    hand, events = run(hand, events, reveal(4))
    shuffled = next(e for e in events if isinstance(e, DeckShuffled))
    assert shuffled.seed == deck_seed(SEED, {4: contribution(4)})


def test_optional_nobody_committing_deals_from_the_servers_seed_mixed_with_nothing() -> None:
    hand, events = begin()
    hand, events = run(hand, events, CloseContributions())
    assert events[3] == RevealsOpened(())
    assert events[4] == DeckShuffled(deck_seed(SEED, {}), shuffle(deck_seed(SEED, {}), deck()))
    assert hand.phase is Phase.BETTING


def test_required_a_seat_that_does_not_commit_in_time_cancels_the_hand() -> None:
    hand, events = begin(Entropy.REQUIRED)
    assert events[2] == ContributionsOpened((1, 4, 7), required=True)
    hand, events = run(hand, events, commit(1), commit(4), CloseContributions())
    ended = events[-1]
    assert ended == HandEnded(
        stacks=((1, 500), (4, 500), (7, 500)), seed=SEED, rake=0, cancelled=True
    )
    assert hand.phase is Phase.ENDED


def test_the_hand_ends_revealing_the_servers_seed_not_the_deck_seed() -> None:
    hand, events = begin()
    hand, events = run(hand, events, CloseContributions())
    while hand.phase is not Phase.ENDED:
        seat = hand.round.pending[0]
        hand, events = run(hand, events, Act(seat, Action.FOLD))
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    assert ended.seed == SEED
    assert hand.deck_seed == deck_seed(SEED, {}) != SEED


REFUSALS: list[tuple[str, list[Command], Command, type[RuleError], str]] = [
    ("commit twice", [commit(1)], commit(1), IllegalAction, "seat 1 has already committed"),
    ("commit, not a seat", [], Commit(2, "ab" * 32), NotInHand, "seat 2 is not dealt in"),
    ("commit, short", [], Commit(1, "ab" * 31), IllegalContribution, "64 lowercase hex digits"),
    ("commit, capitals", [], Commit(1, "AB" * 32), IllegalContribution, "64 lowercase hex"),
    (
        "reveal too soon",
        [commit(1)],
        reveal(1),
        WrongPhase,
        "cannot reveal: it is time for committing",
    ),
    (
        "reveal, wrong length",
        [commit(1), commit(4), commit(7)],
        Reveal(1, bytes(31)),
        IllegalContribution,
        "exactly 32 bytes, not 31",
    ),
    (
        "reveal, not the bytes committed",
        [commit(1), commit(4), commit(7)],
        Reveal(1, contribution(4)),
        IllegalContribution,
        "seat 1's contribution does not hash to its commitment",
    ),
    (
        "reveal twice",
        [commit(1), commit(4), commit(7), reveal(1)],
        reveal(1),
        IllegalAction,
        "seat 1 has already revealed",
    ),
    ("commit late", [commit(1), CloseContributions()], commit(4), WrongPhase, "cannot commit"),
    ("act before the deal", [], Act(1, Action.CALL), WrongPhase, "time for committing"),
]


@pytest.mark.parametrize(
    ("before", "command", "error", "message"),
    [r[1:] for r in REFUSALS],
    ids=[r[0] for r in REFUSALS],
)
def test_refusals_change_nothing(
    before: list[Command], command: Command, error: type[RuleError], message: str
) -> None:
    hand, _ = begin()
    hand, _ = run(hand, [], *before)
    with pytest.raises(error, match=message):
        decide(hand, command)


def test_a_v1_hand_takes_no_contribution_and_the_window_has_nothing_to_close() -> None:
    hand, _ = begin(Entropy.OFF)
    with pytest.raises(WrongPhase, match="the server's alone"):
        decide(hand, commit(1))
    with pytest.raises(WrongPhase, match="no contributions are being collected"):
        decide(hand, CloseContributions())


def test_a_duplicate_table_cannot_take_contributions() -> None:
    """A match deals one deck at every table: contributions would part them."""
    table = replace(rules(Game.HOLDEM, Structure.NO_LIMIT), fixed_seats=2)
    command = start(table, {0: 500, 1: 500}, SEED, entropy=Entropy.OPTIONAL)
    with pytest.raises(IllegalAction, match="one deck at every table"):
        decide(NEW_HAND, command)
    assert decide(NEW_HAND, replace(command, entropy=Entropy.OFF))
