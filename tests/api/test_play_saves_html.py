"""``feltline-play --save-html``: each hand the player played is saved, once
the table has its result, as the Replay service's replayer page of it, as
that player may see it."""

from __future__ import annotations

import io
import json
import re
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from feltline.api import convert, tokens
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client.bots import CallingStation, Player
from feltline_client.terminal import main
from feltline_protos.v1 import auth_pb2
from tests.tables import TABLES

from .conftest import Live

ADMIN, PLAYER, AUDITOR = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_AUDITOR


def test_a_hand_played_by_typing_is_saved_as_a_page(live: Live, tmp_path: Path) -> None:
    admin = live.client(ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 2))
    table = admin.create_table(config, "saved").table_id
    for name in ("alice", "bob"):
        admin.mint_chips(name, 1_000)
    bob = Player(live.client(PLAYER, "bob"), table, CallingStation(), seat=2, buy_in=400, hands=1)
    thread = threading.Thread(target=bob.play)
    thread.start()
    token = tokens.mint(
        live.signer, PLAYER, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id="alice"
    )
    argv = ["--target", live.server.target, "--token", token, "--table", table]
    argv += ["--seat", "1", "--buy-in", "400", "--hands", "1", "--save-html", str(tmp_path)]
    out = io.StringIO()
    assert main(argv, stdin=io.StringIO("fold\n"), stdout=out) == 0
    thread.join(10)
    (page,) = tmp_path.glob("*.html")
    assert f"hand saved: {page}" in out.getvalue()
    hand = live.client(AUDITOR).get_hand(page.stem)
    text = page.read_text(encoding="utf-8")
    assert text.lstrip().lower().startswith("<!doctype html")
    dealt = [e.card_dealt for e in hand.events if e.WhichOneof("kind") == "card_dealt"]
    shown = {c for e in hand.events if e.WhichOneof("kind") == "shown" for c in e.shown.cards}
    data = json.loads(re.findall(r'id="hands">(.*?)</script>', text, re.S)[0])
    assert data  # the page holds the hand
    hidden = [c.card for c in dealt if c.seat != 1 and c.card not in shown]
    assert len(hidden) == 2  # alice folded: bob's two cards were never shown
    for card in dealt:
        if card.card in hidden:
            assert f'"{card.card}"' not in text  # never in alice's page
        else:
            assert f'"{card.card}"' in text  # her own cards
