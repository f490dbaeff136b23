"""Who is dealt in, where the button goes and who posts the blinds.

Seats are numbered clockwise, so "the next seat clockwise after s" is the
lowest seat above s, or the lowest seat of all when none is above. The button
moves one dealt-in seat clockwise each hand (a moving button, docs/rules.md); on a
table's first hand it starts at the lowest seat dealt in.

Hold'em newcomers wait for the big blind unless they chose to post one at
once. Three kinds of seat therefore reach :func:`blind_lineup`: regulars, who
play every hand; waiting newcomers, dealt in when the big blind falls on
their seat; and posting newcomers, dealt in at once with a big blind of their
own unless they sit between the button and the small blind (they would play
that position without paying for it) or the big blind falls on them anyway.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Lineup:
    """A hand's seats (ascending), button and blinds.

    ``extra_big_blinds`` are newcomers who post a big blind to be dealt in
    before the big blind reaches them; it is live, like the big blind's.
    """

    button: int
    seats: tuple[int, ...]
    small_blind: int | None = None
    big_blind: int | None = None
    extra_big_blinds: tuple[int, ...] = ()


def next_seat(after: int, among: Collection[int]) -> int:
    """The first of ``among`` clockwise after seat ``after``."""
    ordered = sorted(among)
    return next((seat for seat in ordered if seat > after), ordered[0])


def ante_lineup(players: Collection[int], last_button: int | None) -> Lineup:
    """Antes games deal in everyone given; only the button moves."""
    seats = tuple(sorted(players))
    button = seats[0] if last_button is None else next_seat(last_button, seats)
    return Lineup(button, seats)


def blind_lineup(
    regulars: Collection[int],
    waiting: Collection[int],
    posting: Collection[int],
    last_button: int | None,
    last_big_blind: int | None,
) -> Lineup:
    """Seat a hold'em hand.

    With fewer than two regulars nobody can wait for a blind that will not
    come round, so a new game starts with everyone and no extra blinds. If
    the big blind would fall on last hand's big blind (only possible after
    players leave, as when three players become two), the button moves one
    seat further, so that nobody posts the big blind twice in a row; heads-up
    that swaps who has the button.
    """
    established = set(regulars)
    newcomers = set(waiting) | set(posting)
    if len(established) < 2:
        established |= newcomers
        posting = ()
    button = min(established) if last_button is None else next_seat(last_button, established)
    lineup = _layout(button, established, newcomers, set(posting))
    if lineup.big_blind == last_big_blind:
        lineup = _layout(next_seat(button, established), established, newcomers, set(posting))
    return lineup


def _layout(button: int, established: set[int], newcomers: set[int], posting: set[int]) -> Lineup:
    small = next_seat(button, established)
    big = next_seat(small, established | newcomers)
    extra = {s for s in posting if s != big and not _between(s, button, small)}
    seats = tuple(sorted(established | {big} | extra))
    if len(seats) == 2:
        return Lineup(button, seats, small_blind=button, big_blind=small)
    return Lineup(button, seats, small, big, tuple(sorted(extra)))


def _between(seat: int, start: int, end: int) -> bool:
    """Whether ``seat`` is strictly clockwise after ``start`` and before ``end``."""
    if start < end:
        return start < seat < end
    return seat > start or seat < end
