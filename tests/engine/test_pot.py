"""Pots, side pots, uncalled bets, odd chips and rake."""

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feltline.engine.hand.pot import (
    BASIS_POINTS,
    Pot,
    collect,
    rake,
    return_uncalled,
    split,
    split_high_low,
)

# ---- uncalled bets


def test_uncalled_part_of_a_bet_goes_back() -> None:
    # Seat 3 bets 400 into seats 1 and 2, who are all in for 100 and 250.
    assert return_uncalled({1: 100, 2: 250, 3: 400}) == ({1: 100, 2: 250, 3: 250}, 3, 150)


def test_big_blind_gets_back_what_the_small_blind_did_not_call() -> None:
    assert return_uncalled({1: 1, 2: 2}) == ({1: 1, 2: 1}, 2, 1)


def test_a_folded_seat_counts_as_having_called() -> None:
    # Seat 1 bets 100, seat 2 shoves 150, seat 1 folds: only 50 of the shove was unmatched.
    assert return_uncalled({1: 100, 2: 150, 3: 0}) == ({1: 100, 2: 100, 3: 0}, 2, 50)


def test_nothing_goes_back_when_the_top_is_shared() -> None:
    assert return_uncalled({1: 40, 2: 40, 3: 10}) == ({1: 40, 2: 40, 3: 10}, None, 0)
    assert return_uncalled({}) == ({}, None, 0)


def test_a_lone_contributor_gets_everything_back() -> None:
    assert return_uncalled({4: 30, 5: 0}) == ({4: 0, 5: 0}, 4, 30)


# ---- pots and side pots


def test_three_way_all_in_with_different_stacks() -> None:
    contributions, _, _ = return_uncalled({1: 100, 2: 250, 3: 400})
    assert collect(contributions, live={1, 2, 3}) == (
        Pot(300, (1, 2, 3)),
        Pot(300, (2, 3)),
    )


def test_two_all_ins_and_two_callers() -> None:
    assert collect({1: 50, 2: 120, 3: 300, 4: 300}, live=[4, 3, 2, 1]) == (
        Pot(200, (1, 2, 3, 4)),
        Pot(210, (2, 3, 4)),
        Pot(360, (3, 4)),
    )


def test_folded_chips_are_dead_money_in_the_pots_they_reach() -> None:
    # Seat 1 put in 30 and folded; seat 2 is all in for 50.
    assert collect({1: 30, 2: 50, 3: 100, 4: 100}, live={2, 3, 4}) == (
        Pot(180, (2, 3, 4)),
        Pot(100, (3, 4)),
    )
    # Seat 1 put in 80 before folding: its chips reach into the side pot too.
    assert collect({1: 80, 2: 50, 3: 100, 4: 100}, live={2, 3, 4}) == (
        Pot(200, (2, 3, 4)),
        Pot(130, (3, 4)),
    )


def test_all_ins_at_the_same_level_make_one_pot() -> None:
    assert collect({1: 50, 2: 50, 3: 100, 4: 100}, live={1, 2, 3, 4}) == (
        Pot(200, (1, 2, 3, 4)),
        Pot(100, (3, 4)),
    )
    assert collect({1: 70, 2: 70, 3: 70}, live={1, 2, 3}) == (Pot(210, (1, 2, 3)),)


def test_a_pot_only_one_seat_can_win() -> None:
    # Seat 2 folded after matching seat 3; seat 1 is all in for less.
    assert collect({1: 50, 2: 100, 3: 100}, live={1, 3}) == (
        Pot(150, (1, 3)),
        Pot(100, (3,)),
    )


def test_uncontested_hand_makes_one_pot_for_the_last_seat() -> None:
    contributions, seat, back = return_uncalled({1: 10, 2: 10, 3: 40})
    assert (seat, back) == (3, 30)
    assert collect(contributions, live={3}) == (Pot(30, (3,)),)


