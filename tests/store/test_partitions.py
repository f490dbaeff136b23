"""A PostgreSQL store whose log is split into partitions (docs/store.md,
"Partitions"): the number is fixed when the store is made, each commit is
stored whole in one partition (a table's with its hands), and whoever
follows the log reads every partition, each stream's records in order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import defaultdict
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import Tracking

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.domain.ids import hand_id
from feltline.projections.follow import Follower, Log
from feltline.projections.ledger import Ledger, LedgerView
from feltline.projections.projector import Projector
from feltline.projections.view import open_view
from feltline.store.check import check
from feltline.store.config import StoreConfig
from feltline.store.leases import FencedRecorder, PartitionsError
from feltline.store.streams import Streams
from tests.postgres import store_env
from tests.projections.bots import ledger_matches_streams, play, rows

K = 4


def _env(schema: str, partitions: str | None = None) -> dict[str, str]:
    more = {} if partitions is None else {"FELTLINE_PARTITIONS": partitions}
    return StoreConfig.from_env(store_env(schema, **more)).env


def _partitions(streams: Streams) -> int:
    recorder = streams.recorder
    assert isinstance(recorder, FencedRecorder)
    return recorder.partitions


def test_a_store_keeps_the_partitions_it_was_made_with(postgres_schema: str) -> None:
    signer = Signer.generate()
    made = Streams(signer, env=_env(postgres_schema, str(K)))
    try:
        assert _partitions(made) == K
    finally:
        made.close()
    again = Streams(signer, env=_env(postgres_schema))  # nothing asked: as made
    try:
        assert _partitions(again) == K
    finally:
        again.close()
    with pytest.raises(PartitionsError, match="made with 4 partitions, not 2"):
        Streams(signer, env=_env(postgres_schema, "2"))


@pytest.mark.parametrize("asked", ["0", "65", "many"])
def test_a_number_of_partitions_out_of_range_is_refused(postgres_schema: str, asked: str) -> None:
    with pytest.raises(PartitionsError, match=f"not {asked!r}|not {asked}"):
        Streams(Signer.generate(), env=_env(postgres_schema, asked))


def test_a_store_made_before_partitions_opens_as_one(postgres_schema: str) -> None:
    """A store with events and no setting was made before partitions
    existed: it has one, whatever is asked of a new store."""
    signer = Signer.generate()
    room = Room(Streams(signer, env=_env(postgres_schema)))
    try:
        room.mint("m1", "ann", 100, by="admin")
    finally:
        room.close()
    Streams(signer, env=_env(postgres_schema)).close()
    with Log(env=_env(postgres_schema)) as log:
        recorder = log.recorder
        assert isinstance(recorder, FencedRecorder)
        with recorder.datastore.transaction(commit=True) as curs:
            curs.execute(f"DELETE FROM {postgres_schema}.feltline_settings")
    opened = Room(Streams(signer, env=_env(postgres_schema)))
    try:
        assert _partitions(opened.streams) == 1
        assert opened.balance("ann") == 100
    finally:
        opened.close()
    with pytest.raises(PartitionsError, match="made with 1 partition, not 4"):
        Streams(signer, env=_env(postgres_schema, str(K)))


def test_a_table_and_its_hands_are_stored_in_one_partition_and_accounts_span_several(
    postgres_schema: str,
) -> None:
    """Writers in different partitions do not wait for one another; a
    table's commits, its hands' included, are in its own."""
    room = Room(Streams(Signer.generate(), env=_env(postgres_schema, str(K))))
    try:
        tables = play(room, 8, 60)
        recorder = room.streams.recorder
        assert isinstance(recorder, FencedRecorder)
        placed: dict[UUID, set[int]] = defaultdict(set)
        for n in room.streams.notifications():
            placed[UUID(str(n.originator_id))].add((n.id - 1) % K)
        for table in tables:
            assert placed[table] == {recorder.home(table)}
            number = 1
            while (hand := hand_id(table, number)) in placed:
                assert placed[hand] == {recorder.home(table)}
                number += 1
            assert number > 2  # hands were played
        assert len({recorder.home(t) for t in tables}) > 1
        assert any(len(p) > 1 for p in placed.values())  # an account's buy-ins, at tables
        ledger = check(room.streams)
        assert ledger.problems == []
    finally:
        room.close()
    verified = subprocess.run(  # the auditor's tool reads every partition
        [sys.executable, "-m", "feltline_replay", "verify", "--store", "postgres", "--json"],
        env={**os.environ, **store_env(postgres_schema)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]
    assert json.loads(verified.stdout)["hands"] == ledger.finished > 0


def test_each_process_appends_to_a_partition_of_its_own(postgres_schema: str) -> None:
    """Once a process knows its place among the live ones (the keeper's
    round), it stores every commit in its own partition, so two processes
    never wait for each other's turn; the projector and the auditor's tool
    still read every stream in order."""
    env = _env(postgres_schema, str(K))
    signer = Signer.generate()
    rooms = [Room(Streams(signer, env=env, server=name)) for name in ("a", "b")]
    try:
        for _ in range(2):  # the second round: both are live, each learns its rank
            for room in rooms:
                room.owners.keep()
        ranks = [room.streams.owner.rank for room in rooms]
        assert ranks == [0, 1]
        played = [play(room, 3, 40, first=3 * n) for n, room in enumerate(rooms)]
        placed: dict[UUID, set[int]] = defaultdict(set)
        for n in rooms[0].streams.notifications():
            placed[UUID(str(n.originator_id))].add((n.id - 1) % K)
        for rank, tables in zip(ranks, played, strict=True):
            for table in tables:
                assert placed[table] == {rank}
                assert placed[hand_id(table, 1)] == {rank}
        view = open_view(LedgerView, env)
        Follower(rooms[0].streams, [Ledger(view)]).catch_up()
        ledger_matches_streams(rooms[0], view, [t for tables in played for t in tables])
    finally:
        for room in rooms:
            room.close()


class _Order(Ledger):
    """The ledger, noting the order it was given each stream's records."""

    def __init__(self, view: LedgerView) -> None:
        super().__init__(view)
        self.seen: dict[UUID, list[int]] = defaultdict(list)

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.seen[domain_event.originator_id].append(domain_event.originator_version)
        super().process_event(domain_event, tracking)


