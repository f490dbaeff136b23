"""A store of a few hundred real hands of every game, made once per session
by random players through a Room (rake, time charges, players coming and
going), and copies of it to tamper with."""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from feltline.audit.keys import Signer
from feltline.store.config import StoreConfig
from feltline.store.room import Cardroom, Room
from tests.store.conftest import postgres  # noqa: F401 (the session's PostgreSQL fixture)
from tests.store.players import Players, finished, open_tables

HANDS = 320


@dataclass(frozen=True)
class Played:
    """A store file and the key that signed it."""

    path: Path
    signer: Signer


def play(
    path: Path, hands: int, seed: int = 11, tables: int = 4, env: dict[str, str] | None = None
) -> Signer:
    """Random players play ``hands`` hands at ``tables`` tables of every game,
    in the SQLite file ``path`` or the store ``env`` names."""
    signer = Signer.generate()
    env = StoreConfig.from_env(env or {"SQLITE_DBNAME": str(path)}).env
    cardroom = Cardroom(signer, env=env)
    room = Room(cardroom)
    ids = open_tables(room, tables)
    rng = random.Random(seed)
    players = [Players(room, t, rng) for t in ids]
    while finished(room, ids) < hands:
        for p in players:
            p.step()
    room.close()
    return signer


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    path = tmp_path_factory.mktemp("replay") / "feltline.db"
    return Played(path, play(path, HANDS))


@pytest.fixture
def store_copy(played: Played, tmp_path: Path) -> Path:
    """A copy of the played store, this test's to change."""
    path = tmp_path / "copy.db"
    shutil.copyfile(played.path, path)
    return path
