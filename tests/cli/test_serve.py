"""``feltline serve`` as an operator starts it: what it refuses to start on,
and how it says so (one line, exit status 1, nothing made)."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest

from feltline import cli
from feltline import serve as feltline_serve
from feltline.api.app import Feltline
from feltline.api.server import ListenError
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room, open_room
from feltline.domain.ids import log_id
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store import preflight
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.postgres import PG, required
from tests.store.play import play
from tests.tables import TABLES

FELTLINE = [sys.executable, "-c", "import sys; from feltline.cli import main; sys.exit(main())"]


def serve(
    tmp: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``feltline serve`` in ``tmp``, expected to refuse to start."""
    environ = {**os.environ, "FELTLINE_KEY_FILE": str(tmp / "feltline.key"), **(env or {})}
    return subprocess.run(
        [*FELTLINE, "serve", *args],
        check=False,
        cwd=tmp,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refusal prints, after checking that it is one."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("feltline serve: ")
    return lines[0]


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Feltline]:
    signer = Signer.generate()
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / "first.db")}).env
    room = Room(Streams(signer, env=env))
    server = Feltline(room, signer.public_key).start()
    yield server
    server.stop()
    room.close()


def test_a_second_server_on_a_port_in_use_refuses_to_start(
    running: Feltline, tmp_path: Path
) -> None:
    done = serve(tmp_path, "--port", str(running.port), "--store", "second.db")
    line = refused(done)
    assert f"cannot listen on 127.0.0.1:{running.port}: the port is in use" in line
    assert not (tmp_path / "second.db").exists()


def test_a_server_does_not_share_its_port(running: Feltline, tmp_path: Path) -> None:
    """grpc would share a port (SO_REUSEPORT) and split clients between two
    servers; Feltline's server refuses instead."""
    signer = Signer.generate()
    room = Room(
        Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / "b.db")}).env)
    )
    try:
        with pytest.raises(ListenError, match="the port is in use"):
            Feltline(room, signer.public_key, f"127.0.0.1:{running.port}")
    finally:
        room.close()


def _stored(path: Path, tables: int) -> None:
    """A store of ``tables`` tables, whole in its main file."""
    room = Room(
        Streams(Signer.generate(), env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env)
    )
    for n in range(tables):
        room.open_table(f"t{n}", TableConfig(TABLES[Game.HOLDEM], 6), at=1, name=f"t{n}")
    room.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def _overwrite(path: Path, offset: int, data: bytes) -> None:
    with path.open("r+b") as f:
        f.seek(offset)
        f.write(data)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A good store's bytes: a hundred tables, some forty pages."""
    path = tmp_path_factory.mktemp("stored") / "good.db"
    _stored(path, 100)
    return path.read_bytes()


