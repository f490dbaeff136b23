"""Declarations are simultaneous: one player's declaration does not make
another's, made from the same view of the hand, stale."""

from __future__ import annotations

import time
from uuid import UUID

import grpc
import pytest

from feltline.api import convert
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.table.house import TableConfig
from feltline_client import Client, FeltlineError, Seen
from feltline_protos.v1 import auth_pb2, tables_pb2

from .conftest import Live

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
DECLARE = Rules(Game.DRAW_DECLARE, Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5))


def _to_the_declaration(live: Live, seats: int) -> tuple[str, dict[int, Client], int]:
    """A draw-declare hand checked and stood pat through to its declaration:
    the table, each seat's player, and the last sequence seen before it."""
    admin = live.client(ADMIN)
    config = TableConfig(DECLARE, 6, min_buy_in=100, max_buy_in=500)
    table = admin.create_table(convert.table_config(config), "declare").table_id
    players = {}
    for n in range(1, seats + 1):
        admin.mint_chips(f"p{n}", 1000)
        players[n] = live.client(PLAYER, f"p{n}")
        players[n].sit_down(table, n, 500)
    deadline = time.monotonic() + 10
    while live.room.table(UUID(table)).table.dealt is None:
        assert time.monotonic() < deadline, "the dealer never dealt"
        time.sleep(0.05)
    before = 0
    while True:
        view = players[1].get_table(table).current_hand
        if view.phase == tables_pb2.HAND_PHASE_DECLARING:
            return table, players, before
        seat = view.turn.seat
        before = view.sequence
        if view.phase == tables_pb2.HAND_PHASE_DRAWING:
            players[seat].draw(table, Seen.of(view), [])
        else:
            players[seat].check(table, Seen.of(view))


def test_declarations_from_the_same_view_all_count(live: Live) -> None:
    table, players, _ = _to_the_declaration(live, 3)
    seen = Seen.of(players[1].get_table(table).current_hand)
    first = players[1].declare(table, seen, "low")
    second = players[2].declare(table, seen, "high")
    assert [e.WhichOneof("kind") for e in first.events] == ["declared"]
    assert [e.WhichOneof("kind") for e in second.events] == ["declared"]
    assert second.events[0].sequence == first.events[0].sequence + 1 == seen.sequence + 2
    assert second.sequence == seen.sequence + 2
    last = players[3].declare(table, seen, "both")
    kinds = [e.WhichOneof("kind") for e in last.events]
    assert kinds[:2] == ["declared", "declarations_revealed"]
    assert "hand_ended" in kinds


def test_a_declaration_from_before_the_declaring_step_is_stale(live: Live) -> None:
    table, players, before = _to_the_declaration(live, 3)
    seen = Seen.of(players[1].get_table(table).current_hand)
    with pytest.raises(FeltlineError) as stale:
        players[1].declare(table, Seen(seen.hand_number, before), "low")
    assert stale.value.code is grpc.StatusCode.FAILED_PRECONDITION
    assert stale.value.reason == "STALE_STATE"
    assert stale.value.metadata["sequence"] == str(seen.sequence)
    players[1].declare(table, seen, "low")
    with pytest.raises(FeltlineError) as again:  # a seat declares once
        players[1].declare(table, seen, "high")
    assert again.value.reason == "STALE_STATE"
    with pytest.raises(FeltlineError) as ahead:  # nobody has seen this yet
        players[2].declare(table, Seen(seen.hand_number, seen.sequence + 5), "high")
    assert ahead.value.reason == "STALE_STATE"
