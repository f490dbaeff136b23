"""A cardroom played by the store's random players, and the projections
following it."""

from __future__ import annotations

import random
from collections.abc import Sequence
from uuid import UUID

from feltline.projections.follow import Follower
from feltline.projections.view import View
from feltline.store.room import Room
from tests.store.players import PLAYERS, Players, open_tables


def play(
    room: Room,
    tables: int,
    steps: int,
    seed: int = 7,
    first: int = 0,
    *,
    pool: Sequence[str] = PLAYERS,
) -> list[UUID]:
    """``steps`` requests at each of ``tables`` tables (from the ``first``-th
    of the store's players' tables on), taking turns, by players of ``pool``."""
    rng = random.Random(seed)
    opened = open_tables(room, first + tables)[first:]
    players = [Players(room, t, rng, pool=pool) for t in opened]
    for _ in range(steps):
        for p in players:
            p.step()
    return opened


def rows(view: View) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table of a view, in order, to compare two builds."""
    return {t: sorted(view.rows(f"SELECT * FROM {t}"), key=repr) for t in view.tables}


def views(follower: Follower) -> Sequence[View]:
    return [follower.view(p) for p in follower.projections]
