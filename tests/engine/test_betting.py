"""The betting structures and the rules common to every game (docs/rules.md,
"Common to every game"), on stacked decks.

Every hand here is played through :class:`Checked`, which after every command
checks that the chips are conserved, that replaying the events gives the
state evolved one event at a time, and that a refused command leaves the
events unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import pytest

from feltline.engine.errors import (
    IllegalAction,
    IllegalAmount,
    NotInHand,
    NotYourTurn,
    RuleError,
    WrongPhase,
)
from feltline.engine.hand.betting import Options, options
from feltline.engine.hand.commands import Act, Cancel, Command, Declare, Draw, StartHand, TimeOut
from feltline.engine.hand.decide import NEW_HAND, decide, replay
from feltline.engine.hand.events import (
    Acted,
    Action,
    BetsCollected,
    BoardDealt,
    CardDealt,
    Choice,
    Deal,
    Event,
    HandEnded,
    Posted,
    PotAwarded,
    SeatAtStart,
    Shown,
    StreetBegan,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.hand.script import Phase

from .stacked import Table, deal

FL = Rules(
    Game.HOLDEM,
    Stakes(
        Structure.FIXED_LIMIT, small_bet=10, big_bet=20, small_blind=5, big_blind=10, raise_cap=3
    ),
)
NL = Rules(Game.HOLDEM, Stakes(Structure.NO_LIMIT, small_bet=10, small_blind=5, big_blind=10))
PL = Rules(Game.HOLDEM, Stakes(Structure.POT_LIMIT, small_bet=10, small_blind=5, big_blind=10))
DRAW = Rules(
    Game.DRAW_DECLARE,
    Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5, raise_cap=4),
)


@dataclass
class Checked(Table):
    """A hand that checks the engine's invariants after every command."""

    def __post_init__(self) -> None:
        self.state = replay(self.events)
        self.total = self.state.chips

    def do(self, *commands: Command) -> list[Event]:
        new: list[Event] = []
        for command in commands:
            before = list(self.events)
            try:
                got = decide(self.state, command)
            except RuleError:
                assert self.events == before
                raise
            for event in got:
                self.state = evolve(self.state, event)
            self.events.extend(got)
            assert self.state == replay(self.events), "replay differs from the evolved state"
            assert self.state.chips == self.total, "chips were created or lost"
            new.extend(got)
        return new


def holdem(
    rules: Rules,
    stacks: dict[int, int] | Iterable[int],
    *,
    button: int,
    hands: dict[int, str] | None = None,
    board: str = "",
    **blinds: object,
) -> Checked:
    """Deal hold'em with ``hands`` (two cards per seat) and then ``board`` on
    top of the deck, in the order the dealer gives them: one card at a time
    clockwise from the first seat left of the button, then the board."""
    if not isinstance(stacks, dict):
        stacks = dict(enumerate(stacks))
    top = ""
    if hands:
        seats = sorted(stacks)
        start = next((i for i, s in enumerate(seats) if s > button), 0)
        clockwise = seats[start:] + seats[:start]
        for k in (0, 1):
            top += " ".join(hands[s].split()[k] for s in clockwise) + " "
    t = deal(rules, stacks, top + board, button=button, **blinds)
    return Checked(t.events)


def three(rules: Rules, stacks: Iterable[int] = (1000, 1000, 1000), **kw: object) -> Checked:
    """Three seats: button 0, small blind 1, big blind 2; seat 0 acts first."""
    return holdem(rules, list(stacks), button=0, small_blind=1, big_blind=2, **kw)  # type: ignore[arg-type]


def to_flop(t: Checked) -> None:
    """Everyone calls and the big blind checks: the flop is dealt."""
    while t.state.rounds == 0:
        seat = t.state.to_act
        assert seat is not None
        o = options(t.state)
        t.act(seat, "check" if o.can_check else "call")


def acted(t: Table) -> list[tuple[int, str, int]]:
    return [(e.seat, e.action.value, e.total) for e in t.of(Acted) if isinstance(e, Acted)]


def awards(t: Table) -> list[tuple[int, tuple[int, ...], int, dict[int, int]]]:
    """Each pot: its amount, eligible seats, rake and what each seat took."""
    result = []
    for e in t.of(PotAwarded):
        assert isinstance(e, PotAwarded)
        won: dict[int, int] = {}
        for s in e.shares:
            won[s.seat] = won.get(s.seat, 0) + s.amount
        result.append((e.amount, e.eligible, e.rake, won))
    return result


def final_stacks(t: Table) -> dict[int, int]:
    ended = t.of(HandEnded)
    assert len(ended) == 1
    assert isinstance(ended[0], HandEnded)
    return dict(ended[0].stacks)


def span(t: Checked) -> tuple[Action | None, int, int]:
    o = options(t.state)
    return o.raise_action, o.least, o.most


# -- fixed limit ----------------------------------------------------------------


def test_fixed_limit_small_bet_before_the_turn_big_bet_from_the_turn() -> None:
    t = three(FL)
    assert span(t) == (Action.RAISE, 20, 20)
    with pytest.raises(IllegalAmount, match=r"^seat 0 cannot raise to 25: raise to 20$"):
        t.act(0, "raise", 25)
    t.act(0, "raise", 20)
    t.act(1, "call")
    t.act(2, "call")
    # the flop: small bet, first active seat left of the button first
    assert t.state.to_act == 1
    assert span(t) == (Action.BET, 10, 10)
    with pytest.raises(IllegalAmount, match=r"^seat 1 cannot bet to 20: bet to 10$"):
        t.act(1, "bet", 20)
    t.act(1, "bet", 10)
    assert span(t) == (Action.RAISE, 20, 20)
    t.act(2, "raise", 20)
    t.act(0, "call")
    t.act(1, "call")
    # the turn: big bet
    assert span(t) == (Action.BET, 20, 20)
    with pytest.raises(IllegalAmount, match=r"^seat 1 cannot bet to 10: bet to 20$"):
        t.act(1, "bet", 10)
    t.act(1, "bet", 20)
    assert span(t) == (Action.RAISE, 40, 40)
    t.act(2, "raise", 40)
    t.act(0, "call")
    t.act(1, "call")
    # the river: big bet
    t.act(1, "check")
    assert span(t) == (Action.BET, 20, 20)
    t.act(2, "bet", 20)
    assert span(t) == (Action.RAISE, 40, 40)
    t.act(0, "raise", 40)
    t.act(1, "fold")
    t.act(2, "call")
    assert t.state.phase is Phase.ENDED
    assert t.state.pot == 0
    assert sum(a[0] for a in awards(t)) == 20 * 3 + 20 * 3 + 40 * 3 + 40 * 2


