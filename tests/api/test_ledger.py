"""The Ledger service on a real server whose projector follows a store that
the store's random players filled (every game, rake, time charges, passed
out jackpots, stand-ups, cash-outs, a table closed mid-hand): every method's
answer checked against the store's own streams, paging, the role rules and
each bad input's status. On SQLite and on PostgreSQL."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID, uuid4

import grpc
import psycopg
import pytest

from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.api.ledger import contributors
from feltline.api.tokens import Role
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.domain.ids import account_id
from feltline.engine.hand.events import PotAwarded
from feltline.engine.hand.pot import collect
from feltline.projections.pots import LivePot, SeatInPot, TablePots
from feltline.projections.projector import Projector
from feltline.store.check import check
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_client import Client, FeltlineError
from feltline_protos.v1 import auth_pb2, common_pb2, ledger_pb2
from tests.postgres import store_env
from tests.projections.bots import play
from tests.store.players import CONFIGS, Players

from .conftest import Live, Seconds, open_store
from .test_docs_examples import _example

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
SPECTATOR, AUDITOR = auth_pb2.ROLE_SPECTATOR, auth_pb2.ROLE_AUDITOR
NOT_FOUND = grpc.StatusCode.NOT_FOUND
TABLES = 4
STEPS = 120
PLAYERS = tuple(f"player-{n}" for n in range(14))  # names a token may carry


@dataclass
class Played:
    """A store played into before the server started (its clock never
    ticks in a test, so nothing changes the store while it is read)."""

    room: Room
    signer: Signer
    server: Feltline
    tables: list[UUID]
    clients: list[Client]

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


@pytest.fixture(params=["sqlite", "postgres"], scope="module")
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Played]:
    if request.param == "postgres":
        env = store_env(request.getfixturevalue("ledger_schema"))
    else:
        env = {"SQLITE_DBNAME": str(tmp_path_factory.mktemp("ledger") / "ledger.db")}
    signer = Signer.generate()
    room = open_store(env, signer)
    tables = play(room, TABLES, STEPS, seed=11, pool=PLAYERS)
    closing = Players(room, tables[0], random.Random(1), pool=PLAYERS)
    while room.table(tables[0]).table.dealt is None:
        closing.step()
    room.close_table(tables[0], "closing", at=10**6)
    playing = Players(room, tables[1], random.Random(2), pool=PLAYERS)
    while room.table(tables[1]).table.dealt is None:  # a hand in progress, for its pots
        playing.step()
    projector = Projector(room.streams, StoreConfig.from_env(env).env)
    server = Feltline(
        room, signer.public_key, clock=Seconds(0), tick=3600, projector=projector
    ).start()
    made = Played(room, signer, server, tables, [])
    made.client(AUDITOR).ledger.caught_up()
    try:
        yield made
    finally:
        for client in made.clients:
            client.close()
        server.stop()
        room.close()


@pytest.fixture(scope="module")
def ledger_schema(postgres: psycopg.Connection[tuple[object, ...]]) -> Iterator[str]:
    """A fresh PostgreSQL schema for the module's one played store."""
    schema = f"feltline_test_{uuid4().hex[:12]}"
    postgres.execute(f"CREATE SCHEMA {schema}")
    yield schema
    postgres.execute(f"DROP SCHEMA {schema} CASCADE")


def _refused(call: Callable[[], object], code: grpc.StatusCode, reason: str) -> FeltlineError:
    """The refusal of ``call`` (a list's iterator is drained: it calls lazily)."""
    with pytest.raises(FeltlineError) as caught:
        _drain(call())
    assert (caught.value.code, caught.value.reason) == (code, reason), caught.value
    return caught.value


def _funded(played: Played) -> list[str]:
    """The players whose accounts were opened (which the random play decides)."""
    return [p for p in PLAYERS if played.room.streams.account(account_id(p)).version]


def _drain(result: object) -> None:
    if isinstance(result, Iterator):
        list(result)


def _change(entry: ledger_pb2.LedgerEntry, account: str) -> int:
    """What an entry did to an account: in positive, out negative."""
    into = entry.debit.kind == ledger_pb2.BOOK_KIND_ACCOUNT and entry.debit.account_id == account
    out = entry.credit.kind == ledger_pb2.BOOK_KIND_ACCOUNT and entry.credit.account_id == account
    return entry.amount * (int(into) - int(out))