def test_folded_chips_above_every_live_seat_go_to_the_top_pot() -> None:
    # Seats 2 and 3 matched each other at 100, then both folded; seat 1 is all in for 50.
    assert collect({1: 50, 2: 100, 3: 100}, live={1}) == (Pot(250, (1,)),)


def test_a_live_seat_that_put_in_nothing_wins_nothing() -> None:
    assert collect({1: 10, 2: 10}, live={1, 2, 3}) == (Pot(20, (1, 2)),)
    assert collect({}, live={1, 2}) == ()


def test_collect_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match=r"^a hand that forms pots has at least one live seat$"):
        collect({1: 10}, live=set())
    with pytest.raises(ValueError, match="cannot be negative"):
        collect({1: 10, 2: -5}, live={1})
    with pytest.raises(ValueError, match="cannot be negative"):
        return_uncalled({1: -1})


def test_pot_checks_itself() -> None:
    with pytest.raises(ValueError, match="cannot hold"):
        Pot(-1, (1,))
    with pytest.raises(ValueError, match=r"^a pot needs at least one seat that can win it$"):
        Pot(5, ())
    with pytest.raises(ValueError, match="ascending"):
        Pot(5, (2, 1))
    with pytest.raises(ValueError, match="ascending"):
        Pot(5, (1, 1))


# ---- odd chips


def test_odd_chips_go_one_at_a_time_in_the_given_order() -> None:
    assert split(10, [5, 2, 7]) == {5: 4, 2: 3, 7: 3}
    assert split(10, [7, 2, 5]) == {7: 4, 2: 3, 5: 3}
    assert split(11, [3, 1, 2]) == {3: 4, 1: 4, 2: 3}
    assert split(9, [3, 1, 2]) == {3: 3, 1: 3, 2: 3}
    assert split(1, [6, 4]) == {6: 1, 4: 0}
    assert split(0, [6]) == {6: 0}


def test_high_half_takes_the_odd_chip() -> None:
    assert split_high_low(11) == (6, 5)
    assert split_high_low(10) == (5, 5)
    assert split_high_low(1) == (1, 0)
    # 13 chips: high 7 between two tied highs, low 6 to one.
    high, low = split_high_low(13)
    assert split(high, [4, 1]) == {4: 4, 1: 3}
    assert split(low, [2]) == {2: 6}


def test_split_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match=r"^a pot is split among at least one winner$"):
        split(10, [])
    with pytest.raises(ValueError, match="listed twice"):
        split(10, [1, 1])
    with pytest.raises(ValueError, match="cannot split"):
        split(-1, [1])
    with pytest.raises(ValueError, match="cannot split"):
        split_high_low(-1)


# ---- rake


def test_rake_fills_the_cap_main_pot_first() -> None:
    pots = (Pot(400, (1, 2, 3)), Pot(300, (2, 3)), Pot(100, (3,)))
    # 5 %: 20 from the main pot, then only 10 of the side pot's 15 fit under the cap of 30.
    assert rake(pots, basis_points=500, cap=30) == (
        (Pot(380, (1, 2, 3)), Pot(290, (2, 3)), Pot(100, (3,))),
        30,
    )


def test_rake_rounds_each_pot_down() -> None:
    # 5 % of 399 is 19.95 and of 19 is 0.95.
    assert rake((Pot(399, (1, 2)), Pot(19, (2,))), basis_points=500, cap=100) == (
        (Pot(380, (1, 2)), Pot(19, (2,))),
        19,
    )


def test_zero_rake() -> None:
    pots = (Pot(400, (1, 2)), Pot(50, (2,)))
    assert rake(pots, basis_points=0, cap=30) == (pots, 0)
    assert rake(pots, basis_points=1000, cap=0) == (pots, 0)
    assert rake((), basis_points=1000, cap=30) == ((), 0)


def test_rake_refuses_bad_settings() -> None:
    with pytest.raises(ValueError, match="basis points"):
        rake((), basis_points=-1, cap=10)
    with pytest.raises(ValueError, match="basis points"):
        rake((), basis_points=BASIS_POINTS + 1, cap=10)
    with pytest.raises(ValueError, match="cap"):
        rake((), basis_points=500, cap=-1)


