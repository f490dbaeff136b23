"""The referee of the property tests catches what it claims to catch.

Each test doctors a real hand the way a broken engine (or a doctored
record) would, one check at a time, and expects the referee to fail it with
that check's own message, asserted in full: a case that failed for another
reason would vouch for nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import pytest

from feltline.engine.errors import RuleError
from feltline.engine.hand.commands import Act, Cancel, Command, StartHand
from feltline.engine.hand.decide import NEW_HAND, decide, replay
from feltline.engine.hand.events import (
    EVERYONE,
    Acted,
    Action,
    BetsCollected,
    BoardDealt,
    CardDealt,
    DeckShuffled,
    Declared,
    Drew,
    Event,
    HandEnded,
    PotAwarded,
    StubReshuffled,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game, Structure
from feltline.engine.hand.script import Phase
from feltline.engine.hand.state import Hand

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
class DeclaredAloud(Declared):
    """A declaration sent to every seat before the reveal."""

    def audience(self) -> frozenset[int] | None:
        return EVERYONE


@dataclass(frozen=True, slots=True)
class SeedAloud(DeckShuffled):
    """The deck's seed sent to every seat while the hand runs."""

    def audience(self) -> frozenset[int] | None:
        return EVERYONE


@dataclass(frozen=True, slots=True)
class RedactedAsAnother(CardDealt):
    """A face-down card whose redacted form is another kind of event."""

    def redacted(self) -> Event:
        return CardDealt(self.seat, None, self.face_up, self.position, self.stub)


@dataclass(frozen=True, slots=True)
class DiscardsKept(Drew):
    """A draw whose redacted form still says how many of which were thrown
    (an empty tuple where there should be nothing)."""

    def redacted(self) -> Event:
        return replace(self, discards=())


@dataclass(frozen=True, slots=True)
class SeedKept(DeckShuffled):
    def redacted(self) -> Event:
        return replace(self, cards=())


@dataclass(frozen=True, slots=True)
class ChoiceKept(Declared):
    def redacted(self) -> Event:
        return self


@dataclass(frozen=True, slots=True)
class StubKept(StubReshuffled):
    def redacted(self) -> Event:
        return replace(self, cards=())


@dataclass(frozen=True, slots=True)
class SeedToASeat(DeckShuffled):
    """The deck's seed shown to one seat rather than to nobody."""

    def audience(self) -> frozenset[int] | None:
        return frozenset({0})


@dataclass(frozen=True, slots=True)
class CardToTheNextSeat(CardDealt):
    """A face-down card shown to the seat after the one it is dealt to."""

    def audience(self) -> frozenset[int] | None:
        return frozenset({self.seat + 1})


def exactly(message: str) -> str:
    """A pattern for ``pytest.raises`` matching the whole message (pytest
    adds its own explanation on the lines after it)."""
    return rf"\A{re.escape(message)}(\n|\Z)"


def holdem() -> tuple[StartHand, Played]:
    command = start(rules(Game.HOLDEM, Structure.NO_LIMIT), dict.fromkeys(range(3), 500), SEED)
    return command, play(command, passive)


def referee_all(command: StartHand, events: list[Event]) -> None:
    """Evolve ``events`` one by one under the referee's eye."""
    referee, hand = Referee(command), NEW_HAND
    for event in events:
        hand = evolve(hand, event)
        referee(hand, event)


def finish(command: StartHand, events: list[Event]) -> None:
    """The referee's end-of-hand checks on ``events``, the states folded
    from them, their HandEnded's stacks made to agree with those states."""
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    before = replay(events[:-1])
    events[-1] = replace(ended, stacks=tuple((p.seat, p.stack) for p in before.players))
    states, hand = [], NEW_HAND
    for event in events:
        hand = evolve(hand, event)
        states.append(hand)
    Referee(command).finish(events, hand, states)


def first(events: list[Event], kind: type[Event], test: Callable[[Event], bool] = bool) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, kind) and test(e))


def first_down_card(events: list[Event]) -> int:
    return first(events, CardDealt, lambda e: isinstance(e, CardDealt) and not e.face_up)


def test_an_honest_hand_passes() -> None:
    command, played = holdem()
    referee = Referee(command)
    for hand, event in zip(played.states, played.events, strict=True):
        referee(hand, event)
    referee.finish(played.events, played.hand, played.states)


# -- event by event ---------------------------------------------------------


def test_chips_made_out_of_nothing_are_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    i = first(events, Acted, lambda e: isinstance(e, Acted) and e.amount > 0)
    acted = events[i]
    assert isinstance(acted, Acted)
    events[i] = replace(acted, amount=acted.amount - 1)  # the bet grows by more than it costs
    with pytest.raises(AssertionError, match=exactly(f"after {events[i]}: 1501 chips, not 1500")):
        referee_all(command, events)


