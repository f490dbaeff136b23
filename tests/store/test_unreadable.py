"""A table whose stored events do not decode, on either store: the Room
refuses that table with Unreadable, logged once, and serves the others."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store.faults import Unreadable
from tests.tables import TABLES

from .conftest import Store


def test_a_table_that_does_not_decode_is_refused_logged_once_and_the_others_load(
    store: Store,
) -> None:
    config = TableConfig(TABLES[Game.HOLDEM], 4)
    writer = store.room()
    good = writer.open_table("good", config, at=1, name="good")
    bad = writer.open_table("bad", config, at=1)
    events = store.events_table
    store.sql(
        f"UPDATE {events} SET state = ? WHERE originator_id = ? AND originator_version = 1",
        b"{not json",
        bad if "." in events else bad.hex,  # a uuid column there, text here
    )
    reader = store.room()
    with capture_logs() as logs:
        for _ in range(2):
            with pytest.raises(Unreadable, match="stored history does not verify") as refused:
                reader.table(bad)
            assert refused.value.table_id == bad
        assert reader.table(good).table.name == "good"
    assert [(line["event"], line["table_id"]) for line in logs] == [("table_unreadable", str(bad))]