def test_fixed_limit_cap_before_the_flop_counts_the_big_blind_as_the_bet() -> None:
    t = holdem(FL, [1000] * 4, button=0, small_blind=1, big_blind=2)
    t.act(3, "raise", 20)
    t.act(0, "raise", 30)
    t.act(1, "raise", 40)  # the big blind and three raises: capped
    assert options(t.state) == Options(2, 30, 40, None, 0, 0)  # the big blind: only a call
    with pytest.raises(IllegalAction, match=r"^seat 2 cannot raise: the betting is capped$"):
        t.act(2, "raise", 50)
    t.act(2, "call")
    t.act(3, "call")
    assert t.state.to_act == 0
    assert span(t) == (None, 0, 0)
    t.act(0, "call")
    assert t.state.rounds == 1
    assert t.state.pot == 160


def test_fixed_limit_cap_after_the_flop_is_a_bet_and_three_raises() -> None:
    t = three(FL)
    to_flop(t)
    t.act(1, "bet", 10)
    t.act(2, "raise", 20)
    t.act(0, "raise", 30)
    assert span(t) == (Action.RAISE, 40, 40)
    t.act(1, "raise", 40)
    with pytest.raises(IllegalAction, match=r"^seat 2 cannot raise: the betting is capped$"):
        t.act(2, "raise", 50)


def test_draw_game_cap_is_a_bet_and_four_raises() -> None:
    t = Checked(deal(DRAW, [1000, 1000, 1000], button=0).events)
    assert t.state.to_act == 1
    t.act(1, "bet", 10)
    t.act(2, "raise", 20)
    t.act(0, "raise", 30)
    t.act(1, "raise", 40)
    assert span(t) == (Action.RAISE, 50, 50)
    t.act(2, "raise", 50)
    with pytest.raises(IllegalAction, match=r"^seat 0 cannot raise: the betting is capped$"):
        t.act(0, "raise", 60)
    t.act(0, "call")
    t.act(1, "call")
    assert t.state.phase is Phase.DRAWING


def test_raising_is_unlimited_once_a_fold_leaves_two_active_before_the_cap() -> None:
    t = three(FL)
    to_flop(t)
    t.act(1, "bet", 10)
    t.act(2, "raise", 20)
    t.act(0, "raise", 30)
    t.act(1, "fold")  # two active, the cap not reached: no cap any more
    t.act(2, "raise", 40)
    t.act(0, "raise", 50)
    t.act(2, "raise", 60)
    assert span(t) == (Action.RAISE, 70, 70)
    t.act(0, "raise", 70)
    t.act(2, "call")
    assert t.state.rounds == 2


def test_raising_is_unlimited_once_an_all_in_leaves_two_active_before_the_cap() -> None:
    t = three(FL, (1000, 1000, 30))
    to_flop(t)
    t.act(1, "bet", 10)
    t.act(2, "raise", 20)  # all in
    t.act(0, "raise", 30)
    t.act(1, "raise", 40)  # four bets, but only seats 0 and 1 are active
    t.act(0, "raise", 50)
    t.act(1, "raise", 60)
    t.act(0, "call")
    assert t.state.rounds == 2


def test_a_cap_reached_with_three_active_stays_when_two_remain() -> None:
    t = three(FL)
    to_flop(t)
    t.act(1, "bet", 10)
    t.act(2, "raise", 20)
    t.act(0, "raise", 30)
    t.act(1, "raise", 40)  # capped with three active
    t.act(2, "fold")
    assert span(t) == (None, 0, 0)
    with pytest.raises(IllegalAction, match=r"^seat 0 cannot raise: the betting is capped$"):
        t.act(0, "raise", 50)
    t.act(0, "call")
    assert t.state.rounds == 2
    # the cap belongs to its round: on the turn the two raise without limit
    t.act(1, "bet", 20)
    for total in (40, 60, 80, 100):
        t.act(0 if total % 40 == 0 else 1, "raise", total)
    t.act(0, "call")
    assert t.state.rounds == 3


def test_an_all_in_raise_of_half_a_bet_counts_toward_the_cap() -> None:
    t = holdem(FL, {0: 1000, 1: 1000, 2: 1000, 3: 35}, button=0, small_blind=1, big_blind=2)
    to_flop(t)
    t.act(1, "bet", 10)
    t.act(2, "raise", 20)
    t.act(3, "raise", 25)  # all in, half a bet: a raise
    t.act(0, "raise", 35)  # the third raise: capped
    with pytest.raises(IllegalAction, match=r"^seat 1 cannot raise: the betting is capped$"):
        t.act(1, "raise", 45)


def test_an_all_in_raise_under_half_a_bet_does_not_count_toward_the_cap() -> None:
    t = holdem(FL, {0: 1000, 1: 1000, 2: 1000, 3: 34}, button=0, small_blind=1, big_blind=2)
    to_flop(t)
    t.act(1, "bet", 10)
    t.act(2, "raise", 20)
    t.act(3, "raise", 24)  # all in, less than half a bet: not a raise
    t.act(0, "raise", 30)
    t.act(1, "raise", 40)  # the third raise: capped
    with pytest.raises(IllegalAction, match=r"^seat 2 cannot raise: the betting is capped$"):
        t.act(2, "raise", 50)


def test_heads_up_from_the_start_the_raising_is_unlimited() -> None:
    t = holdem(FL, [1000, 1000], button=0, small_blind=0, big_blind=1)
    for seat, total in [(0, 20), (1, 30), (0, 40), (1, 50), (0, 60), (1, 70)]:
        t.act(seat, "raise", total)
    t.act(0, "call")
    assert t.state.pot == 140