def test_a_stack_below_zero_is_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    i = first(events, Acted, lambda e: isinstance(e, Acted) and e.amount > 0)
    acted = events[i]
    assert isinstance(acted, Acted)
    stack = played.states[i - 1].player(acted.seat).stack
    over = stack + 5 - acted.amount
    # Chips are conserved: what leaves the stack is in front of the seat.
    events[i] = replace(acted, amount=acted.amount + over, total=acted.total + over)
    message = f"after {events[i]}: a negative stack or bet at seats [{acted.seat}]"
    with pytest.raises(AssertionError, match=exactly(message)):
        referee_all(command, events)


def test_a_pot_below_zero_is_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    i = first(events, BetsCollected)
    collected = events[i]
    assert isinstance(collected, BetsCollected)
    over = collected.pot + 1  # more goes back than was bet, the pot owes it
    events[i] = replace(collected, returned_to=0, returned=collected.returned + over, pot=-1)
    with pytest.raises(AssertionError, match=exactly(f"after {events[i]}: a pot of -1")):
        referee_all(command, events)


def test_live_and_active_counts_kept_wrong_are_caught() -> None:
    command, played = holdem()
    hand, event = played.states[3], played.events[3]
    wrong = replace(hand, active_count=hand.active_count + 1)
    kept, counted = (hand.live_count, hand.active_count + 1), (3, 3)
    message = f"after {event}: live and active kept as {kept}, not {counted}"
    with pytest.raises(AssertionError, match=exactly(message)):
        Referee(command)(wrong, event)


def test_a_card_not_the_one_the_stub_holds_is_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    i = first_down_card(events)
    dealt = events[i]
    assert isinstance(dealt, CardDealt)
    stub = played.states[i].stub
    other = stub[-1]
    events[i] = replace(dealt, card=other)
    message = f"{events[i]} deals {other}, the stub has {stub[dealt.position]} there"
    with pytest.raises(AssertionError, match=exactly(message)):
        referee_all(command, events)


def test_a_card_dealt_twice_is_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    i = first_down_card(events)
    one, two = events[i], events[i + 1]
    assert isinstance(one, CardDealt)
    assert isinstance(two, CardDealt)
    events[i + 1] = replace(two, card=one.card, position=one.position)
    message = f"after {events[i + 1]}: {[one.card]} in two places"
    with pytest.raises(AssertionError, match=exactly(message)):
        referee_all(command, events)


def test_a_card_lost_from_the_board_is_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    i = first(events, BoardDealt)
    flop = events[i]
    assert isinstance(flop, BoardDealt)
    events[i] = replace(flop, cards=flop.cards[:2])  # its three places dealt, two cards seen
    message = f"after {events[i]}: cards lost {[flop.cards[2]]}, made []"
    with pytest.raises(AssertionError, match=exactly(message)):
        referee_all(command, events)


# -- at the end ---------------------------------------------------------------


def test_a_hand_not_ended_is_caught() -> None:
    command, played = holdem()
    unfinished = played.states[-3]
    with pytest.raises(AssertionError, match=exactly(f"the hand is {unfinished.phase}, not ended")):
        Referee(command).finish(played.events, unfinished, played.states)


def test_a_second_hand_ended_is_caught() -> None:
    command, played = holdem()
    events = [*played.events, played.events[-1]]
    n = len(played.events)
    message = f"HandEnded at {[n - 1, n]}, not once and last"
    with pytest.raises(AssertionError, match=exactly(message)):
        Referee(command).finish(events, played.hand, played.states)


def test_final_stacks_that_are_not_the_players_are_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    stacks = ((ended.stacks[0][0], ended.stacks[0][1] + 1), *ended.stacks[1:])
    events[-1] = replace(ended, stacks=stacks)
    players = dict(ended.stacks)
    message = f"HandEnded has stacks {dict(stacks)}, the players {players}"
    with pytest.raises(AssertionError, match=exactly(message)):
        Referee(command).finish(events, played.hand, played.states)


def test_final_chips_that_do_not_add_up_are_caught() -> None:
    command, played = holdem()
    events = list(played.events)
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    seat, stack = ended.stacks[0]
    events[-1] = replace(ended, stacks=((seat, stack + 1), *ended.stacks[1:]))
    player = played.hand.player(seat)
    final = played.hand.with_player(replace(player, stack=player.stack + 1))
    message = "the hand ends with 1501 chips, not 1500"
    with pytest.raises(AssertionError, match=exactly(message)):
        Referee(command).finish(events, final, played.states)


