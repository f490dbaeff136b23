"""A cardroom played by the store's random players, and the projections
following it."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Mapping, Sequence
from uuid import UUID

from feltline.cardroom.room import Room
from feltline.domain.ids import account_id
from feltline.projections.follow import Follower
from feltline.projections.ledger import account_book, books
from feltline.projections.view import View
from feltline.store.check import check
from feltline.store.config import StoreConfig
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
    opened = open_tables(room, first + tables, first)  # its own: another process owns the rest
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


PROJECT = [sys.executable, "-c", "import sys; from feltline.cli import main; sys.exit(main())"]


def projector_process(env: Mapping[str, str], *args: str) -> subprocess.Popen[bytes]:
    """``feltline project`` in a process of its own, on the store ``env`` names."""
    return subprocess.Popen(
        [*PROJECT, "project", *args],
        env={**os.environ, **StoreConfig.from_env(env).env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def ledger_matches_streams(room: Room, ledger: View, tables: Sequence[UUID]) -> None:
    """The ledger's books hold what the streams do: what was minted, every
    player's account, every table's house. A notification skipped or
    applied twice would move one of them."""
    room.look()  # another writer's commits too
    balances = books(ledger)
    minted = check(room.streams)
    assert minted.balanced, minted.problems
    assert -balances["mint"] == minted.minted > 0
    assert balances.get("cashier", 0) == minted.cashed_out
    for player in PLAYERS:
        assert balances.get(account_book(account_id(player)), 0) == room.balance(player)
    for table in tables:
        assert balances.get(f"house:{table}", 0) == room.table(table).table.house