# ---- content


def test_the_summary_accounts_for_every_chip_as_the_store_does(played: Played) -> None:
    auditor = played.client(AUDITOR)
    summary = auditor.ledger.summary()
    store = check(played.room.streams)
    assert store.balanced, store.problems
    assert not store.problems
    assert summary.balanced
    assert list(summary.problems) == []
    assert summary.position == played.room.streams.recorder.max_notification_id()
    assert summary.minted == store.minted > 0
    assert summary.in_accounts == store.accounts
    assert summary.cashed_out == store.cashed_out > 0
    # the table keeps a hand's starting stacks (and a carried pot) until it ends
    on_tables = summary.on_tables + summary.in_pots + summary.carried
    assert on_tables == store.seats + store.carried
    assert summary.raked + summary.time_charges + summary.forfeited == store.house
    assert summary.raked > 0
    assert summary.time_charges > 0
    held = (
        summary.in_accounts + summary.on_tables + summary.in_pots + summary.carried
        + summary.raked + summary.time_charges + summary.forfeited + summary.cashed_out
    )  # fmt: skip
    assert held == summary.minted
    report = auditor.ledger.rake_report("day")
    assert (report.rake, report.time_charges) == (summary.raked, summary.time_charges)


def test_each_account_s_book_and_entries_match_the_store(played: Played) -> None:
    auditor = played.client(AUDITOR)
    at_tables = longest = 0
    for player in PLAYERS:
        account = str(account_id(player))
        stored = played.room.streams.account(account_id(player))
        if stored.version == 0:  # never funded, so never opened
            _refused(lambda p=player: auditor.ledger.account(p), NOT_FOUND, "ACCOUNT_NOT_FOUND")
            continue
        book = auditor.ledger.account(player)
        assert (book.player_id, book.account_id) == (player, account)
        assert book.balance == played.room.balance(player)
        assert (book.minted, book.cashed_out) == (stored.minted, stored.cashed_out)
        paged = list(auditor.ledger.account_entries(player, page_size=2))
        whole = list(auditor.ledger.account_entries(player, page_size=200))
        assert paged == whole
        longest = max(longest, len(whole))
        places = [(e.position, e.line) for e in whole]
        assert places == sorted(set(places))
        assert sum(_change(e, account) for e in whole) == book.balance
        kinds = {e.kind for e in whole}
        assert ledger_pb2.ENTRY_KIND_MINT in kinds
        assert ledger_pb2.ENTRY_KIND_BUY_IN in kinds
        bought = sum(e.amount for e in whole if e.kind == ledger_pb2.ENTRY_KIND_BUY_IN)
        assert bought == book.bought_in
        at_tables += book.at_tables
    assert at_tables == auditor.ledger.summary().on_tables
    assert longest > 4  # some account's entries took several pages


def test_a_hand_s_entries_balance_and_match_its_stored_awards(played: Played) -> None:
    auditor = played.client(AUDITOR)
    checked = 0
    for table_id in played.tables:
        hands = {h.hand_number: h for h in auditor.ledger.search_hands(table_id=str(table_id))}
        for number, indexed in sorted(hands.items())[-6:]:
            entries = list(auditor.ledger.hand_entries(str(table_id), number, page_size=3))
            assert entries == list(auditor.ledger.hand_entries(str(table_id), number))
            assert all(e.hand_number == number and e.table_id == str(table_id) for e in entries)
            pot = ledger_pb2.BOOK_KIND_POT
            into = sum(e.amount for e in entries if e.debit.kind == pot)
            out = sum(e.amount for e in entries if e.credit.kind == pot)
            awarded = sum(e.amount for e in entries if e.kind == ledger_pb2.ENTRY_KIND_POT_AWARD)
            raked = sum(e.amount for e in entries if e.kind == ledger_pb2.ENTRY_KIND_RAKE)
            if not indexed.ended:
                live = auditor.ledger.table_pots(str(table_id))
                assert into - out == live.total
                assert live.hand_number == number
                continue
            assert into == out
            assert (awarded + raked, raked) == (indexed.pot, indexed.rake)
            stream = played.room.hand(table_id, number)
            events = [e for _, made in stream.commands.values() for e in made]
            stored = [e for e in events if isinstance(e, PotAwarded)]
            assert awarded == sum(s.amount for e in stored for s in e.shares)
            assert raked == sum(e.rake for e in stored)
            checked += 1
    assert checked >= 12


