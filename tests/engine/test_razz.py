"""Razz and seven-card stud high (docs/rules.md), one scenario per rule
where they part from stud high-low: razz's bring-in by the highest up card
(the ace low), its first to act by the best low showing, its whole pot to
the ace-to-five low with no qualifier and the odd chip to the lowest card;
stud high's whole pot to the high, its odd chip to the highest card.

Dealt from stacked decks with ``test_stud``'s helpers (every command
checked for conserved chips and the same events on a replayed state);
stakes ante 1, bring-in 2, small bet 4, big bet 8.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from feltline.engine.hand import turn
from feltline.engine.hand.events import Action
from feltline.engine.hand.rules import Game

from .test_stud import HUNDREDS, STUD, passive, play, shares, showing, stacks_at_end

RAZZ = replace(STUD, game=Game.RAZZ)
HIGH = replace(STUD, game=Game.STUD)


@pytest.mark.parametrize(
    ("ups", "bring_in"),
    [
        ("Kc Qd As", 0),  # the ace is low: the king is the highest
        ("Ah 2c Ac", 1),  # a deuce is above the aces
        ("5c 5s 5h", 1),  # spades highest
        ("Jd Jh 9s", 1),  # hearts above diamonds
    ],
)
def test_razz_the_highest_up_card_brings_in(ups: str, bring_in: int) -> None:
    t = play(RAZZ, HUNDREDS, showing(dict(enumerate(ups.split()))), button=2)
    assert turn.bring_in_seat(t.hand) == bring_in
    assert t.hand.to_act == bring_in
    assert t.hand.round.pending == tuple((bring_in + k) % 3 for k in range(3))
    assert turn.choices(t.hand, bring_in) == turn.Choices(
        (Action.BRING_IN, Action.COMPLETE), 2, 4, 4
    )
    t.act(bring_in, "bring-in")
    assert t.hand.player(bring_in).stack == 97


def test_razz_left_of_a_highest_card_all_in_from_the_ante_may_fold() -> None:
    t = play(RAZZ, {0: 100, 1: 1, 2: 100}, showing({0: "3c", 1: "Kd", 2: "5h"}), button=0)
    assert not t.hand.player(1).active
    assert t.hand.to_act == 2
    choices = turn.choices(t.hand, 2)
    assert choices is not None
    assert choices.actions == (Action.BRING_IN, Action.FOLD, Action.COMPLETE)


@pytest.mark.parametrize(
    ("ups", "button", "first"),
    [
        # fourth street
        (("Kc 2d", "9h 8s", "Qd Qs"), 2, 1),  # 9-8 is lower than K-2; a pair is worst
        (("2c 2d", "Kh Qs", "Jd 9s"), 2, 2),  # even a pair of deuces loses to J-9
        (("Ad 5c", "As 5h", "Kd Qs"), 1, 0),  # tied: the first left of the button
        (("Ad 5c", "As 5h", "Kd Qs"), 0, 1),
        # fifth street
        (("2s 2h 9d", "3c 3d 4h", "Kc Qc Jc"), 2, 2),  # no pair beats any pair
        (("2s 2h 9d", "3c 3d 4h", "Ac Ad Kc"), 2, 2),  # a pair of aces is the lowest pair
        (("3s 3h 4d", "2c 2d 9h", "Kc Kd Qc"), 2, 1),  # then the lower pair
        # sixth street
        (("Ac Ad 2c 2d", "3s 3h 3d 4c", "Kh Kc Qh Qc"), 2, 0),  # two pair beat trips
        (("Ac Ad 2c 2d", "3s 3h 3d 4c", "Ks Qs Jh 9c"), 2, 2),  # no pair beats two pair
        (("6c 5d 4h 3s", "Ac 2c 3c 4c", "7s 5s 3d 2d"), 2, 1),  # no straight or flush
    ],
)
def test_razz_from_fourth_street_the_best_low_showing_acts_first(
    ups: tuple[str, str, str], button: int, first: int
) -> None:
    streets = len(ups[0].split()) - 1
    t = play(RAZZ, HUNDREDS, showing(dict(enumerate(ups))), button=button)
    passive(t, rounds=streets)
    assert t.hand.rounds == streets
    assert t.hand.to_act == first
    assert t.hand.round.pending == tuple((first + k) % 3 for k in range(3))


def test_razz_the_best_low_takes_the_whole_pot_straights_and_flushes_ignored() -> None:
    hands = {0: "Kc Kd 2c 3c 4c 5c 7d", 1: "Ah 2h 3h 4h 5h 9s Ts", 2: "Qd Js Th 9c 8c 7c 6s"}
    t = play(RAZZ, HUNDREDS, hands, button=2)
    passive(t)
    assert shares(t) == [(0, 1, 9, "all", "5-4-3-2-A low")]
    assert stacks_at_end(t) == {0: 97, 1: 106, 2: 97}


def test_razz_has_no_qualifier_and_a_pair_loses_to_any_unpaired_low() -> None:
    hands = {0: "2c 2d 3c 3d 4c 4d 5s", 1: "Kh Qh Jh Th 9h Ks Qs"}
    t = play(RAZZ, {0: 100, 1: 100}, hands, button=1)
    passive(t)
    assert shares(t) == [(0, 1, 6, "all", "K-Q-J-T-9 low")]


def test_razz_tied_lows_give_the_odd_chip_to_the_lowest_card() -> None:
    hands = {0: "7c 5c 4c 3c 2c Kc Qc", 1: "7d 5d 4d 3d 2d Kd Qd", 2: "8s 9s Ks Js"}
    t = play(RAZZ, HUNDREDS, hands, button=2)
    passive(t, fold=frozenset({(1, 2)}))
    assert shares(t) == [(0, 0, 5, "all", "7-5-4-3-2 low"), (0, 1, 4, "all", "7-5-4-3-2 low")]
    assert stacks_at_end(t) == {0: 102, 1: 101, 2: 97}


def test_stud_high_takes_the_whole_pot_whatever_the_lows() -> None:
    hands = {0: "Ac Ad 9h 9s Jc Qc Th", 1: "2c 3d 4h 5s 7c Kd 8d"}
    t = play(HIGH, {0: 100, 1: 100}, hands, button=1)
    assert t.hand.to_act == 1  # the five is the lowest up card
    passive(t)
    assert shares(t) == [(0, 0, 6, "all", "two pair, aces and nines")]


def test_stud_high_tied_hands_give_the_odd_chip_to_the_highest_card() -> None:
    hands = {0: "Ah Kd Qh Jc 9s 3c 2d", 1: "As Kc Qd Js 9c 4d 2h", 2: "Td 8c 2s 6h"}
    t = play(HIGH, HUNDREDS, hands, button=2)
    assert t.hand.to_act == 2
    passive(t, fold=frozenset({(1, 2)}))
    assert shares(t) == [(0, 1, 5, "all", "ace high"), (0, 0, 4, "all", "ace high")]
    assert stacks_at_end(t) == {0: 101, 1: 102, 2: 97}
