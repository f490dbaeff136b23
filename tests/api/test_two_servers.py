"""Two servers on one store, as an operator runs several processes on one
database: a watch on either server follows play at a table the other
serves, every event once and in order, though the watch's server is never
told of the other's changes; and players at one table may play through
both, each server catching up with what the other stored."""

from __future__ import annotations

import random
import threading
import time
from datetime import UTC, datetime, timedelta
from functools import partial
from uuid import UUID

from feltline.api import convert, tokens
from feltline.api.app import Feltline
from feltline.api.tokens import Role
from feltline.domain.ids import hand_id
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store.check import check
from feltline_client import Client, FeltlineError, Seen
from feltline_client.bots import Casual, Player
from feltline_protos.v1 import common_pb2, events_pb2, tournaments_pb2, watch_pb2
from tests.tables import TABLES

from .conftest import ON_BOTH_STORES, Live, open_store
from .test_live import ADMIN, PLAYER, SPECTATOR, Threads, _play


def _client(live: Live, target: str, role: Role, player: str = "") -> Client:
    token = tokens.mint(
        live.signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
    )
    made = Client(target, token, timeout=20)
    live.clients.append(made)
    return made


# Several processes on one store is what PostgreSQL is for: both stores.
pytestmark = ON_BOTH_STORES


def test_a_watch_follows_play_at_a_table_another_server_serves(live: Live) -> None:
    _play_and_watch(live, through_this=0)


def test_players_at_one_table_may_play_through_either_server(live: Live) -> None:
    _play_and_watch(live, through_this=2)


def _play_and_watch(live: Live, *, through_this: int) -> None:
    """Three bots play four hands, the first ``through_this`` through the
    live server and the rest through another on the same store, watched
    from both servers."""
    room = open_store(live.env, live.signer, server="other")
    other = Feltline(room, live.signer.public_key, clock=live.clock, tick=0.1).start()
    try:
        admin = _client(live, other.target, ADMIN)
        config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 4, action_clock=30))
        table = admin.create_table(config, "served by two servers").table_id
        watches = {
            "this": _client(live, live.server.target, SPECTATOR),
            "other": _client(live, other.target, SPECTATOR),
        }
        seen: dict[str, list[watch_pb2.WatchTableResponse]] = {name: [] for name in watches}
        done = threading.Event()

        def follow(name: str) -> None:
            for item in watches[name].watch(table, reconnect=False, stop=done):
                seen[name].append(item)

        followers = Threads()
        for name in watches:
            followers.start(f"watch on {name}", partial(follow, name))
        deadline = time.monotonic() + 30
        while not all(seen.values()):
            assert not followers.failures, followers.failures
            assert time.monotonic() < deadline, "a watch never sent its snapshot"
            done.wait(0.05)
        # Both snapshots are of the empty table, so each watch is sent every
        # event of every hand: seated first, a hand could be dealt before a
        # snapshot (seen on PostgreSQL), which would then hold its start.
        bots = []
        for n in range(1, 4):
            admin.mint_chips(f"p{n}", 10_000)
            target = live.server.target if n <= through_this else other.target
            client = _client(live, target, PLAYER, f"p{n}")
            bot = Player(client, table, Casual(random.Random(n)), seat=n, buy_in=500, rebuy=True)
            bot.sit()
            bots.append(bot)
        _play(bots, 4)
        stored = live.room.streams.table(UUID(table))
        after = {name: int(items[0].cursor.split(".")[0]) for name, items in seen.items()}
        every = {name: list(range(after[name] + 1, stored.version + 1)) for name in seen}
        for _ in range(100):  # each watch reads the other's writes within a poll or two
            if all(_table_events(seen[name]) == every[name] for name in seen):
                break
            done.wait(0.1)
        done.set()
        followers.join(timeout=10)
        assert stored.table.hands >= 4
        for name, items in seen.items():
            assert items[0].HasField("snapshot")
            assert items[0].snapshot.table.hands_dealt == 0, name
            assert _table_events(items) == every[name], name
            for number in range(1, stored.table.hands + 1):
                hand = live.room.streams.events.get(hand_id(UUID(table), number))
                got = [e.sequence for e in _hand_events(items) if e.hand_number == number]
                assert got == list(range(1, len(list(hand)))), (name, number)  # all but the seal
        for target in (live.server.target, other.target):  # both show the table as stored
            shown = _client(live, target, SPECTATOR).get_table(table)
            assert (shown.hands_dealt, [s.stack for s in shown.seats]) == (
                stored.table.hands,
                [s.stack for s in stored.table.seats],
            )
        assert check(live.room.streams).problems == []
    finally:
        other.stop()
        room.close()


