"""Every SDK call that changes something sends one request id however
often it is retried (so the server applies it once), a fresh one per call,
or the caller's own: each call, one by one, against services that drop
its first two attempts."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import grpc
import pytest

from feltline_client import Client, Seen
from feltline_protos.v1 import common_pb2, play_pb2

TABLE = str(uuid.uuid4())
MATCH = str(uuid.uuid4())
SEEN = Seen(3, 7)
DROPS = 2


class Dropped(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """An attempt the connection lost: retryable."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "connection dropped"

    def trailing_metadata(self) -> tuple[()]:
        return ()


class Service:
    """A service whose every method keeps each request it is sent and
    drops the first ``DROPS`` attempts of each call."""

    def __init__(self, sent: list[tuple[str, Any]]) -> None:
        self.sent = sent

    def __getattr__(self, method: str) -> Callable[..., object]:
        def call(request: Any, **_: object) -> object:
            self.sent.append((method, request))
            if sum(m == method for m, _ in self.sent) % (DROPS + 1):
                raise Dropped()
            return SimpleNamespace(table=None, account=None, match=None)

        return call


@pytest.fixture
def sent() -> list[tuple[str, Any]]:
    return []


@pytest.fixture
def client(sent: list[tuple[str, Any]]) -> Iterator[Client]:
    with Client("127.0.0.1:1", token="t", backoff=0.001, max_backoff=0.001) as sdk:
        for name in ("tables", "play", "accounts", "matches"):
            setattr(sdk, name, Service(sent))
        yield sdk


CONFIG = common_pb2.TableConfig()
CHANGES: dict[str, Callable[..., object]] = {
    "create_table": lambda c, **k: c.create_table(CONFIG, "Friday", **k),
    "close_table": lambda c, **k: c.close_table(TABLE, "done", **k),
    "sit_down": lambda c, **k: c.sit_down(TABLE, 2, 500, **k),
    "stand_up": lambda c, **k: c.stand_up(TABLE, **k),
    "sit_out": lambda c, **k: c.sit_out(TABLE, **k),
    "sit_in": lambda c, **k: c.sit_in(TABLE, **k),
    "check": lambda c, **k: c.check(TABLE, SEEN, **k),
    "call": lambda c, **k: c.call(TABLE, SEEN, **k),
    "bet": lambda c, **k: c.bet(TABLE, SEEN, 20, **k),
    "raise_to": lambda c, **k: c.raise_to(TABLE, SEEN, 40, **k),
    "fold": lambda c, **k: c.fold(TABLE, SEEN, **k),
    "complete": lambda c, **k: c.complete(TABLE, SEEN, 10, **k),
    "bring_in": lambda c, **k: c.bring_in(TABLE, SEEN, **k),
    "draw": lambda c, **k: c.draw(TABLE, SEEN, ["As"], **k),
    "declare": lambda c, **k: c.declare(TABLE, SEEN, "low", **k),
    "act": lambda c, **k: c.act(play_pb2.ActRequest(table_id=TABLE, check=play_pb2.Check(), **k)),
    "mint_chips": lambda c, **k: c.mint_chips("alice", 100, **k),
    "create_match": lambda c, **k: c.create_match(
        CONFIG, "Duplicate", tables=2, deals=3, stack=300, **k
    ),
    "join_match": lambda c, **k: c.join_match(MATCH, 0, 1, **k),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_retried_change_keeps_its_request_id(
    change: str, client: Client, sent: list[tuple[str, Any]]
) -> None:
    CHANGES[change](client)
    CHANGES[change](client)
    ids = [request.request_id for _, request in sent]
    assert len(ids) == 2 * (DROPS + 1)
    first, second = ids[: DROPS + 1], ids[DROPS + 1 :]
    assert len(set(first)) == len(set(second)) == 1, ids  # kept across retries
    assert first[0] != second[0]  # fresh for each call
    assert all(uuid.UUID(i).version == 4 for i in ids)


@pytest.mark.parametrize("change", CHANGES)
def test_a_change_sends_the_callers_request_id(
    change: str, client: Client, sent: list[tuple[str, Any]]
) -> None:
    mine = str(uuid.uuid4())
    CHANGES[change](client, request_id=mine)
    assert [request.request_id for _, request in sent] == [mine] * (DROPS + 1)
