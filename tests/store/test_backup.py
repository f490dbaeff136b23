"""``feltline backup`` while players play, ``feltline restore`` into a fresh
store: every hand of the restored store verifies, its ledger balances, and
a cardroom opened on it with the store's key plays on. On SQLite and on
PostgreSQL (restored into a database of its own)."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from feltline.cardroom.room import Room, open_room
from feltline.cli import main
from feltline.store.check import check
from feltline.store.config import StoreConfig
from feltline_replay.cli import main as replay
from tests.postgres import PG
from tests.store.players import Players, finished, open_tables

from .conftest import Store

TABLES = 3


@pytest.fixture
def fresh(store: Store, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The settings of an empty store of the same kind, to restore into."""
    if "POSTGRES_SCHEMA" not in store.env:
        yield {"SQLITE_DBNAME": str(tmp_path / "restored.db")}
        return
    name = f"feltline_restore_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(**PG, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    yield {**store.env, "POSTGRES_DBNAME": name}
    with psycopg.connect(**PG, autocommit=True) as db:
        db.execute(f"DROP DATABASE {name} WITH (FORCE)")


def _args(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``--store`` for ``env``'s store, its settings in the environment."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return ["--store", env.get("SQLITE_DBNAME") or "postgres"]


def _config(env: dict[str, str], key: Path) -> StoreConfig:
    return StoreConfig.from_env({**env, "FELTLINE_KEY_FILE": str(key)})


def _play(room: Room, tables: list[uuid.UUID], stop: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    players = [Players(room, t, rng) for t in tables]
    while not stop.is_set():
        for p in players:
            p.step()


def _verified(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """``feltline-replay verify --store`` over every hand: its report."""
    assert replay(["verify", *_args(env, monkeypatch)]) == 0, capsys.readouterr()
    return capsys.readouterr().out


def test_a_backup_taken_while_players_play_restores_verifies_and_plays_on(
    store: Store,
    fresh: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = tmp_path / "feltline.key"
    room = open_room(_config(store.env, key))
    tables = open_tables(room, TABLES)
    stop = threading.Event()
    players = threading.Thread(target=_play, args=(room, tables, stop, 5))
    players.start()
    try:
        while finished(room, tables) < 6:
            stop.wait(0.05)
        before = finished(room, tables)
        backup = tmp_path / "feltline.backup"
        assert main(["backup", str(backup), *_args(store.env, monkeypatch)]) == 0
        while finished(room, tables) < before + 3:  # play went on during and after it
            stop.wait(0.05)
    finally:
        stop.set()
        players.join()
    after = finished(room, tables)
    room.close()
    out = capsys.readouterr().out
    assert f"to {backup}" in out
    assert "not in it: the key file" in out

    assert main(["restore", str(backup), *_args(fresh, monkeypatch)]) == 0
    assert _verified(fresh, monkeypatch, capsys).endswith(" hands: ok\n")
    restored = open_room(_config(fresh, key))  # the store's key, kept apart from the backup
    hands = finished(restored, tables)
    assert before <= hands < after
    ledger = check(restored.streams)
    assert ledger.balanced, ledger.problems
    assert ledger.finished >= hands

    rng = random.Random(11)
    again = [Players(restored, t, rng) for t in tables]
    while finished(restored, tables) < hands + 3:
        for p in again:
            p.step()
    ledger = check(restored.streams)
    assert ledger.balanced, ledger.problems
    restored.close()
    report = _verified(fresh, monkeypatch, capsys)
    assert report.endswith(f"{TABLES} tables, {finished_hands(report)} hands: ok\n")
    assert finished_hands(report) >= hands + 3


def finished_hands(report: str) -> int:
    """The hand count of a ``feltline-replay verify`` report's last line."""
    return int(report.splitlines()[-1].split(" tables, ")[1].split(" hands")[0])


def test_a_restore_never_writes_over_a_store(
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    room = open_room(_config(store.env, tmp_path / "feltline.key"))
    open_tables(room, 1)
    room.close()
    backup = tmp_path / "feltline.backup"
    assert main(["backup", str(backup), *_args(store.env, monkeypatch)]) == 0
    assert main(["backup", str(backup), *_args(store.env, monkeypatch)]) == 1
    assert "a backup never overwrites a file" in capsys.readouterr().err
    assert main(["restore", str(backup), *_args(store.env, monkeypatch)]) == 1
    assert "restore into" in capsys.readouterr().err


def test_help_says_the_key_file_is_not_in_a_backup(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("backup", "restore"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "not the signing key file" in " ".join(capsys.readouterr().out.split())


def test_what_cannot_be_backed_up_or_restored_is_said_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("POSTGRES_DBNAME", "feltline_no_such_database")
    for name in ("POSTGRES_HOST", "POSTGRES_PORT", "POSTGRES_USER"):
        monkeypatch.setenv(name, str(PG[name.removeprefix("POSTGRES_").lower()]))
    assert main(["backup", str(tmp_path / "a.backup"), "--store", "postgres"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("feltline backup: PostgreSQL feltline_no_such_database: ")
    assert 'database "feltline_no_such_database" does not exist' in err
    assert not (tmp_path / "a.backup").exists()
    notes = tmp_path / "notes.txt"
    notes.write_text("not a backup")
    assert main(["restore", str(notes), "--store", str(tmp_path / "new.db")]) == 1
    assert "is not a Feltline backup" in capsys.readouterr().err
    assert not (tmp_path / "new.db").exists()