def test_the_projector_applies_each_stream_in_order_and_ends_equal_to_a_rebuild(
    postgres_schema: str,
) -> None:
    """An account's records lie in several partitions; read partition by
    partition, a cash-out could be applied before the buy-in it follows."""
    env = _env(postgres_schema, str(K))
    room = Room(Streams(Signer.generate(), env=env))
    log = Log(env=env)
    try:
        tables = play(room, 8, 80)
        ordered = _Order(open_view(LedgerView, env, log.recorder))  # type: ignore[arg-type]
        follower = Follower(log, [ordered])
        while follower.step(limit=37):  # pages that end anywhere
            pass
        for stream, versions in ordered.seen.items():
            assert versions == sorted(versions), stream
        assert any(len(v) > 2 for v in ordered.seen.values())
        projector = Projector(log, env)
        projector.follower.catch_up()
        ledger_matches_streams(room, projector.view("ledger"), tables)
        live = {name: rows(view) for name, view in projector.views.items()}
        projector.rebuild()
        assert {name: rows(view) for name, view in projector.views.items()} == live
    finally:
        log.close()
        room.close()


def test_another_writer_is_seen_in_every_partition(postgres_schema: str) -> None:
    env = _env(postgres_schema, str(K))
    signer = Signer.generate()
    here = Room(Streams(signer, env=env, server="here"))
    there = Room(Streams(signer, env=env, server="there"))
    try:
        seen = here.streams.elsewhere.look()
        for n in range(8):  # accounts in every partition, stored here
            here.mint(f"here-{n}", f"player {n}", 10, by="admin")
        assert here.streams.elsewhere.look() == seen
        there.mint("there-1", "ann", 10, by="admin")
        assert here.streams.elsewhere.look() == seen + 1
    finally:
        here.close()
        there.close()


@pytest.mark.parametrize("partitions", ["1", str(K)])
def test_an_append_is_heard_by_another_process_at_once(
    postgres_schema: str, partitions: str
) -> None:
    """The notice goes out after the append commits, in a transaction of its
    own (PostgreSQL queues every notifying transaction database-wide until
    its commit is flushed, which would make one queue of the partitions)."""
    env = _env(postgres_schema, partitions)
    signer = Signer.generate()
    listening = Streams(signer, env=env, server="listening")
    writing = Room(Streams(signer, env=env, server="writing"))
    heard = threading.Event()
    notices = listening.hear(heard.set)
    assert notices is not None
    try:
        time.sleep(1.0)  # listening
        heard.clear()
        writing.mint("m1", "ann", 10, by="admin")
        assert heard.wait(5.0)
    finally:
        notices.stop()
        listening.close()
        writing.close()
