"""A running tournament's hands, exported while it runs: each shows its
tournament, its level and that level's blinds in every format (the log's
own records, OHH, PokerStars, PHH, the HTML replayer), the log verifies,
and the seat draws' seed, still secret, is nowhere in it (docs/replay.md)."""

from __future__ import annotations

import io
import json
import random
import shutil
import subprocess
from contextlib import redirect_stdout
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from pokerkit import HandHistory

from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.domain.ids import tournament_table_id
from feltline.engine.errors import RuleError
from feltline.engine.tournament import HandBegun, HandPlayed
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_client import Client
from feltline_protos.v1 import auth_pb2, replay_pb2
from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.export import hand_id
from feltline_replay.histories import FORMATS, LoggedHand, logged_hands
from feltline_replay.histories.pokerstars import roman
from feltline_replay.verify import verify
from tests.api.conftest import Seconds
from tests.replay.test_html import _embedded
from tests.store.players import cid
from tests.store.test_tournament import BUY_IN, FEE, LEVELS, create, move, players

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Running:
    key: UUID
    store: Path
    seed: str  # the seat draws' seed, hex: in no export while the tournament runs
    levels: dict[str, int]  # each finished hand's level, by the hand's id
    signer: Signer

    @property
    def public_key(self) -> str:
        return self.signer.public_hex


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Running:
    """A sit-and-go on two tables, played until its hands span two levels
    and more, then left running."""
    store = tmp_path_factory.mktemp("running-tournament") / "feltline.db"
    signer = Signer.generate()
    room = Room(Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(store)}).env))
    key = create(room, entrants=7, size=4)
    for name in players(room, 7):
        room.register_tournament(key, cid(), name, at=0)
    rng = random.Random(11)
    played: dict[str, int] = {}
    while len(set(played.values())) < 3:
        state = room.tournament(key).tournament
        assert not state.over
        for number in sorted(state.tables):
            table = tournament_table_id(key, number)
            if room.table(table).table.dealt is None:
                try:
                    room.deal_tournament(table, at=0)
                except RuleError:
                    continue
            else:
                move(room, table, rng)
        events = [e for _, e in room.tournament_events(key)]
        ended = {(e.table, e.hand) for e in events if isinstance(e, HandPlayed)}
        played = {
            str(hand_id(tournament_table_id(key, e.table), e.hand)): e.level
            for e in events
            if isinstance(e, HandBegun) and (e.table, e.hand) in ended
        }
    stream = room.tournament(key)
    assert not stream.tournament.over
    seed = stream.tournament.seed.hex()
    room.close()
    return Running(key, store, seed, played, signer)


def _log(running: Running, *selection: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["export", "--store", str(running.store), *selection]) == 0
    return out.getvalue()


def _hands(text: str) -> list[LoggedHand]:
    _, records = log.read(io.StringIO(text))
    return list(logged_hands(records))


@pytest.fixture(scope="module")
def whole(running: Running) -> str:
    return _log(running)


def _blinds(level: int) -> tuple[int, int]:
    stakes = LEVELS[level - 1].stakes
    assert stakes is not None
    return stakes.small_blind, stakes.big_blind


def test_the_log_carries_each_hand_s_level_and_not_the_seed(running: Running, whole: str) -> None:
    assert running.seed not in whole
    _, records = log.read(io.StringIO(whole))
    lines = list(records)
    seeds = [r for r in lines if r.get("type") == "SeedDrawn"]
    assert [(r.get("withheld"), "data" in r) for r in seeds] == [(True, False)]
    begun: dict[str, dict[str, Any]] = {}
    for r in lines:
        if r.get("kind") == "tournament" and r.get("type") == "HandBegun":
            data = r["data"]
            table = tournament_table_id(running.key, data["table"])
            begun[str(hand_id(table, data["hand"]))] = data
    assert {h: begun[h]["level"] for h in running.levels} == running.levels
    for hand in _hands(whole):
        level = running.levels[hand.id]
        assert hand.started.rules.stakes == LEVELS[level - 1].stakes


def test_the_log_of_a_running_tournament_verifies(
    running: Running, whole: str, tmp_path: Path
) -> None:
    _, records = log.read(io.StringIO(whole))
    report = verify(records, running.public_key)
    assert report.failures == []
    assert any(str(running.key) in w and "running" in w for w in report.warnings)
    one = tmp_path / "table.log"
    table = ["--table", str(tournament_table_id(running.key, 1))]
    assert main(["export", "--store", str(running.store), *table, "--output", str(one)]) == 0
    assert running.seed not in one.read_text()
    assert main(["verify", str(one), "--public-key", running.public_key]) == 0


def _failures(lines: list[dict[str, Any]], key: str) -> list[tuple[str, int | None, str]]:
    return [(f.check, f.position, f.found) for f in verify(lines, key).failures]


def test_a_record_withheld_where_nothing_may_be_fails(running: Running, whole: str) -> None:
    _, records = log.read(io.StringIO(whole))
    lines = list(records)
    at = next(i for i, r in enumerate(lines) if r.get("type") == "HandBegun")
    lines[at] = {k: v for k, v in lines[at].items() if k != "data"} | {"withheld": True}
    position = lines[at]["position"]
    assert ("record", position, "withheld") in _failures(lines, running.public_key)


