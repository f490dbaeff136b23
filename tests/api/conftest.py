"""A real server on a loopback port over a temporary SQLite store, and
clients for every role."""

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
from feltline.store.config import StoreConfig
from feltline.store.room import Cardroom, Room
from feltline_client import Client


@dataclass
class Seconds:
    """A clock the test moves."""

    now: int = 1_900_000_000

    def __call__(self) -> int:
        return self.now


@dataclass
class Live:
    path: Path
    signer: Signer
    clock: Seconds
    room: Room
    server: Feltline
    clients: list[Client] = field(default_factory=list)

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
        self.room = open_room(self.path, self.signer)
        self.server = Feltline(self.room, self.signer.public_key, clock=self.clock, tick=0.1)
        self.server.start()


def open_room(path: Path, signer: Signer) -> Room:
    return Room(Cardroom(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env))


@contextmanager
def serving(path: Path) -> Iterator[Live]:
    """A server on a loopback port over a new SQLite store at ``path``,
    stopped with its clients at the end."""
    signer = Signer.generate()
    clock = Seconds()
    room = open_room(path, signer)
    server = Feltline(room, signer.public_key, clock=clock, tick=0.1).start()
    running = Live(path, signer, clock, room, server)
    try:
        yield running
    finally:
        for client in running.clients:
            client.close()
        running.server.stop()
        running.room.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with serving(tmp_path / "live.db") as running:
        yield running