def test_a_table_opened_through_one_server_is_listed_and_counted_by_the_other(
    live: Live,
) -> None:
    """The other server had read the store's tables before this one was
    opened: it lists the new table at once, as it now stands, and counts the
    chips at it in the player's account."""
    room = open_store(live.env, live.signer, server="other")
    other = Feltline(room, live.signer.public_key, clock=live.clock, tick=0.1).start()
    try:
        there = _client(live, other.target, ADMIN)
        assert there.list_tables_page().tables == []
        here = _client(live, live.server.target, ADMIN)
        config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 2))
        table = here.create_table(config, "opened through this server").table_id
        here.mint_chips("p1", 1_000)
        _client(live, live.server.target, PLAYER, "p1").sit_down(table, 1, 400)
        account = there.get_account("p1")
        assert (account.balance, account.at_tables) == (600, 400)
        listed = there.list_tables_page().tables
        assert [(t.table_id, [s.stack for s in t.seats if s.player_id]) for t in listed] == [
            (table, [400])
        ]
    finally:
        other.stop()
        room.close()


def _hand_events(items: list[watch_pb2.WatchTableResponse]) -> list[events_pb2.Event]:
    """The hand events a watch was sent: those in its snapshot (on a loaded
    machine the first deal, a second after the last player sat down, may
    come before it), then the ones sent after it."""
    first, rest = items[0], items[1:]
    return [*first.snapshot.hand_events, *(i.event for i in rest if i.HasField("event"))]


def _table_events(items: list[watch_pb2.WatchTableResponse]) -> list[int]:
    return [i.event.sequence for i in items if i.HasField("event") and i.event.hand_number == 0]


def test_one_decision_raced_through_both_servers_is_applied_once_in_every_round(
    live: Live,
) -> None:
    """Each round the player to act sends one decision through both servers
    at once, under two request ids, decided on the same sequence: one is
    applied and the other answered STALE_STATE, for hundreds of rounds."""
    room = open_store(live.env, live.signer, server="other")
    other = Feltline(room, live.signer.public_key, clock=live.clock, tick=0.1).start()
    try:
        admin = _client(live, live.server.target, ADMIN)
        config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 2, action_clock=600))
        table = admin.create_table(config, "raced through two servers").table_id
        through: dict[int, tuple[Client, Client]] = {}
        for n in (1, 2):
            admin.mint_chips(f"p{n}", 10_000)
            through[n] = (
                _client(live, live.server.target, PLAYER, f"p{n}"),
                _client(live, other.target, PLAYER, f"p{n}"),
            )
            through[n][0].sit_down(table, n, 1000)
        outcomes: list[list[str]] = []
        deadline = time.monotonic() + 120
        while len(outcomes) < 200 and time.monotonic() < deadline:
            shown = through[1][0].get_table(table)
            if not shown.current_hand.HasField("turn"):
                time.sleep(0.05)  # the first deal waits for the table to settle
                continue
            seat = shown.current_hand.turn.seat
            hand = through[seat][0].get_table(table).current_hand
            checking = common_pb2.ACTION_KIND_CHECK in hand.turn.options.actions
            outcomes.append(_race(through[seat], table, Seen.of(hand), check=checking))
        assert len(outcomes) == 200
        assert all(sorted(o) == ["STALE_STATE", "applied"] for o in outcomes), outcomes
        assert check(live.room.streams).problems == []
    finally:
        other.stop()
        room.close()


