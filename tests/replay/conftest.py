"""A store of a few hundred real hands of every game, made once per session
by random players through a Room (rake, time charges, players coming and
going), and copies of it to tamper with."""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.engine.hand.events import Action, Choice
from feltline.engine.hand.rules import Game
from feltline.engine.hand.script import Phase
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.house import TableConfig
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.store.players import Players, cid, finished, open_tables
from tests.tables import TABLES

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
    streams = Streams(signer, env=env)
    room = Room(streams)
    ids = open_tables(room, tables)
    rng = random.Random(seed)
    players = [Players(room, t, rng) for t in ids]
    while finished(room, ids) < hands:
        for p in players:
            p.step()
    draw_everything(room)
    room.close()
    return signer


def draw_everything(room: Room, hands: int = 2) -> UUID:
    """A draw-declare table of seven who always draw three: 35 cards dealt
    leave 16 to draw above the bottom card, so each hand deals from a
    reshuffled stub."""
    config = TableConfig(TABLES[Game.DRAW_DECLARE], 7)
    table = room.open_table("draw everything", config, at=0)
    low, _ = config.buy_in_limits()
    for seat in range(1, 8):
        player = f"drawer {seat}"
        room.mint(cid(), player, low, by="admin")
        room.sit_down(table, cid(), seat, player, low, at=1)
    for number in range(1, hands + 1):
        room.deal(table, cid(), at=2 * number)
        while (hand := room.hand(table, number).hand).phase is not Phase.ENDED:
            seat = waiting_on(hand)[0]
            at = 2 * number
            if hand.phase is Phase.DRAWING:
                cards = hand.player(seat).cards
                room.draw(table, number, cid(), seat, cards[: hand.rules.draw_limit(7)], at=at)
            elif hand.phase is Phase.DECLARING:
                room.declare(table, number, cid(), seat, Choice.HIGH, at=at)
            else:
                call = hand.round.level > hand.player(seat).bet
                room.act(table, number, cid(), seat, Action.CALL if call else Action.CHECK, at=at)
    return table


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
