"""The interceptors over a real loopback server, with tiny test servicers:
who gets in, what each role may call, how refusals come back (read by the
SDK, as any client would), and health and reflection without a token."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from feltline.api.auth import current_caller, require_role
from feltline.api.server import Server, service
from feltline.api.tokens import mint
from feltline.audit.keys import Signer
from feltline.engine.errors import IllegalAction, WrongPhase
from feltline_client import Client, FeltlineError
from feltline_client.errors import from_rpc_error
from feltline_protos.v1 import (
    auth_pb2,
    tables_pb2,
    tables_pb2_grpc,
    watch_pb2,
    watch_pb2_grpc,
)

SIGNER = Signer.generate()
START = datetime(2030, 1, 1, tzinfo=UTC)
BROKEN = str(uuid.uuid4())
ALL_ROLES = (
    auth_pb2.ROLE_PLAYER,
    auth_pb2.ROLE_SPECTATOR,
    auth_pb2.ROLE_AUDITOR,
    auth_pb2.ROLE_ADMIN,
)


class Tables(tables_pb2_grpc.TableServiceServicer):
    def GetTable(
        self, request: tables_pb2.GetTableRequest, context: grpc.ServicerContext
    ) -> tables_pb2.GetTableResponse:
        caller = require_role(*ALL_ROLES)
        if request.table_id == BROKEN:
            raise KeyError("seat 2 holds As Kd")  # a bug, whose text must not leak
        name = f"{auth_pb2.Role.Name(caller.role)}:{caller.player_id}"
        return tables_pb2.GetTableResponse(
            table=tables_pb2.Table(table_id=request.table_id, display_name=name)
        )

    def CloseTable(
        self, request: tables_pb2.CloseTableRequest, context: grpc.ServicerContext
    ) -> tables_pb2.CloseTableResponse:
        require_role(auth_pb2.ROLE_ADMIN)
        raise WrongPhase("the table is closed already")

    def ListTables(
        self, request: tables_pb2.ListTablesRequest, context: grpc.ServicerContext
    ) -> tables_pb2.ListTablesResponse:
        context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down")


class Watch(watch_pb2_grpc.WatchServiceServicer):
    async def WatchTableBatches(  # type: ignore[override]
        self,
        request: watch_pb2.WatchTableBatchesRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[watch_pb2.WatchTableBatchesResponse]:
        for n in range(3):
            item = watch_pb2.WatchTableResponse(cursor=f"{current_caller().player_id}/{n}")
            yield watch_pb2.WatchTableBatchesResponse(messages=[item])
        raise IllegalAction("seat 1 cannot show Ah now")

    async def WatchTable(  # type: ignore[override]
        self,
        request: watch_pb2.WatchTableRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[watch_pb2.WatchTableResponse]:
        n = 0
        while True:  # until the client cancels
            yield watch_pb2.WatchTableResponse(cursor=f"{current_caller().player_id}/{n}")
            n += 1
            await asyncio.sleep(0.001)


@dataclass
class Clock:
    now: datetime = START

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Running:
    address: str
    clock: Clock

    def client(self, role: auth_pb2.Role.ValueType, player: str = "", ttl: float = 60) -> Client:
        token = mint(SIGNER, role, now=self.clock.now, ttl=timedelta(seconds=ttl), player_id=player)
        return Client(self.address, token, retries=0)


@pytest.fixture(scope="module")
def running() -> Iterator[Running]:
    clock = Clock()
    server = Server(
        [
            service(
                tables_pb2.DESCRIPTOR.services_by_name["TableService"],
                tables_pb2_grpc.add_TableServiceServicer_to_server,
                Tables(),
            ),
            service(
                watch_pb2.DESCRIPTOR.services_by_name["WatchService"],
                watch_pb2_grpc.add_WatchServiceServicer_to_server,
                Watch(),
            ),
        ],
        key=SIGNER.public_key,
        clock=clock,
        max_workers=4,
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield Running(f"127.0.0.1:{port}", clock)
    server.stop(None)


def _refusal(call: Callable[[], object]) -> FeltlineError:
    with pytest.raises(FeltlineError) as caught:
        call()
    return caught.value


TABLE = str(uuid.uuid4())


def test_a_valid_token_reaches_the_servicer_with_its_caller(running: Running) -> None:
    with running.client(auth_pb2.ROLE_PLAYER, "alice") as client:
        assert client.get_table(TABLE).display_name == "ROLE_PLAYER:alice"
    with running.client(auth_pb2.ROLE_SPECTATOR) as client:
        assert client.get_table(TABLE).display_name == "ROLE_SPECTATOR:"


def test_no_token_is_unauthenticated(running: Running) -> None:
    with Client(running.address, retries=0) as client:
        error = _refusal(lambda: client.get_table(TABLE))
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    assert error.domain == "feltline.v1"


@pytest.mark.parametrize("metadata", ["Bearer nonsense", "Basic abc", "Bearer ", "token"])
def test_a_bad_token_is_unauthenticated(running: Running, metadata: str) -> None:
    with grpc.insecure_channel(running.address) as channel:
        stub = tables_pb2_grpc.TableServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetTable(
                tables_pb2.GetTableRequest(table_id=TABLE), metadata=(("authorization", metadata),)
            )
    error = from_rpc_error(caught.value)
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")


def test_a_token_from_another_key_is_unauthenticated(running: Running) -> None:
    token = mint(Signer.generate(), auth_pb2.ROLE_ADMIN, now=START, ttl=timedelta(hours=1))
    with Client(running.address, token, retries=0) as client:
        error = _refusal(lambda: client.get_table(TABLE))
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")


def test_an_expired_token_is_unauthenticated_as_expired(running: Running) -> None:
    with running.client(auth_pb2.ROLE_ADMIN, ttl=5) as client:
        client.get_table(TABLE)
        running.clock.now += timedelta(seconds=5)
        try:
            error = _refusal(lambda: client.get_table(TABLE))
        finally:
            running.clock.now = START
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_EXPIRED")


def test_the_wrong_role_is_permission_denied(running: Running) -> None:
    for role, player in [
        (auth_pb2.ROLE_PLAYER, "alice"),
        (auth_pb2.ROLE_SPECTATOR, ""),
        (auth_pb2.ROLE_AUDITOR, ""),
    ]:
        with running.client(role, player) as client:
            error = _refusal(lambda: client.close_table(TABLE))
        assert (error.code, error.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ROLE_FORBIDDEN")
        assert "admin" in error.message
    with running.client(auth_pb2.ROLE_ADMIN) as client:
        error = _refusal(lambda: client.close_table(TABLE))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "WRONG_PHASE")
    assert error.message == "the table is closed already"


def test_a_malformed_request_is_refused_with_its_fields_but_only_after_the_token(
    running: Running,
) -> None:
    with running.client(auth_pb2.ROLE_SPECTATOR) as client:
        error = _refusal(lambda: client.get_table("not-a-uuid"))
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
    assert [v.field for v in error.violations] == ["table_id"]
    with Client(running.address, retries=0) as client:
        error = _refusal(lambda: client.get_table("not-a-uuid"))
    assert error.code is grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize("method", ["TableService/GetTable", "WatchService/WatchTableBatches"])
def test_an_undecodable_request_is_invalid_but_only_after_the_token(
    running: Running, method: str, no_error_logs: list[str]
) -> None:
    """A payload that is no message of its type is the client's mistake:
    INVALID_ARGUMENT, and nothing logged as an error."""
    with running.client(auth_pb2.ROLE_ADMIN) as client:
        metadata = client.metadata()
    with grpc.insecure_channel(running.address) as channel:
        path = f"/feltline.v1.{method}"
        if method.endswith("GetTable"):
            unary = channel.unary_unary(path)
            call: Callable[..., object] = unary
        else:
            stream = channel.unary_stream(path)
            call = lambda payload, **kw: list(stream(payload, **kw))  # noqa: E731
        for sent, code in [(metadata, "INVALID_ARGUMENT"), ((), "UNAUTHENTICATED")]:
            with pytest.raises(grpc.RpcError) as caught:
                call(b"\xff\xff\xff", metadata=sent, timeout=10)
            error = from_rpc_error(caught.value)
            assert error.code.name == code
            if code == "INVALID_ARGUMENT":
                assert error.reason == "INVALID_REQUEST"
                assert f"/feltline.v1.{method}" in error.message


def test_a_servicer_fault_is_internal_logged_and_shows_no_card(
    running: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    with running.client(auth_pb2.ROLE_ADMIN) as client:
        error = _refusal(lambda: client.get_table(BROKEN))
    assert error.code is grpc.StatusCode.INTERNAL
    assert "As" not in error.message
    assert "KeyError" not in error.message
    logged = capsys.readouterr().out  # structlog's default output: logging not configured
    assert "internal_error" in logged
    assert "/feltline.v1.TableService/GetTable" in logged
    assert "KeyError: 'seat 2 holds [card] [card]'" in logged
    assert "As Kd" not in logged


def test_a_servicer_that_aborts_keeps_its_own_status(running: Running) -> None:
    with running.client(auth_pb2.ROLE_ADMIN) as client:
        error = _refusal(client.list_tables_page)
    assert (error.code, error.message) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down")


def test_a_stream_knows_its_caller_at_every_step_and_its_errors_are_mapped(
    running: Running,
) -> None:
    got = []
    error: FeltlineError | None = None
    with running.client(auth_pb2.ROLE_PLAYER, "bob") as client:
        try:
            for item in client.watch(TABLE, reconnect=False):
                got.append(item.cursor)
        except FeltlineError as e:
            error = e
    assert got == ["bob/0", "bob/1", "bob/2"]
    assert error is not None
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_ACTION")
    assert "Ah" not in error.message
    with Client(running.address, retries=0) as client:
        error = _refusal(lambda: next(client.watch(TABLE, reconnect=False)))
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")


def test_cancelled_streams_end_without_an_error_logged(
    running: Running, no_error_logs: list[str]
) -> None:
    """A client that cancels a stream in the middle (the usual way a watch
    ends) leaves no error behind: the call's scope is closed by the call's
    own task, in the context it was opened in."""
    for n in range(20):
        with running.client(auth_pb2.ROLE_PLAYER, f"p{n}") as client:
            call = client.watcher.WatchTable(
                watch_pb2.WatchTableRequest(table_id=TABLE), metadata=client.metadata()
            )
            assert next(call).cursor == f"p{n}/0"
            time.sleep(0.01)  # let the server's sends run ahead of the reads
            call.cancel()
    time.sleep(0.3)  # the server sees the cancellations


def test_health_needs_no_token_and_names_each_service(running: Running) -> None:
    with grpc.insecure_channel(running.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for name in ("", "feltline.v1.TableService", "feltline.v1.WatchService"):
            reply = stub.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        watch = stub.Watch(health_pb2.HealthCheckRequest(service=""))
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        watch.cancel()
        with pytest.raises(grpc.RpcError) as caught:
            stub.Check(health_pb2.HealthCheckRequest(service="feltline.v1.PlayService"))
        call = caught.value
        assert isinstance(call, grpc.Call)
        assert call.code() is grpc.StatusCode.NOT_FOUND


def test_reflection_needs_no_token_and_lists_the_services(running: Running) -> None:
    with grpc.insecure_channel(running.address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        (reply,) = stub.ServerReflectionInfo(iter([request]))
        names = {s.name for s in reply.list_services_response.service}
        assert {"feltline.v1.TableService", "feltline.v1.WatchService"} <= names
        request = reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="feltline.v1.TableService"
        )
        (reply,) = stub.ServerReflectionInfo(iter([request]))
        assert reply.file_descriptor_response.file_descriptor_proto