def _race(clients: tuple[Client, Client], table: str, seen: Seen, *, check: bool) -> list[str]:
    start = threading.Barrier(len(clients))
    results: list[str] = []

    def send(client: Client) -> None:
        start.wait()
        try:
            (client.check if check else client.call)(table, seen)
            results.append("applied")
        except FeltlineError as e:
            results.append(e.reason)

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive()
    return results


def test_a_cursor_given_out_by_one_server_resumes_the_watch_on_the_other(live: Live) -> None:
    """A client whose server goes away resumes its watch on another from its
    last cursor, though that server's copy of the table is behind it: it
    reads the store before it calls a cursor unknown."""
    room = open_store(live.env, live.signer, server="other")
    other = Feltline(room, live.signer.public_key, clock=live.clock, tick=3600).start()
    try:
        admin = _client(live, live.server.target, ADMIN)
        config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 4, action_clock=30))
        table = admin.create_table(config, "a cursor moves").table_id
        elsewhere = _client(live, other.target, SPECTATOR)
        assert elsewhere.get_table(table).table_id == table  # the other server holds a copy
        for n in (1, 2):
            admin.mint_chips(f"p{n}", 10_000)
            _client(live, live.server.target, PLAYER, f"p{n}").sit_down(table, n, 500)
        here = _client(live, live.server.target, SPECTATOR)
        done = threading.Event()
        cursor = next(iter(here.watch(table, reconnect=False, stop=done))).cursor
        done.set()
        assert int(cursor.split(".")[0]) > 1  # past the seating: ahead of the other's copy
        admin.mint_chips("p3", 10_000)
        _client(live, live.server.target, PLAYER, "p3").sit_down(table, 3, 500)  # one more event
        resumed = elsewhere.watch(table, after=cursor, reconnect=False, stop=threading.Event())
        first = next(iter(resumed))  # INVALID_CURSOR without the fix
        assert not first.HasField("snapshot")
        assert first.cursor != cursor
    finally:
        other.stop()


def test_a_tournament_watch_follows_what_another_server_stores(live: Live) -> None:
    """A tournament created, entered and cancelled through another server
    on the store: a watch on this one sends each event once, in order, as
    it is stored, woken though this server is never told (well within the
    30 s a watch waits unwoken)."""
    room = open_store(live.env, live.signer, server="other")
    other = Feltline(room, live.signer.public_key, clock=live.clock, tick=0.1).start()
    try:
        admin = _client(live, other.target, ADMIN)
        config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
        stakes = config.rules.stakes
        key = admin.create_tournament(
            config,
            "served elsewhere",
            levels=[tournaments_pb2.TournamentLevel(stakes=stakes, hands=2)],
            buy_in=100,
            fee=0,
            stack=1_000,
            payouts=[tournaments_pb2.PayoutBand(entrants=3, shares=[10_000])],
            entrants=3,
        ).tournament_id
        sent: list[tournaments_pb2.WatchTournamentResponse] = []
        watching = threading.Thread(
            target=lambda: sent.extend(
                _client(live, live.server.target, SPECTATOR).watch_tournament(key)
            ),
            daemon=True,
        )
        watching.start()
        deadline = time.monotonic() + 10
        while not sent:
            assert time.monotonic() < deadline, "the watch never sent its snapshot"
            time.sleep(0.05)
        for name in ("ann", "bob"):
            admin.mint_chips(name, 100)
            _client(live, other.target, PLAYER, name).register_tournament(key)
            deadline = time.monotonic() + 10
            while not any(m.event.registered.player_id == name for m in sent):
                assert time.monotonic() < deadline, f"{name}'s entry never reached the watch"
                time.sleep(0.05)
        admin.cancel_tournament(key, "rain")
        watching.join(10)
        assert not watching.is_alive(), "the watch did not end with the tournament"
        kinds = [
            m.WhichOneof("item") if m.HasField("snapshot") else m.event.WhichOneof("kind")
            for m in sent
        ]
        assert kinds == ["snapshot", "registered", "registered", "cancelled", "seed_revealed"]
        assert [int(m.cursor) for m in sent] == [2, 3, 4, 5, 6]
    finally:
        other.stop()
        room.close()