def test_heads_up_raising_stays_capped_when_the_setting_is_off() -> None:
    stakes = Stakes(
        Structure.FIXED_LIMIT,
        small_bet=10,
        big_bet=20,
        small_blind=5,
        big_blind=10,
        raise_cap=3,
        uncapped_heads_up=False,
    )
    t = holdem(Rules(Game.HOLDEM, stakes), [1000, 1000], button=0, small_blind=0, big_blind=1)
    t.act(0, "raise", 20)
    t.act(1, "raise", 30)
    t.act(0, "raise", 40)
    with pytest.raises(IllegalAction, match=r"^seat 1 cannot raise: the betting is capped$"):
        t.act(1, "raise", 50)


def test_fixed_limit_all_in_raise_of_half_a_bet_reopens_and_next_raise_is_a_bet_on_top() -> None:
    t = three(FL, (1000, 1000, 25))
    to_flop(t)
    t.act(1, "bet", 10)
    assert span(t) == (Action.RAISE, 15, 15)  # all seat 2 has
    events = t.act(2, "raise", 15)
    assert events[0] == Acted(2, Action.RAISE, 15, 15, all_in=True)
    assert span(t) == (Action.RAISE, 25, 25)  # a full bet on top of 15
    t.act(0, "call")
    assert t.state.to_act == 1
    assert span(t) == (Action.RAISE, 25, 25)  # the bettor may raise again
    t.act(1, "raise", 25)
    t.act(0, "call")
    assert t.state.rounds == 2


def test_fixed_limit_all_in_raise_under_half_a_bet_does_not_reopen() -> None:
    t = three(FL, (1000, 1000, 24))
    to_flop(t)
    t.act(1, "bet", 10)
    t.act(2, "raise", 14)  # all in, 4 more: less than half a bet
    assert span(t) == (Action.RAISE, 20, 20)  # seat 0 has not acted: complete the raise
    t.act(0, "call")
    assert options(t.state).to_call == 4
    assert span(t) == (None, 0, 0)
    with pytest.raises(
        IllegalAction,
        match=r"^seat 1 cannot raise: the betting was not reopened since this seat acted$",
    ):
        t.act(1, "raise", 20)
    t.act(1, "call")
    assert t.state.rounds == 2


def test_fixed_limit_all_in_raises_are_measured_from_the_last_full_bet() -> None:
    """Our reading of "an all-in raise counts as a full raise when it is at
    least half a bet": a short all-in is not a raise, so the next all-in is
    measured from the last full bet or raise. Here 14 (short) then 17: 7
    above the bet of 10, so 17 counts in full and reopens the betting, even
    for seat 3 who called 14."""
    t = holdem(FL, {0: 1000, 1: 1000, 2: 24, 3: 1000, 4: 27}, button=0, small_blind=1, big_blind=2)
    to_flop(t)
    t.act(1, "bet", 10)
    t.act(2, "raise", 14)  # all in: short
    t.act(3, "call")
    t.act(4, "raise", 17)  # all in: 3 above 14, 7 above the bet
    assert span(t) == (Action.RAISE, 27, 27)
    t.act(0, "call")
    assert span(t) == (Action.RAISE, 27, 27)
    t.act(1, "call")
    assert t.state.to_act == 3
    assert span(t) == (Action.RAISE, 27, 27)
    t.act(3, "call")
    assert t.state.rounds == 2


def test_fixed_limit_completing_a_short_all_in_raise_reopens() -> None:
    t = three(FL, (1000, 1000, 24))
    to_flop(t)
    t.act(1, "bet", 10)
    t.act(2, "raise", 14)
    t.act(0, "raise", 20)
    assert span(t) == (Action.RAISE, 30, 30)
    t.act(1, "raise", 30)
    t.act(0, "call")
    assert t.state.rounds == 2


def test_fixed_limit_short_all_in_bet_may_be_called_or_completed() -> None:
    t = three(FL, (1000, 14, 1000))
    to_flop(t)
    assert span(t) == (Action.BET, 4, 4)
    t.act(1, "bet", 4)  # all in, less than half a bet
    o = options(t.state)
    assert (o.to_call, o.raise_action, o.least, o.most) == (4, Action.COMPLETE, 10, 10)
    with pytest.raises(IllegalAction, match=r"^seat 2 cannot bet: complete instead$"):
        t.act(2, "bet", 10)
    with pytest.raises(IllegalAmount, match=r"^seat 2 cannot complete to 8: complete to 10$"):
        t.act(2, "complete", 8)
    t.act(2, "complete", 10)
    assert span(t) == (Action.RAISE, 20, 20)  # the completion is the bet
    t.act(0, "call")
    t.act(2, "check")
    t.act(0, "check")
    assert acted(t)[-5:] == [
        (1, "bet", 4),
        (2, "complete", 10),
        (0, "call", 10),
        (2, "check", 0),
        (0, "check", 0),
    ]


def test_fixed_limit_short_all_in_bet_may_be_called() -> None:
    t = three(FL, (1000, 14, 1000))
    to_flop(t)
    t.act(1, "bet", 4)
    t.act(2, "call")
    assert span(t) == (Action.COMPLETE, 10, 10)
    t.act(0, "call")
    assert t.state.rounds == 2
    assert t.state.pot == 30 + 12


@pytest.mark.parametrize("rules", [FL, NL], ids=["fixed-limit", "no-limit"])
def test_a_player_who_checked_may_only_call_a_short_all_in_bet(rules: Rules) -> None:
    """docs/rules.md lets "a player facing a short all-in bet" call or complete
    it. We read that as a player still to act: one who already checked has
    acted, and a short bet does not reopen the betting for them (RRoP: "a
    player who has already acted and is not facing a full-size wager may not
    subsequently raise"). Completing it does reopen it. In no limit the
    engine offers the same completion, to at least the minimum bet (the bet
    the short all-in did not make) and up to the stack."""
    t = three(rules, (1000, 1000, 14))
    to_flop(t)
    t.act(1, "check")
    t.act(2, "bet", 4)  # all in, under half the minimum bet
    assert span(t) == (Action.COMPLETE, 10, 10 if rules is FL else 990)
    t.act(0, "call")
    assert span(t) == (None, 0, 0)
    t.act(1, "call")
    assert t.state.rounds == 2
    t = three(rules, (1000, 1000, 14))
    to_flop(t)
    t.act(1, "check")
    t.act(2, "bet", 4)
    t.act(0, "complete", 10)
    assert span(t) == (Action.RAISE, 20, 20 if rules is FL else 990)


