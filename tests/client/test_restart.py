"""Bots outlast a server restart: a real ``feltline serve`` is stopped (once
asked to, once killed), stays down longer than a few quick retries would
wait, and comes back on the same port and store; every ``Player`` keeps its
seat, resumes its watch from its cursor and plays on."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feltline.api import tokens
from feltline.api.tokens import Role
from feltline.audit.keys import Signer
from feltline_client import Client
from feltline_client.bots import Casual, Player
from feltline_protos.v1 import auth_pb2, common_pb2

from .real_server import LISTENING, _feltline

DOWN = 3.0  # seconds without a server: twice what the old three retries waited


class Served:
    """``feltline serve`` over one store and key, started and stopped at will."""

    def __init__(self, folder: Path) -> None:
        self.env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.env["FELTLINE_KEY_FILE"] = str(folder / "feltline.key")
        self.store = str(folder / "feltline.db")
        self.signer = Signer.create(Path(self.env["FELTLINE_KEY_FILE"]))
        self.port = 0
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        command = [*_feltline(), "serve", "--port", str(self.port), "--store", self.store]
        process = subprocess.Popen(command, env=self.env, stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None
        for line in process.stdout:
            found = LISTENING.search(line)
            if found:
                self.port = int(found.group(1).rpartition(":")[2])
                break
        else:
            raise RuntimeError(f"feltline serve exited ({process.wait()}) before listening")
        threading.Thread(target=process.stdout.read, daemon=True).start()  # never fills
        self.process = process

    def stop(self, how: signal.Signals) -> None:
        assert self.process is not None
        self.process.send_signal(how)
        self.process.wait(timeout=20)
        self.process = None

    def token(self, role: Role, player: str = "") -> str:
        return tokens.mint(
            self.signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
        )

    def client(self, role: Role, player: str = "") -> Client:
        return Client(f"127.0.0.1:{self.port}", self.token(role, player), timeout=10)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = Served(tmp_path)
    server.start()
    yield server
    if server.process is not None:
        server.stop(signal.SIGKILL)


def test_bots_play_on_after_the_server_restarts_on_the_same_port(served: Served) -> None:
    stakes = common_pb2.Stakes(
        structure=common_pb2.STRUCTURE_FIXED_LIMIT, small_bet=10, big_bet=20, ante=5
    )
    config = common_pb2.TableConfig(
        rules=common_pb2.Rules(game=common_pb2.GAME_DRAW_DECLARE, stakes=stakes), seats=6
    )
    with served.client(auth_pb2.ROLE_ADMIN) as admin:
        table = admin.create_table(config, "restarts").table_id
        for n in (1, 2, 3):
            admin.mint_chips(f"p{n}", 100_000)
    clients = [served.client(auth_pb2.ROLE_PLAYER, f"p{n}") for n in (1, 2, 3)]
    bots = [
        Player(c, table, Casual(random.Random(n)), seat=n, buy_in=200, rebuy=True)
        for n, c in enumerate(clients, start=1)
    ]
    finished: set[int] = set()
    errors: list[BaseException] = []
    lock = threading.Lock()

    def heard(number: int) -> None:
        with lock:
            finished.add(number)

    def play(bot: Player) -> None:
        try:
            bot.play(heard)
        except BaseException as e:  # reported by the test
            errors.append(e)

    def hands_after(count: int, within: float = 60) -> None:
        deadline = time.monotonic() + within
        while len(finished) < count and time.monotonic() < deadline and not errors:
            time.sleep(0.05)
        assert errors == []
        assert len(finished) >= count, f"{len(finished)} hands, not {count}"

    threads = [threading.Thread(target=play, args=(b,), daemon=True) for b in bots]
    for t in threads:
        t.start()
    try:
        hands_after(3)
        for how in (signal.SIGTERM, signal.SIGKILL):
            served.stop(how)
            moves = [b.moves for b in bots]
            time.sleep(DOWN)
            served.start()
            hands_after(len(finished) + 3)
            assert all(b.moves > m for b, m in zip(bots, moves, strict=True)), how
            assert all(t.is_alive() for t in threads), how  # nobody gave up
    finally:
        for bot in bots:
            bot.stop()
        for t in threads:
            t.join(30)
        for c in clients:
            c.close()
    assert not any(t.is_alive() for t in threads)
    assert errors == []
