"""A real server on a loopback port over a temporary SQLite store (or, for
the end-to-end tests that ask, a fresh PostgreSQL schema too), and clients
for every role."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.api.tokens import Role
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.store.config import StoreConfig
from feltline.store.leases import PROCESS
from feltline.store.streams import Streams
from feltline_client import Client
from tests.postgres import store_env


@dataclass
class Seconds:
    """A clock the test moves."""

    now: int = 1_900_000_000

    def __call__(self) -> int:
        return self.now


@dataclass
class Live:
    path: Path  # the SQLite file; with PostgreSQL, unused
    signer: Signer
    clock: Seconds
    room: Room
    server: Feltline
    clients: list[Client] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    """The store's settings, which a second server on the same store uses."""

    def client(self, role: Role, player: str = "") -> Client:
        token = tokens.mint(
            self.signer,
            role,
            now=datetime.now(UTC),
            ttl=timedelta(hours=1),
            player_id=player,
        )
        made = Client(self.server.target, token, timeout=20)
        self.clients.append(made)
        return made

    def restart(self) -> None:
        """Stop the server and its room; start new ones on the same store."""
        self.server.stop()
        self.room.close()
        self.room = open_store(self.env, self.signer)
        self.server = Feltline(self.room, self.signer.public_key, clock=self.clock, tick=0.1)
        self.server.start()


def open_room(path: Path, signer: Signer) -> Room:
    return open_store({"SQLITE_DBNAME": str(path)}, signer)


def open_store(env: dict[str, str], signer: Signer, server: str = PROCESS) -> Room:
    """A room over the store ``env`` names. A second server on the store
    takes a ``server`` name of its own, as another process would have: rooms
    of one name are one owner of the tables' leases (a restart, say)."""
    return Room(Streams(signer, env=StoreConfig.from_env(env).env, server=server))


@contextmanager
def serving(path: Path, env: dict[str, str] | None = None, *, web: bool = False) -> Iterator[Live]:
    """A server on a loopback port over a new store: SQLite at ``path``, or
    the store ``env`` names, with a web port if ``web``; stopped with its
    clients at the end."""
    env = env or {"SQLITE_DBNAME": str(path)}
    signer = Signer.generate()
    clock = Seconds()
    room = open_store(env, signer)
    server = Feltline(
        room, signer.public_key, clock=clock, tick=0.1, web_port=0 if web else None
    ).start()
    running = Live(path, signer, clock, room, server, env=env)
    try:
        yield running
    finally:
        for client in running.clients:
            client.close()
        running.server.stop()
        running.room.close()


@pytest.fixture
def live(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Live]:
    """SQLite unless a module parametrizes it ``indirect`` with "postgres"
    (a fresh schema, skipped or failed as ``postgres`` in tests/conftest.py)."""
    env = None
    if getattr(request, "param", "sqlite") == "postgres":
        env = store_env(request.getfixturevalue("postgres_schema"))
    with serving(tmp_path / "live.db", env) as running:
        yield running


# For a module whose end-to-end tests run on both stores.
ON_BOTH_STORES = pytest.mark.parametrize("live", ["sqlite", "postgres"], indirect=True)