def test_fixed_limit_all_in_bet_of_half_a_bet_is_the_bet() -> None:
    t = three(FL, (1000, 15, 1000))
    to_flop(t)
    t.act(1, "bet", 5)
    assert span(t) == (Action.RAISE, 15, 15)


# -- no limit and pot limit --------------------------------------------------------


def test_no_limit_minimum_bet_is_the_big_blind() -> None:
    t = three(NL)
    assert span(t) == (Action.RAISE, 20, 1000)
    with pytest.raises(IllegalAmount, match=r"^seat 0 cannot raise to 19: raise to 20 to 1000$"):
        t.act(0, "raise", 19)
    to_flop(t)
    assert span(t) == (Action.BET, 10, 990)
    with pytest.raises(IllegalAmount, match=r"^seat 1 cannot bet to 9: bet to 10 to 990$"):
        t.act(1, "bet", 9)
    with pytest.raises(IllegalAmount, match=r"^seat 1 cannot bet to 991: bet to 10 to 990$"):
        t.act(1, "bet", 991)
    t.act(1, "bet", 10)
    assert span(t) == (Action.RAISE, 20, 990)


def test_no_limit_raise_adds_at_least_the_last_full_bet_or_raise() -> None:
    t = three(NL)
    t.act(0, "raise", 35)  # adds 25 to the big blind's 10
    assert span(t) == (Action.RAISE, 60, 1000)
    with pytest.raises(IllegalAmount, match=r"^seat 1 cannot raise to 59: raise to 60 to 1000$"):
        t.act(1, "raise", 59)
    t.act(1, "raise", 100)  # adds 65
    assert span(t) == (Action.RAISE, 165, 1000)
    t.act(2, "call")
    t.act(0, "call")
    # a new round starts again from the big blind
    assert span(t) == (Action.BET, 10, 900)
    t.act(1, "bet", 50)
    assert span(t) == (Action.RAISE, 100, 900)


def test_no_limit_short_all_in_does_not_reopen_for_a_player_who_acted() -> None:
    t = three(NL, (1000, 1000, 150))
    to_flop(t)
    t.act(1, "bet", 100)
    t.act(2, "raise", 140)  # all in, 40 more: less than the bet of 100
    # seat 0 has not acted: it may raise, by at least the last full bet
    assert span(t) == (Action.RAISE, 240, 990)
    t.act(0, "call")
    assert span(t) == (None, 0, 0)
    with pytest.raises(
        IllegalAction,
        match=r"^seat 1 cannot raise: the betting was not reopened since this seat acted$",
    ):
        t.act(1, "raise", 240)
    t.act(1, "call")
    assert t.state.rounds == 2


def test_no_limit_short_all_ins_adding_up_to_a_full_raise_reopen() -> None:
    t = holdem(NL, {0: 1000, 1: 1000, 2: 160, 3: 210}, button=0, small_blind=1, big_blind=2)
    to_flop(t)
    t.act(1, "bet", 100)
    t.act(2, "raise", 150)  # all in: 50 more
    assert span(t) == (Action.RAISE, 200, 200)  # seat 3 has only 200
    t.act(3, "raise", 200)  # all in: 50 more; 100 since seat 1 bet
    assert span(t) == (Action.RAISE, 300, 990)
    t.act(0, "call")
    assert span(t) == (Action.RAISE, 300, 990)
    t.act(1, "raise", 300)
    assert span(t) == (Action.RAISE, 400, 990)  # seat 1's raise was a full one
    t.act(0, "call")
    assert t.state.rounds == 2


def test_no_limit_short_all_ins_adding_up_to_less_than_a_full_raise_do_not_reopen() -> None:
    t = holdem(NL, {0: 1000, 1: 1000, 2: 150, 3: 200}, button=0, small_blind=1, big_blind=2)
    to_flop(t)
    t.act(1, "bet", 100)
    t.act(2, "raise", 140)
    t.act(3, "raise", 190)  # 90 since seat 1 bet
    t.act(0, "call")
    assert span(t) == (None, 0, 0)
    t.act(1, "call")
    assert t.state.rounds == 2


def test_no_limit_short_all_in_raise_then_a_full_raise_counts_from_the_all_in() -> None:
    t = holdem(NL, {0: 1000, 1: 1000, 2: 150, 3: 1000}, button=0, small_blind=1, big_blind=2)
    to_flop(t)
    t.act(1, "bet", 100)
    t.act(2, "raise", 140)
    assert span(t) == (Action.RAISE, 240, 990)
    t.act(3, "raise", 240)
    assert span(t) == (Action.RAISE, 340, 990)


def test_pot_limit_short_all_in_does_not_reopen_for_a_player_who_acted() -> None:
    t = three(PL, (1000, 1000, 60))
    to_flop(t)
    t.act(1, "bet", 30)
    assert span(t) == (Action.RAISE, 50, 50)  # all seat 2 has
    t.act(2, "raise", 50)  # all in, 20 more: less than the bet of 30
    # seat 0: C = 50, P = 30 + 30 + 50, raise by at least 30, to at most 50 + 110 + 50
    assert span(t) == (Action.RAISE, 80, 210)
    t.act(0, "call")
    assert span(t) == (None, 0, 0)
    t.act(1, "call")
    assert t.state.rounds == 2


def test_pot_limit_largest_raise_is_the_rules_example() -> None:
    """Pot 100, a bet of 50 in front of an opponent, the player with nothing
    in front: C = 50, P = 150, raise to at most 250."""
    t = holdem(PL, [1000] * 4, button=0, small_blind=1, big_blind=2)
    # before the flop: 10 to call, 15 in front of the blinds: at most 10 + 15 + 10
    assert span(t) == (Action.RAISE, 20, 35)
    t.act(3, "raise", 25)
    t.act(0, "call")
    t.act(1, "call")
    t.act(2, "call")
    assert t.state.pot == 100
    assert span(t) == (Action.BET, 10, 100)
    with pytest.raises(IllegalAmount, match=r"^seat 1 cannot bet to 101: bet to 10 to 100$"):
        t.act(1, "bet", 101)
    t.act(1, "bet", 50)
    assert t.state.player(2).bet == 0
    assert span(t) == (Action.RAISE, 100, 250)
    with pytest.raises(IllegalAmount, match=r"^seat 2 cannot raise to 251: raise to 100 to 250$"):
        t.act(2, "raise", 251)
    t.act(2, "raise", 250)
    # C = 250, P = 100 + 50 + 250: at most 250 + 400 + 250
    assert span(t) == (Action.RAISE, 450, 900)


