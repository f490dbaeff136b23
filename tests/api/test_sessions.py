"""An invite's link signs in once, wherever it is used: the exchange is
recorded in the store, so a second exchange is refused by every server on
it, after a restart too, and of two racing exchanges exactly one wins. A
session lasts what the operator set."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import grpc
import pytest

from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.audit.keys import Signer
from feltline.domain.ids import invite_id
from feltline.domain.invite import InviteUsed
from feltline.projections.projector import Projector
from feltline.store.check import check
from feltline.store.config import StoreConfig
from feltline_protos.v1 import auth_pb2, auth_pb2_grpc

from .conftest import ON_BOTH_STORES, Live, open_room, open_store
from .test_live import Threads

USED = "this invite link was used already: ask for a new one"


def _invite(live: Live, player: str = "alice") -> str:
    return tokens.mint(
        live.signer,
        auth_pb2.ROLE_PLAYER,
        now=datetime.now(UTC),
        ttl=timedelta(minutes=10),
        player_id=player,
        invite=True,
    )


def _exchange(target: str, invite: str) -> auth_pb2.CreateSessionResponse:
    with grpc.insecure_channel(target) as channel:
        return auth_pb2_grpc.SessionServiceStub(channel).CreateSession(
            auth_pb2.CreateSessionRequest(),
            metadata=[("authorization", f"Bearer {invite}")],
            timeout=20,
        )


def _refused(target: str, invite: str) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        _exchange(target, invite)
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert refused.value.details() == USED
    return refused.value


def _race(targets: list[str], invite: str) -> tuple[list[str], list[grpc.RpcError]]:
    """Exchange ``invite`` at each of ``targets`` at once: the sessions'
    tokens given and the refusals."""
    won: list[str] = []
    lost: list[grpc.RpcError] = []
    ready = threading.Barrier(len(targets))

    def exchange(target: str) -> None:
        ready.wait()
        try:
            won.append(_exchange(target, invite).token)
        except grpc.RpcError as e:
            lost.append(e)

    threads = Threads()
    for target in targets:
        threads.start(target, partial(exchange, target))
    threads.join(30)
    return won, lost


@ON_BOTH_STORES
def test_a_used_link_is_refused_after_a_restart_and_recorded_without_the_token(
    live: Live,
) -> None:
    invite = _invite(live)
    session = _exchange(live.server.target, invite)
    caller = tokens.verify(session.token, live.signer.public_key, now=datetime.now(UTC))
    assert (caller.player_id, caller.invite) == ("alice", False)
    _refused(live.server.target, invite)
    live.restart()
    _refused(live.server.target, invite)
    # What the store holds: who used which invite, and when; never a token.
    token_id = tokens.verify(invite, live.signer.public_key, now=datetime.now(UTC)).token_id
    (used,) = live.room.streams.after(invite_id(token_id), 0)
    assert isinstance(used, InviteUsed)
    assert (used.token_id, used.role, used.player_id) == (token_id, "player", "alice")
    stored = [
        bytes(n.state) for n in live.room.streams.notifications() if n.topic.endswith("InviteUsed")
    ]
    assert len(stored) == 1
    (stored_at,) = [
        n.id for n in live.room.streams.notifications() if n.topic.endswith("InviteUsed")
    ]
    for secret in (invite, session.token, invite.split(".")[2], session.token.split(".")[2]):
        assert secret.encode() not in stored[0]
    # The store's own check reads the new stream, and the views pass it by.
    assert not check(live.room.streams).problems
    views = Projector(live.room.streams, StoreConfig.from_env(live.env).env)
    assert views.rebuild() >= stored_at
    # Another invite of the same player's still signs in.
    _exchange(live.server.target, _invite(live))


@pytest.mark.parametrize("live", ["postgres"], indirect=True)
def test_a_link_used_at_one_server_is_refused_at_another_and_one_of_a_race_wins(
    live: Live,
) -> None:
    room = open_store(live.env, live.signer, server="other")
    other = Feltline(room, live.signer.public_key, clock=live.clock, tick=0.1).start()
    try:
        invite = _invite(live)
        _exchange(live.server.target, invite)
        _refused(other.target, invite)
        # Two exchanges of one link at once, one at each server, many times.
        for _ in range(8):
            won, lost = _race([live.server.target, other.target], _invite(live, "bob"))
            assert len(won) == 1, (won, lost)
            assert [e.details() for e in lost] == [USED]
    finally:
        other.stop()
        room.close()


@ON_BOTH_STORES
def test_of_many_exchanges_of_one_invite_at_once_one_wins(live: Live) -> None:
    invite = _invite(live)
    token_id = tokens.verify(invite, live.signer.public_key, now=datetime.now(UTC)).token_id
    results: list[bool] = []
    ready = threading.Barrier(6)

    def use() -> None:
        ready.wait()
        results.append(live.room.use_invite(token_id, "player", "alice", at=1))

    threads = [threading.Thread(target=use) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 5 + [True]


def test_a_session_lasts_the_hours_the_operator_set(tmp_path: Path) -> None:
    signer = Signer.generate()
    room = open_room(tmp_path / "sessions.db", signer)
    server = Feltline(room, signer.public_key, session=timedelta(hours=3)).start()
    try:
        invite = tokens.mint(
            signer,
            auth_pb2.ROLE_SPECTATOR,
            now=datetime.now(UTC),
            ttl=timedelta(minutes=10),
            invite=True,
        )
        before = datetime.now(UTC)
        session = _exchange(server.target, invite)
        expires = session.expire_time.ToDatetime(tzinfo=UTC)
        assert before + timedelta(hours=3) - timedelta(seconds=1) <= expires
        assert expires <= datetime.now(UTC) + timedelta(hours=3)
        caller = tokens.verify(session.token, signer.public_key, now=datetime.now(UTC))
        assert abs(caller.expires - expires) < timedelta(seconds=1)
        assert caller.role == auth_pb2.ROLE_SPECTATOR
    finally:
        server.stop()
        room.close()
