"""A table's name is stored with it, so a restarted server still knows it,
and a name nobody could read is refused."""

from __future__ import annotations

import grpc
import pytest

from feltline.api import convert
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.table.house import TableConfig
from feltline_client import FeltlineError
from feltline_protos.v1 import auth_pb2, common_pb2

from .conftest import Live

ADMIN, SPECTATOR = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_SPECTATOR
STAKES = Stakes(Structure.NO_LIMIT, small_bet=2, small_blind=1, big_blind=2)


def _config() -> common_pb2.TableConfig:
    return convert.table_config(TableConfig(Rules(Game.HOLDEM, STAKES), 6))


def test_the_name_outlives_a_restart_in_every_view_of_the_table(live: Live) -> None:
    created = live.client(ADMIN).create_table(_config(), "Friday hold'em ♠")
    assert created.display_name == "Friday hold'em ♠"
    live.restart()
    spectator = live.client(SPECTATOR)
    assert spectator.get_table(created.table_id).display_name == "Friday hold'em ♠"
    assert [t.display_name for t in spectator.list_tables()] == ["Friday hold'em ♠"]
    for after, kind in (("", "snapshot"), ("0.0.0.0", "event")):  # from the very start
        stream = spectator.watch(created.table_id, after=after, reconnect=False)
        first = next(iter(stream))
        stream.close()  # type: ignore[attr-defined]
        assert first.WhichOneof("item") == kind
        if kind == "snapshot":
            assert first.snapshot.table.display_name == "Friday hold'em ♠"
        else:
            assert first.event.table_opened.display_name == "Friday hold'em ♠"


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("", "at least 1"),
        ("x" * 81, "at most 80"),
        ("Friday\nnight", "printable"),
        ("tab\there", "printable"),
        ("zero\u200bwidth", "printable"),
        ("   ", "only spaces"),
    ],
)
def test_a_name_that_is_empty_too_long_unprintable_or_blank_is_refused(
    live: Live, name: str, rule: str
) -> None:
    admin = live.client(ADMIN)
    with pytest.raises(FeltlineError) as refused:
        admin.create_table(_config(), name)
    e = refused.value
    assert e.code is grpc.StatusCode.INVALID_ARGUMENT
    assert e.reason == "INVALID_REQUEST"
    assert [v.field for v in e.violations] == ["display_name"]
    assert rule in e.violations[0].description
    assert list(admin.list_tables()) == []
