"""A tournament played through a process that does not own it: two real
`feltline serve` processes on one PostgreSQL store; the tournament is
created through the first, which takes its lease (and its tables' with
it), and everything else goes through the second: chips minted, an entry
made and withdrawn, the sit-and-go filled by SDK bots and played to its
end at tables the first serves, every request passed on to the owner
(feltline.api.forward). The results the second gives are the owner's,
every prize reached its player's account, and every chip is accounted for."""

from __future__ import annotations

import os
import random
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feltline.api import tokens
from feltline.audit.keys import Signer
from feltline_client import Client
from feltline_client.bots import Casual, TournamentPlayer
from feltline_protos.v1 import auth_pb2, tournaments_pb2
from tests.api.test_tournament import BUY_IN, FEE, MINTED, create
from tests.postgres import store_env

from .test_failover import _accounted_for, _ops_cluster, _owners

T = tournaments_pb2
ENTRANTS = 4  # at tables of three: two tables, then one broken


@pytest.mark.timeout(600)
def test_a_sit_and_go_is_played_to_its_end_through_a_process_that_does_not_own_it(
    postgres_schema: str, tmp_path: Path
) -> None:
    key_file = tmp_path / "feltline.key"
    signer = Signer.create(key_file)
    env = {
        **os.environ,
        **store_env(postgres_schema, POSTGRES_POOL_SIZE="2", POSTGRES_MAX_OVERFLOW="6"),
        "FELTLINE_KEY_FILE": str(key_file),
        "FELTLINE_LOG_FORMAT": "json",
    }
    cluster = _ops_cluster().Cluster(2, env=env, port=0, projector=False, echo=False).start()
    servers = list(cluster.servers)
    owner, other = cluster.targets
    clients: list[Client] = []

    def client(target: str, role: auth_pb2.Role.ValueType, player: str = "") -> Client:
        token = tokens.mint(
            signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
        )
        made = Client(target, token, timeout=60, patience=30)
        clients.append(made)
        return made

    try:
        payouts = [T.PayoutBand(entrants=ENTRANTS, shares=[7000, 3000])]
        created = create(client(owner, auth_pb2.ROLE_ADMIN), ENTRANTS, 3, payouts=payouts)
        key = created.tournament_id
        assert _owners(postgres_schema).get(key) == owner  # created there: its lease is there
        admin = client(other, auth_pb2.ROLE_ADMIN)
        names = [f"p{n}" for n in range(ENTRANTS + 1)]
        for name in names:
            admin.mint_chips(name, MINTED)
        players = {name: client(other, auth_pb2.ROLE_PLAYER, name) for name in names}
        withdrawn = names[-1]
        entered = players[withdrawn].register_tournament(key)
        assert list(entered.player_ids) == [withdrawn]
        assert not players[withdrawn].unregister_tournament(key).player_ids
        assert players[withdrawn].get_account().balance == MINTED

        bots = [
            TournamentPlayer(players[name], key, Casual(random.Random(n)))
            for n, name in enumerate(names[:-1])
        ]
        threads = [threading.Thread(target=b.play, daemon=True) for b in bots]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 400
        while admin.get_tournament(key).state != T.TOURNAMENT_STATE_FINISHED:
            assert time.monotonic() < deadline, "the tournament did not finish"
            assert all(not b.errors for b in bots), [b.errors for b in bots]
            time.sleep(0.5)
        for thread in threads:
            thread.join(30)
            assert not thread.is_alive(), "a bot played on after the end"
        assert all(not b.errors for b in bots), [b.errors for b in bots]
        assert all(b.moves > 0 for b in bots)  # each played through the other process

        # The tournament and its tables stayed with the owner all along.
        owned = _owners(postgres_schema)
        assert owned.get(key) == owner
        played = {table for b in bots for table in b.tables}
        assert len(played) >= 2
        assert {owned.get(table) for table in played} <= {owner, None}  # closed: no lease
        results = admin.tournament_results(key)
        assert results == client(owner, auth_pb2.ROLE_ADMIN).tournament_results(key)
        assert admin.get_tournament(key) == client(owner, auth_pb2.ROLE_SPECTATOR).get_tournament(
            key
        )
        finish = {s.player_id: (s.place, s.prize) for s in results.standings}
        assert {b.me: (b.place, b.prize) for b in bots} == finish
        assert sorted(place for place, _ in finish.values())[0] == 1
        assert sum(prize for _, prize in finish.values()) == results.prize_pool
        assert results.prize_pool == ENTRANTS * BUY_IN
        for name, (_, prize) in finish.items():
            assert players[name].get_account().balance == MINTED - BUY_IN - FEE + prize
    finally:
        for each in clients:
            each.close()
        cluster.stop()
    for process in servers:  # refusals and forwarding: nothing logged an error
        assert [line for line in process.log if '"level": "error"' in line] == []
    _accounted_for(signer, postgres_schema)