# ---- properties

seats = st.integers(min_value=0, max_value=9)
contribution_maps = st.dictionaries(seats, st.integers(min_value=0, max_value=1000), max_size=10)


@st.composite
def hands(draw: st.DrawFn) -> tuple[dict[int, int], set[int]]:
    """Contributions and a non-empty set of live seats among the contributors."""
    contributions = draw(contribution_maps.filter(bool))
    live = draw(st.sets(st.sampled_from(sorted(contributions)), min_size=1))
    return contributions, live


@given(contribution_maps)
def test_returning_uncalled_chips_keeps_every_chip(contributions: dict[int, int]) -> None:
    after, seat, back = return_uncalled(contributions)
    assert sum(after.values()) + back == sum(contributions.values())
    assert after.keys() == contributions.keys()
    if seat is None:
        assert back == 0
    else:
        assert back > 0
        assert after[seat] == contributions[seat] - back
    # Afterwards nobody has put in more than someone else matched.
    top = sorted(after.values(), reverse=True)
    if len(top) == 1:
        assert top == [0]
    elif top:
        assert top[0] == top[1]


@given(hands())
def test_pots_hold_every_chip_and_only_live_seats_win(
    hand: tuple[dict[int, int], set[int]],
) -> None:
    contributions, live = hand
    after, _, _ = return_uncalled(contributions)
    pots = collect(after, live)
    assert sum(pot.amount for pot in pots) == sum(after.values())
    for pot in pots:
        assert pot.amount > 0
        assert set(pot.eligible) <= live
    for lower, upper in pairwise(pots):
        assert set(upper.eligible) < set(lower.eligible)


@given(hands())
def test_a_live_seat_can_win_what_it_matched_from_each_seat(
    hand: tuple[dict[int, int], set[int]],
) -> None:
    contributions, live = hand
    pots = collect(contributions, live)
    top_live = max(contributions[seat] for seat in live)
    for seat in live:
        winnable = sum(pot.amount for pot in pots if seat in pot.eligible)
        if contributions[seat] == top_live:
            assert winnable == sum(contributions.values())
        else:
            mine = contributions[seat]
            assert winnable == sum(min(c, mine) for c in contributions.values())


@given(
    st.integers(min_value=0, max_value=10**6),
    st.lists(seats, min_size=1, max_size=10, unique=True),
)
def test_split_shares_every_chip_with_odd_chips_first(amount: int, winners: list[int]) -> None:
    shares = split(amount, winners)
    assert sum(shares.values()) == amount
    in_order = [shares[seat] for seat in winners]
    assert in_order == sorted(in_order, reverse=True)
    assert max(in_order) - min(in_order) <= 1
    high, low = split_high_low(amount)
    assert high + low == amount
    assert 0 <= high - low <= 1


pot_lists = st.lists(
    st.builds(
        Pot,
        st.integers(min_value=0, max_value=10**5),
        st.lists(seats, min_size=1, unique=True).map(lambda s: tuple(sorted(s))),
    ),
    max_size=6,
)


@given(
    pot_lists,
    st.integers(min_value=0, max_value=BASIS_POINTS),
    st.integers(min_value=0, max_value=10**4),
)
def test_rake_and_raked_pots_add_up_to_the_pots(
    pots: list[Pot], basis_points: int, cap: int
) -> None:
    raked, total = rake(pots, basis_points=basis_points, cap=cap)
    assert total + sum(pot.amount for pot in raked) == sum(pot.amount for pot in pots)
    assert [pot.eligible for pot in raked] == [pot.eligible for pot in pots]
    full = [pot.amount * basis_points // BASIS_POINTS for pot in pots]
    assert total == min(cap, sum(full))
    for before, after, most in zip(pots, raked, full, strict=True):
        assert 0 <= before.amount - after.amount <= most
