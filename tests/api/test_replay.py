"""A cursor is a public position (docs/api.md, Watching a table): any role
may replay a table from its start, ``0.0.0.0``, and gets exactly what it
would have got watching live, no more; an auditor gets the seed of each
ended hand and nothing else face down (docs/api.md, What auditors get)."""

import random
import time

import grpc
import pytest

from feltline.engine.cards.card import deck
from feltline.engine.cards.deck import commitment, shuffle
from feltline.engine.hand.rules import Game
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


def test_an_auditor_gets_each_ended_hands_seed_and_no_face_down_card(live: Live) -> None:
    table = _table(live, Game.HOLDEM)
    p1 = live.client(PLAYER, "p1")
    mine = _events(p1, table)
    next(iter(mine))
    _play(_seat(live, table, 3, random.Random(8)), 2)
    own = {
        (i.event.hand_number, i.event.card_dealt.position): i.event.card_dealt.card
        for i in _until_quiet(mine, live, table)
        if i.event.WhichOneof("kind") == "card_dealt" and i.event.card_dealt.seat == 1
    }
    mine.close()  # type: ignore[attr-defined]
    replay = _events(live.client(AUDITOR), table, START)
    items = _only_events(_until_quiet(replay, live, table))
    replay.close()  # type: ignore[attr-defined]
    ended = {
        i.event.hand_number: i.event.hand_ended for i in items if i.event.HasField("hand_ended")
    }
    assert len(ended) >= 2
    for number, end in ended.items():
        assert len(end.seed) == 32
        order = shuffle(end.seed, deck())  # docs/deck.md: the seed gives every card
        events = [i.event for i in items if i.event.hand_number == number]
        (started,) = [e.hand_started for e in events if e.HasField("hand_started")]
        assert started.commitment == commitment(end.seed)
        for event in events:
            kind = event.WhichOneof("kind")
            if kind == "deck_shuffled":
                assert event.redacted
                assert not event.deck_shuffled.HasField("seed")
                assert not event.deck_shuffled.HasField("cards")
            elif kind == "card_dealt" and not event.card_dealt.face_up:
                assert not event.card_dealt.HasField("card"), "a face-down card reached an auditor"
                derived = order[event.card_dealt.position]
                if (number, event.card_dealt.position) in own:
                    assert str(derived) == own[number, event.card_dealt.position]
            elif kind == "board_dealt":
                body = event.board_dealt
                assert [str(order[p]) for p in body.positions] == list(body.cards)
    assert {n for n, _ in own} & set(ended)


def test_a_hand_in_progress_shows_an_auditor_what_a_spectator_sees(live: Live) -> None:
    table = _table(live, Game.HOLDEM)
    _seat(live, table, 3, random.Random(9))  # seated, dealt in, nobody acts
    auditor, spectator = live.client(AUDITOR), live.client(SPECTATOR)
    deadline = time.monotonic() + 10
    while not auditor.get_table(table).HasField("current_hand"):
        assert time.monotonic() < deadline, "no hand was dealt"
        time.sleep(0.05)
    seen = auditor.get_table(table).current_hand
    assert seen == spectator.get_table(table).current_hand
    assert all(s.hidden_cards == 2 and not s.down_cards for s in seen.seats)
    snapshots = []
    for client in (auditor, spectator):
        stream = _events(client, table)
        snapshots.append(next(iter(stream)).snapshot)
        stream.close()  # type: ignore[attr-defined]
    assert snapshots[0] == snapshots[1]
    assert snapshots[0].hand_events


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