def test_pot_limit_counts_what_the_raiser_has_in_front() -> None:
    """A player with chips in front adds at most C + (P + C) all the same."""
    t = holdem(PL, [1000] * 3, button=0, small_blind=1, big_blind=2)
    t.act(0, "raise", 35)
    # seat 1 has 5 in front: C = 30, P = 50, raise to at most 35 + 50 + 30
    assert span(t) == (Action.RAISE, 60, 115)


# -- any structure ---------------------------------------------------------------


def test_nobody_may_raise_when_no_other_player_is_active() -> None:
    t = holdem(NL, {0: 300, 1: 1000}, button=0, small_blind=0, big_blind=1)
    t.act(0, "raise", 300)  # all in
    o = options(t.state)
    assert (o.to_call, o.raise_action) == (290, None)
    with pytest.raises(IllegalAction, match=r"^seat 1 cannot raise: no other player can call$"):
        t.act(1, "raise", 600)
    t.act(1, "call")
    assert t.state.phase is Phase.ENDED
    # the flop, turn and river are dealt with nobody to act
    orders = [e.order for e in t.of(StreetBegan) if isinstance(e, StreetBegan)]
    assert orders[2] == (0, 1)
    assert [o for o in orders[3:] if o] == []


def test_nobody_may_bet_after_the_others_are_all_in_or_folded() -> None:
    t = three(FL, (1000, 1000, 10))  # the big blind is all in at once
    t.act(0, "call")
    t.act(1, "call")
    assert t.state.rounds == 1  # the big blind, all in, has no option
    t.act(1, "bet", 10)
    t.act(0, "fold")
    # seat 1 is the only active player: no more betting rounds
    assert t.state.phase is Phase.ENDED
    orders = [e.order for e in t.of(StreetBegan) if isinstance(e, StreetBegan)]
    assert orders[4] == (1, 0)  # the flop betting
    assert [o for o in orders[5:] if o] == []
    collected = [e for e in t.of(BetsCollected) if isinstance(e, BetsCollected)]
    assert (collected[1].returned_to, collected[1].returned) == (1, 10)


def test_folding_when_a_check_is_possible_is_allowed() -> None:
    t = three(NL)
    t.act(0, "call")
    t.act(1, "call")
    assert options(t.state).can_check
    t.act(2, "fold")  # the big blind folds its option
    assert t.state.player(2).folded
    assert t.state.rounds == 1
    t.act(1, "fold")  # and after the flop, with nothing to call
    assert t.state.phase is Phase.ENDED
    assert final_stacks(t) == {0: 1020, 1: 990, 2: 990}


def test_a_short_big_blind_does_not_shrink_the_call_or_the_minimum_raise() -> None:
    t = three(
        NL,
        (1000, 1000, 6),
        hands={0: "Kc Kd", 1: "Qc Qd", 2: "Ac Ad"},
        board="2c 7d 9h Js 4s",
    )
    assert t.state.player(2).bet == 6
    o = options(t.state)
    assert (o.to_call, o.least) == (10, 20)
    t.act(0, "call")
    o = options(t.state)
    assert (o.to_call, o.least) == (5, 20)
    t.act(1, "call")
    assert t.state.rounds == 1  # the big blind is all in
    for _ in range(3):
        t.act(1, "check")
        t.act(0, "check")
    # the 4 the big blind could not cover from each caller form a side pot
    assert awards(t) == [(18, (0, 1, 2), 0, {2: 18}), (8, (0, 1), 0, {0: 8})]
    assert final_stacks(t) == {0: 998, 1: 990, 2: 18}


def test_a_short_small_blind_does_not_shrink_the_call_or_the_minimum_raise() -> None:
    t = three(NL, (1000, 3, 1000))
    assert t.state.player(1).bet == 3
    o = options(t.state)
    assert (o.to_call, o.least) == (10, 20)
    t.act(0, "call")
    assert t.state.to_act == 2  # the small blind is all in
    assert options(t.state).can_check


def test_heads_up_the_button_posts_the_small_blind_first_before_the_flop_last_after() -> None:
    t = holdem(FL, [1000, 1000], button=1, small_blind=1, big_blind=0)
    assert [(e.seat, e.amount) for e in t.of(Posted) if isinstance(e, Posted)] == [(1, 5), (0, 10)]
    assert t.state.to_act == 1
    t.act(1, "call")
    t.act(0, "check")
    for _ in range(3):
        assert t.state.to_act == 0
        t.act(0, "check")
        t.act(1, "check")
    orders = [e.order for e in t.of(StreetBegan) if isinstance(e, StreetBegan) and e.order]
    assert orders == [(1, 0), (0, 1), (0, 1), (0, 1)]
    # hole cards: one at a time from left of the button, ending with the button
    assert [e.seat for e in t.of(CardDealt) if isinstance(e, CardDealt)] == [0, 1, 0, 1]


def test_big_blind_option_to_raise_an_unraised_pot() -> None:
    t = three(FL)
    t.act(0, "call")
    t.act(1, "call")
    assert t.state.to_act == 2
    assert span(t) == (Action.RAISE, 20, 20)
    t.act(2, "raise", 20)
    assert t.state.round.pending == (0, 1)
    t.act(0, "call")
    t.act(1, "call")
    assert t.state.pot == 60


def test_big_blind_checking_its_option_closes_the_round() -> None:
    t = three(NL)
    t.act(0, "call")
    t.act(1, "call")
    events = t.act(2, "check")
    assert any(isinstance(e, BoardDealt) for e in events)
    assert t.state.pot == 30


# -- pots ---------------------------------------------------------------------------


def raked(basis_points: int, cap: int) -> Rules:
    return Rules(NL.game, NL.stakes, rake=Rake(basis_points, cap))


