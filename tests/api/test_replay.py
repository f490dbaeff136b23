"""A cursor is a public position (docs/api.md, Watching a table): any role
may replay a table from its start, ``0.0.0.0``, and gets exactly what it
would have got watching live, no more."""

import random

import grpc
import pytest

from feltline.engine.rules import Game
from feltline_protos.v1 import auth_pb2, watch_pb2

from .conftest import Live
from .test_live import _events, _play, _seat, _table, _until_quiet

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
SPECTATOR, AUDITOR = auth_pb2.ROLE_SPECTATOR, auth_pb2.ROLE_AUDITOR
START = "0.0.0.0"


def _only_events(items: list[watch_pb2.WatchTableResponse]) -> list[watch_pb2.WatchTableResponse]:
    return [i for i in items if i.HasField("event")]


def _by_place(items: list[watch_pb2.WatchTableResponse]) -> dict[tuple[int, int], bytes]:
    """Each event message by its hand and sequence (hand 0: the table's)."""
    return {(i.event.hand_number, i.event.sequence): i.event.SerializeToString() for i in items}


def test_every_role_replays_from_the_start_what_it_saw_live_and_no_more(live: Live) -> None:
    table = _table(live, Game.HOLDEM)
    roles = {
        "p1": (PLAYER, "p1"),
        "spectator": (SPECTATOR, ""),
        "auditor": (AUDITOR, ""),
        "admin": (ADMIN, ""),
    }
    clients = {name: live.client(*role) for name, role in roles.items()}
    streams = {name: _events(c, table) for name, c in clients.items()}
    firsts = {name: next(iter(s)) for name, s in streams.items()}
    _play(_seat(live, table, 3, random.Random(7)), 2)
    for name, stream in streams.items():
        watched = _only_events(_until_quiet(stream, live, table))
        stream.close()  # type: ignore[attr-defined]
        replay = _events(clients[name], table, START)
        replayed = _only_events(_until_quiet(replay, live, table))
        replay.close()  # type: ignore[attr-defined]
        # The replay begins with what the live watch's snapshot summed up,
        # then the same events, each shown the same. (A table event recorded
        # during a hand may come at another point among the hand's events.)
        assert replayed[0].event.WhichOneof("kind") == "table_opened"
        assert replayed[0].cursor == firsts[name].cursor
        assert _by_place(replayed[1:]) == _by_place(watched), name
        assert len(replayed[1:]) == len(watched)


def test_a_cursor_past_the_table_is_refused(live: Live) -> None:
    table = _table(live, Game.HOLDEM)
    spectator = live.client(SPECTATOR)
    stub, metadata = spectator.watcher, spectator.metadata()
    for after in ("99.0.0.0", "1.5.0.0", "0.0.0", "a.b.c.d"):
        call = stub.WatchTable(
            watch_pb2.WatchTableRequest(table_id=table, after=after), metadata=metadata
        )
        with pytest.raises(grpc.RpcError) as raised:
            next(call)
        assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT, after  # type: ignore[attr-defined]
