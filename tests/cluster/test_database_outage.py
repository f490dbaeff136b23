"""A cluster rides out its database going away: two real `feltline serve`
processes reach PostgreSQL through a proxy this test cuts, as a restart or
a failover of the database would (every connection dropped, new ones
refused), for longer than a lease. A write made while it is down is
stored once it is back, or refused UNAVAILABLE, never half done; every
process recovers by itself, every table has one owner and plays on, every
hand verifies and every chip is accounted for."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest

from feltline.api import convert, tokens
from feltline.audit.keys import Signer
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client import Client
from feltline_client.errors import FeltlineError
from feltline_protos.v1 import auth_pb2
from tests.postgres import PG, Outage, store_env
from tests.tables import TABLES as GAMES

from .test_failover import Table, _accounted_for, _every_table_plays, _ops_cluster, _owners, _play

LEASE = 3.0
DOWN = 8.0  # seconds the database is away: past every lease
TABLES = 4


@pytest.fixture
def outage() -> Iterator[Outage]:
    proxy = Outage((str(PG["host"]), int(PG["port"])))
    yield proxy
    proxy.close()


@pytest.mark.timeout(900)
def test_the_cluster_plays_on_after_the_database_comes_back(
    outage: Outage, postgres_schema: str, tmp_path: Path
) -> None:
    key = tmp_path / "feltline.key"
    signer = Signer.create(key)
    env = {
        **os.environ,
        **store_env(postgres_schema, POSTGRES_POOL_SIZE="2", POSTGRES_MAX_OVERFLOW="6"),
        "POSTGRES_PORT": str(outage.port),
        "FELTLINE_KEY_FILE": str(key),
        "FELTLINE_LEASE_SECONDS": str(LEASE),
        "FELTLINE_LOG_FORMAT": "json",
    }
    cluster = _ops_cluster().Cluster(2, env=env, port=0, projector=False, echo=False).start()
    servers = list(cluster.servers)
    try:
        _play_through_an_outage(cluster, signer, outage, postgres_schema)
    finally:
        cluster.stop()
    for process in servers:  # warnings while it was away, no error
        assert [line for line in process.log if '"level": "error"' in line] == []
    _accounted_for(signer, postgres_schema)


def _play_through_an_outage(cluster: Any, signer: Signer, outage: Outage, schema: str) -> None:
    def client(target: str, role: auth_pb2.Role.ValueType, player: str = "") -> Client:
        token = tokens.mint(
            signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
        )
        return Client(target, token, timeout=60, patience=60)

    config = convert.table_config(TableConfig(GAMES[Game.HOLDEM], 2, action_clock=5))
    tables: list[Table] = []
    for n in range(TABLES):
        with client(cluster.targets[n % 2], auth_pb2.ROLE_ADMIN) as admin:
            tables.append(Table(admin.create_table(config, f"table {n}").table_id))
            for seat in (1, 2):
                admin.mint_chips(f"p{n}-{seat}", 1_000_000)
    errors: list[BaseException] = []
    _play(
        tables,
        lambda n, seat: client(
            cluster.targets[(n + seat) % 2], auth_pb2.ROLE_PLAYER, f"p{n}-{seat}"
        ),
        errors,
    )
    _every_table_plays(tables, errors, within=120)
    outage.cut()
    # A write while the database is away is answered UNAVAILABLE at once
    # (docs/store.md, "When the database is away"), never half done.
    token = tokens.mint(signer, auth_pb2.ROLE_ADMIN, now=datetime.now(UTC), ttl=timedelta(hours=1))
    late: list[object] = []

    def mint() -> None:
        with Client(cluster.targets[0], token, timeout=120, retries=0) as admin:
            try:
                late.append(admin.mint_chips("late", 5).balance)
            except FeltlineError as e:
                late.append(e.code)

    minting = threading.Thread(target=mint, daemon=True)
    cut = time.monotonic()
    minting.start()
    minting.join(DOWN)
    assert not minting.is_alive()  # answered while the database was still away
    assert late == [grpc.StatusCode.UNAVAILABLE], late
    time.sleep(max(0.0, DOWN - (time.monotonic() - cut)))
    outage.mend()
    took = _every_table_plays(tables, errors, within=90)
    _every_table_plays(tables, errors, within=60)
    assert errors == []
    print(f"every table played again {took:.1f} s after the database came back")
    # One owner per table, a live server.
    owners = _owners(schema)
    assert sorted(owners) == sorted(t.id for t in tables)
    assert set(owners.values()) <= set(cluster.targets)
