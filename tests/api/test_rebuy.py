"""A bot that busts buys in again and is dealt back in while the others play
on: the next hand is dealt in the request that ends the last, so the table
is never between hands for everyone, only for the player who is in no hand."""

from __future__ import annotations

import threading
from uuid import UUID

from feltline.api import convert
from feltline.engine.hand.rules import Game
from feltline.engine.table.events import HandDealt, SatDown
from feltline.engine.table.house import TableConfig
from feltline_client.bots import CallingStation, Player
from feltline_client.table import Move, Spot
from feltline_protos.v1 import auth_pb2
from tests.tables import TABLES

from .conftest import Live

MOST_HANDS = 40


class Shover:
    """All in whenever it may bet or raise, else calls or checks: it busts
    fast against callers who cover it."""

    def decide(self, spot: Spot) -> Move:
        allowed = spot.allowed()
        for kind in ("raise", "bet"):
            if kind in allowed:
                return Move(kind, to=spot.options.max_to)
        return CallingStation().decide(spot)


def _back_in(events: list[object], seat: int) -> bool:
    """Whether ``seat`` sat down again and was then dealt into a hand."""
    sat = [i for i, e in enumerate(events) if isinstance(e, SatDown) and e.seat == seat]
    if len(sat) < 2:
        return False
    later = events[sat[1] :]
    return any(isinstance(e, HandDealt) and seat in {s.seat for s in e.deal.seats} for e in later)


def test_a_busted_bot_buys_in_again_and_is_dealt_back_in(live: Live) -> None:
    admin = live.client(auth_pb2.ROLE_ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6, action_clock=30))
    table = admin.create_table(config, "rebuy").table_id
    key = UUID(table)
    bots = []
    for seat, (strategy, buy_in) in enumerate(
        [(Shover(), 400), (CallingStation(), 1000), (CallingStation(), 1000)], start=1
    ):
        admin.mint_chips(f"p{seat}", 100_000)
        client = live.client(auth_pb2.ROLE_PLAYER, f"p{seat}")
        bot = Player(client, table, strategy, seat=seat, buy_in=buy_in, rebuy=True)
        bot.sit()
        bots.append(bot)
    done = threading.Event()

    def finished(number: int) -> None:
        events = [r.event for r in live.server.rail.table_records(key)]
        if number >= MOST_HANDS or _back_in(events, 1):
            done.set()
            for bot in bots:
                bot.stop()

    threads = [threading.Thread(target=b.play, args=(finished,), daemon=True) for b in bots]
    for t in threads:
        t.start()
    done.wait(90)
    for bot in bots:
        bot.stop()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)
    events = [r.event for r in live.server.rail.table_records(key)]
    busted = [e for e in events if isinstance(e, SatDown) and e.seat == 1]
    assert len(busted) >= 2, "the shover never busted or never sat down again"
    assert _back_in(events, 1)
    seating = [e for e in bots[0].refused if e.reason in ("WRONG_PHASE", "SEAT_UNAVAILABLE")]
    assert seating == []  # the buy-in again was never refused