def test_chips_left_in_the_pot_are_caught() -> None:
    command, played = holdem()
    final = replace(played.hand, pot=5)
    with pytest.raises(AssertionError, match=exactly("5 chips left in the pot")):
        Referee(command).finish(played.events, final, played.states)


def test_a_rake_the_hand_did_not_report_is_caught() -> None:
    command, played = holdem()
    final = replace(played.hand, rake=3)
    with pytest.raises(AssertionError, match=exactly("raked 3, HandEnded says 0")):
        Referee(command).finish(played.events, final, played.states)


def test_a_cancelled_hand_that_raked_is_caught() -> None:
    command = start(rules(Game.HOLDEM, Structure.NO_LIMIT), dict.fromkeys(range(3), 500), SEED)

    def cancel(hand: Hand) -> Command:
        return Cancel()

    played = play(command, cancel)
    events = list(played.events)
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    assert ended.cancelled
    events[-1] = replace(ended, rake=2)
    with pytest.raises(AssertionError, match=exactly("a cancelled hand raked 2")):
        Referee(command).finish(events, played.hand, played.states)


def test_a_passed_out_pot_that_does_not_carry_is_caught() -> None:
    command = start(rules(Game.JACKPOTS, Structure.FIXED_LIMIT), dict.fromkeys(range(3), 500), SEED)

    def check(hand: Hand) -> Command:
        assert hand.to_act is not None
        return Act(hand.to_act, Action.CHECK)

    played = play(command, check)
    carried = played.hand.pot
    assert played.hand.phase is Phase.ENDED
    final = replace(played.hand, pot=carried + 1)
    message = f"a pot of {carried + 1} carries {carried}"
    with pytest.raises(AssertionError, match=exactly(message)):
        Referee(command).finish(played.events, final, played.states)


def test_states_that_replay_does_not_give_are_caught() -> None:
    command, played = holdem()
    final = replace(played.hand, board=())
    message = "folding evolve over the events gives another hand"
    with pytest.raises(AssertionError, match=exactly(message)):
        Referee(command).finish(played.events, final, played.states)


def test_events_the_engine_would_not_decide_again_are_caught() -> None:
    # One winner's share goes to another: every chip is still counted and
    # the states fold from the events, so only playing the hand's commands
    # again shows that the engine would have paid otherwise.
    command, played = holdem()
    events = list(played.events)
    i = first(events, PotAwarded)
    awarded = events[i]
    assert isinstance(awarded, PotAwarded)
    one, two, *rest = awarded.shares
    shares = (replace(one, seat=two.seat), two, *rest)
    events[i] = replace(awarded, shares=shares)
    with pytest.raises(
        AssertionError, match=exactly(f"re-run, event {i} is {awarded}, not {events[i]}")
    ):
        finish(command, events)


def test_a_decision_the_engine_refuses_when_re_run_is_caught() -> None:
    # A call recorded as a raise to one chip: re-running the hand's
    # decisions, the engine refuses it where the record says it was made.
    command, played = holdem()
    events = list(played.events)
    i = first(events, Acted)
    acted = events[i]
    assert isinstance(acted, Acted)
    events[i] = replace(acted, action=Action.RAISE, total=1)
    raised = Act(acted.seat, Action.RAISE, 1)
    with pytest.raises(RuleError) as refused:
        decide(played.states[i - 1], raised)
    message = f"re-running the hand, {raised} is refused: {refused.value}"
    with pytest.raises(AssertionError, match=exactly(message)):
        Referee(command).check_rerun(events)


def test_a_record_short_of_what_re_running_makes_is_caught() -> None:
    # Its last event lost: every event it has is one the engine makes again,
    # and the engine makes one more.
    command, played = holdem()
    events = list(played.events[:-1])
    n = len(events)
    message = f"re-run, {n + 1} events, not {n}"
    with pytest.raises(AssertionError, match=exactly(message)):
        Referee(command).check_rerun(events)


# -- what each seat sees --------------------------------------------------------


def test_a_face_down_card_shown_to_everyone_is_a_leak() -> None:
    _, played = holdem()
    events = list(played.events)
    i = first_down_card(events)
    dealt = events[i]
    assert isinstance(dealt, CardDealt)
    events[i] = ShownToAll(dealt.seat, dealt.card, dealt.face_up, dealt.position)
    seat = min({0, 1, 2} - {dealt.seat})
    message = f"seat {seat} sees { ({dealt.card}) } in event {i}: {events[i]}"
    with pytest.raises(AssertionError, match=exactly(message)):
        check_no_leaks(events, [0, 1, 2])


