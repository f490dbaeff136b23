"""A store whose database goes away answers at once that it is away
(docs/store.md, "When the database is away"): no call waits out the pool's
timeout ten times over, and the first call that reaches the database
again ends the outage. Through a proxy the test cuts (tests/postgres.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import grpc
import pytest
from eventsourcing.persistence import OperationalError

from feltline.api.errors import from_exception
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.store.config import StoreConfig
from feltline.store.faults import StoreAway
from feltline.store.leases import FencedRecorder
from feltline.store.streams import Streams
from tests.postgres import PG, Outage, store_env

AWAY = 20.0  # seconds the database stays away: far past any answer expected while it is


@pytest.fixture
def outage() -> Iterator[Outage]:
    proxy = Outage((str(PG["host"]), int(PG["port"])))
    yield proxy
    proxy.close()


def test_calls_while_the_database_is_away_are_answered_at_once(
    outage: Outage, postgres_schema: str
) -> None:
    env = StoreConfig.from_env(store_env(postgres_schema, POSTGRES_PORT=str(outage.port))).env
    room = Room(Streams(Signer.generate(), env=env))
    recorder = room.streams.recorder
    assert isinstance(recorder, FencedRecorder)
    try:
        room.mint("before", "ann", 10, by="admin")
        outage.cut()
        cut = time.monotonic()
        answers: list[tuple[float, BaseException | None]] = []

        def mint(n: int) -> None:
            try:
                room.mint(f"while-{n}", "ann", 5, by="admin")
            except Exception as e:
                answers.append((time.monotonic() - cut, e))
            else:
                answers.append((time.monotonic() - cut, None))

        callers = [threading.Thread(target=mint, args=(n,)) for n in range(4)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join(AWAY)
        still_away = time.monotonic() - cut < AWAY
        assert still_away  # so every answer below came while it was away
        assert len(answers) == 4
        for _, error in answers:
            assert isinstance(error, OperationalError | StoreAway)
            refused = from_exception(error)
            assert refused.code == grpc.StatusCode.UNAVAILABLE  # with a retry hint
        assert recorder.away.since is not None
        outage.mend()
        balance = None
        for _ in range(60):  # as a client told to try again: until the pool reconnects
            try:
                balance = room.mint("after", "ann", 1, by="admin")
                break
            except StoreAway:
                time.sleep(0.5)
        assert balance == 11  # nothing stored while it was away
        assert recorder.away.since is None  # reached: the outage is over
    finally:
        outage.mend()
        room.close()