DAMAGE = {
    "empty": (lambda good: b"", "is an empty file, not a store"),
    "not sqlite": (lambda good: b"hello\n" * 1000, "is not a SQLite database"),
    "pages overwritten": (
        lambda good: good[: 4096 * 10] + b"\x5a" * 4096 * 3 + good[4096 * 13 :],
        "is damaged: ",
    ),
    "truncated": (lambda good: good[: 4096 * 5], "is damaged: "),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_sqlite_store_is_refused_before_listening(
    stored: bytes, tmp_path: Path, damage: str
) -> None:
    spoil, said = DAMAGE[damage]
    (tmp_path / "bad.db").write_bytes(spoil(stored))
    line = refused(serve(tmp_path, "--port", "0", "--store", "bad.db"))
    assert f"SQLite store bad.db {said}" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.db"]  # not even a key


def test_a_store_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    line = refused(serve(tmp_path, "--port", "0", "--store", "nowhere/x.db"))
    assert "the folder nowhere does not exist" in line


def test_a_good_store_a_new_one_and_one_in_use_pass_the_check(
    stored: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "good.db"
    path.write_bytes(stored)
    preflight.check_sqlite(str(path))
    preflight.check_sqlite(str(tmp_path / "new.db"))
    assert not (tmp_path / "new.db").exists()
    room = Room(
        Streams(Signer.generate(), env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env)
    )
    try:
        room.open_table("more", TableConfig(TABLES[Game.HOLDEM], 6), at=1)
        preflight.check_sqlite(str(path))  # its latest writes in the WAL
    finally:
        room.close()


def test_a_missing_postgres_database_is_named_at_once(tmp_path: Path) -> None:
    try:
        psycopg.connect(**PG, connect_timeout=3).close()
    except psycopg.OperationalError as e:
        if required():
            pytest.fail(f"FELTLINE_REQUIRE_POSTGRES is set but PostgreSQL is not reachable: {e}")
        pytest.skip(f"PostgreSQL is not reachable at {PG['host']}:{PG['port']}: {e}")
    env = {f"POSTGRES_{key.upper()}": value for key, value in PG.items()}
    env["POSTGRES_DBNAME"] = "feltline_no_such_database"
    done = serve(tmp_path, "--port", "0", "--store", "postgres", env=env)
    line = refused(done)
    assert line == (
        f'feltline serve: PostgreSQL database "feltline_no_such_database" on '
        f"{PG['host']}:{PG['port']} does not exist: create it, or set POSTGRES_DBNAME"
    )


def test_a_second_process_on_a_sqlite_store_refuses_to_start(
    running: Feltline, tmp_path: Path
) -> None:
    """One process serves a SQLite store (docs/store.md, "Several processes"):
    a second `feltline serve` on the same file says so in one line."""
    store = tmp_path / "first.db"
    done = serve(tmp_path, "--port", "0", "--store", str(store))
    line = refused(done)
    assert f"the SQLite store {store} is served by process {os.getpid()}" in line


def test_a_store_whose_transparency_log_was_changed_refuses_to_start(tmp_path: Path) -> None:
    """The log is read whole when the server starts: a changed leaf is said
    in one line, not a traceback."""
    signer = Signer.create(tmp_path / "feltline.key")
    store = tmp_path / "feltline.db"
    env = {"SQLITE_DBNAME": str(store), "FELTLINE_KEY_FILE": str(tmp_path / "feltline.key")}
    room = open_room(StoreConfig.from_env(env))
    try:
        play(room, Game.HOLDEM, random.Random(1))
        room.register.checkpoint()
        assert room.streams.signer.public_hex == signer.public_hex
    finally:
        room.close()
    with sqlite3.connect(store) as conn:
        conn.execute(
            "UPDATE stored_events SET state ="
            ' CAST(replace(CAST(state AS TEXT), \'"seal":"\', \'"seal":"0\') AS BLOB)'
            " WHERE originator_id = ? AND originator_version = 1",
            (log_id().hex,),
        )
    line = refused(serve(tmp_path, "--port", "0", "--store", str(store)))
    assert line == (
        f"feltline serve: the store's transparency log does not verify: log {log_id()}: "
        "event 1 does not match its chain link"
    )


@pytest.mark.parametrize("hours", ["0", "8785", "2.5", "soon", "\uff14"])
def test_a_session_length_no_token_may_have_is_refused_saying_what_may(
    tmp_path: Path, hours: str
) -> None:
    done = serve(tmp_path, "--session-hours", hours)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert (
        "argument --session-hours: a session lasts a whole number of hours from 1 to 8784 "
        f"(a year, the longest any token lives), not {hours!r}"
    ) in done.stderr
    assert not (tmp_path / "feltline.db").exists()


def test_the_session_length_set_reaches_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: dict[str, object] = {}

    def served(*args: object, **kwargs: object) -> int:
        asked.update(kwargs)
        return 0

    monkeypatch.setattr(feltline_serve, "_serve", served)
    assert cli.main(["serve", "--session-hours", "4"]) == 0
    assert asked["session"] == timedelta(hours=4)
    assert cli.main(["serve"]) == 0
    assert asked["session"] == timedelta(hours=12)
