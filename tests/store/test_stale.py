"""Two rooms on one store, as two servers are: a decision names the hand
position its player saw, and is refused, never applied to a later state,
however the writes of the two interleave; a request that commits after a
retry reports where its events were stored."""

from __future__ import annotations

import threading
from uuid import UUID

import pytest

from feltline.cardroom.errors import Stale
from feltline.cardroom.room import Room
from feltline.domain.table import TableRecord
from feltline.engine.hand.events import Acted, Action
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.events import HandFinished

from .conftest import Store
from .test_room import seated

# "looks": the second room asks the store before deciding, as every request
# does. "behind": the other room's writes land after that look, so the room
# decides on its old copy and only the append itself can tell.
WHEN = ["looks", "behind"]


def _heads_up(room: Room) -> tuple[UUID, int, int]:
    """A dealt heads-up hand: the table, the seat to act first and the other."""
    table = seated(room, 2)
    room.deal(table, "d1", at=0)
    first = waiting_on(room.hand(table, 1).hand)[0]
    return table, first, 3 - first


def _seen(room: Room, table: UUID) -> int:
    room.look()
    return room.hand(table, 1).version


def _behind(room: Room, when: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if when == "behind":
        monkeypatch.setattr(room, "look", lambda: None)


@pytest.mark.parametrize("when", WHEN)
def test_a_call_decided_on_an_older_raise_is_refused(
    store: Store, when: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = store.room(), store.room()
    table, x, y = _heads_up(a)
    a.act(table, 1, "x-call", x, Action.CALL, at=0, seen=_seen(a, table))
    b.act(table, 1, "y-20", y, Action.RAISE, amount=20, at=0, seen=_seen(b, table))
    s2 = _seen(a, table)  # X sees the raise to 20 through A ...
    _behind(b, when, monkeypatch)
    a.act(table, 1, "x-30", x, Action.RAISE, amount=30, at=0, seen=s2)
    a.act(table, 1, "y-40", y, Action.RAISE, amount=40, at=0, seen=_seen(a, table))
    now = _seen(a, table)
    with pytest.raises(Stale) as refused:  # ... and sends a call decided at S2 through B
        b.act(table, 1, "x-call-s2", x, Action.CALL, at=0, seen=s2)
    assert (refused.value.hand, refused.value.sequence) == (1, now)
    assert _seen(a, table) == now  # nothing was stored
    assert "x-call-s2" not in a.hand(table, 1).commands


@pytest.mark.parametrize("when", WHEN)
def test_one_decision_under_two_request_ids_is_applied_once(
    store: Store, when: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = store.room(), store.room()
    table, x, y = _heads_up(a)
    a.act(table, 1, "x-call", x, Action.CALL, at=0, seen=_seen(a, table))
    seen = _seen(b, table)  # the big blind may check ...
    _behind(b, when, monkeypatch)
    a.act(table, 1, "check-1", y, Action.CHECK, at=0, seen=seen)  # ... sent through A
    flop = _seen(a, table)
    with pytest.raises(Stale):  # ... and again, under a new id, through B
        b.act(table, 1, "check-2", y, Action.CHECK, at=0, seen=seen)
    checks = [
        e
        for _, events in a.hand(table, 1).commands.values()
        for e in events
        if isinstance(e, Acted) and e.action is Action.CHECK
    ]
    assert len(checks) == 1
    assert _seen(a, table) == flop


def test_the_same_request_through_the_other_room_is_answered_as_the_first(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = store.room(), store.room()
    table, x, _ = _heads_up(a)
    seen = _seen(b, table)
    _behind(b, "behind", monkeypatch)
    first = a.act(table, 1, "x-call", x, Action.CALL, at=0, seen=seen)
    again = b.act(table, 1, "x-call", x, Action.CALL, at=0, seen=seen)
    assert again == first
    assert again.repeated
    assert not first.repeated


def test_a_request_committed_after_a_retry_reports_where_it_was_stored(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = store.room(), store.room()
    table, x, y = _heads_up(a)
    seen = _seen(b, table)
    table_before = b.table(table).version
    _behind(b, "behind", monkeypatch)
    a.stand_up(table, "y-leaves", y, at=0)  # a table event B does not know of
    outcome = b.act(table, 1, "x-folds", x, Action.FOLD, at=0, seen=seen)  # ends the hand
    assert outcome.hand_at == seen
    records = list(b.streams.events.get(table, gt=table_before))
    finished = [
        r.originator_version
        for r in records
        if isinstance(r, TableRecord) and r.type == HandFinished.__name__
    ]
    assert finished == [outcome.table_at + 1]
    assert outcome.table_at > table_before  # after the stand-up B had not seen


def _race(
    rooms: list[Room], table: UUID, number: int, *, seen: int, move: tuple[int, Action], key: str
) -> list[str]:
    """Send one decision through each room at once, under its own id."""
    seat, action = move
    start = threading.Barrier(len(rooms))
    results: list[str] = []

    def send(room: Room, name: str) -> None:
        start.wait()
        try:
            room.act(table, number, f"{name}-{key}", seat, action, at=0, seen=seen)
            results.append("applied")
        except Stale:
            results.append("stale")

    threads = [threading.Thread(target=send, args=(r, f"r{i}")) for i, r in enumerate(rooms)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive()
    return results


def test_racing_the_same_decision_through_two_rooms_applies_it_once_in_hundreds_of_rounds(
    store: Store,
) -> None:
    """Each round, the player to act sends one decision through both rooms at
    once, under two request ids, decided on the same position: exactly one is
    applied and the other refused as stale, round after round and hand after
    hand."""
    a, b = store.room(), store.room()
    table = seated(a, 2)
    rounds = 0
    while rounds < 300:
        a.look()
        t = a.table(table).table
        if t.dealt is None:
            a.deal(table, f"deal-{t.hands + 1}", at=0)
            continue
        hand = a.hand(table, t.hands)
        seat = waiting_on(hand.hand)[0]
        p = hand.hand.player(seat)
        action = Action.CHECK if p.bet == hand.hand.round.level else Action.CALL
        results = _race(
            [a, b], table, t.hands, seen=hand.version, move=(seat, action), key=str(rounds)
        )
        assert sorted(results) == ["applied", "stale"], results
        a.look()
        stored = a.streams.get(hand.id).commands
        assert sum(1 for k in (f"r0-{rounds}", f"r1-{rounds}") if k in stored) == 1
        rounds += 1


def test_a_room_that_did_not_write_last_reads_what_the_other_stored_after_a_look(
    store: Store,
) -> None:
    a, b = store.room(), store.room()
    table, x, _ = _heads_up(a)
    assert _seen(b, table) == _seen(a, table)  # B holds the hand now
    a.act(table, 1, "x-call", x, Action.CALL, at=0, seen=_seen(a, table))
    b.look()
    assert b.hand(table, 1).version == a.hand(table, 1).version
    assert (b.table(table).version, b.table(table).table) == (
        a.table(table).version,
        a.table(table).table,
    )


def test_a_decision_for_a_hand_that_ended_names_the_current_hands_sequence(
    store: Store,
) -> None:
    a = store.room()
    table, x, _ = _heads_up(a)
    seen = _seen(a, table)
    a.act(table, 1, "x-folds", x, Action.FOLD, at=0, seen=seen)
    a.deal(table, "d2", at=0)
    with pytest.raises(Stale) as refused:
        a.act(table, 1, "x-again", x, Action.CALL, at=0, seen=seen)
    assert refused.value.hand == 2
    assert refused.value.sequence == a.hand(table, 2).version > 0


def test_a_current_decision_is_not_refused_by_a_room_that_had_not_looked(
    store: Store,
) -> None:
    """A room that has never seen another writer does not ask the store
    before each request; a refusal is checked against the store first."""
    a, b = store.room(), store.room()
    table, x, y = _heads_up(a)
    b.hand(table, 1)  # B holds the hand as dealt
    a.act(table, 1, "x-call", x, Action.CALL, at=0, seen=_seen(a, table))
    assert b.streams.elsewhere.epoch == 0  # B has not looked since
    seen = a.hand(table, 1).version  # what Y saw, through A
    done = b.act(table, 1, "y-checks", y, Action.CHECK, at=0, seen=seen)
    assert not done.repeated
    assert done.hand_at == seen
