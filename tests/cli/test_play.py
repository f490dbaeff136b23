"""``feltline play`` end to end, as a newcomer runs it: a process of its
own, moves typed on stdin, a few hands played to the end, then leaving."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from feltline.api import logging as logs
from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_protos.v1 import auth_pb2

FELTLINE = [sys.executable, "-c", "import sys; from feltline.cli import main; sys.exit(main())"]
# Self-correcting: whichever of the two is not allowed is refused and the
# next line read, so each turn is a call or a check, down to the showdown.
CALLING_DOWN = "call\ncheck\n" * 60


def play(
    tmp: Path, typed: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, **(env or {})}
    environ.pop("FELTLINE_TARGET", None)
    return subprocess.run(
        [*FELTLINE, "play", *args],
        input=typed,
        cwd=tmp,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def errors_logged(log: Path) -> list[str]:
    return [
        line
        for line in log.read_text().splitlines()
        if json.loads(line).get("level") in ("error", "critical")
    ]


def test_a_few_hands_against_bots_to_the_end_then_leaving(tmp_path: Path) -> None:
    store = tmp_path / "game"
    done = play(
        tmp_path,
        CALLING_DOWN + "quit\n",
        *("--game", "holdem", "--bots", "2", "--bot", "station", "--hands", "3"),
        *("--store", str(store), "--name", "Kitchen table"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    assert out.startswith("Kitchen table: holdem no-limit 5/10; id ")
    assert "bots at seats 2 (station), 3 (station); you sit at seat 1" in out
    # The web table, for a spectator, at the game's own table.
    table = re.search(r"; id ([0-9a-f-]{36})$", out, re.M)
    assert table
    link = re.search(
        rf"^watch in a browser: http://127\.0\.0\.1:\d+/#/table/{table[1]}&token=(\S+)$", out, re.M
    )
    assert link
    key = Signer.load(store / "feltline.key")
    caller = tokens.verify(link[1], key.public_key, now=datetime.now(UTC))
    assert caller.role == auth_pb2.ROLE_SPECTATOR
    assert "you sit down at seat 1 with 1000" in out
    assert out.count("hand over; stacks:") >= 3
    assert " shows " in out  # called down: a showdown
    assert "your turn:" in out
    assert out.rstrip().endswith("the table is closed and the server stopped")
    assert "you stand up" in out
    assert re.search(
        r"^you leave (even|\d+ chips (up|down)) \(\d+ chips in your account\)$", out, re.M
    )
    assert (store / "feltline.db").exists()
    assert (store / "feltline.key").exists()
    assert errors_logged(store / "server.log") == []


def test_quit_typed_mid_game_stands_up_and_stops(tmp_path: Path) -> None:
    """Folding is allowed at a first betting turn in draw-declare: each
    fold is taken, and the third turn reads quit."""
    done = play(
        tmp_path,
        "fold\nfold\nquit\n",
        *("--game", "draw-declare", "--bots", "3", "--store", str(tmp_path)),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.count("your turn:") == 3
    assert "seat 1 folds" in done.stdout
    assert "chips down (" in done.stdout  # the antes folded, not the chips minted to play
    assert "you stand up" in done.stdout
    assert done.stdout.rstrip().endswith("the table is closed and the server stopped")
    assert errors_logged(tmp_path / "server.log") == []


def test_end_of_input_leaves_and_a_temporary_store_is_removed(tmp_path: Path) -> None:
    before = set(Path(os.environ.get("TMPDIR", "/tmp")).glob("*-play"))
    done = play(tmp_path, "", "--game", "draw-declare", "--bots", "1", "--bot", "random")
    assert done.returncode == 0, done.stderr
    assert "the server stopped" in done.stdout
    assert set(Path(os.environ.get("TMPDIR", "/tmp")).glob("*-play")) <= before
    assert list(tmp_path.iterdir()) == []  # nothing made where it ran


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--bots", "6"], "--bots is 1 to 5 at a table of 6 seats"),
        (["--bots", "0"], "--bots is 1 to 5"),
        (["--buy-in", "50"], "--buy-in is 400 to 1000 at this table, not 50"),
        (["--player", "no one"], "--player is a player id"),
        (["--game", "jackpots", "--ante", "0"], "jackpots needs an ante"),
        (["--rake", "5", "--rake-cap", "1" + "0" * 22], "a setting is too large to send"),
        (["--game", "draw-declare", "--draw-limit-small", "0"], "is 1 to 5 cards, not 0"),
    ],
)
def test_a_mistake_is_one_line_before_any_server(tmp_path: Path, args: list[str], why: str) -> None:
    done = play(tmp_path, "", *args)
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("feltline play: ")
    assert why in line
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Feltline, Path]]:
    key_file = tmp_path / "feltline.key"
    signer = Signer.create(key_file)
    logs.configure(stream=io.StringIO())
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / "shared.db")}).env
    room = Room(Streams(signer, env=env))
    running = Feltline(room, signer.public_key, tick=0.2).start()
    yield running, key_file
    running.stop()
    room.close()


def test_a_game_at_a_server_already_running(server: tuple[Feltline, Path], tmp_path: Path) -> None:
    running, key_file = server
    folder = tmp_path / "here"
    folder.mkdir()
    done = play(
        folder,
        "fold\nquit\n",
        *("--target", running.target, "--bots", "2", "--name", "Shared"),
        env={"FELTLINE_KEY_FILE": str(key_file)},
    )
    assert done.returncode == 0, done.stderr
    assert "you stand up" in done.stdout
    listed = subprocess.run(
        [*FELTLINE, "table", "list", "--target", running.target, "--json"],
        env={**os.environ, "FELTLINE_KEY_FILE": str(key_file)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    (table,) = json.loads(listed.stdout)
    assert (table["display_name"], table["state"]) == ("Shared", "TABLE_STATE_CLOSED")
    assert list(folder.iterdir()) == []
    without_key = play(folder, "", "--target", running.target, env={"FELTLINE_KEY_FILE": "none"})
    assert without_key.returncode == 1
    assert "the players' tokens are minted with the server's key" in without_key.stderr
