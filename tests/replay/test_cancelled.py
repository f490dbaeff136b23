"""A hand cut short by its table closing is cancelled, every chip put in
going back: it verifies like any other, and re-running it needs the cancel."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.engine.hand.events import Action
from feltline.engine.hand.rules import Game
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.house import TableConfig
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_replay.cli import main
from tests.tables import TABLES


def test_a_hand_cancelled_by_a_closing_table_verifies(tmp_path: Path) -> None:
    path = tmp_path / "feltline.db"
    signer = Signer.generate()
    room = Room(Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env))
    table = room.open_table("closing", TableConfig(TABLES[Game.HOLDEM], 6), at=0)
    for seat in (1, 2, 3):
        room.mint(f"mint-{seat}", f"p{seat}", 500, by="admin")
        room.sit_down(table, f"sit-{seat}", seat, f"p{seat}", 500, at=1)
    room.deal(table, "deal", at=2)
    seat = waiting_on(room.hand(table, 1).hand)[0]
    room.act(table, 1, "call", seat, Action.CALL, at=3)
    room.close_table(table, "close", at=4)
    assert room.hand(table, 1).hand.phase.value == "ended"
    room.close()
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["verify", "--store", str(path), "--public-key", signer.public_hex, "--json"])
    report = json.loads(out.getvalue())
    assert (code, report["failures"], report["hands"]) == (0, [], 1)
