"""A view built from old event versions equals one built from new ones.

Bots play a cardroom; its log is then copied twice into fresh stores: once
as stored, and once put back into the first layouts: records at class
version 1 (no chain link, signature or hand time) and the events with an
upcaster (``TableOpened``, ``HandStarted``, ``HandDealt``) at codec version
1. Every view built from the old copy equals, row for row, the one built
from the new."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import resolve_topic

from feltline.audit.codec import UPCASTERS
from feltline.domain.account import AccountEvent
from feltline.domain.hand import Recorded
from feltline.domain.table import TableRecord
from feltline.projections.follow import Log
from feltline.projections.projector import Projector
from feltline.store.config import StoreConfig
from tests.audit.layouts import DOWNCASTERS, as_stored
from tests.postgres import store_env
from tests.projections.bots import play, rows
from tests.projections.conftest import Store

Fresh = Callable[[], dict[str, str]]


@pytest.fixture
def fresh(store: Store, tmp_path: Path) -> Iterator[Fresh]:
    """Empty stores of the same kind as ``store``."""
    made: list[str] = []
    on_postgres = "POSTGRES_DBNAME" in store.env

    def one() -> dict[str, str]:
        if not on_postgres:
            return {"SQLITE_DBNAME": str(tmp_path / f"copy-{uuid.uuid4().hex[:8]}.db")}
        schema = f"feltline_test_{uuid.uuid4().hex[:12]}"
        store.sql(f"CREATE SCHEMA {schema}")
        made.append(schema)
        return store_env(schema)

    yield one
    for schema in made:
        store.sql(f"DROP SCHEMA {schema} CASCADE")


# What each record's upcast from class version 1 fills in, by the classes it applies to.
ADDED_SINCE_V1: list[tuple[type[Any], tuple[str, ...]]] = [
    (TableRecord, ("link", "signature", "signed_by")),
    (AccountEvent, ("link", "signature", "signed_by")),
    (Recorded, ("at", "signature", "signed_by", "timed")),
]


def as_first_stored(state: dict[str, Any], cls: type[Any]) -> tuple[dict[str, Any], bool]:
    """The record's state as the first layouts had it, and whether it changed."""
    old = dict(state)
    for base, added in ADDED_SINCE_V1:
        if issubclass(cls, base) and old.pop("class_version", 1) > 1:
            for name in added:
                del old[name]
    name, version = old.get("type"), old.get("version", 1)
    if (name, version) in DOWNCASTERS:
        old["data"] = as_stored(name, old["data"], version, 1)
        old["version"] = 1
    return old, old != state


def test_views_built_from_old_event_versions_equal_views_built_from_new(
    store: Store, fresh: Fresh
) -> None:
    assert {(name, v + 1) for name, v in UPCASTERS} == set(DOWNCASTERS)  # none missed
    room = store.room()
    play(room, 4, 120)
    stored = room.streams.recorder.select_notifications(1, 10**6)
    transcoder = room.streams.mapper.transcoder
    downgraded = 0
    old_log: list[StoredEvent] = []
    for n in stored:
        state, changed = as_first_stored(transcoder.decode(n.state), resolve_topic(n.topic))
        downgraded += changed
        old_log.append(
            StoredEvent(n.originator_id, n.originator_version, n.topic, transcoder.encode(state))
        )
    kinds = {resolve_topic(n.topic) for n in stored}
    assert {TableRecord, Recorded} <= kinds
    assert any(issubclass(k, AccountEvent) for k in kinds)
    assert downgraded > len(stored) // 2

    built: list[dict[str, dict[str, list[tuple[object, ...]]]]] = []
    for events in (
        [StoredEvent(n.originator_id, n.originator_version, n.topic, n.state) for n in stored],
        old_log,
    ):
        env = StoreConfig.from_env(fresh()).env
        log = Log(env=env)
        try:
            log.recorder.insert_events(events)
            projector = Projector(log, env)
            projector.follower.catch_up()
            built.append({name: rows(view) for name, view in projector.views.items()})
        finally:
            log.close()
    new, old = built
    # A hand's end time is its last record's, which version 1 records did not keep.
    for view in built:
        ends = view["hand_index"]["hand_ends"]
        view["hand_index"]["hand_ends"] = [(*r[:4], None, *r[5:]) for r in ends]
    assert new["ledger"]["ledger_entries"]
    assert new["hand_index"]["hand_tables"]
    assert old == new
