"""The director's pure rules on their own: places by starting stacks,
prizes that add up to the pool, shared places, and the seat draws a
verifier re-derives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from feltline.engine import director

SEED = bytes(range(32))


@given(st.lists(st.integers(1, 50), min_size=1, max_size=8), st.integers(0, 20))
def test_a_larger_stack_finishes_higher_and_equal_stacks_share(
    stacks: list[int], after: int
) -> None:
    out = [(f"p{i}", stack) for i, stack in enumerate(stacks)]
    left = after + len(out)
    ranked = director.placings(out, left)
    place_of = {p: place for place, players in ranked for p in players}
    stack_of = dict(out)
    assert sorted(place_of) == sorted(stack_of)
    for a, place_a in place_of.items():
        for b, place_b in place_of.items():
            if stack_of[a] > stack_of[b]:
                assert place_a < place_b
            if stack_of[a] == stack_of[b]:
                assert place_a == place_b
    spans = sorted(p for place, players in ranked for p in range(place, place + len(players)))
    assert spans == list(range(after + 1, left + 1))


@given(
    st.integers(0, 10**7),
    st.lists(st.integers(1, 5000), min_size=1, max_size=9).map(sorted).map(lambda s: s[::-1]),
)
def test_the_prizes_add_up_to_the_pool_and_never_pay_a_lower_place_more(
    pool: int, raw: list[int]
) -> None:
    total = sum(raw)
    shares = [director.BASIS_POINTS * r // total for r in raw]
    shares[0] += director.BASIS_POINTS - sum(shares)
    prizes = director.prizes(pool, shares)
    assert sum(prizes) == pool
    assert list(prizes) == sorted(prizes, reverse=True)


@given(st.lists(st.integers(0, 1000), min_size=1, max_size=6), st.integers(1, 8), st.integers(1, 4))
def test_shared_places_split_their_prizes_to_the_chip(
    prize_list: list[int], place: int, sharing: int
) -> None:
    players = [f"p{i}" for i in range(sharing)]
    each = director.shared(prize_list, place, players)
    assert sum(each) == sum(prize_list[place - 1 : place - 1 + sharing])
    assert max(each) - min(each) <= 1
    assert each == sorted(each, reverse=True)  # odd chips to the first


def test_the_first_draw_seats_everyone_once_at_balanced_tables() -> None:
    players = [f"p{i}" for i in range(23)]
    seating = director.first_seating(SEED, 0, players, 6)
    assert sorted(p for p, _, _ in seating) == sorted(players)
    assert len({(t, s) for _, t, s in seating}) == 23
    counts = [sum(1 for _, t, _ in seating if t == n) for n in (1, 2, 3, 4)]
    assert counts == [6, 6, 6, 5]
    assert seating == director.first_seating(SEED, 0, players, 6)  # the seed decides
    assert seating != director.first_seating(SEED, 1, players, 6)  # each draw its own
