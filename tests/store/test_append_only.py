"""ops/postgres/append_only.sql: a server and its projector run whole hands
under a role that may read and insert events but not change them, and
PostgreSQL refuses that role an UPDATE, DELETE or TRUNCATE of a stored
event."""

from __future__ import annotations

import random
import re
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from feltline.cardroom.room import open_room
from feltline.projections.ledger import books
from feltline.projections.projector import Projector
from feltline.store.check import check
from feltline.store.config import StoreConfig
from tests.postgres import PG, store_env
from tests.store.players import Players, finished, open_tables

SQL = Path(__file__).resolve().parents[2] / "ops/postgres/append_only.sql"


@pytest.fixture
def role(postgres: psycopg.Connection[tuple[object, ...]]) -> Iterator[str]:
    name = f"feltline_append_{uuid.uuid4().hex[:12]}"
    postgres.execute(f"CREATE ROLE {name} LOGIN")
    yield name
    postgres.execute(f"DROP OWNED BY {name}")
    postgres.execute(f"DROP ROLE {name}")


def _grant(schema: str, role: str) -> None:
    done = subprocess.run(
        ["psql", "-X", "-q", "-v", f"schema={schema}", "-v", f"role={role}", "-f", str(SQL)],
        env={
            "PGHOST": PG["host"],
            "PGPORT": PG["port"],
            "PGUSER": PG["user"],
            "PGPASSWORD": PG["password"],
            "PGDATABASE": PG["dbname"],
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_server_plays_whole_hands_as_the_append_only_role_which_cannot_change_an_event(
    postgres: psycopg.Connection[tuple[object, ...]],
    postgres_schema: str,
    role: str,
    tmp_path: Path,
) -> None:
    key = str(tmp_path / "feltline.key")
    owner = StoreConfig.from_env({**store_env(postgres_schema), "FELTLINE_KEY_FILE": key})
    room = open_room(owner)  # the owner makes the tables, once
    Projector(room.streams, owner.env)
    room.close()
    tables = {
        str(row[0])
        for row in postgres.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (postgres_schema,),
        )
    }
    granted = set(re.findall(r'ON :"schema"\.(\w+) TO', SQL.read_text()))
    assert granted == tables  # a table the SQL does not name would stop the server
    _grant(postgres_schema, role)

    env = {**store_env(postgres_schema), "POSTGRES_USER": role, "CREATE_TABLE": "no"}
    config = StoreConfig.from_env({**env, "FELTLINE_KEY_FILE": key})
    room = open_room(config)
    views = Projector(room.streams, config.env)
    played = open_tables(room, 2)
    rng = random.Random(9)
    players = [Players(room, t, rng) for t in played]
    while finished(room, played) < 4:
        for p in players:
            p.step()
    views.follower.catch_up()
    ledger = check(room.streams)
    assert ledger.balanced, ledger.problems
    assert -books(views.view("ledger"))["mint"] == ledger.minted > 0
    room.close()

    with psycopg.connect(**{**PG, "user": role}, autocommit=True) as db:
        for change in (
            "UPDATE {}.cardroom_events SET state = state WHERE notification_id = 1",
            "DELETE FROM {}.cardroom_events WHERE notification_id = 1",
            "TRUNCATE {}.cardroom_events",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
                db.execute(change.format(postgres_schema))  # type: ignore[arg-type]
        assert db.execute(f"SELECT count(*) FROM {postgres_schema}.cardroom_events").fetchone()