def test_an_uncalled_bet_goes_back_before_the_pots_and_is_not_raked() -> None:
    t = three(raked(1000, 100))
    to_flop(t)
    t.act(1, "bet", 100)
    t.act(2, "fold")
    events = t.act(0, "fold")
    collected = next(e for e in events if isinstance(e, BetsCollected))
    assert (collected.returned_to, collected.returned, collected.pot) == (1, 100, 30)
    assert awards(t) == [(30, (1,), 3, {1: 27})]
    assert final_stacks(t) == {0: 990, 1: 1017, 2: 990}
    assert not t.of(Shown)  # uncontested: no cards shown


def test_no_rake_when_no_flop_is_dealt() -> None:
    t = three(raked(1000, 100))
    t.act(0, "raise", 30)
    t.act(1, "fold")
    t.act(2, "fold")
    assert awards(t) == [(25, (0,), 0, {0: 25})]
    assert final_stacks(t) == {0: 1015, 1: 995, 2: 990}
    ended = t.of(HandEnded)[0]
    assert isinstance(ended, HandEnded)
    assert ended.rake == 0


def test_rake_takes_the_main_pot_first_until_the_cap_is_used_up() -> None:
    """7% of each pot, rounded down, capped at 40 a hand: the main pot of
    315 gives 22 (22.05), the side pot of 390 would give 27 but only 18 is
    left under the cap. The 700 nobody called goes back unraked."""
    t = three(
        raked(700, 40),
        (1000, 105, 300),
        hands={0: "Kc Kd", 1: "Ac Ad", 2: "Qc Qd"},
        board="2c 7d 9h Js 4s",
    )
    t.act(0, "raise", 1000)
    t.act(1, "call")
    t.act(2, "call")
    collected = t.of(BetsCollected)[0]
    assert isinstance(collected, BetsCollected)
    assert (collected.returned_to, collected.returned) == (0, 700)
    assert awards(t) == [(315, (0, 1, 2), 22, {1: 293}), (390, (0, 2), 18, {0: 372})]
    ended = t.of(HandEnded)[0]
    assert isinstance(ended, HandEnded)
    assert ended.rake == 40
    assert final_stacks(t) == {0: 1072, 1: 293, 2: 0}


def test_rake_under_the_cap_takes_from_every_pot() -> None:
    t = three(
        raked(700, 1000),
        (1000, 105, 300),
        hands={0: "Kc Kd", 1: "Ac Ad", 2: "Qc Qd"},
        board="2c 7d 9h Js 4s",
    )
    t.act(0, "raise", 1000)
    t.act(1, "call")
    t.act(2, "call")
    assert [(a[0], a[2]) for a in awards(t)] == [(315, 22), (390, 27)]


def test_side_pots_with_all_ins_at_several_levels() -> None:
    t = holdem(
        NL,
        {0: 50, 1: 120, 2: 300, 3: 1000},
        button=3,
        small_blind=0,
        big_blind=1,
        hands={0: "As Ah", 1: "Ks Kh", 2: "3s 5d", 3: "Qd Qc"},
        board="2c 7d 9h Js 4c",
    )
    assert t.state.to_act == 2
    t.act(2, "raise", 300)
    t.act(3, "call")
    t.act(0, "call")  # all in for 50
    t.act(1, "call")  # all in for 120
    assert awards(t) == [
        (200, (0, 1, 2, 3), 0, {0: 200}),
        (210, (1, 2, 3), 0, {1: 210}),
        (360, (2, 3), 0, {3: 360}),
    ]
    assert final_stacks(t) == {0: 200, 1: 210, 2: 0, 3: 1060}
    # at the showdown every live player shows, clockwise from left of the button
    shown = [e.seat for e in t.of(Shown) if isinstance(e, Shown)]
    assert shown == [0, 1, 2, 3]


def test_a_pot_with_a_single_eligible_player_goes_to_that_player() -> None:
    """Seat 1 is all in for 100; seat 0 folds on the flop after matching 200,
    so the side pot of 200 has seat 2 alone eligible: it takes it whatever
    the cards, while the main pot plays on to the showdown (the engine awards
    both when the hand ends; no betting can follow once a pot has a single
    eligible player, as every other live player in the hand is all in)."""
    t = three(
        NL,
        (1000, 100, 1000),
        hands={0: "2d 3d", 1: "Ac Ad", 2: "Kc Kd"},
        board="2c 7d 9h Js 4s",
    )
    t.act(0, "raise", 200)
    t.act(1, "call")  # all in
    t.act(2, "call")
    t.act(2, "bet", 100)
    t.act(0, "fold")
    assert awards(t) == [(300, (1, 2), 0, {1: 300}), (200, (2,), 0, {2: 200})]
    assert final_stacks(t) == {0: 800, 1: 300, 2: 1000}
    assert [e.seat for e in t.of(Shown) if isinstance(e, Shown)] == [1, 2]


def test_an_uncontested_hand_shows_no_cards_and_wins_every_pot() -> None:
    t = three(NL, (1000, 1000, 1000))
    to_flop(t)
    t.act(1, "bet", 50)
    t.act(2, "raise", 150)
    t.act(0, "fold")
    t.act(1, "fold")
    assert not t.of(Shown)
    assert awards(t) == [(130, (2,), 0, {2: 130})]
    assert final_stacks(t) == {0: 990, 1: 940, 2: 1070}


def test_odd_chips_go_clockwise_from_the_first_seat_left_of_the_button() -> None:
    """The board plays for everyone; the small blind's 5 folded makes 35 for
    three: 11 each, and the two odd chips to seats 3 and 0, the first tied
    seats clockwise from the button's left (seat 2 has folded)."""
    t = holdem(
        NL,
        [1000] * 4,
        button=1,
        small_blind=2,
        big_blind=3,
        hands={0: "2c 3d", 1: "4h 5c", 2: "6d 7h", 3: "8c 9d"},
        board="As Ks Qs Js Ts",
    )
    assert t.state.to_act == 0
    t.act(0, "call")
    t.act(1, "call")
    t.act(2, "fold")
    t.act(3, "check")
    for _ in range(3):
        t.act(3, "check")
        t.act(0, "check")
        t.act(1, "check")
    assert awards(t) == [(35, (0, 1, 3), 0, {3: 12, 0: 12, 1: 11})]
    assert final_stacks(t) == {0: 1002, 1: 1001, 2: 995, 3: 1002}
    assert [e.seat for e in t.of(Shown) if isinstance(e, Shown)] == [3, 0, 1]


