"""Prometheus metrics (docs/metrics.md): a live ``feltline serve
--metrics-port`` is scraped while bots play and once they are done, and
every documented name must be there, the counters must say what the
store holds (hands finished, moves by game and kind), and the Grafana
dashboard may query nothing else. The gRPC metrics count each kind of
call with Go's code names, refusals for a token included."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from structlog.testing import capture_logs

from feltline.api import convert, tokens
from feltline.api.app import Feltline
from feltline.api.tokens import Role
from feltline.audit.keys import Signer
from feltline.domain.ids import hand_id
from feltline.engine.hand.events import Acted, Declared, Drew, HandEnded
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.projections.projector import PROJECTIONS
from feltline.store.check import check
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_client import Client, FeltlineError
from feltline_client.bots import Casual, Player
from feltline_protos.v1 import auth_pb2, tables_pb2, tables_pb2_grpc
from tests.api.conftest import open_room
from tests.api.test_unreadable import _corrupt, _undecodable
from tests.tables import TABLES

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "metrics.md"
DASHBOARD = ROOT / "ops" / "grafana" / "feltline.json"
FELTLINE = [sys.executable, "-c", "import sys; from feltline.cli import main; sys.exit(main())"]
LISTENING = re.compile(r"feltline listening on (\S+)")
METRICS_AT = re.compile(r"metrics at (http://\S+)")
LEASES = frozenset({"feltline_leases_held", "feltline_lease_takeovers_total"})
GAMES = (Game.HOLDEM, Game.STUD_HI_LO)
SEATS = 3
HANDS = 4  # each bot's


class Scrape:
    """One scrape, parsed: its families and every sample by name."""

    def __init__(self, text: str) -> None:
        self.families = list(text_string_to_metric_families(text))
        # A family with no series yet (a labelled counter nothing counted)
        # is served as its HELP and TYPE: named all the same.
        self.names = {f.name for f in self.families} | {
            f"{f.name}_total" for f in self.families if f.type == "counter"
        }
        self.names |= {s.name for f in self.families for s in f.samples}

    def value(self, name: str, **labels: str) -> float:
        """The sum of the samples of ``name`` whose labels include ``labels``."""
        return sum(
            s.value
            for f in self.families
            for s in f.samples
            if s.name == name and labels.items() <= s.labels.items()
        )

    def by(self, name: str, *keys: str) -> dict[tuple[str, ...], float]:
        """``name``'s samples summed by the labels ``keys``, leaving out zeros."""
        found: Counter[tuple[str, ...]] = Counter()
        for f in self.families:
            for s in f.samples:
                if s.name == name and s.value:
                    found[tuple(s.labels[k] for k in keys)] += s.value
        return dict(found)


def scrape(url: str) -> Scrape:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return Scrape(answer.read().decode())


def documented() -> set[str]:
    """The names docs/metrics.md lists, one table row each."""
    names = set(re.findall(r"^\| `([a-z_]+)`", DOCS.read_text(), re.MULTILINE))
    assert len(names) > 20, names
    return names


@dataclass
class Played:
    playing: Scrape  # while the bots played
    done: Scrape  # once they were done and the projector had caught up
    hands: int  # the store's count of hands dealt
    finished: int  # ... and finished
    finished_by_game: Counter[str]  # the store's hands finished, by game
    moves: Counter[tuple[str, str]]  # the store's moves by game and kind
    sent: int  # the Acts the bots' client saw succeed
    bots: int
    store: Path


def _token(key: Path, role: Role, player: str = "") -> str:
    signer = Signer.load(key)
    return tokens.mint(
        signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
    )


