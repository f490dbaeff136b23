"""Seven-card stud and razz cross-checked against PokerKit 0.7.7.

Hand values: any two seven-card hands, drawn by hypothesis, rank the same
way by Feltline's values as by PokerKit's ``StandardHighHand`` (stud) and
``RegularLowHand`` (razz). Pots: random hands played by Feltline, each
replayed card for card and action for action in PokerKit's
``FixedLimitSevenCardStud`` and ``FixedLimitRazz``, end with the same
stacks; the bring-in seat and the first to act on every street must agree
for the replay to go through at all.

Where docs/rules.md differs from PokerKit on purpose the hands avoid it,
and say so: deep equal stacks and at most two raises a round (no short
all-ins), the fixed-limit cap kept heads-up (PokerKit never lifts it), and
at most seven players (no common card, which PokerKit does not deal). The
one difference left is who takes an odd chip of a tied pot (Feltline: the
highest card in stud, the lowest in razz; PokerKit: its own order): for
the seats sharing such a pot only their total is compared.
"""

from __future__ import annotations

import random
import warnings
from dataclasses import replace

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pokerkit import (
    FixedLimitRazz,
    FixedLimitSevenCardStud,
    RegularLowHand,
    StandardHighHand,
    State,
)

from feltline.engine.cards.card import format_cards
from feltline.engine.cards.values import System
from feltline.engine.games import VARIANTS
from feltline.engine.hand.events import (
    Acted,
    Action,
    CardDealt,
    Event,
    HandEnded,
    PotAwarded,
    Shown,
)
from feltline.engine.hand.rules import Game, Rules

from .test_omaha_pokerkit import AUTOMATIONS, STACK, feltline

GAMES = (Game.STUD, Game.RAZZ)
POKERKIT = {Game.STUD: FixedLimitSevenCardStud, Game.RAZZ: FixedLimitRazz}
HANDS = {Game.STUD: StandardHighHand, Game.RAZZ: RegularLowHand}


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=500, deadline=None)
@given(cards=st.permutations(range(52)))
def test_hand_values_rank_as_pokerkits(game: Game, cards: list[int]) -> None:
    ours = [VARIANTS[game].values(c, (), System.ACE_TO_FIVE)[0] for c in (cards[:7], cards[7:14])]
    kind = HANDS[game]
    theirs = [kind.from_game(format_cards(c).replace(" ", "")) for c in (cards[:7], cards[7:14])]
    mine = _sign(ours[0].strength - ours[1].strength)
    event(f"{game}: {'tie' if not mine else 'one wins'}")
    assert mine == (theirs[0] > theirs[1]) - (theirs[0] < theirs[1])


def pokerkit(rules: Rules, players: int, events: list[Event]) -> State:
    """``events`` replayed in PokerKit; its player i is seat i, seat 0 left
    of the button. Each street's cards are dealt as PokerKit deals them,
    player by player, before the street's first action, after a burned
    card where PokerKit burns one."""
    s = rules.stakes
    state = POKERKIT[rules.game].create_state(
        AUTOMATIONS, True, s.ante, s.bring_in, s.small_bet, s.big_bet, STACK, players,
    )  # fmt: skip
    street: dict[int, list[int]] = {}

    def deal() -> None:
        if street and state.can_burn_card():  # Feltline burns none: an unknown card
            state.burn_card("??")
        for seat in sorted(street):
            state.deal_hole(format_cards(street[seat]).replace(" ", ""))
        street.clear()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns of a card it did not burn
        for e in events:
            if isinstance(e, CardDealt):
                assert e.card is not None
                street.setdefault(e.seat, []).append(e.card)
            elif isinstance(e, Acted):
                deal()
                if e.action is Action.FOLD:
                    state.fold()
                elif e.action is Action.BRING_IN:
                    state.post_bring_in()
                elif e.action in (Action.CHECK, Action.CALL):
                    state.check_or_call()
                else:
                    state.complete_bet_or_raise_to(e.total)
        deal()
    return state


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=600, deadline=None)
@given(rng=st.randoms(use_true_random=False), players=st.integers(2, 7))
def test_random_hands_end_with_pokerkits_stacks(
    game: Game, rng: random.Random, players: int
) -> None:
    house = Rules.house(game)
    rules = replace(house, stakes=replace(house.stakes, uncapped_heads_up=False))
    events = feltline(rules, players, rng)
    state = pokerkit(rules, players, events)
    assert not state.status, "PokerKit's hand is not over"
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    ours = dict(ended.stacks)
    theirs = dict(enumerate(state.stacks))
    shared: set[int] = set()
    for award in (e for e in events if isinstance(e, PotAwarded)):
        amounts = {s.amount for s in award.shares}
        if len(amounts) > 1:  # an odd chip, given by each its own rule
            shared |= {s.seat for s in award.shares}
    assert {k: v for k, v in ours.items() if k not in shared} == {
        k: v for k, v in theirs.items() if k not in shared
    }
    assert sum(ours[k] for k in shared) == sum(theirs[k] for k in shared)
    event("showdown" if any(isinstance(e, Shown) for e in events) else "uncontested")