# -- the clock, cancelling -------------------------------------------------------------


def test_a_player_out_of_time_checks_if_they_can_otherwise_folds() -> None:
    t = three(NL)
    with pytest.raises(NotYourTurn, match=r"^seat 1 is not on the clock$"):
        t.time_out(1)
    assert t.time_out(0)[0] == Acted(0, Action.FOLD, 0, 0, timed_out=True)
    t.act(1, "call")
    assert t.time_out(2)[0] == Acted(2, Action.CHECK, 0, 10, timed_out=True)
    assert t.time_out(1)[0] == Acted(1, Action.CHECK, 0, 0, timed_out=True)
    t.act(2, "bet", 20)
    events = t.time_out(1)
    assert events[0] == Acted(1, Action.FOLD, 0, 0, timed_out=True)
    assert t.state.phase is Phase.ENDED
    assert final_stacks(t) == {0: 1000, 1: 990, 2: 1010}
    with pytest.raises(WrongPhase, match=r"^the hand is over$"):
        t.time_out(2)


def test_cancel_returns_every_chip_put_in() -> None:
    t = holdem(NL, {0: 1000, 1: 100, 2: 1000, 3: 500}, button=0, small_blind=1, big_blind=2)
    t.act(3, "raise", 40)
    t.act(0, "call")
    t.act(1, "call")
    t.act(2, "call")
    t.act(1, "bet", 60)  # all in
    t.act(2, "raise", 200)
    events = t.do(Cancel())
    assert events == [
        HandEnded(
            stacks=((0, 1000), (1, 100), (2, 1000), (3, 500)),
            seed=t.state.seed,
            rake=0,
            cancelled=True,
        )
    ]
    assert t.state.phase is Phase.ENDED
    assert [p.stack for p in t.state.players] == [1000, 100, 1000, 500]
    assert t.state.pot == 0
    with pytest.raises(WrongPhase, match=r"^the hand is over$"):
        t.do(Cancel())
    with pytest.raises(WrongPhase, match=r"^the hand is over$"):
        t.act(3, "fold")


def test_cancel_before_anyone_acts_returns_the_blinds() -> None:
    t = three(NL)
    t.do(Cancel())
    assert final_stacks(t) == {0: 1000, 1: 1000, 2: 1000}


def test_cancel_is_refused_before_a_hand_is_dealt() -> None:
    with pytest.raises(WrongPhase, match=r"^no hand has been dealt$"):
        decide(NEW_HAND, Cancel())


# -- duplicate poker: fixed positions ----------------------------------------------------


def duplicate(seed: bytes, seats: Iterable[int], plays: dict[int, str]) -> Checked:
    """A duplicate hold'em table of six seats dealt from ``seed``; ``plays``
    says what each seat does whenever it is its turn (default: call or check)."""
    rules = Rules(NL.game, NL.stakes, fixed_seats=6)
    seated = tuple(SeatAtStart(s, f"player {s}", 1000) for s in seats)
    start = StartHand(rules, Deal(0, seated, small_blind=1, big_blind=2), seed)
    t = Checked(decide(NEW_HAND, start))
    while t.state.phase is not Phase.ENDED:
        seat = t.state.to_act
        assert seat is not None
        o = options(t.state)
        action = plays.get(seat, "check" if o.can_check else "call")
        if action == "check" and not o.can_check:
            action = "call"
        t.act(seat, action)
    return t


def dealt(t: Checked) -> tuple[dict[int, list[tuple[int, str]]], list[int], str]:
    """Each seat's cards with their deck positions, the board's positions, the board."""
    cards: dict[int, list[tuple[int, str]]] = {}
    for e in t.of(CardDealt):
        assert isinstance(e, CardDealt)
        cards.setdefault(e.seat, []).append((e.position, str(e.card)))
    boards = [e for e in t.of(BoardDealt) if isinstance(e, BoardDealt)]
    board = " ".join(str(c) for e in boards for c in e.cards)
    return cards, [p for e in boards for p in e.positions], board


@pytest.mark.parametrize("seed", [bytes(32), bytes(range(32)), b"\xfe" * 32])
def test_duplicate_seats_get_the_same_cards_whatever_the_others_do(seed: bytes) -> None:
    everyone = duplicate(seed, range(6), {})
    folding = duplicate(seed, range(6), {3: "fold", 4: "fold", 0: "fold"})
    absent = duplicate(seed, [0, 1, 2, 5], {5: "fold"})
    cards, positions, board = dealt(everyone)
    # seat s's i-th card is deck position i * 6 + s; the board follows the 12 hole cards
    deck = replay(everyone.events).stub
    assert cards == {s: [(i * 6 + s, str(deck[i * 6 + s])) for i in (0, 1)] for s in range(6)}
    assert positions == [12, 13, 14, 15, 16]
    for other in (folding, absent):
        other_cards, other_positions, other_board = dealt(other)
        assert other_cards == {s: cards[s] for s in other_cards}
        assert (other_positions, other_board) == (positions, board)
    assert sorted(dealt(absent)[0]) == [0, 1, 2, 5]


# -- refusals -----------------------------------------------------------------------------