def _until(url: str, ready: object, tries: int = 300) -> Scrape:
    """Scrape every 0.1 s until ``ready(scrape)`` holds."""
    assert callable(ready)
    for _ in range(tries):
        found = scrape(url)
        if ready(found):
            return found
        threading.Event().wait(0.1)
    raise AssertionError(f"never ready: {ready}")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    tmp = tmp_path_factory.mktemp("metrics")
    env = {**os.environ, "FELTLINE_KEY_FILE": str(tmp / "feltline.key"), "PYTHONUNBUFFERED": "1"}
    store = tmp / "feltline.db"
    command = [*FELTLINE, "serve", "--port", "0", "--metrics-port", "0", "--store", str(store)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        target = url = ""
        for line in server.stdout:
            target = target or next(iter(LISTENING.findall(line)), "")
            url = url or next(iter(METRICS_AT.findall(line)), "")
            if target and url:
                break
        assert target, f"feltline serve exited ({server.poll()}) before listening"
        assert url, "feltline serve did not say where its metrics are"
        threading.Thread(target=server.stdout.read, daemon=True).start()
        key = tmp / "feltline.key"  # made by the server as it started
        admin = Client(target, _token(key, auth_pb2.ROLE_ADMIN), timeout=20)
        bots: list[Player] = []
        for game in GAMES:
            config = TableConfig(TABLES[game], SEATS, action_clock=120)
            table = admin.create_table(convert.table_config(config), f"metrics {game}").table_id
            for seat in range(1, SEATS + 1):
                name = f"{game}-{seat}"
                admin.mint_chips(name, 100_000, "metrics")
                client = Client(target, _token(key, auth_pb2.ROLE_PLAYER, name))
                buy_in = config.buy_in_limits()[1]
                bot = Player(client, table, Casual(), seat=seat, buy_in=buy_in, hands=HANDS)
                bot.sit()
                bots.append(bot)
        threads = [threading.Thread(target=bot.play, daemon=True) for bot in bots]
        for thread in threads:
            thread.start()
        playing = _until(url, lambda s: s.value("feltline_watch_streams") == len(bots))
        for thread in threads:
            thread.join(timeout=240)
        assert not any(t.is_alive() for t in threads)
        # What no bot does: a table that is not there, and a call with no token.
        with pytest.raises(FeltlineError):
            admin.get_table(str(uuid.uuid4()))
        with grpc.insecure_channel(target) as channel, pytest.raises(grpc.RpcError):
            tables_pb2_grpc.TableServiceStub(channel).ListTables(tables_pb2.ListTablesRequest())
        admin.close()
        done = _until(
            url,
            lambda s: (
                s.value("feltline_watch_streams") == 0
                and s.value("feltline_projector_lag_events") == 0
                and s.value("feltline_projector_head") > 0
            ),
        )
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    streams = Streams(
        Signer.load(tmp / "feltline.key"),
        env=StoreConfig.from_env({"SQLITE_DBNAME": str(store)}).env,
    )
    ledger = check(streams)
    assert not ledger.problems, ledger.problems
    moves: Counter[tuple[str, str]] = Counter()
    finished: Counter[str] = Counter()
    for table_id in streams.tables()[0]:
        table = streams.table(table_id).table
        assert table.config is not None
        game = table.config.rules.game.value
        for number in range(1, table.hands + 1):
            for _, made in streams.get(hand_id(table_id, number)).commands.values():
                for event in made:
                    if isinstance(event, Acted):
                        moves[game, event.action.value] += 1
                    elif isinstance(event, Drew):
                        moves[game, "draw"] += 1
                    elif isinstance(event, Declared):
                        moves[game, "declare"] += 1
                    elif isinstance(event, HandEnded):
                        finished[game] += 1
    streams.close()
    sent = sum(b.moves for b in bots)
    return Played(
        playing, done, ledger.hands, ledger.finished, finished, moves, sent, len(bots), store
    )


def test_every_documented_metric_is_served(played: Played) -> None:
    names = documented()
    assert names >= LEASES
    missing = names - played.done.names
    assert not missing, f"documented, not served: {sorted(missing)}"


def test_hands_and_moves_count_what_the_store_holds(played: Played) -> None:
    done = played.done
    # Each table plays HANDS hands, fewer if two of its three seats go
    # broke in one: the counters must say what the store holds either way.
    assert played.finished == sum(played.finished_by_game.values())
    assert done.value("feltline_hands_finished_total") == played.finished
    assert done.value("feltline_hands_started_total") == played.hands
    for game in GAMES:
        assert 1 <= played.finished_by_game[game.value] <= HANDS
        assert (
            done.value("feltline_hands_finished_total", game=game.value)
            == played.finished_by_game[game.value]
        )
    assert done.value("feltline_hands_cancelled_total") == 0
    assert done.by("feltline_actions_total", "game", "kind") == dict(played.moves)
    assert sum(played.moves.values()) == played.sent
    assert done.value("feltline_tables_served") == len(GAMES)
    assert done.value("feltline_tables_unreadable") == 0


def test_grpc_calls_are_counted_as_go_grpc_prometheus_counts_them(played: Played) -> None:
    done = played.done
    act = {"grpc_service": "feltline.v1.PlayService", "grpc_method": "Act"}
    started = done.value("grpc_server_started_total", grpc_type="unary", **act)
    assert started == done.value("grpc_server_handled_total", **act)
    assert started == done.value("grpc_server_msg_received_total", **act)
    assert started == done.value("grpc_server_handling_seconds_count", **act)
    ok = done.value("grpc_server_handled_total", grpc_code="OK", **act)
    assert ok == played.sent == done.value("grpc_server_msg_sent_total", **act)
    get = {"grpc_service": "feltline.v1.TableService", "grpc_method": "GetTable"}
    assert done.value("grpc_server_handled_total", grpc_code="NotFound", **get) == 1
    assert done.value("feltline_refusals_total", reason="TABLE_NOT_FOUND", **get) == 1
    listed = {"grpc_service": "feltline.v1.TableService", "grpc_method": "ListTables"}
    assert done.value("grpc_server_handled_total", grpc_code="Unauthenticated", **listed) == 1
    # Each bot watched its table on one stream, which sent it every change.
    watch = {"grpc_service": "feltline.v1.WatchService", "grpc_type": "server_stream"}
    assert done.value("grpc_server_started_total", **watch) == played.bots
    assert done.value("grpc_server_msg_sent_total", **watch) > played.bots * HANDS
    assert played.playing.value("feltline_watch_streams") == played.bots


def test_the_store_and_the_process_are_measured(played: Played) -> None:
    done = played.done
    saves = done.value("feltline_store_commit_seconds_count")
    assert saves > played.sent
    # Every save was committed once, alone or with others.
    assert done.value("feltline_store_commit_batch_size_sum") == saves
    assert done.value("feltline_store_errors_total") == 0
    # Every view caught up: each at the head.
    head = done.value("feltline_projector_head")
    assert done.value("feltline_projector_position") == len(PROJECTIONS) * head
    assert done.value("feltline_gc_pause_seconds_count", generation="0") > 0
    assert done.value("process_cpu_seconds_total") > 0


def expression_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads: what is left once strings,
    label matchers, ranges and grouping clauses are taken out, less function
    names and keywords."""
    bare = re.sub(r'"[^"]*"', "", expr)
    bare = re.sub(r"\{[^}]*\}|\[[^\]]*\]", "", bare)
    bare = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", bare)
    keywords = {"offset", "bool", "and", "or", "unless", "group_left", "group_right"}
    return {
        name
        for name in re.findall(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()", bare)
        if name not in keywords and not re.fullmatch(r"\d.*|e\d*|Inf|NaN", name)
    }


def test_expression_names_are_found() -> None:
    expr = (
        'sum by (grpc_code) (rate(grpc_server_handled_total{grpc_code!="OK"}[5m]))'
        " / ignoring(grpc_code) group_left sum(rate(grpc_server_handled_total[$__rate_interval]))"
        " > 0.05 and on(instance) feltline_tables_served"
    )
    assert expression_names(expr) == {"grpc_server_handled_total", "feltline_tables_served"}


def test_every_dashboard_panel_queries_served_metrics(played: Played) -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    panels = [p for p in dashboard["panels"] if p.get("type") != "row"]
    assert len(panels) >= 10
    queried: set[str] = set()
    for panel in panels:
        names = {n for t in panel["targets"] for n in expression_names(t["expr"])}
        assert names, f"panel {panel['title']!r} queries nothing"
        unknown = names - played.done.names
        assert not unknown, f"panel {panel['title']!r} queries {sorted(unknown)}, not served"
        queried |= names
    assert queried >= LEASES  # the lease panels


@pytest.fixture
def metered(tmp_path: Path) -> Iterator[Feltline]:
    signer = Signer.generate()
    room = open_room(tmp_path / "metered.db", signer)
    server = Feltline(room, signer.public_key, metered=True).start()
    yield server
    server.stop()
    room.close()


def test_health_and_reflection_are_counted_in_process(metered: Feltline) -> None:
    """In a metered server: a unary coroutine (health), a two-way stream
    (reflection), and a call refused for want of a token."""
    labels = {"grpc_service": "grpc.health.v1.Health", "grpc_method": "Check"}

    def value(name: str, **more: str) -> float:
        return REGISTRY.get_sample_value(name, more) or 0.0

    health = {"grpc_type": "unary", **labels}
    reflect = {
        "grpc_type": "bidi_stream",
        "grpc_service": "grpc.reflection.v1alpha.ServerReflection",
        "grpc_method": "ServerReflectionInfo",
    }
    denied = {"grpc_type": "unary", "grpc_service": "feltline.v1.TableService"}
    before = {
        "checked": value("grpc_server_handled_total", grpc_code="OK", **health),
        "received": value("grpc_server_msg_received_total", **reflect),
        "sent": value("grpc_server_msg_sent_total", **reflect),
        "denied": value(
            "grpc_server_handled_total",
            grpc_code="Unauthenticated",
            grpc_method="ListTables",
            **denied,
        ),
    }
    with grpc.insecure_channel(metered.target) as channel:
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        asked = [reflection_pb2.ServerReflectionRequest(list_services="")] * 2
        answers = list(
            reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(iter(asked))
        )
        assert len(answers) == 2
        with pytest.raises(grpc.RpcError) as refused:
            tables_pb2_grpc.TableServiceStub(channel).ListTables(tables_pb2.ListTablesRequest())
        assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert value("grpc_server_handled_total", grpc_code="OK", **health) == before["checked"] + 1
    assert value("grpc_server_msg_received_total", **reflect) == before["received"] + 2
    assert value("grpc_server_msg_sent_total", **reflect) == before["sent"] + 2
    assert (
        value(
            "grpc_server_handled_total",
            grpc_code="Unauthenticated",
            grpc_method="ListTables",
            **denied,
        )
        == before["denied"] + 1
    )


def test_every_alert_has_a_unit_test_and_reads_documented_metrics() -> None:
    """promtool runs the unit tests in CI (.ci/run); here, that none is
    missing and that the rules read no metric the docs do not list (those
    of node_exporter aside)."""
    rules = re.sub(r"#.*", "", (ROOT / "ops" / "prometheus" / "rules.yml").read_text())
    tested = (ROOT / "ops" / "prometheus" / "rules_test.yml").read_text()
    alerts = re.findall(r"^\s*- alert: (\w+)$", rules, re.MULTILINE)
    assert len(alerts) == 6
    assert set(alerts) == set(re.findall(r"^\s*alertname: (\w+)$", tested, re.MULTILINE))
    read = set(re.findall(r"\b((?:feltline|grpc_server|process)_[a-z_]+)", rules))
    assert read
    assert not read - documented()
    assert set(re.findall(r"\b(node_[a-z_]+)", rules)) == {
        "node_filesystem_avail_bytes",
        "node_filesystem_size_bytes",
    }


def _metrics_of(process: subprocess.Popen[str]) -> str:
    """Where ``process`` (a ``feltline`` command) says its metrics are."""
    assert process.stdout is not None
    for line in process.stdout:
        found = METRICS_AT.findall(line)
        if found:
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return str(found[0])
    raise AssertionError(f"exited ({process.wait()}) without serving metrics")


def test_the_projector_process_serves_its_position_and_lag(played: Played) -> None:
    command = [*FELTLINE, "project", "--metrics-port", "0", "--store", str(played.store)]
    project = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        url = _metrics_of(project)
        # Each scrape makes garbage enough for the collector to run soon.
        done = _until(
            url,
            lambda s: (
                s.value("feltline_projector_head") > 0
                and s.value("feltline_gc_pause_seconds_count") > 0
            ),
        )
        head = done.value("feltline_projector_head")
        assert head == played.done.value("feltline_projector_head")
        for view in ("ledger", "hand_index", "pots", "standings", "tournaments"):
            assert done.value("feltline_projector_position", projection=view) == head
            assert done.value("feltline_projector_lag_events", projection=view) == 0
        assert done.value("grpc_server_started_total") == 0  # it serves no calls
    finally:
        project.send_signal(signal.SIGTERM)
        project.wait(timeout=30)
    assert project.returncode == 0


def test_a_metrics_port_in_use_is_refused_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "FELTLINE_KEY_FILE": str(tmp_path / "feltline.key")}
        done = subprocess.run(
            [*FELTLINE, "serve", "--port", "0", "--metrics-port", str(port), "--store", "m.db"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"feltline serve: cannot serve metrics on 127.0.0.1:{port}: the port is in use "
        "(is another server running on it?)"
    ]
    assert not (tmp_path / "m.db").exists()


def test_a_table_refused_as_data_loss_is_counted(tmp_path: Path) -> None:
    """What the DATA_LOSS alert and the error panels read: the table counted
    unreadable, the read counted a store error, the call ended DataLoss."""
    signer = Signer.generate()
    path = tmp_path / "bad.db"

    def client(server: Feltline, role: Role, player: str = "") -> Client:
        token = tokens.mint(
            signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
        )
        return Client(server.target, token, timeout=20)

    room = open_room(path, signer)
    with Feltline(room, signer.public_key) as server:
        admin = client(server, auth_pb2.ROLE_ADMIN)
        config = TableConfig(TABLES[Game.HOLDEM], SEATS)
        bad = admin.create_table(convert.table_config(config), "bad").table_id
        admin.mint_chips("p1", 2_000)
        with client(server, auth_pb2.ROLE_PLAYER, "p1") as p1:
            p1.sit_down(bad, 1, config.buy_in_limits()[0])
        admin.close()
    room.close()
    _corrupt(path, uuid.UUID(bad), _undecodable)

    def value(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    get = {"grpc_service": "feltline.v1.TableService", "grpc_method": "GetTable"}
    before = {
        "unreadable": value("feltline_store_errors_total", kind="unreadable"),
        "lost": value("grpc_server_handled_total", grpc_type="unary", grpc_code="DataLoss", **get),
        "refused": value("feltline_refusals_total", reason="TABLE_UNREADABLE", **get),
    }
    room = open_room(path, signer)
    with capture_logs(), Feltline(room, signer.public_key, metered=True) as server:
        admin = client(server, auth_pb2.ROLE_ADMIN)
        with pytest.raises(FeltlineError) as lost:
            admin.get_table(bad)
        assert lost.value.code is grpc.StatusCode.DATA_LOSS
        assert value("feltline_tables_unreadable") == 1
        admin.close()
    room.close()
    assert value("feltline_store_errors_total", kind="unreadable") > before["unreadable"]
    after = value("grpc_server_handled_total", grpc_type="unary", grpc_code="DataLoss", **get)
    assert after == before["lost"] + 1
    assert value("feltline_refusals_total", reason="TABLE_UNREADABLE", **get) == (
        before["refused"] + 1
    )
