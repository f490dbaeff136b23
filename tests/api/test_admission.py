"""A server offered more unary calls at once than it admits refuses the
rest at once, OVERLOADED with a retry hint, serves the others, and is
whole afterwards."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from feltline.api import convert, tokens
from feltline.api.admission import RETRY, Admission
from feltline.api.app import Feltline
from feltline.api.tokens import Role
from feltline.audit.keys import Signer
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client import Client, FeltlineError
from feltline_protos.v1 import auth_pb2
from tests.tables import TABLES

from .conftest import open_room

ADMIT = 2
CALLERS = 32  # at once, each several calls in a row
CALLS = 6


class Small:
    """A server that admits :data:`ADMIT` unary calls at a time."""

    def __init__(self, path: Path) -> None:
        self.signer = Signer.generate()
        self.room = open_room(path, self.signer)
        self.server = Feltline(self.room, self.signer.public_key, admit=ADMIT).start()

    def client(self, role: Role) -> Client:
        token = tokens.mint(self.signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1))
        return Client(self.server.target, token, timeout=20, retries=0)


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Small]:
    made = Small(tmp_path / "small.db")
    yield made
    made.server.stop()
    made.room.close()


def _at_once(callers: int, call: object) -> list[object]:
    """Each of ``callers`` threads, started together, calls ``call``
    :data:`CALLS` times; what each call returned or raised."""
    start = threading.Barrier(callers)

    def one() -> list[object]:
        start.wait()
        got: list[object] = []
        for _ in range(CALLS):
            try:
                got.append(call())  # type: ignore[operator]
            except FeltlineError as e:
                got.append(e)
        return got

    with ThreadPoolExecutor(callers) as pool:
        return [item for each in pool.map(lambda _: one(), range(callers)) for item in each]


def test_a_flood_past_the_limit_is_refused_at_once_with_a_hint(small: Small) -> None:
    admin = small.client(auth_pb2.ROLE_ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
    table = admin.create_table(config, "crowded").table_id
    spectator = small.client(auth_pb2.ROLE_SPECTATOR)

    got = _at_once(CALLERS, lambda: spectator.get_table(table))

    refused = [e for e in got if isinstance(e, FeltlineError)]
    served = [t for t in got if not isinstance(t, FeltlineError)]
    assert refused, "the flood was all served: nothing counted the calls in hand"
    assert served
    for error in refused:  # none failed any other way
        assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "OVERLOADED")
        assert error.retry_after is not None
        assert RETRY <= error.retry_after <= 2 * RETRY
    assert {t.table_id for t in served} == {table}  # type: ignore[attr-defined]

    # Whole afterwards: every place taken was given back, so as many calls
    # as it admits, at once, are all served; health says SERVING.
    again = _at_once(ADMIT, lambda: spectator.get_table(table))
    assert not [e for e in again if isinstance(e, FeltlineError)]
    health = health_pb2_grpc.HealthStub(spectator.channel)
    answer = health.Check(health_pb2.HealthCheckRequest(service=""))
    assert answer.status == health_pb2.HealthCheckResponse.SERVING
    admin.close()
    spectator.close()


class _Context:
    """What a refusal sets on a call's context."""

    def __init__(self) -> None:
        self.code: grpc.StatusCode | None = None

    def set_code(self, code: grpc.StatusCode) -> None:
        self.code = code

    def set_details(self, details: str) -> None:
        pass

    def set_trailing_metadata(self, metadata: object) -> None:
        pass

    def peer(self) -> str:  # a refusal's log line names the caller's address
        return "ipv4:127.0.0.1:1"


def test_a_call_cancelled_while_it_waits_for_a_thread_gives_its_place_back() -> None:
    # grpc.aio drops such a call without running it: counted at its end
    # only, it would hold its place for good, and a few deadlines missed
    # under load would leave the server refusing everything.
    pool = ThreadPoolExecutor(1)
    admission = Admission(pool, 3)
    held = threading.Event()

    def blocking(request: object, context: object) -> str:
        held.wait(10)
        return "served"

    async def main() -> None:
        async def found(_: object) -> grpc.RpcMethodHandler[object, object]:
            return grpc.unary_unary_rpc_method_handler(blocking)

        details = _Details("/feltline.v1.TableService/GetTable")
        handler = await admission.intercept_service(found, details)
        assert handler is not None
        assert handler.unary_unary is not None
        call = handler.unary_unary
        running = asyncio.ensure_future(call(None, _Context()))  # takes the thread
        waiting = [asyncio.ensure_future(call(None, _Context())) for _ in range(2)]
        await asyncio.sleep(0.1)
        refused = _Context()
        assert await call(None, refused) is None  # a fourth: no place left
        assert refused.code is grpc.StatusCode.RESOURCE_EXHAUSTED
        for each in waiting:
            each.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        held.set()
        assert await running == "served"
        assert [await call(None, _Context()) for _ in range(3)] == ["served"] * 3
        served = await asyncio.gather(*(call(None, _Context()) for _ in range(3)))
        assert served == ["served"] * 3

    asyncio.run(main())
    pool.shutdown()


class _Details(grpc.HandlerCallDetails):
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()