def test_illegal_commands_are_refused_with_their_reason_and_change_nothing() -> None:
    t = three(NL)
    refusals: list[tuple[Command, type[RuleError], str]] = [
        (Act(1, Action.FOLD), NotYourTurn, "seat 1 cannot act: it is seat 0's turn"),
        (Act(7, Action.FOLD), NotInHand, "seat 7 is not in this hand"),
        (Act(0, Action.CHECK), IllegalAction, "seat 0 cannot check: 10 to call"),
        (Act(0, Action.BET, 20), IllegalAction, "seat 0 cannot bet: raise instead"),
        (
            Act(0, Action.CALL, 5),
            IllegalAmount,
            "seat 0 cannot call for 5: leave the amount out or give 10",
        ),
        (Act(0, Action.CHECK, 5), IllegalAmount, "seat 0 cannot check for 5: leave the amount out"),
        (Act(0, Action.FOLD, 5), IllegalAmount, "seat 0 cannot fold for 5: leave the amount out"),
        (
            Act(0, Action.RAISE, 1001),
            IllegalAmount,
            "seat 0 cannot raise to 1001: raise to 20 to 1000",
        ),
        (
            Act(0, Action.RAISE, -5),
            IllegalAmount,
            "seat 0 cannot raise to -5: raise to 20 to 1000",
        ),
        (
            Act(0, Action.BRING_IN),
            IllegalAction,
            "seat 0 cannot bring in: the bring-in is not due",
        ),
        (
            Act(0, Action.COMPLETE, 20),
            IllegalAction,
            "seat 0 cannot complete: raise instead",
        ),
        (
            Draw(0, ()),
            WrongPhase,
            "seat 0 cannot draw: it is time for betting",
        ),
        (
            Declare(0, Choice.HIGH),
            WrongPhase,
            "seat 0 cannot declare: it is time for betting",
        ),
        (TimeOut(2), NotYourTurn, "seat 2 is not on the clock"),
        (
            StartHand(NL, Deal(0, ()), bytes(32)),
            WrongPhase,
            "this hand has already been dealt",
        ),
    ]
    for command, error, message in refusals:
        before = list(t.events)
        with pytest.raises(error, match=f"^{re.escape(message)}$"):
            t.do(command)
        assert t.events == before
    to_flop(t)
    with pytest.raises(IllegalAction, match=r"^seat 1 cannot raise: bet instead$"):
        t.act(1, "raise", 20)
    with pytest.raises(
        IllegalAction, match=r"^seat 1 cannot call: nothing to call, check instead$"
    ):
        t.act(1, "call")


def test_a_raise_is_refused_to_a_player_with_no_more_than_the_call() -> None:
    t = three(NL, (1000, 100, 1000))
    t.act(0, "raise", 100)
    o = options(t.state)
    assert (o.to_call, o.raise_action) == (95, None)
    with pytest.raises(
        IllegalAction, match=r"^seat 1 cannot raise: not enough chips behind to raise$"
    ):
        t.act(1, "raise", 200)
    t.act(1, "call")
    assert t.state.player(1).stack == 0


def test_acting_before_the_deal_or_after_the_end_is_refused() -> None:
    with pytest.raises(WrongPhase, match=r"^no hand has been dealt$"):
        decide(NEW_HAND, Act(0, Action.CHECK))
    t = three(NL)
    t.act(0, "fold")
    t.act(1, "fold")
    with pytest.raises(WrongPhase, match=r"^the hand is over$"):
        t.act(2, "check")


def test_acting_in_a_draw_is_refused() -> None:
    t = Checked(deal(DRAW, [1000, 1000, 1000], button=0).events)
    for seat in (1, 2, 0):
        t.act(seat, "check")
    assert t.state.phase is Phase.DRAWING
    with pytest.raises(WrongPhase, match=r"^seat 1 cannot check: it is time for drawing$"):
        t.act(1, "check")


def test_fixed_limit_cap_defaults_to_the_games_cap() -> None:
    """docs/rules.md: the cap is a table setting whose default is a bet and three
    raises in hold'em and stud, a bet and four in draw games. A table that
    leaves ``raise_cap`` unset gets that default."""
    holdem_stakes = Stakes(
        Structure.FIXED_LIMIT, small_bet=10, big_bet=20, small_blind=5, big_blind=10
    )
    t = three(Rules(Game.HOLDEM, holdem_stakes))
    t.act(0, "raise", 20)
    t.act(1, "raise", 30)
    t.act(2, "raise", 40)
    with pytest.raises(IllegalAction, match=r"^seat 0 cannot raise: the betting is capped$"):
        t.act(0, "raise", 50)
    draw_stakes = Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5)
    t = Checked(deal(Rules(Game.DRAW_DECLARE, draw_stakes), [1000] * 3, button=0).events)
    for seat, total in [(1, 10), (2, 20), (0, 30), (1, 40), (2, 50)]:
        t.act(seat, "bet" if total == 10 else "raise", total)
    with pytest.raises(IllegalAction, match=r"^seat 0 cannot raise: the betting is capped$"):
        t.act(0, "raise", 60)


def test_hold_em_is_dealt_to_two_to_ten_players() -> None:
    def start(n: int) -> StartHand:
        seats = tuple(SeatAtStart(s, f"player {s}", 1000) for s in range(n))
        blinds = (0, 1) if n == 2 else (1, 2)
        return StartHand(NL, Deal(0, seats, small_blind=blinds[0], big_blind=blinds[1]), bytes(32))

    for n in (2, 10):
        assert decide(NEW_HAND, start(n))
    with pytest.raises(IllegalAction, match=r"^holdem is played by 2 to 10 players, not 11$"):
        decide(NEW_HAND, start(11))


def test_folded_and_unshown_hands_are_seen_only_by_their_seat() -> None:
    t = three(NL, hands={0: "Ac Ad", 1: "Kc Kd", 2: "Qc Qd"}, board="2c 7d 9h Js 4s")
    t.act(0, "fold")
    t.act(1, "call")
    t.act(2, "check")
    for _ in range(3):
        t.act(1, "check")
        t.act(2, "check")
    for e in t.of(CardDealt):
        assert isinstance(e, CardDealt)
        assert e.audience() == frozenset((e.seat,))
        hidden = e.redacted()
        assert isinstance(hidden, CardDealt)
        assert hidden.card is None
    assert [e.seat for e in t.of(Shown) if isinstance(e, Shown)] == [1, 2]


def test_a_last_chip_with_nothing_to_call_may_be_raised_all_in() -> None:
    """The big blind with one chip behind, everyone having called: it may
    check or raise its last chip."""
    t = three(NL, (1000, 1000, 11))
    t.act(0, "call")
    t.act(1, "call")
    assert options(t.state).to_call == 0
    assert span(t) == (Action.RAISE, 11, 11)
    t.act(2, "raise", 11)
    assert acted(t)[-1] == (2, "raise", 11)


def test_a_blind_facing_a_raise_with_more_than_the_call_may_raise_all_in() -> None:
    """The big blind (10 in) with 15 behind faces a raise to 20: it may call
    10 or go all in to 25, short of a full raise."""
    t = three(NL, (1000, 1000, 25))
    t.act(0, "raise", 20)
    t.act(1, "fold")
    assert options(t.state).to_call == 10
    assert span(t) == (Action.RAISE, 25, 25)