def test_the_chain_holds_the_records_after_the_withheld_seed(running: Running, whole: str) -> None:
    _, records = log.read(io.StringIO(whole))
    lines = list(records)
    at = next(i for i, r in enumerate(lines) if r.get("type") == "HandBegun")
    lines[at] = dict(lines[at], data=dict(lines[at]["data"], level=9))
    position = lines[at]["position"]
    failures = _failures(lines, running.public_key)
    assert [c for c, p, _ in failures if p == position] == ["chain"]
    lines = list(log.read(io.StringIO(whole))[1])
    seed = next(i for i, r in enumerate(lines) if r.get("withheld"))
    lines[seed] = dict(lines[seed], link="0" * 64)  # the next record no longer follows it
    assert ("chain", 3) in {(c, p) for c, p, _ in _failures(lines, running.public_key)}


def test_every_hand_shows_its_tournament_and_level(running: Running, whole: str) -> None:
    hands = _hands(whole)
    assert len(hands) == len(running.levels) > 4
    assert len(set(running.levels.values())) >= 3
    for hand in hands:
        assert hand.stage is not None, hand.id
        assert (hand.stage.tournament, hand.stage.name) == (str(running.key), "Turbo")
        assert hand.stage.level == running.levels[hand.id]


def test_one_table_s_export_shows_its_hands_levels(running: Running) -> None:
    table = tournament_table_id(running.key, 2)
    text = _log(running, "--table", str(table))
    assert running.seed not in text
    hands = _hands(text)
    assert hands
    assert {h.id: h.stage.level if h.stage else None for h in hands} == {
        h.id: running.levels[h.id] for h in hands
    }


def test_ohh_pokerstars_phh_and_html_show_the_level_and_blinds(
    running: Running, whole: str
) -> None:
    for hand in _hands(whole):
        level = running.levels[hand.id]
        small, big = _blinds(level)
        ohh = json.loads(FORMATS["ohh"].one(hand))["ohh"]
        info = ohh["tournament_info"]
        assert (info["name"], info["tournament_number"]) == ("Turbo", str(running.key))
        assert (info["buyin_amount"], info["fee_amount"]) == (BUY_IN, FEE)
        assert (ohh["feltline_level"], ohh["small_blind_amount"], ohh["big_blind_amount"]) == (
            level,
            small,
            big,
        )
        first = FORMATS["pokerstars"].one(hand).splitlines()[0]
        assert first.startswith("PokerStars Hand #")
        assert "Tournament #" in first
        assert f" - Level {roman(level)} ({small}/{big}) - " in first
        phh = HandHistory.loads(FORMATS["phh"].one(hand))
        assert (phh.event, phh.level) == ("Turbo", level)
        assert list(phh.blinds_or_straddles)[:2] == [small, big]
        (shown,) = _embedded(FORMATS["html"].one(hand))
        assert shown["tournament"] == f"Tournament Turbo, level {level}, blinds {small}/{big}"
        for format_ in ("ohh", "pokerstars", "phh", "html"):
            assert running.seed not in FORMATS[format_].one(hand)


def test_the_tournament_check_waits_for_the_end(
    running: Running, whole: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "all.log"
    path.write_text(whole)
    assert main(["tournament", str(running.key), str(path)]) == 1
    out = capsys.readouterr().out
    assert "the seed is not revealed" in out
    assert "Traceback" not in out


def test_the_node_verifier_reads_the_log(running: Running, whole: str, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node")
    path = tmp_path / "all.log"
    path.write_text(whole)
    verifier = ROOT / "clients/node/src/verify.js"
    args = [node, str(verifier), str(path), "--public-key", running.public_key, "--json"]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    report = json.loads(done.stdout)
    assert (done.returncode, report["failures"]) == (0, [])
    assert report["hands"] == len(running.levels)


def test_a_server_exports_them_so_too(running: Running, tmp_path: Path) -> None:
    """The Replay service's export is the same: a spectator's OHH shows
    every hand's level, and an auditor's log withholds the seed."""
    for stored in running.store.parent.glob(running.store.name + "*"):
        shutil.copy(stored, tmp_path / stored.name)
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / running.store.name)}).env
    room = Room(Streams(running.signer, env=env))
    server = Feltline(room, running.signer.public_key, clock=Seconds(0), tick=3600).start()
    clients = []

    def client(role: auth_pb2.Role.ValueType) -> Client:
        now = datetime.now(UTC)
        token = tokens.mint(running.signer, role, now=now, ttl=timedelta(hours=1))
        clients.append(Client(server.target, token, timeout=20))
        return clients[-1]

    try:
        ohh = io.StringIO()
        left_out = client(auth_pb2.ROLE_SPECTATOR).export_history(replay_pb2.EXPORT_FORMAT_OHH, ohh)
        lines = list(client(auth_pb2.ROLE_AUDITOR).export_hands())
    finally:
        for made in clients:
            made.close()
        server.stop()
        room.close()
    assert left_out == []
    written = [json.loads(line)["ohh"] for line in ohh.getvalue().splitlines() if line]
    assert {h["feltline_level"] for h in written} == set(running.levels.values())
    assert all(h["tournament_info"]["name"] == "Turbo" for h in written)
    assert len(written) == len(running.levels)
    assert running.seed not in "\n".join(lines)
    assert any('"withheld":true' in line for line in lines)
