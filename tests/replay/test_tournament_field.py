"""A multi-table tournament of 200 bots played to its end, then re-checked
by ``feltline-replay tournament`` and ``feltline-replay verify``.

The bots drive the Room directly (a request each, committed to a SQLite
store, as the API's handlers call it), not 200 gRPC clients: on two cores
that is what plays 23 tables to the end in the time of a test. Each table
is dealt in turn and its hand played out by random bots (mostly calls, a
raise now and then, an all-in rarely, which the others mostly call, so
players bust together); the levels go up every 4 hands. It takes about 20
s of CPU (the play, then both verifiers); on a 2-core machine under
a load of 9 it took 37 s by the clock, under 16 three minutes.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.domain.ids import pool_id, tournament_table_id
from feltline.engine.errors import RuleError
from feltline.engine.tournament import PlayerMoved, TableBroken
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_replay.cli import main as replay
from tests.store.players import cid
from tests.store.test_tournament import BUY_IN, STACK, assert_ranked, create, move, players

ENTRANTS = 200


def test_two_hundred_bots_play_to_the_end_and_it_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "feltline.db"
    signer = Signer.generate()
    room = Room(Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env))
    key = create(room, entrants=ENTRANTS, size=9)
    for name in players(room, ENTRANTS):
        room.register_tournament(key, cid(), name, at=0)
    assert len(room.tournament(key).tournament.tables) == 23
    rng = random.Random(200)
    hands = 0
    while not (state := room.tournament(key).tournament).over:
        assert state.chips == ENTRANTS * STACK  # between rounds, every chip is at a table
        for number in sorted(state.tables):
            table = tournament_table_id(key, number)
            try:
                room.deal_tournament(table, at=0)
            except RuleError:
                continue
            hands += 1
            while room.table(table).table.dealt is not None:
                move(room, table, rng)
    stream = room.tournament(key)
    state = stream.tournament
    assert room.account(pool_id(key)).balance == 0
    room.close()
    assert state.finished is not None
    assert_ranked(state.placed.values(), ENTRANTS)
    assert len(state.placed) == ENTRANTS
    assert sum(state.paid.values()) == ENTRANTS * BUY_IN
    events = [e for _, made in stream.commands.values() for e in made]
    assert any(isinstance(e, PlayerMoved) for e in events)
    assert sum(isinstance(e, TableBroken) for e in events) == 22
    assert hands > 100
    capsys.readouterr()

    store = ["--store", str(path), "--public-key", signer.public_hex]
    assert replay(["tournament", str(key), *store]) == 0
    out = capsys.readouterr().out
    assert f"{ENTRANTS} entrants" in out
    assert f"{hands} hands, {ENTRANTS} placed, {ENTRANTS * BUY_IN} paid: ok" in out
    assert replay(["verify", *store]) == 0
