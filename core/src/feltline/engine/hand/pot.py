"""Pots, side pots, odd chips and rake, in whole chips.

A hand's money is kept as each seat's total contribution so far. When betting
is over, :func:`return_uncalled` gives back the part of a bet nobody matched,
then :func:`collect` cuts the rest into a main pot and side pots, each with
the seats that may win it. :func:`rake` takes the house's share, main pot
first, and :func:`split` / :func:`split_high_low` share a pot among winners
with the odd chips placed as the house rules say. Seats are ints; chips are
ints and never floats, so every step can be re-checked exactly by an auditor.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

BASIS_POINTS = 10_000
"""A rake rate is in basis points: 500 is 5 %, 10 000 is the whole pot."""


@dataclass(frozen=True, slots=True)
class Pot:
    """Chips that only the ``eligible`` seats (ascending seat numbers) can win."""

    amount: int
    eligible: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.amount < 0:
            raise ValueError(f"a pot cannot hold {self.amount} chips")
        if not self.eligible:
            raise ValueError("a pot needs at least one seat that can win it")
        if any(a >= b for a, b in pairwise(self.eligible)):
            raise ValueError(f"eligible seats must be distinct and ascending: {self.eligible}")


def return_uncalled(
    contributions: Mapping[int, int],
) -> tuple[dict[int, int], int | None, int]:
    """Give back the part of the largest contribution that nobody matched.

    Returns the contributions after the return, the seat paid back (None if
    the largest contribution is shared, so nothing was uncalled) and the
    amount. Every contributor counts when finding what was matched, folded
    seats included: chips a player matched before folding still matched.
    The uncalled part goes back even to a seat that folded (only possible by
    folding when it could check): nobody could ever have won it.
    """
    _check_contributions(contributions)
    after = dict(contributions)
    ranked = sorted(after.items(), key=lambda item: item[1], reverse=True)
    if not ranked:
        return after, None, 0
    seat, highest = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0
    if highest == second:
        return after, None, 0
    after[seat] = second
    return after, seat, highest - second


def collect(contributions: Mapping[int, int], live: Collection[int]) -> tuple[Pot, ...]:
    """The main pot then the side pots, from each seat's contribution this hand.

    Call it once betting is over and uncalled chips are returned: every live
    seat that is not all in has then put in the same amount, so the distinct
    contributions of the live seats are the all-in levels plus the top. Each
    level closes a pot that the live seats who reached it may win; folded
    seats' chips fill the pots up to what they put in, but they win none.
    Two all-ins for the same amount make one level, so neighbouring pots never
    share an eligible set: the seat that closed a pot is not in the next one.
    Folded chips above every live seat's contribution (two folded seats
    having matched each other) are dead money in the top pot.
    """
    _check_contributions(contributions)
    if not live:
        raise ValueError("a hand that forms pots has at least one live seat")
    stake = {seat: contributions.get(seat, 0) for seat in live}
    levels = sorted(set(stake.values()))
    if len(levels) == 1:  # nobody live is all in for less: one pot, every chip in it
        amount = sum(contributions.values())
        return (Pot(amount, tuple(sorted(stake))),) if amount else ()
    ceiling = max(contributions.values(), default=0)
    pots: list[Pot] = []
    floor = 0
    for level in levels:
        top = ceiling if level == levels[-1] else level
        amount = sum(min(c, top) - min(c, floor) for c in contributions.values())
        if amount:
            eligible = tuple(sorted(seat for seat, put_in in stake.items() if put_in >= level))
            pots.append(Pot(amount, eligible))
        floor = level
    return tuple(pots)


def split(amount: int, winners: Sequence[int]) -> dict[int, int]:
    """Share ``amount`` equally; odd chips go one each to winners in the given order.

    The caller orders the winners by the house rule: clockwise from the first
    seat left of the button, or by the stud highest (high) / lowest (low) card.
    """
    if amount < 0:
        raise ValueError(f"cannot split {amount} chips")
    if not winners:
        raise ValueError("a pot is split among at least one winner")
    if len(set(winners)) != len(winners):
        raise ValueError(f"a winner is listed twice: {list(winners)}")
    share, odd = divmod(amount, len(winners))
    return {seat: share + (1 if place < odd else 0) for place, seat in enumerate(winners)}


def split_high_low(amount: int) -> tuple[int, int]:
    """The high half and the low half of a pot; the odd chip goes high."""
    if amount < 0:
        raise ValueError(f"cannot split {amount} chips")
    low = amount // 2
    return amount - low, low


def rake(pots: Sequence[Pot], *, basis_points: int, cap: int) -> tuple[tuple[Pot, ...], int]:
    """Take floor(pot x rate) from each pot, main pot first, until ``cap`` is used up.

    The rate is an int in basis points so that the rake is exact integer
    arithmetic any verifier can redo. Returns the pots less their rake, in the
    same order, and the total rake. Whether a hand is raked at all is the
    caller's decision.
    """
    if not 0 <= basis_points <= BASIS_POINTS:
        raise ValueError(f"a rake rate is 0 to {BASIS_POINTS} basis points, not {basis_points}")
    if cap < 0:
        raise ValueError(f"a rake cap cannot be {cap}")
    left = cap
    raked: list[Pot] = []
    for pot in pots:
        take = min(pot.amount * basis_points // BASIS_POINTS, left)
        left -= take
        raked.append(replace(pot, amount=pot.amount - take))
    return tuple(raked), cap - left


def _check_contributions(contributions: Mapping[int, int]) -> None:
    negative = {seat: c for seat, c in contributions.items() if c < 0}
    if negative:
        raise ValueError(f"contributions cannot be negative: {negative}")