def test_the_hand_index_has_every_hand_and_each_filter_holds(played: Played) -> None:
    auditor = played.client(AUDITOR)
    every = list(auditor.ledger.search_hands(page_size=4))
    assert every == list(auditor.ledger.search_hands(page_size=200))
    for table_id in played.tables:
        dealt = played.room.table(table_id).table.hands
        numbers = [h.hand_number for h in every if h.table_id == str(table_id)]
        assert sorted(numbers) == list(range(1, dealt + 1))
        assert dealt > 3
    assert any(h.cancelled for h in every)
    assert any(h.passed_out for h in every)
    for n, config in enumerate(CONFIGS):
        game = common_pb2.Game.Value("GAME_" + config.rules.game.name)
        found = list(auditor.ledger.search_hands(game=game))
        tables = {str(t) for t in played.tables[n :: len(CONFIGS)]}
        assert found
        assert {h.table_id for h in found} == tables
        assert all(h.game == game for h in found)
    player = every[-1].seats[0].player_id
    mine = list(auditor.ledger.search_hands(player_id=player, page_size=5))
    assert mine == [h for h in every if player in {s.player_id for s in h.seats}]
    assert mine
    times = sorted({h.deal_time.seconds for h in every})
    middle = datetime.fromtimestamp(times[len(times) // 2], UTC)
    later = list(auditor.ledger.search_hands(start=middle))
    earlier = list(auditor.ledger.search_hands(end=middle))
    assert later
    assert earlier
    assert len(later) + len(earlier) == len(every)
    assert all(h.deal_time.seconds >= middle.timestamp() for h in later)
    assert all(h.deal_time.seconds < middle.timestamp() for h in earlier)


def test_the_rake_report_adds_up_to_each_table_s_house(played: Played) -> None:
    auditor = played.client(AUDITOR)
    hourly, daily = auditor.ledger.rake_report("hour"), auditor.ledger.rake_report("day")
    assert (hourly.rake, hourly.time_charges, hourly.hands) == (
        daily.rake,
        daily.time_charges,
        daily.hands,
    )
    assert all(p.start_time.seconds % 3600 == 0 for p in hourly.periods)
    assert all(p.start_time.seconds % 86400 == 0 for p in daily.periods)
    every = list(auditor.ledger.search_hands())
    assert daily.hands == len(every)
    for table_id in played.tables:
        one = auditor.ledger.rake_report("hour", table_id=str(table_id))
        assert {p.table_id for p in one.periods} == {str(table_id)}
        assert one.rake == sum(h.rake for h in every if h.table_id == str(table_id))
        table = played.room.table(table_id).table
        forfeited = table.house - one.rake - one.time_charges
        assert forfeited == 0 or table.closed
    start = datetime.fromtimestamp(max(p.start_time.seconds for p in hourly.periods), UTC)
    last = auditor.ledger.rake_report("hour", start=start)
    assert [p.start_time.seconds for p in last.periods] == [int(start.timestamp())] * len(
        last.periods
    )


def test_players_results_match_the_hands_they_finished(played: Played) -> None:
    funded = _funded(played)
    auditor = played.client(AUDITOR)
    every = list(auditor.ledger.search_hands())
    results = list(auditor.ledger.player_results(page_size=3))
    assert results == list(auditor.ledger.player_results(page_size=200))
    assert len(results) > 3
    for r in results:
        seats = [
            s
            for h in every
            if h.table_id == r.table_id and h.ended
            for s in h.seats
            if s.player_id == r.player_id
        ]
        assert r.hands == len(seats) > 0
        assert r.net == sum(s.final_stack - s.start_stack for s in seats)
    raked = sum(h.rake for h in every if h.ended)
    assert sum(r.rake_paid for r in results) == raked > 0  # every pot's rake on its winners
    one = list(auditor.ledger.player_results(funded[1], table_id=str(played.tables[1])))
    assert one == [
        r for r in results if (r.player_id, r.table_id) == (funded[1], str(played.tables[1]))
    ]


def test_pots_of_a_hand_in_progress_are_the_table_s(played: Played) -> None:
    spectator = played.client(SPECTATOR)
    seen = 0
    for table_id in played.tables:
        pots = spectator.ledger.table_pots(str(table_id))
        hand = spectator.get_table(str(table_id)).current_hand
        if not spectator.get_table(str(table_id)).HasField("current_hand"):
            assert (pots.hand_number, list(pots.pots), list(pots.seats)) == (0, [], [])
            continue
        seen += 1
        assert pots.hand_number == hand.hand_number
        assert pots.total == sum(p.amount for p in pots.pots)
        bets = {s.seat: s.bet for s in hand.seats}
        assert pots.total == hand.pot + sum(bets.values())
        assert pots.amount_to_call == max(bets.values())
        assert {s.seat: (s.bet, s.folded, s.all_in) for s in pots.seats} == {
            s.seat: (s.bet, s.folded, s.all_in) for s in hand.seats
        }
        live = {s.seat for s in hand.seats if not s.folded}
        if pots.pots:
            assert set(pots.pots[0].eligible_seats) == live
    closed = spectator.ledger.table_pots(str(played.tables[0]))
    assert closed.hand_number == 0
    assert not closed.pots
    assert seen >= 1


def test_contributors_are_the_seats_with_chips_in_each_pot() -> None:
    put_in = {1: 400, 2: 700, 3: 700, 4: 100}
    cut = collect(put_in, [1, 2, 3])
    pots = TablePots(
        "t",
        1,
        tuple(SeatInPot(s, f"p{s}", p, 0, s == 4, s == 1) for s, p in put_in.items()),
        tuple(LivePot(p.amount, p.eligible) for p in cut),
        0,
    )
    assert [(p.amount, p.eligible) for p in pots.pots] == [(1300, (1, 2, 3)), (600, (2, 3))]
    assert contributors(pots) == [[1, 2, 3, 4], [2, 3]]


def test_the_projector_s_lag_is_nothing_once_caught_up(played: Played) -> None:
    # The server's register appends too (the transparency log's leaves and
    # checkpoints, in a thread of its own): read the status between two
    # looks at the head that agree, once the projector caught up.
    ledger, recorder = played.client(SPECTATOR).ledger, played.room.streams.recorder
    for _ in range(20):
        ledger.caught_up()
        head = recorder.max_notification_id()
        status = ledger.projector_status()
        if recorder.max_notification_id() == head:
            break
    assert {p.projection for p in status.projections} == {
        "ledger",
        "hand_index",
        "pots",
        "standings",
        "tournaments",
    }
    for p in status.projections:
        assert (p.position, p.head, p.events_behind) == (head, head, 0)
        assert p.time_behind.ToTimedelta() < timedelta(seconds=5)


def test_the_docs_example_runs_as_written(played: Played) -> None:
    auditor = played.client(AUDITOR)
    scope: dict[str, object] = {
        "Client": Client,
        "common_pb2": common_pb2,
        "target": played.server.target,
        "auditor_token": auditor.metadata()[0][1].removeprefix("Bearer "),
    }
    exec(_example("With the Python SDK, an auditor's summary"), scope)
    books, entries = scope["books"], scope["entries"]
    assert isinstance(books, ledger_pb2.GetLedgerSummaryResponse)
    assert books.balanced
    assert isinstance(entries, dict)
    holdem = [h for h in auditor.ledger.search_hands() if h.game == common_pb2.GAME_HOLDEM]
    assert set(entries) == {h.hand_id for h in holdem}
    assert all(entries.values())


@dataclass
class Fresh:
    """A server with its projector over a store of its own, for tests that
    change what the views hold."""

    played: Played
    projector: Projector
    table: UUID


@pytest.fixture(params=["sqlite", "postgres"])
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Fresh]:
    if request.param == "postgres":
        env = store_env(request.getfixturevalue("postgres_schema"))
    else:
        env = {"SQLITE_DBNAME": str(tmp_path / "fresh.db")}
    signer = Signer.generate()
    room = open_store(env, signer)
    (table,) = play(room, 1, 60, seed=5, pool=PLAYERS)
    projector = Projector(room.streams, StoreConfig.from_env(env).env)
    server = Feltline(
        room, signer.public_key, clock=Seconds(0), tick=3600, projector=projector
    ).start()
    made = Fresh(Played(room, signer, server, [table], []), projector, table)
    made.played.client(AUDITOR).ledger.caught_up()
    try:
        yield made
    finally:
        for client in made.played.clients:
            client.close()
        server.stop()
        room.close()


def test_the_summary_names_what_does_not_balance(fresh: Fresh) -> None:
    """Chips moved into an ended hand's pot, a book below zero, and a
    balance that is not its entries' sum: each is told, and the summary is
    not balanced."""
    auditor = fresh.played.client(AUDITOR)
    assert auditor.ledger.summary().balanced
    view, table = fresh.projector.view("ledger"), str(fresh.table)
    (account,) = view.rows(
        "SELECT book FROM ledger_balances WHERE book LIKE 'account:%' ORDER BY book LIMIT 1"
    )[0]
    held = int(view.rows("SELECT balance FROM ledger_balances WHERE book = ?", (account,))[0][0])
    with view._transaction() as cursor:  # what a faulty projection could have written
        cursor.run(
            "INSERT INTO ledger_entries VALUES (0, 1, 'bet', ?, ?, ?, ?, 1, 1, '', 'Acted')",
            (f"pot:{table}", account, held + 7, table),
        )
        cursor.run(
            "UPDATE ledger_balances SET balance = balance - ? WHERE book = ?", (held + 7, account)
        )
        for book, more in ((f"pot:{table}", held + 7), ("cashier", 3)):
            cursor.run(
                "INSERT INTO ledger_balances VALUES (?, ?) ON CONFLICT (book) DO UPDATE "
                "SET balance = ledger_balances.balance + excluded.balance",
                (book, more),
            )
    summary = auditor.ledger.summary()
    assert not summary.balanced
    minted = summary.minted
    assert list(summary.problems) == [
        f"book {account} holds -7 chips",
        f"the books hold {minted + 3} chips but {minted} were minted",
        f"table {table} hand 1 left {held + 7} chips in its pot",
    ]


def test_the_lag_counts_what_the_views_have_not_applied(fresh: Fresh) -> None:
    admin = fresh.played.client(ADMIN)
    fresh.projector.stop()
    before = admin.ledger.projector_status()
    assert all(p.events_behind == 0 for p in before.projections)
    admin.mint_chips(PLAYERS[0], 25, "lag")
    admin.mint_chips(PLAYERS[1], 25, "lag")
    behind = admin.ledger.projector_status()
    for p in behind.projections:
        assert (p.head, p.events_behind) == (p.position + 2, 2)
    again = admin.ledger.projector_status()
    assert all(
        a.time_behind.ToTimedelta() > b.time_behind.ToTimedelta()
        for a, b in zip(again.projections, behind.projections, strict=True)
    )
    with pytest.raises(TimeoutError, match="still behind the log"):
        admin.ledger.caught_up(timeout=0.2)
    fresh.projector.follower.catch_up()
    caught = admin.ledger.caught_up(timeout=1)
    assert all(p.events_behind == 0 and p.position == p.head for p in caught.projections)
    assert admin.ledger.account(PLAYERS[0]).minted >= 25


# ---- who may read what


def test_a_player_reads_its_own_books_only(played: Played) -> None:
    funded = _funded(played)
    me, other = funded[3], funded[4]
    player = played.client(PLAYER, me)
    assert player.ledger.account().player_id == me
    assert player.ledger.account(me).balance == played.room.balance(me)
    denied = grpc.StatusCode.PERMISSION_DENIED
    _refused(lambda: player.ledger.account(other), denied, "NOT_YOUR_SEAT")
    _refused(lambda: player.ledger.account_entries(other), denied, "NOT_YOUR_SEAT")
    _refused(lambda: player.ledger.player_results(other), denied, "NOT_YOUR_SEAT")
    _refused(lambda: player.ledger.search_hands(player_id=other), denied, "NOT_YOUR_SEAT")
    _refused(player.ledger.summary, denied, "ROLE_FORBIDDEN")
    _refused(lambda: player.ledger.rake_report("day"), denied, "ROLE_FORBIDDEN")
    assert {r.player_id for r in player.ledger.player_results()} == {me}
    mine = list(player.ledger.search_hands())
    assert mine
    assert all(me in {s.player_id for s in h.seats} for h in mine)
    auditor = played.client(AUDITOR)
    theirs = next(
        h for h in auditor.ledger.search_hands() if me not in {s.player_id for s in h.seats}
    )
    _refused(
        lambda: player.ledger.hand_entries(theirs.table_id, theirs.hand_number),
        denied,
        "NOT_YOUR_SEAT",
    )
    own = mine[0]
    assert list(player.ledger.hand_entries(own.table_id, own.hand_number)) == list(
        auditor.ledger.hand_entries(own.table_id, own.hand_number)
    )


def test_a_spectator_sees_pots_and_lag_only(played: Played) -> None:
    funded = _funded(played)
    spectator = played.client(SPECTATOR)
    table = str(played.tables[1])
    assert spectator.ledger.table_pots(table).table_id == table
    assert spectator.ledger.projector_status().projections
    denied, forbidden = grpc.StatusCode.PERMISSION_DENIED, "ROLE_FORBIDDEN"
    _refused(lambda: spectator.ledger.account(funded[0]), denied, forbidden)
    _refused(lambda: spectator.ledger.account_entries(funded[0]), denied, forbidden)
    _refused(lambda: spectator.ledger.hand_entries(table, 1), denied, forbidden)
    _refused(spectator.ledger.search_hands, denied, forbidden)
    _refused(spectator.ledger.player_results, denied, forbidden)
    _refused(spectator.ledger.summary, denied, forbidden)
    _refused(lambda: spectator.ledger.rake_report("hour"), denied, forbidden)


def test_admins_read_everything_auditors_do(played: Played) -> None:
    funded = _funded(played)
    admin, auditor = played.client(ADMIN), played.client(AUDITOR)
    assert admin.ledger.summary() == auditor.ledger.summary()
    assert admin.ledger.account(funded[5]) == auditor.ledger.account(funded[5])
    assert list(admin.ledger.player_results()) == list(auditor.ledger.player_results())


# ---- bad input


def test_every_bad_input_has_its_own_status(played: Played) -> None:
    funded = _funded(played)
    auditor = played.client(AUDITOR)
    table = str(played.tables[2])
    dealt = played.room.table(played.tables[2]).table.hands
    invalid, missing = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND
    ledger = auditor.ledger
    _refused(lambda: ledger.table_pots("not-a-uuid"), invalid, "INVALID_REQUEST")
    _refused(lambda: ledger.table_pots(str(uuid4())), missing, "TABLE_NOT_FOUND")
    _refused(ledger.account, invalid, "INVALID_REQUEST")
    _refused(lambda: ledger.account("nobody-here"), missing, "ACCOUNT_NOT_FOUND")
    _refused(lambda: ledger.account("bad name!"), invalid, "INVALID_REQUEST")
    _refused(lambda: ledger.account_entries("nobody-here"), missing, "ACCOUNT_NOT_FOUND")
    _refused(lambda: ledger.hand_entries(table, 0), invalid, "INVALID_REQUEST")
    error = _refused(lambda: ledger.hand_entries(table, dealt + 1), missing, "HAND_NOT_FOUND")
    assert error.metadata == {"table_id": table, "hand_number": str(dealt + 1)}
    _refused(lambda: ledger.hand_entries(str(uuid4()), 1), missing, "TABLE_NOT_FOUND")
    _refused(lambda: ledger.search_hands(table_id=str(uuid4())), missing, "TABLE_NOT_FOUND")
    _refused(lambda: ledger.search_hands(table_id="x"), invalid, "INVALID_REQUEST")
    _refused(lambda: ledger.rake_report("hour", table_id=str(uuid4())), missing, "TABLE_NOT_FOUND")
    unspecified = ledger_pb2.GetRakeReportRequest(period=ledger_pb2.REPORT_PERIOD_UNSPECIFIED)
    error = _refused(
        lambda: ledger._ask(ledger.stub.GetRakeReport, unspecified), invalid, "INVALID_REQUEST"
    )
    assert [v.field for v in error.violations] == ["period"]
    _refused(lambda: ledger.search_hands_page(page_size=201), invalid, "INVALID_REQUEST")
    at = datetime.fromtimestamp(1000, UTC)
    error = _refused(lambda: ledger.search_hands(start=at, end=at), invalid, "INVALID_REQUEST")
    assert [(v.field, v.description) for v in error.violations] == [
        ("end_time", "must be after start_time")  # as ListHands names it
    ]
    error = _refused(
        lambda: ledger.rake_report("day", start=at, end=at - timedelta(seconds=1)),
        invalid,
        "INVALID_REQUEST",
    )
    assert [v.description for v in error.violations] == ["start_time must be before end_time"]
    _refused(
        lambda: ledger.account_entries_page(funded[0], page_size=201), invalid, "INVALID_REQUEST"
    )


def test_a_page_token_is_refused_with_other_filters_or_made_up(played: Played) -> None:
    funded = _funded(played)
    ledger = played.client(AUDITOR).ledger
    invalid = grpc.StatusCode.INVALID_ARGUMENT
    first = ledger.search_hands_page(table_id=str(played.tables[1]), page_size=2)
    assert first.next_page_token
    second = ledger.search_hands_page(
        table_id=str(played.tables[1]), page_size=2, page_token=first.next_page_token
    )
    assert [h.hand_number for h in [*first.hands, *second.hands]] == [1, 2, 3, 4]
    error = _refused(
        lambda: ledger.search_hands_page(
            table_id=str(played.tables[2]), page_token=first.next_page_token
        ),
        invalid,
        "INVALID_REQUEST",
    )
    assert [v.field for v in error.violations] == ["page_token"]
    for made_up in ("garbage", "W10", "WyJ4Il0", first.next_page_token[:-2]):
        _refused(
            lambda t=made_up: ledger.search_hands_page(
                table_id=str(played.tables[1]), page_token=t
            ),
            invalid,
            "INVALID_REQUEST",
        )
    owner, entries = next(
        (p, page)
        for p, page in ((p, ledger.account_entries_page(p, page_size=2)) for p in funded)
        if page.next_page_token
    )
    someone_else = next(p for p in funded if p != owner)
    _refused(
        lambda: ledger.account_entries_page(someone_else, page_token=entries.next_page_token),
        invalid,
        "INVALID_REQUEST",
    )
    _refused(
        lambda: ledger.hand_entries_page(
            str(played.tables[1]), 1, page_token=entries.next_page_token
        ),
        invalid,
        "INVALID_REQUEST",
    )


def test_a_server_given_no_views_says_so(live: Live) -> None:
    """The conftest's server is given no views."""
    admin = live.client(ADMIN)
    table = admin.list_tables_page().tables
    failed = grpc.StatusCode.FAILED_PRECONDITION
    error = _refused(admin.ledger.summary, failed, "VIEWS_UNAVAILABLE")
    assert "feltline project" in error.message
    _refused(admin.ledger.projector_status, failed, "VIEWS_UNAVAILABLE")
    _refused(lambda: admin.ledger.table_pots(str(uuid4())), failed, "VIEWS_UNAVAILABLE")
    assert table == []


def test_a_server_without_its_projector_reads_the_views_another_keeps(tmp_path: Path) -> None:
    """``feltline serve --no-projector`` beside ``feltline project``: this
    server runs no projector, yet answers from the views the other keeps,
    and its lag is theirs."""
    env = {"SQLITE_DBNAME": str(tmp_path / "shared.db")}
    signer = Signer.generate()
    room = open_store(env, signer)
    play(room, 1, 200, seed=3, pool=PLAYERS)
    store = StoreConfig.from_env(env).env
    server = Feltline(
        room, signer.public_key, clock=Seconds(0), tick=3600,
        projector=Projector(room.streams, store), project=False,
    ).start()  # fmt: skip
    elsewhere = Room(Streams(signer, env=store))  # the other process's own store
    keeper = Projector(elsewhere.streams, store)
    head = room.streams.recorder.max_notification_id()
    token = tokens.mint(signer, AUDITOR, now=datetime.now(UTC), ttl=timedelta(hours=1))
    with Client(server.target, token) as auditor:
        try:
            status = auditor.ledger.projector_status()
            assert all(p.events_behind == head for p in status.projections)  # nobody keeps them
            keeper.start()
            status = auditor.ledger.caught_up()
            assert all(p.position == head for p in status.projections)
            summary = auditor.ledger.summary()
            assert summary.balanced
            assert summary.minted > 0
        finally:
            keeper.stop()
            server.stop()
            elsewhere.close()
            room.close()
