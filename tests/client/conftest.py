"""Where the client tests find a server: the fake in ``fake_server.py``, or a
real one named by ``FELTLINE_TEST_SERVER``, a JSON object

    {"target": "127.0.0.1:50051", "admin": "<admin token>",
     "players": {"alice": "<token>", "bob": "<token>", "carol": "<token>"}}

(the fake prints exactly that when run alone), with ``"tls": {"ca", "cert",
"key"}`` (PEM files) for a server over TLS that requires client
certificates (``real_server.py --tls``). Tests only use the API: the admin
opens each test's table and mints the chips the players buy in with.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from feltline_client import Client, Tls
from feltline_protos.v1 import auth_pb2, common_pb2

from .fake_server import make_token, serve


@dataclass
class Room:
    target: str
    admin: str
    players: dict[str, str]
    tls_files: dict[str, str] = field(default_factory=dict)

    @property
    def tls(self) -> Tls | None:
        return Tls.from_files(**self.tls_files) if self.tls_files else None

    def tls_args(self) -> list[str]:
        """``feltline-play``'s options for the server's TLS, if it has any."""
        return [arg for key, path in self.tls_files.items() for arg in (f"--tls-{key}", path)]

    def client(self, who: str) -> Client:
        token = self.admin if who == "admin" else self.players[who]
        return Client(self.target, token, tls=self.tls, timeout=10, backoff=0.05)

    def open_table(
        self,
        game: int = common_pb2.GAME_DRAW_DECLARE,
        chips: int = 10_000,
        structure: int = common_pb2.STRUCTURE_NO_LIMIT,
    ) -> str:
        """A fresh table, with ``chips`` minted for every player: no limit
        (or ``structure``; fixed limit bets 10 and 20), antes of 5, or blinds
        of 5 and 10 in hold'em (which has no ante)."""
        stakes = common_pb2.Stakes(structure=structure, small_bet=10)  # type: ignore[arg-type]
        if structure == common_pb2.STRUCTURE_FIXED_LIMIT:
            stakes.big_bet = 20
        if game == common_pb2.GAME_HOLDEM:
            stakes.small_blind, stakes.big_blind = 5, 10
        else:
            stakes.ante = 5
        config = common_pb2.TableConfig(
            rules=common_pb2.Rules(game=game, stakes=stakes),  # type: ignore[arg-type]
            seats=6,
        )
        with self.client("admin") as admin:
            for player in self.players:
                admin.mint_chips(player, chips, "client tests")
            return admin.create_table(config, f"clients {uuid.uuid4().hex[:6]}").table_id

    def close_table(self, table_id: str) -> None:
        with self.client("admin") as admin:
            admin.close_table(table_id, "test over")


@pytest.fixture(scope="session")
def room() -> Iterator[Room]:
    named = os.environ.get("FELTLINE_TEST_SERVER")
    if named:
        settings = json.loads(named)
        yield Room(
            settings["target"],
            settings["admin"],
            dict(settings["players"]),
            dict(settings.get("tls", {})),
        )
        return
    server, port, _ = serve()
    players = {p: make_token(auth_pb2.ROLE_PLAYER, p) for p in ("alice", "bob", "carol")}
    yield Room(f"127.0.0.1:{port}", make_token(auth_pb2.ROLE_ADMIN), players)
    server.stop(grace=None)