def test_a_redaction_that_hides_nothing_is_caught() -> None:
    _, played = holdem()
    dealt = played.events[first_down_card(played.events)]
    assert isinstance(dealt, CardDealt)
    bad = BadlyRedacted(dealt.seat, dealt.card, dealt.face_up, dealt.position)
    with pytest.raises(
        AssertionError, match=exactly(f"BadlyRedacted redacted still holds cards: {bad}")
    ):
        check_redaction(bad)


def test_a_declaration_seen_before_the_reveal_is_caught() -> None:
    command = start(rules(Game.DRAW_DECLARE, Structure.FIXED_LIMIT), {0: 200, 1: 200}, SEED)
    played = play(command, passive)
    events = list(played.events)
    i = first(events, Declared)
    declared = events[i]
    assert isinstance(declared, Declared)
    events[i] = DeclaredAloud(declared.seat, declared.choice)
    other = 1 - declared.seat
    message = f"seat {other} sees a declaration: {events[i]}"
    with pytest.raises(AssertionError, match=exactly(message)):
        check_no_leaks(events, [0, 1])


def test_the_seed_seen_before_the_hand_ends_is_caught() -> None:
    _, played = holdem()
    events = list(played.events)
    i = first(events, DeckShuffled)
    shuffled = events[i]
    assert isinstance(shuffled, DeckShuffled)
    events[i] = SeedAloud(shuffled.seed, (), shuffled.purpose)
    message = f"seat 0 sees a seed in {events[i]}"
    with pytest.raises(AssertionError, match=exactly(message)):
        check_no_leaks(events, [0, 1, 2])


def draw_declare() -> Played:
    command = start(rules(Game.DRAW_DECLARE, Structure.FIXED_LIMIT), {0: 200, 1: 200}, SEED)
    return play(command, passive)


def test_a_redaction_into_another_kind_of_event_is_caught() -> None:
    _, played = holdem()
    dealt = played.events[first_down_card(played.events)]
    assert isinstance(dealt, CardDealt)
    bad = RedactedAsAnother(dealt.seat, dealt.card, dealt.face_up, dealt.position)
    message = "RedactedAsAnother redacted is a CardDealt"
    with pytest.raises(AssertionError, match=exactly(message)):
        check_redaction(bad)


def test_a_redacted_draw_that_names_the_discards_is_caught() -> None:
    played = draw_declare()
    drew = played.events[first(played.events, Drew)]
    assert isinstance(drew, Drew)
    bad = DiscardsKept(drew.seat, drew.discards, drew.count)
    hidden = bad.redacted()
    message = f"DiscardsKept redacted names the discards: {hidden}"
    with pytest.raises(AssertionError, match=exactly(message)):
        check_redaction(bad)


def test_a_redacted_shuffle_that_keeps_the_seed_is_caught() -> None:
    _, played = holdem()
    shuffled = played.events[first(played.events, DeckShuffled)]
    assert isinstance(shuffled, DeckShuffled)
    bad = SeedKept(shuffled.seed, shuffled.cards, shuffled.purpose)
    with pytest.raises(AssertionError, match=exactly("SeedKept redacted keeps the seed")):
        check_redaction(bad)


def test_a_redacted_declaration_that_keeps_the_choice_is_caught() -> None:
    played = draw_declare()
    declared = played.events[first(played.events, Declared)]
    assert isinstance(declared, Declared)
    bad = ChoiceKept(declared.seat, declared.choice)
    message = f"ChoiceKept redacted keeps the choice: {bad}"
    with pytest.raises(AssertionError, match=exactly(message)):
        check_redaction(bad)


def test_a_redacted_reshuffle_that_keeps_the_stub_is_caught() -> None:
    bad = StubKept((), 0, "deck")
    message = f"StubKept redacted keeps the stub: {bad}"
    with pytest.raises(AssertionError, match=exactly(message)):
        check_redaction(bad)


def test_a_shuffle_shown_to_a_seat_is_caught() -> None:
    _, played = holdem()
    shuffled = played.events[first(played.events, DeckShuffled)]
    assert isinstance(shuffled, DeckShuffled)
    bad = SeedToASeat(shuffled.seed, shuffled.cards, shuffled.purpose)
    message = "SeedToASeat is shown to frozenset({0}), not to nobody"
    with pytest.raises(AssertionError, match=exactly(message)):
        check_redaction(bad)


def test_a_face_down_card_shown_to_another_seat_is_caught() -> None:
    _, played = holdem()
    dealt = played.events[first_down_card(played.events)]
    assert isinstance(dealt, CardDealt)
    bad = CardToTheNextSeat(dealt.seat, dealt.card, dealt.face_up, dealt.position)
    message = f"CardToTheNextSeat is shown to {frozenset({dealt.seat + 1})}"
    with pytest.raises(AssertionError, match=exactly(message)):
        check_redaction(bad)
