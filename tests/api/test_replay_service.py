"""``ReplayService`` on both stores (docs/api.md, Replay): each role sees
exactly what it may of finished hands (a player never an opponent's unshown
cards nor the seed, a spectator no face-down card not shown, an auditor the
seed), pages and filters, a player's recall, every bad input's status, and
the server's verifier finding a tampered hand."""

from __future__ import annotations

import io
import json
import random
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest

from feltline.api.app import Feltline
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.domain.ids import hand_id
from feltline.engine.cards.deck import commitment
from feltline.projections.projector import Projector
from feltline.store.config import StoreConfig
from feltline_client import Client, FeltlineError
from feltline_protos.v1 import auth_pb2, events_pb2, replay_pb2
from feltline_replay import verify as verify_module
from tests.postgres import store_env
from tests.store.players import Players, finished, open_tables

from .conftest import Live, Seconds, open_store

PLAYER, SPECTATOR = auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR
AUDITOR, ADMIN = auth_pb2.ROLE_AUDITOR, auth_pb2.ROLE_ADMIN
NAMES = tuple(f"p{n}" for n in range(9))  # player ids the contract accepts
HANDS = 30


def _store(request: pytest.FixtureRequest, path: Path) -> dict[str, str]:
    """SQLite at ``path``, or a fresh PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        return {"SQLITE_DBNAME": str(path)}
    conn: psycopg.Connection[tuple[object, ...]] = request.getfixturevalue("postgres")
    schema = f"feltline_test_{uuid.uuid4().hex[:12]}"
    conn.execute(f"CREATE SCHEMA {schema}")
    request.addfinalizer(lambda: conn.execute(f"DROP SCHEMA {schema} CASCADE"))
    return store_env(schema)


def _played(env: dict[str, str], path: Path, hands: int, seed: int) -> Live:
    """``hands`` hands of hold'em and stud played by random players straight
    into the store, every table left mid-hand (so nothing changes while the
    tests read: the server's clock, at 0, times nobody out), then a server
    on it."""
    signer = Signer.generate()
    room = open_store(env, signer)
    ids = open_tables(room, 2)
    rng = random.Random(seed)
    seated = [Players(room, t, rng, pool=NAMES) for t in ids]
    while finished(room, ids) < hands or any(room.table(t).table.dealt is None for t in ids):
        for p in seated:
            if finished(room, ids) < hands or room.table(p.id).table.dealt is None:
                p.step()
    clock = Seconds(0)
    server = Feltline(room, signer.public_key, clock=clock, tick=0.1).start()
    return Live(path, signer, clock, room, server, env=env)


def _stop(live: Live) -> None:
    for client in live.clients:
        client.close()
    live.server.stop()
    live.room.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Live]:
    """A server over a store of real finished hands, one per store kind."""
    path = tmp_path_factory.mktemp("replay") / "played.db"
    live = _played(_store(request, path), path, HANDS, seed=5)
    yield live
    _stop(live)


@dataclass
class Seen:
    """What an auditor's view says of one hand: the truth to compare with."""

    summary: replay_pb2.HandSummary
    events: list[events_pb2.Event]

    def seats(self) -> dict[str, int]:
        return {s.player_id: s.seat for s in self.summary.seats}

    def shown(self) -> dict[int, set[str]]:
        out: dict[int, set[str]] = {}
        for e in self.events:
            if e.WhichOneof("kind") == "shown":
                out.setdefault(e.shown.seat, set()).update(e.shown.cards)
        return out

    def folded(self) -> set[int]:
        return {
            e.acted.seat
            for e in self.events
            if e.WhichOneof("kind") == "acted" and e.acted.action == 1  # ACTION_KIND_FOLD
        }


def _truth(live: Live) -> list[Seen]:
    auditor = live.client(AUDITOR)
    out = []
    for summary in auditor.list_hands(page_size=200):
        hand = auditor.get_hand(summary.hand_id)
        out.append(Seen(hand.hand, list(hand.events)))
    return out


def _face_down(events: list[events_pb2.Event]) -> list[tuple[int, str]]:
    """Each face-down card a view names, by seat."""
    return [
        (e.card_dealt.seat, e.card_dealt.card)
        for e in events
        if e.WhichOneof("kind") == "card_dealt"
        and not e.card_dealt.face_up
        and e.card_dealt.HasField("card")
    ]


def _drained(result: object) -> None:
    """Read a streamed answer to its end: a stream's refusal comes as it is read."""
    if isinstance(result, Iterator):
        list(result)


def _refused(call: object, code: grpc.StatusCode, reason: str) -> FeltlineError:
    assert callable(call)
    with pytest.raises(FeltlineError) as refused:
        _drained(call())
    assert refused.value.code is code, refused.value
    assert refused.value.reason == reason, refused.value
    assert refused.value.message
    return refused.value


def test_an_auditor_and_an_admin_see_everything_seed_included(played: Live) -> None:
    truth = _truth(played)
    assert len(truth) >= HANDS
    admin = played.client(ADMIN)
    for seen in truth:
        kinds = [e.WhichOneof("kind") for e in seen.events]
        started = seen.events[0].hand_started
        deck = seen.events[kinds.index("deck_shuffled")].deck_shuffled
        assert commitment(deck.seed) == started.commitment
        assert seen.events[-1].hand_ended.HasField("seed")
        assert not any(e.redacted for e in seen.events)
        dealt = [e for e in seen.events if e.WhichOneof("kind") == "card_dealt"]
        assert all(e.card_dealt.HasField("card") for e in dealt)
    one = truth[-1]
    assert list(admin.get_hand(one.summary.hand_id).events) == one.events


def test_a_player_sees_its_own_cards_and_the_showdown_never_a_muck_nor_the_seed(
    played: Live,
) -> None:
    truth = _truth(played)
    checked = mucked = 0
    for name in NAMES[:5]:
        mine = [s for s in truth if name in s.seats()]
        client = played.client(PLAYER, name)
        listed = [h.hand_id for h in client.list_hands(page_size=7)]
        assert listed == [s.summary.hand_id for s in mine]
        for seen in mine:
            seat = seen.seats()[name]
            events = list(client.get_hand(seen.summary.hand_id).events)
            assert len(events) == len(seen.events)
            shown = seen.shown()
            for owner, card in _face_down(events):
                assert owner == seat or card in shown.get(owner, set())
            own = [c for s, c in _face_down(seen.events) if s == seat]
            assert [c for s, c in _face_down(events) if s == seat] == own
            mucked += len([o for o, _ in _face_down(seen.events) if o in seen.folded() - {seat}])
            assert not events[-1].hand_ended.HasField("seed")
            deck = next(e for e in events if e.WhichOneof("kind") == "deck_shuffled")
            assert not deck.deck_shuffled.HasField("seed")
            assert deck.redacted
            checked += 1
    assert checked
    assert mucked


def test_a_player_may_not_read_a_hand_it_was_not_dealt_into(played: Live) -> None:
    truth = _truth(played)
    seen = next(s for s in truth if "p0" not in s.seats())
    client = played.client(PLAYER, "p0")
    _refused(
        lambda: client.get_hand(seen.summary.hand_id),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_YOUR_SEAT",
    )
    _refused(
        lambda: client.hand_steps(seen.summary.hand_id),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_YOUR_SEAT",
    )
    _refused(
        lambda: client.list_hands_page(player_id="p1"),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_YOUR_SEAT",
    )


def test_a_spectator_sees_no_face_down_card_but_those_shown(played: Live) -> None:
    spectator = played.client(SPECTATOR)
    for seen in _truth(played):
        events = list(spectator.get_hand(seen.summary.hand_id).events)
        shown = seen.shown()
        for owner, card in _face_down(events):
            assert card in shown.get(owner, set())
        assert not events[-1].hand_ended.HasField("seed")
        assert not any(e.drew.discards for e in events if e.WhichOneof("kind") == "drew")


def test_steps_give_each_event_with_the_state_as_the_caller_may_see_it(played: Live) -> None:
    truth = _truth(played)
    seen = next(s for s in truth if s.shown() and s.folded())
    name, seat = next(iter(seen.seats().items()))
    viewers = {
        "auditor": played.client(AUDITOR),
        "player": played.client(PLAYER, name),
        "spectator": played.client(SPECTATOR),
    }
    for who, client in viewers.items():
        steps = list(client.hand_steps(seen.summary.hand_id))
        assert [s.event for s in steps] == list(client.get_hand(seen.summary.hand_id).events)
        assert [s.state.sequence for s in steps] == list(range(1, len(steps) + 1))
        last = steps[-1].state
        assert last.phase == 5  # HAND_PHASE_ENDED
        shown = seen.shown()
        for s in last.seats:
            if who == "auditor" or (who == "player" and s.seat == seat):
                assert s.hidden_cards == 0
            else:
                assert set(s.down_cards) <= shown.get(s.seat, set())
                if s.seat not in shown:
                    assert not s.down_cards
                    assert s.hidden_cards
        final = {r.seat: r.final_stack for r in seen.summary.seats}
        assert {s.seat: s.stack for s in last.seats} == final


def test_pages_join_up_and_filters_pick_what_they_say(played: Live) -> None:
    auditor = played.client(AUDITOR)
    everything = list(auditor.list_hands_page(page_size=200).hands)
    paged = []
    token = ""
    while True:
        page = auditor.list_hands_page(page_size=4, page_token=token)
        assert len(page.hands) <= 4
        paged.extend(page.hands)
        token = page.next_page_token
        if not token:
            break
    assert paged == everything
    starts = [h.start_time.seconds for h in everything]
    assert starts == sorted(starts)
    table = everything[0].table_id
    assert [h for h in everything if h.table_id == table] == list(
        auditor.list_hands(table_id=table)
    )
    who = everything[0].seats[0].player_id
    assert [h for h in everything if who in {s.player_id for s in h.seats}] == list(
        auditor.list_hands(player_id=who)
    )
    middle = starts[len(starts) // 2]
    later = list(auditor.list_hands(start_time=middle, end_time=starts[-1]))
    assert later == [h for h in everything if middle <= h.start_time.seconds < starts[-1]]
    assert later
    assert len(later) < len(everything)


def test_a_hand_result_adds_up(played: Live) -> None:
    for seen in _truth(played):
        total_won = sum(r.won for r in seen.summary.seats)
        total_bet = sum(r.bet for r in seen.summary.seats)
        assert total_won + seen.summary.rake == total_bet
        for r in seen.summary.seats:
            assert r.final_stack == r.starting_stack - r.bet + r.won


def test_recall_is_the_players_last_ten_hands_in_order_marked_as_replays(played: Live) -> None:
    truth = _truth(played)
    name = max(NAMES, key=lambda n: sum(n in s.seats() for s in truth))
    mine = [s for s in truth if name in s.seats()]
    assert len(mine) > 10
    recalled = played.client(PLAYER, name).recall_hands()
    assert [r.hand.hand_id for r in recalled] == [s.summary.hand_id for s in mine[-10:]]
    for hand, seen in zip(recalled, mine[-10:], strict=True):
        seat = seen.seats()[name]
        assert hand.replay
        assert hand.title.startswith("REPLAY: hand ")
        assert hand.seat == seat
        assert hand.hand == seen.summary
        assert hand.result == next(r for r in seen.summary.seats if r.seat == seat)
        kinds = {"posted", "acted", "drew", "declared"}
        theirs = [e for e in seen.events if e.WhichOneof("kind") in kinds]
        made = [e for e in theirs if getattr(e, e.WhichOneof("kind")).seat == seat]
        assert [e.sequence for e in hand.choices] == [e.sequence for e in made]
        assert sum(e.posted.amount + e.acted.amount for e in hand.choices) >= hand.result.bet
        assert not hand.events[-1].hand_ended.HasField("seed")
    by_auditor = played.client(AUDITOR).recall_hands(name)
    assert by_auditor == recalled


def _ohh(text: str) -> dict[str, str]:
    """Each hand of an OHH export (an object a line): its id and its line."""
    hands = [line for line in text.splitlines() if line]
    return {json.loads(line)["ohh"]["game_number"]: line for line in hands}


def _hidden(seen: Seen, seat: int | None) -> set[str]:
    """The face-down cards of a hand that ``seat`` (None: a spectator) may
    never see: others' cards not shown at the showdown."""
    shown = seen.shown()
    return {
        card
        for owner, card in _face_down(seen.events)
        if owner != seat and card not in shown.get(owner, set())
    }


def test_hand_histories_export_as_the_caller_may_see_them(played: Live) -> None:
    truth = {s.summary.hand_id: s for s in _truth(played)}
    ohh = replay_pb2.EXPORT_FORMAT_OHH
    out = io.StringIO()
    assert played.client(AUDITOR).export_history(ohh, out) == []
    every = _ohh(out.getvalue())
    assert set(every) == set(truth)
    for hand, line in every.items():  # an auditor's history has every card
        assert all(f'"{card}"' in line for _, card in _face_down(truth[hand].events))
    readers = [(played.client(PLAYER, name), name) for name in NAMES[:4]]
    readers.append((played.client(SPECTATOR), None))
    hidden_somewhere = 0
    for client, name in readers:
        out = io.StringIO()
        client.export_history(ohh, out)
        seen = _ohh(out.getvalue())
        mine = {h for h, s in truth.items() if name is None or name in s.seats()}
        assert set(seen) == mine
        for hand, line in seen.items():
            seat = None if name is None else truth[hand].seats()[name]
            hidden = _hidden(truth[hand], seat)
            hidden_somewhere += len(hidden)
            assert not [card for card in hidden if f'"{card}"' in line], (name, hand)
    assert hidden_somewhere


def test_every_history_format_comes_through_the_service(played: Live) -> None:
    auditor = played.client(AUDITOR)
    hands = len(_truth(played))
    out = io.StringIO()
    left_out = auditor.export_history(replay_pb2.EXPORT_FORMAT_PHH, out)
    assert all(h.reason for h in left_out)
    written = [line for line in out.getvalue().splitlines() if line.startswith("[")]
    assert len(written) == hands - len(left_out) > 0
    out = io.StringIO()
    assert auditor.export_history(replay_pb2.EXPORT_FORMAT_POKERSTARS, out, last=3) == []
    assert out.getvalue().count("Hand #") == 3
    out = io.StringIO()
    played.client(SPECTATOR).export_history(replay_pb2.EXPORT_FORMAT_HTML, out, last=2)
    page = out.getvalue()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert page.rstrip().endswith("</html>")


def test_bad_requests_are_refused_precisely(played: Live) -> None:
    auditor = played.client(AUDITOR)
    spectator = played.client(SPECTATOR)
    player = played.client(PLAYER, "p0")
    bad, missing = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND
    denied = grpc.StatusCode.PERMISSION_DENIED
    e = _refused(lambda: auditor.get_hand("not a uuid"), bad, "INVALID_REQUEST")
    assert [v.field for v in e.violations] == ["hand_id"]
    _refused(lambda: auditor.get_hand(str(uuid.uuid4())), missing, "HAND_NOT_FOUND")
    _refused(lambda: auditor.verify_hand(str(uuid.uuid4())), missing, "HAND_NOT_FOUND")
    _refused(lambda: auditor.list_hands_page(page_token="x"), bad, "INVALID_REQUEST")
    _refused(lambda: auditor.list_hands_page(page_token="-3"), bad, "INVALID_REQUEST")
    first = auditor.list_hands_page(page_size=2)
    assert first.next_page_token
    elsewhere = first.next_page_token  # a token resumes only the list that gave it
    _refused(
        lambda: auditor.list_hands_page(page_token=elsewhere, player_id="p1"),
        bad,
        "INVALID_REQUEST",
    )
    _refused(lambda: auditor.list_hands_page(page_size=201), bad, "INVALID_REQUEST")
    e = _refused(lambda: auditor.list_hands_page(start_time=10, end_time=5), bad, "INVALID_REQUEST")
    assert [v.field for v in e.violations] == ["end_time"]
    _refused(
        lambda: auditor.list_hands_page(table_id=str(uuid.uuid4())), missing, "TABLE_NOT_FOUND"
    )
    _refused(lambda: auditor.list_hands_page(player_id="no spaces"), bad, "INVALID_REQUEST")
    _refused(lambda: player.verify_hand(str(uuid.uuid4())), denied, "ROLE_FORBIDDEN")
    _refused(spectator.export_hands, denied, "ROLE_FORBIDDEN")
    _refused(player.export_hands, denied, "ROLE_FORBIDDEN")
    unspecified = replay_pb2.EXPORT_FORMAT_UNSPECIFIED
    e = _refused(lambda: auditor.export_history(unspecified, io.StringIO()), bad, "INVALID_REQUEST")
    assert [v.field for v in e.violations] == ["format"]
    phh = replay_pb2.EXPORT_FORMAT_PHH
    e = _refused(
        lambda: player.export_history(phh, io.StringIO(), player_ids=["p1"]),
        denied,
        "NOT_YOUR_SEAT",
    )
    assert [v.field for v in e.violations] == ["player_ids"]
    _refused(lambda: auditor.export_hands(table_ids=["x"]), bad, "INVALID_REQUEST")
    _refused(spectator.recall_hands, denied, "ROLE_FORBIDDEN")
    _refused(lambda: player.recall_hands("p1"), denied, "NOT_YOUR_SEAT")
    e = _refused(auditor.recall_hands, bad, "INVALID_REQUEST")
    assert [v.field for v in e.violations] == ["player_id"]


def test_a_hand_in_progress_is_not_served_until_it_ends(played: Live) -> None:
    auditor = played.client(AUDITOR)
    for key in played.server.room.tables():
        t = played.room.table(key).table
        assert t.dealt is not None
        live = str(hand_id(key, t.hands))
        progress = grpc.StatusCode.FAILED_PRECONDITION, "HAND_IN_PROGRESS"
        e = _refused(
            lambda live=live: auditor.get_hand(live),
            *progress,
        )
        assert e.metadata["hand_id"] == live
        _refused(
            lambda live=live: auditor.verify_hand(live),
            *progress,
        )
        _refused(
            lambda live=live: auditor.hand_steps(live),
            *progress,
        )
        assert live not in {h.hand_id for h in auditor.list_hands()}


def test_every_finished_hand_verifies_clean_against_the_servers_key(played: Live) -> None:
    auditor = played.client(AUDITOR)
    hands = list(auditor.list_hands())
    for hand in hands[:: max(1, len(hands) // 6)]:
        report = auditor.verify_hand(hand.hand_id)
        assert report.ok, report.failures
        assert report.public_key == played.signer.public_hex
        assert report.hand == hand


@pytest.fixture(params=["sqlite", "postgres"])
def small(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Live]:
    live = _played(_store(request, tmp_path / "small.db"), tmp_path / "small.db", 4, seed=9)
    yield live
    _stop(live)


State = dict[str, Any]


def _one_chip_more(state: State) -> State:
    return {**state, "data": {**state["data"], "amount": state["data"]["amount"] + 1}}


def _garbled(state: State) -> State:
    return {**state, "data": {"garbled": True}}


def _tamper(
    live: Live, stream: uuid.UUID, position: int, change: Callable[[State], State] = _one_chip_more
) -> bool:
    """Change the record at ``position`` of ``stream`` (by default, add a
    chip to what it put in), as someone with write access to the database
    could; whether ``change`` changed it."""
    sql = "SELECT state FROM {} WHERE originator_id = {} AND originator_version = {}"
    update = "UPDATE {} SET state = {} WHERE originator_id = {} AND originator_version = {}"
    if "SQLITE_DBNAME" in live.env:
        with sqlite3.connect(live.env["SQLITE_DBNAME"]) as db:
            (raw,) = db.execute(
                sql.format("stored_events", "?", "?"), (stream.hex, position)
            ).fetchone()
            state = json.loads(raw)
            db.execute(
                update.format("stored_events", "?", "?", "?"),
                (json.dumps(changed := change(state)).encode(), stream.hex, position),
            )
        return changed != state
    table = f'"{live.env["POSTGRES_SCHEMA"]}".cardroom_events'
    with psycopg.connect(
        dbname=live.env["POSTGRES_DBNAME"],
        host=live.env["POSTGRES_HOST"],
        port=live.env["POSTGRES_PORT"],
        user=live.env["POSTGRES_USER"],
        autocommit=True,
    ) as db:
        row = db.execute(sql.format(table, "%s", "%s"), (stream, position)).fetchone()
        assert row is not None
        state = json.loads(bytes(row[0]))
        db.execute(
            update.format(table, "%s", "%s", "%s"),
            (json.dumps(changed := change(state)).encode(), stream, position),
        )
    return changed != state


def test_a_tampered_hand_fails_verification_and_is_named(small: Live) -> None:
    auditor = small.client(AUDITOR)
    hands = list(auditor.list_hands())
    target, other = hands[0], hands[-1]
    assert auditor.verify_hand(target.hand_id).ok
    events = list(auditor.get_hand(target.hand_id).events)
    acted = next(
        e
        for e in events
        if e.WhichOneof("kind") in ("acted", "posted") and (e.acted.amount or e.posted.amount)
    )
    _tamper(small, uuid.UUID(target.hand_id), acted.sequence)
    report = auditor.verify_hand(target.hand_id)
    assert not report.ok
    assert {f.stream_id for f in report.failures} == {target.hand_id}
    chain = [f for f in report.failures if f.check == "chain"]
    assert chain
    assert chain[0].position == acted.sequence
    assert auditor.verify_hand(other.hand_id).ok


def test_a_hand_that_no_longer_decodes_still_gets_its_report(small: Live) -> None:
    auditor = small.client(AUDITOR)
    target = next(iter(auditor.list_hands()))
    events = list(auditor.get_hand(target.hand_id).events)
    acted = next(e for e in events if e.WhichOneof("kind") == "acted")
    _tamper(small, uuid.UUID(target.hand_id), acted.sequence, _garbled)
    report = auditor.verify_hand(target.hand_id)
    assert not report.ok
    checks = {(f.check, f.position) for f in report.failures if f.stream_id == target.hand_id}
    assert ("chain", acted.sequence) in checks
    assert ("decode", acted.sequence) in checks


def test_every_signature_of_the_hand_is_verified(small: Live) -> None:
    """Not only the seal: a well-formed signature by the server's key that
    does not sign its record's link is found (``--all-signatures``)."""
    auditor = small.client(AUDITOR)
    target = next(iter(auditor.list_hands()))
    stream = uuid.UUID(target.hand_id)
    forged = Signer.generate().sign(b"something else").hex()

    def forge(state: State) -> State:
        return {**state, "signature": forged} if state["signature"] else state

    position = next(p for p in range(1, 100) if _tamper(small, stream, p, forge))
    report = auditor.verify_hand(target.hand_id)
    assert not report.ok
    assert [(f.check, f.stream_id, f.position) for f in report.failures] == [
        ("signature", target.hand_id, position)
    ]


def test_the_server_reports_the_replay_service_healthy(played: Live) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(played.server.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="feltline.v1.ReplayService"))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


# ---- ListHands from the hand index


def _play(room: Room, ids: list[uuid.UUID], hands: int, rng: random.Random) -> None:
    """Play on at ``ids`` until ``hands`` hands are finished there in all."""
    seated = [Players(room, t, rng, pool=NAMES) for t in ids]
    while finished(room, ids) < hands:
        for p in seated:
            p.step()


def _indexed(env: dict[str, str], path: Path, *, project: bool) -> tuple[Live, Projector]:
    """A server with its projector, caught up, over hands of every game;
    the first table closed mid-hand (its hand cancelled). With ``project``
    false the server does not run the projector: the test moves it."""
    signer = Signer.generate()
    room = open_store(env, signer)
    ids = open_tables(room, 4)
    _play(room, ids, 40, random.Random(3))
    while room.table(ids[0]).table.dealt is None:
        Players(room, ids[0], random.Random(4), pool=NAMES).step()
    room.close_table(ids[0], "closing", at=10**6)
    projector = Projector(room.streams, StoreConfig.from_env(env).env)
    projector.follower.catch_up()
    clock = Seconds(0)
    server = Feltline(
        room, signer.public_key, clock=clock, tick=3600, projector=projector, project=project
    ).start()
    return Live(path, signer, clock, room, server, env=env), projector


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def indexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Live]:
    """A server reading its hand index, caught up, over hands of every game."""
    path = tmp_path_factory.mktemp("indexed") / "indexed.db"
    live, _ = _indexed(_store(request, path), path, project=True)
    yield live
    _stop(live)


def _finished_by_table(live: Live) -> dict[str, list[int]]:
    """Each table's finished hands' numbers, as the store says."""
    out = {}
    for key in live.server.room.tables():
        t = live.room.table(key).table
        out[str(key)] = list(range(1, t.hands - (t.dealt is not None) + 1))
    return out


def _every_page(
    client: Client, size: int, token: str = "", **filters: Any
) -> list[replay_pb2.HandSummary]:
    """Every page from ``token`` on (the first page's, if empty)."""
    out: list[replay_pb2.HandSummary] = []
    while True:
        page = client.list_hands_page(page_size=size, page_token=token, **filters)
        assert len(page.hands) <= size
        out.extend(page.hands)
        token = page.next_page_token
        if not token:
            return out


def _order(h: replay_pb2.HandSummary) -> tuple[int, str, int]:
    return h.start_time.seconds, h.table_id, h.hand_number


def test_hands_listed_from_the_index_are_those_the_log_gives(indexed: Live) -> None:
    """Every finished hand once, in order, each summary as GetHand reads it
    from the log: every game, a cancelled hand, bets returned uncalled."""
    auditor = indexed.client(AUDITOR)
    every = _every_page(auditor, 7)
    assert every == list(auditor.list_hands_page(page_size=200).hands)
    assert [_order(h) for h in every] == sorted(_order(h) for h in every)
    listed: dict[str, list[int]] = {}
    for h in every:
        listed.setdefault(h.table_id, []).append(h.hand_number)
        assert h == auditor.get_hand(h.hand_id).hand
    assert {t: sorted(n) for t, n in listed.items()} == _finished_by_table(indexed)
    assert len({h.game for h in every}) == 4
    assert any(h.cancelled for h in every)
    for name in NAMES[:3]:
        mine = [h for h in every if name in {s.player_id for s in h.seats}]
        assert _every_page(indexed.client(PLAYER, name), 3) == mine
    table = every[0].table_id
    assert _every_page(auditor, 5, table_id=table) == [h for h in every if h.table_id == table]
    starts = sorted({h.start_time.seconds for h in every})
    since, until = starts[len(starts) // 3], starts[2 * len(starts) // 3]
    between = [h for h in every if since <= h.start_time.seconds < until]
    assert between
    assert _every_page(auditor, 4, start_time=since, end_time=until) == between


def test_listing_reads_no_hand_s_records_once_the_index_holds_it(
    indexed: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page costs a few queries of the index, not each hand's records:
    with the records out of reach, every hand is still listed."""
    auditor = indexed.client(AUDITOR)
    every = list(auditor.list_hands(page_size=200))

    def unread(*_: object) -> list[Any]:
        raise AssertionError("ListHands read a hand's records")

    monkeypatch.setattr(indexed.server.rail, "hand_records", unread)
    assert _every_page(auditor, 9) == every


@pytest.fixture
def lagging(tmp_path: Path) -> Iterator[tuple[Live, Projector]]:
    """A server whose projector it does not run: the test moves it."""
    path = tmp_path / "lagging.db"
    live, projector = _indexed({"SQLITE_DBNAME": str(path)}, path, project=False)
    yield live, projector
    _stop(live)


def test_hands_the_index_has_not_reached_are_listed_from_the_log(
    lagging: tuple[Live, Projector],
) -> None:
    live, projector = lagging
    auditor = live.client(AUDITOR)
    before = list(auditor.list_hands())
    ids = [uuid.UUID(t) for t in _finished_by_table(live)][1:]  # the first table is closed
    _play(live.room, ids, finished(live.room, ids) + 12, random.Random(5))
    every = _every_page(auditor, 6)
    assert len(every) >= len(before) + 12
    numbers: dict[str, list[int]] = {}
    for h in every:
        numbers.setdefault(h.table_id, []).append(h.hand_number)
        assert h == auditor.get_hand(h.hand_id).hand
    assert {t: sorted(n) for t, n in numbers.items()} == _finished_by_table(live)
    projector.follower.catch_up()
    assert _every_page(auditor, 6) == every


def test_a_page_token_keeps_its_place_when_hands_finish_before_it(
    lagging: tuple[Live, Projector],
) -> None:
    """A token names the last hand of its page, not a count of hands: a hand
    finished meanwhile that sorts before it neither repeats a hand on the
    next page nor pushes one off."""
    live, projector = lagging
    auditor = live.client(AUDITOR)
    listed = list(auditor.list_hands())
    last = {
        t: max(h.start_time.seconds for h in listed if h.table_id == t)
        for t in {h.table_id for h in listed}
        if not live.room.table(uuid.UUID(t)).table.closed  # closed by an earlier test
    }
    behind = min(last, key=lambda t: (last[t], t))
    ahead = [uuid.UUID(t) for t in last if t != behind]
    rng = random.Random(6)
    # The other tables play on until the page's last hand starts ten minutes
    # after the last at the table behind, so that its next hand sorts before
    # the token's place, whatever the cards dealt (a hand's steps take seconds).
    while sorted(h.start_time.seconds for h in auditor.list_hands())[-2] < last[behind] + 600:
        _play(live.room, ahead, finished(live.room, ahead) + 1, rng)
    before = list(auditor.list_hands())
    first = auditor.list_hands_page(page_size=len(before) - 1)
    mark = _order(first.hands[-1])
    at = uuid.UUID(behind)
    _play(live.room, [at], finished(live.room, [at]) + 1, rng)
    projector.follower.catch_up()
    new = [h for h in auditor.list_hands() if h.hand_id not in {b.hand_id for b in before}]
    assert any(_order(h) < mark for h in new)  # it sorts before the token's place
    rest = _every_page(auditor, 50, first.next_page_token)
    paged = [h.hand_id for h in [*first.hands, *rest]]
    assert len(paged) == len(set(paged))
    assert {h.hand_id for h in before} <= set(paged)


# ---- VerifyHand


def test_verifying_hands_of_one_table_checks_its_stream_once(
    small: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's stream is checked once while it stays as it was, not
    again with each of its hands."""
    folds: list[str] = []
    fold_table = verify_module.fold_table

    def counted(records: list[dict[str, Any]], *, every: bool = False) -> Any:
        folds.append(str(records[0]["id"]))
        return fold_table(records, every=every)

    monkeypatch.setattr(verify_module, "fold_table", counted)
    auditor = small.client(AUDITOR)
    hands = list(auditor.list_hands())
    table = hands[0].table_id
    mine = [h for h in hands if h.table_id == table]
    assert len(mine) >= 2
    for hand in mine:
        assert auditor.verify_hand(hand.hand_id).ok
    assert folds == [table]


def test_a_table_stream_changed_after_its_check_is_checked_again(small: Live) -> None:
    """A byte changed in a table record already checked, the stream's length
    unchanged, fails the next VerifyHand of any of its hands."""
    auditor = small.client(AUDITOR)
    hand = next(iter(auditor.list_hands()))
    assert auditor.verify_hand(hand.hand_id).ok
    assert _tamper(small, uuid.UUID(hand.table_id), 2, _garbled)
    report = auditor.verify_hand(hand.hand_id)
    assert not report.ok
    assert ("table", hand.table_id, 2) in {
        (f.kind, f.stream_id, f.position) for f in report.failures
    }


# ---- refusals as the other services give them


def test_recalling_a_player_with_no_account_is_not_found_as_in_the_ledger(indexed: Live) -> None:
    auditor = indexed.client(AUDITOR)
    missing = grpc.StatusCode.NOT_FOUND, "ACCOUNT_NOT_FOUND"
    ledger = _refused(lambda: auditor.ledger.account("nobody"), *missing)
    recall = _refused(lambda: auditor.recall_hands("nobody"), *missing)
    assert recall.message == ledger.message
    assert recall.metadata["player_id"] == "nobody"
    _refused(lambda: indexed.client(ADMIN).recall_hands("nobody"), *missing)


def test_a_range_with_no_time_in_it_is_refused_alike_naming_end_time(indexed: Live) -> None:
    """ListHands and SearchHands (both end exclusive) refuse an end at or
    before the start in the same words; ExportHands (end inclusive) one
    before it."""
    auditor = indexed.client(AUDITOR)
    bad = grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"
    for start, end in [(10, 5), (10, 10)]:
        listed = _refused(partial(auditor.list_hands_page, start_time=start, end_time=end), *bad)
        since, until = datetime.fromtimestamp(start, UTC), datetime.fromtimestamp(end, UTC)
        searched = _refused(partial(auditor.ledger.search_hands_page, start=since, end=until), *bad)
        for refused in (listed, searched):
            assert [(v.field, v.description) for v in refused.violations] == [
                ("end_time", "must be after start_time")
            ]
        assert listed.message == searched.message
    e = _refused(lambda: auditor.export_hands(start_time=10, end_time=5), *bad)
    assert [v.field for v in e.violations] == ["end_time"]
    assert list(auditor.export_hands(start_time=10, end_time=10))  # the header, at least


def test_a_player_asking_for_the_log_is_told_which_formats_it_may_have(indexed: Live) -> None:
    names = ["EXPORT_FORMAT_PHH", "EXPORT_FORMAT_OHH", "EXPORT_FORMAT_POKERSTARS"]
    for client in (indexed.client(PLAYER, "p0"), indexed.client(SPECTATOR)):
        e = _refused(client.export_hands, grpc.StatusCode.PERMISSION_DENIED, "ROLE_FORBIDDEN")
        assert all(name in e.message for name in [*names, "EXPORT_FORMAT_HTML"]), e.message
        out = io.StringIO()
        client.export_history(replay_pb2.EXPORT_FORMAT_OHH, out)  # as the message says


def test_finding_a_hand_reads_only_what_its_table_stored_since(
    small: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GetHand and VerifyHand find a hand's deal and result without reading
    and decoding its table's whole stream again on each call."""
    auditor = small.client(AUDITOR)
    hands = list(auditor.list_hands())
    table = uuid.UUID(hands[0].table_id)
    mine = [h.hand_id for h in hands if h.table_id == str(table)]
    auditor.get_hand(mine[0])
    read: list[tuple[uuid.UUID, int]] = []
    after = small.room.streams.after

    def counted(stream: uuid.UUID, version: int) -> Any:
        read.append((stream, version))
        return after(stream, version)

    monkeypatch.setattr(small.room.streams, "after", counted)
    for hand in mine:
        assert auditor.get_hand(hand).hand.hand_id == hand
        assert auditor.verify_hand(hand).ok
    assert read
    assert (table, 0) not in read
