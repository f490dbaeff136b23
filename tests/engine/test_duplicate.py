"""Duplicate scoring: zero-sum, identical play scores nothing, matchpoints by hand."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feltline.engine.duplicate import chip_results, matchpoints, scores
from feltline.engine.errors import ConfigError


@st.composite
def deals(draw: st.DrawFn) -> list[dict[int, int]]:
    """A deal's results at 2 to 5 tables of 2 to 10 seats, each table's
    summing to zero as chips do at a table without rake."""
    tables = draw(st.integers(2, 5))
    seats = draw(st.lists(st.integers(0, 9), min_size=2, max_size=10, unique=True))
    out = []
    for _ in range(tables):
        others = len(seats) - 1
        moves = draw(st.lists(st.integers(-500, 500), min_size=others, max_size=others))
        out.append(dict(zip(seats, [*moves, -sum(moves)], strict=True)))
    return out


@given(deals())
def test_scores_sum_to_zero_over_every_player_of_a_deal(results: list[dict[int, int]]) -> None:
    scored = scores(results)
    assert sum(sum(table.values()) for table in scored) == 0
    for seat in results[0]:  # and over each seat's players on their own
        assert sum(table[seat] for table in scored) == 0


@given(st.lists(st.integers(-1000, 1000), min_size=2, max_size=10), st.integers(2, 4))
def test_players_with_the_same_result_in_a_seat_score_zero_against_each_other(
    moves: list[int], tables: int
) -> None:
    table = dict(enumerate(moves))
    scored = scores([table] * tables)
    assert all(score == 0 for t in scored for score in t.values())
    # and each ties every other table: one matchpoint per tie
    assert all(p == tables - 1 for t in matchpoints([table] * tables) for p in t.values())


def test_a_worked_example_by_hand() -> None:
    # Three tables, seats 1 and 2. Seat 1 won 30, lost 10 and won 30; seat 2
    # the opposite. T = 3, so seat 1's sum is 50: scores 3*30-50 = 40,
    # 3*-10-50 = -80, 40; seat 2's sum is -50: -40, 80, -40.
    results = [{1: 30, 2: -30}, {1: -10, 2: 10}, {1: 30, 2: -30}]
    assert scores(results) == [{1: 40, 2: -40}, {1: -80, 2: 80}, {1: 40, 2: -40}]
    # Seat 1 at table 0 beats table 1 (2) and ties table 2 (1): 3; at table 1
    # it beats nobody: 0. Seat 2 at table 1 beats both: 4.
    assert matchpoints(results) == [{1: 3, 2: 1}, {1: 0, 2: 4}, {1: 3, 2: 1}]


def test_results_are_chips_at_the_end_less_the_starting_stack() -> None:
    assert chip_results(200, {0: 350, 1: 50, 2: 200}) == {0: 150, 1: -150, 2: 0}


def test_tables_that_seat_other_seats_or_a_lone_table_are_refused() -> None:
    with pytest.raises(ConfigError, match="table 1 reports seats"):
        scores([{1: 0, 2: 0}, {1: 0, 3: 0}])
    with pytest.raises(ConfigError, match="two or more tables"):
        matchpoints([{1: 0, 2: 0}])
