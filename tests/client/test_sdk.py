"""The SDK against a fake in-process server on the loopback interface."""

from __future__ import annotations

import base64
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import protovalidate
import pytest
from google.protobuf import any_pb2, duration_pb2, timestamp_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from feltline_client import Client, FeltlineError, Seen, Tls, token_claims
from feltline_protos.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    auth_pb2,
    common_pb2,
    events_pb2,
    play_pb2,
    play_pb2_grpc,
    tables_pb2,
    tables_pb2_grpc,
    watch_pb2,
    watch_pb2_grpc,
)

TABLE = str(uuid.uuid4())
QUIET = str(uuid.uuid4())  # a table whose watch sends its snapshot, then nothing
TOKEN = "v1.abc.def"


def _abort(context: grpc.ServicerContext, code: int, message: str, *details: Any) -> None:
    """Fail the call the standard way: a google.rpc.Status in the trailer."""
    packed = []
    for detail in details:
        wrapper = any_pb2.Any()
        wrapper.Pack(detail)
        packed.append(wrapper)
    status = status_pb2.Status(code=code, message=message, details=packed)
    context.abort_with_status(rpc_status.to_status(status))


def _validated(request: Any, context: grpc.ServicerContext) -> None:
    """What the real server does first: the protos' constraints, as BadRequest."""
    violations = protovalidate.collect_violations(request)
    if violations:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(
                    field=".".join(e.field_name for e in v.proto.field.elements),
                    description=v.proto.message,
                )
                for v in violations
            ]
        )
        info = error_details_pb2.ErrorInfo(reason="INVALID_REQUEST", domain="feltline.v1")
        _abort(context, code_pb2.INVALID_ARGUMENT, "the request is not valid", info, bad)


class Fake(
    tables_pb2_grpc.TableServiceServicer,
    play_pb2_grpc.PlayServiceServicer,
    watch_pb2_grpc.WatchServiceServicer,
    accounts_pb2_grpc.AccountServiceServicer,
):
    def __init__(self) -> None:
        self.requests: list[Any] = []
        self.metadata: list[dict[str, str]] = []
        # Codes to fail the next calls with; with a delay, as a server
        # refusing for a while does: RetryInfo says when to come back.
        self.fail_next: list[grpc.StatusCode | tuple[grpc.StatusCode, float]] = []
        self.times: list[float] = []  # when each call came (monotonic)
        self.applied: dict[str, play_pb2.ActResponse] = {}
        self.watch_calls: list[str] = []
        self.lock = threading.Lock()
        self.watch_ended = threading.Event()

    def _enter(self, request: Any, context: grpc.ServicerContext) -> None:
        with self.lock:
            self.requests.append(request)
            self.times.append(time.monotonic())
            self.metadata.append(dict(context.invocation_metadata()))  # type: ignore[arg-type]
            failure = self.fail_next.pop(0) if self.fail_next else None
        if isinstance(failure, tuple):
            code, after = failure
            delay = duration_pb2.Duration()
            delay.FromNanoseconds(round(after * 1e9))
            _abort(
                context,
                code.value[0],
                "come back later",
                error_details_pb2.RetryInfo(retry_delay=delay),
            )
        elif failure is not None:
            context.abort(failure, "try again")
        _validated(request, context)

    def _table(self) -> tables_pb2.Table:
        return tables_pb2.Table(table_id=TABLE, display_name="Friday", state=1)

    def GetTable(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._enter(request, context)
        return tables_pb2.GetTableResponse(table=self._table())

    def SitDown(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._enter(request, context)
        return tables_pb2.SitDownResponse(table=self._table())

    def ListTables(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._enter(request, context)
        start = int(request.page_token or 0)
        tables = [tables_pb2.Table(table_id=str(uuid.UUID(int=i))) for i in range(5)]
        end = start + (request.page_size or 50)
        return tables_pb2.ListTablesResponse(
            tables=tables[start:end], next_page_token=str(end) if end < len(tables) else ""
        )

    def Act(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._enter(request, context)
        if request.request_id in self.applied:
            return self.applied[request.request_id]
        if request.sequence != 7:
            info = error_details_pb2.ErrorInfo(
                reason="STALE_STATE",
                domain="feltline.v1",
                metadata={"hand_number": "3", "sequence": "7"},
            )
            _abort(context, code_pb2.FAILED_PRECONDITION, "the hand has moved on", info)
        response = play_pb2.ActResponse(hand_number=3, sequence=8)
        self.applied[request.request_id] = response
        return response

    def WatchTableBatches(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        if request.table_id == QUIET:
            context.add_callback(self.watch_ended.set)  # when the call ends, however
            snapshot = watch_pb2.WatchTableResponse(cursor="1", snapshot=watch_pb2.TableSnapshot())
            yield watch_pb2.WatchTableBatchesResponse(messages=[snapshot])
            while context.is_active():
                time.sleep(0.01)
            return
        for item in self.WatchTable(request, context):
            yield watch_pb2.WatchTableBatchesResponse(messages=[item])

    def WatchTable(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        self._enter(request, context)
        self.watch_calls.append(request.after)
        start = int(request.after or 0)
        for n in range(start + 1, 6):
            if n == 1:
                item = watch_pb2.WatchTableResponse(
                    cursor="1", snapshot=watch_pb2.TableSnapshot(table=self._table())
                )
            elif n == 5:  # the table's last event: the stream ends after it
                event = events_pb2.Event(
                    table_id=TABLE, sequence=n, table_closed=events_pb2.TableClosed()
                )
                item = watch_pb2.WatchTableResponse(cursor=str(n), event=event)
            else:
                event = events_pb2.Event(
                    table_id=TABLE,
                    hand_number=3,
                    sequence=n,
                    acted=events_pb2.Acted(seat=2, action=common_pb2.ACTION_KIND_CALL),
                )
                item = watch_pb2.WatchTableResponse(cursor=str(n), event=event)
            yield item
            if n == 3 and len(self.watch_calls) == 1:
                context.abort(grpc.StatusCode.UNAVAILABLE, "connection dropped")

    def MintChips(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._enter(request, context)
        account = accounts_pb2.Account(player_id=request.player_id, balance=request.amount)
        return accounts_pb2.MintChipsResponse(account=account)

    def GetAccount(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._enter(request, context)
        return accounts_pb2.GetAccountResponse(
            account=accounts_pb2.Account(player_id=request.player_id or "me", balance=5)
        )


@pytest.fixture
def fake() -> Fake:
    return Fake()


@pytest.fixture
def client(fake: Fake) -> Iterator[Client]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    tables_pb2_grpc.add_TableServiceServicer_to_server(fake, server)
    play_pb2_grpc.add_PlayServiceServicer_to_server(fake, server)
    watch_pb2_grpc.add_WatchServiceServicer_to_server(fake, server)
    accounts_pb2_grpc.add_AccountServiceServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    with Client(f"127.0.0.1:{port}", token=TOKEN, timeout=5, backoff=0.01) as sdk:
        yield sdk
    server.stop(grace=None)


def test_every_call_carries_the_bearer_token(client: Client, fake: Fake) -> None:
    assert client.get_table(TABLE).display_name == "Friday"
    assert client.get_account().player_id == "me"
    assert all(m["authorization"] == f"Bearer {TOKEN}" for m in fake.metadata)


def test_a_token_function_is_asked_before_each_call(fake: Fake, client: Client) -> None:
    tokens = iter(["v1.a.b", "v1.c.d"])
    refreshing = Client(channel=client.channel, token=lambda: next(tokens))
    refreshing.get_table(TABLE)
    refreshing.get_table(TABLE)
    assert [m["authorization"] for m in fake.metadata] == ["Bearer v1.a.b", "Bearer v1.c.d"]


def test_changes_get_a_fresh_request_id_each(client: Client, fake: Fake) -> None:
    client.sit_down(TABLE, seat=2, buy_in=200)
    client.sit_down(TABLE, seat=3, buy_in=200)
    first, second = (r.request_id for r in fake.requests)
    assert uuid.UUID(first) != uuid.UUID(second)


def _closed_port() -> int:
    """A loopback port nothing listens on."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    port = server.add_insecure_port("127.0.0.1:0")
    server.stop(grace=None)
    return port


def test_an_unreachable_server_is_retried_for_as_long_as_the_patience() -> None:
    with Client(f"127.0.0.1:{_closed_port()}", TOKEN, backoff=0.05, patience=1.0) as sdk:
        started = time.monotonic()
        with pytest.raises(FeltlineError) as caught:
            sdk.get_table(TABLE)
        took = time.monotonic() - started
        assert caught.value.code is grpc.StatusCode.UNAVAILABLE
        assert 1.0 <= took < 3.0
        started = time.monotonic()
        with pytest.raises(FeltlineError):
            list(sdk.watch(TABLE))
        assert 1.0 <= time.monotonic() - started < 3.0


class _Dropped(grpc.RpcError):
    """A watch call failing as a server going away does."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "socket closed"

    def trailing_metadata(self) -> tuple[()]:
        return ()


def test_patience_counts_from_the_drop_not_from_the_last_message(client: Client) -> None:
    # A quiet table: the last batch came longer ago than the patience when the
    # server goes away, and the watch still waits for it to come back.
    snapshot = watch_pb2.WatchTableResponse(cursor="1", snapshot=watch_pb2.TableSnapshot())
    closed = watch_pb2.WatchTableResponse(
        cursor="2", event=events_pb2.Event(table_closed=events_pb2.TableClosed())
    )
    calls: list[str] = []

    def quiet_then_dropped() -> Iterator[watch_pb2.WatchTableBatchesResponse]:
        yield watch_pb2.WatchTableBatchesResponse(messages=[snapshot])
        time.sleep(0.6)
        raise _Dropped()

    def down() -> Iterator[watch_pb2.WatchTableBatchesResponse]:
        raise _Dropped()
        yield  # a generator, failing when read

    def back() -> Iterator[watch_pb2.WatchTableBatchesResponse]:
        yield watch_pb2.WatchTableBatchesResponse(messages=[closed])

    answers = iter([quiet_then_dropped, down, back])

    def watch(request: watch_pb2.WatchTableBatchesRequest, **_: object) -> object:
        calls.append(request.after)
        return next(answers)()

    client.patience = 0.5
    client.watcher.WatchTableBatches = watch  # type: ignore[method-assign]
    assert [i.cursor for i in client.watch(TABLE)] == ["1", "2"]
    assert calls == ["", "1", "1"]


def test_no_retries_means_one_try() -> None:
    with Client(f"127.0.0.1:{_closed_port()}", TOKEN, retries=0) as sdk:
        started = time.monotonic()
        with pytest.raises(FeltlineError):
            sdk.get_table(TABLE)
        assert time.monotonic() - started < 1.0


def test_a_retry_sends_the_same_request_id(client: Client, fake: Fake) -> None:
    fake.fail_next = [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED]
    client.mint_chips("alice", 1000)
    ids = {r.request_id for r in fake.requests}
    assert len(fake.requests) == 3
    assert len(ids) == 1


def test_an_overloaded_server_is_asked_again_after_its_hint(client: Client, fake: Fake) -> None:
    # The client's own backoff here is 10 ms: the pause is the server's.
    fake.fail_next = [(grpc.StatusCode.RESOURCE_EXHAUSTED, 0.3)]
    client.mint_chips("alice", 1000)
    assert len(fake.requests) == 2
    assert len({r.request_id for r in fake.requests}) == 1
    assert fake.times[1] - fake.times[0] >= 0.3


def test_resource_exhausted_without_a_hint_is_not_retried(client: Client, fake: Fake) -> None:
    fake.fail_next = [grpc.StatusCode.RESOURCE_EXHAUSTED]
    with pytest.raises(FeltlineError) as caught:
        client.mint_chips("alice", 1000)
    assert caught.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert len(fake.requests) == 1


def test_a_call_a_stopping_server_cancelled_is_sent_again(client: Client, fake: Fake) -> None:
    """A server's gRPC, as it stops, ends the calls that had just arrived
    CANCELLED; a bot that gave up on one would leave its seat for good."""
    fake.fail_next = [grpc.StatusCode.CANCELLED]
    client.mint_chips("alice", 1000)
    assert len(fake.requests) == 2
    assert len({r.request_id for r in fake.requests}) == 1


def test_a_repeated_action_is_answered_not_applied_twice(client: Client, fake: Fake) -> None:
    seen = Seen(3, 7)
    first = client.call(TABLE, seen, request_id="6f1c0e0e-36a4-4b7c-9f43-3a1d1f3c5a10")
    again = client.call(TABLE, seen, request_id="6f1c0e0e-36a4-4b7c-9f43-3a1d1f3c5a10")
    assert first == again
    assert len(fake.applied) == 1


def test_a_stale_action_is_refused_with_the_current_position(client: Client) -> None:
    with pytest.raises(FeltlineError) as caught:
        client.raise_to(TABLE, Seen(3, 6), to=40)
    error = caught.value
    assert error.code is grpc.StatusCode.FAILED_PRECONDITION
    assert error.reason == "STALE_STATE"
    assert error.domain == "feltline.v1"
    assert error.metadata == {"hand_number": "3", "sequence": "7"}
    assert str(error) == "FAILED_PRECONDITION STALE_STATE: the hand has moved on"


def test_each_action_sends_its_own_oneof_case(client: Client, fake: Fake) -> None:
    seen = Seen(3, 7)
    client.check(TABLE, seen)
    client.call(TABLE, seen)
    client.bet(TABLE, seen, to=4)
    client.raise_to(TABLE, seen, to=8)
    client.fold(TABLE, seen)
    client.complete(TABLE, seen, to=4)
    client.bring_in(TABLE, seen)
    client.draw(TABLE, seen, ["As", "Jk"])
    client.declare(TABLE, seen, "both")
    cases = [r.WhichOneof("action") for r in fake.requests]
    assert cases == [
        "check",
        "call",
        "bet",
        "raise_bet",
        "fold",
        "complete",
        "bring_in",
        "draw",
        "declare",
    ]
    assert list(fake.requests[7].draw.discards) == ["As", "Jk"]
    assert fake.requests[8].declare.declaration == common_pb2.DECLARATION_BOTH
    assert all((r.hand_number, r.sequence) == (3, 7) for r in fake.requests)


def test_an_invalid_request_lists_every_field_at_fault(client: Client) -> None:
    with pytest.raises(FeltlineError) as caught:
        client.draw("not-a-table", Seen(3, 7), ["As", "XX"])
    error = caught.value
    assert error.code is grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == "INVALID_REQUEST"
    assert {v.field for v in error.violations} == {"table_id", "draw.discards"}


def test_watch_resumes_after_a_dropped_connection(client: Client, fake: Fake) -> None:
    items = list(client.watch(TABLE))
    assert [i.cursor for i in items] == ["1", "2", "3", "4", "5"]
    assert items[0].WhichOneof("item") == "snapshot"
    assert [i.event.sequence for i in items[1:]] == [2, 3, 4, 5]
    assert fake.watch_calls == ["", "3"]


def test_closing_a_watch_ends_its_stream_at_the_server(client: Client, fake: Fake) -> None:
    stream = client.watch(QUIET, stop=threading.Event())  # never set
    assert next(stream).HasField("snapshot")
    stream.close()  # type: ignore[attr-defined]
    assert fake.watch_ended.wait(5)


def test_watch_without_reconnect_raises(client: Client) -> None:
    with pytest.raises(FeltlineError) as caught:
        list(client.watch(TABLE, reconnect=False))
    assert caught.value.code is grpc.StatusCode.UNAVAILABLE


def test_list_tables_follows_page_tokens(client: Client, fake: Fake) -> None:
    tables = list(client.list_tables(page_size=2))
    assert len(tables) == 5
    assert [r.page_token for r in fake.requests] == ["", "2", "4"]


def test_token_claims_are_readable_without_the_key() -> None:
    claims = auth_pb2.TokenClaims(
        role=auth_pb2.ROLE_PLAYER,
        player_id="alice",
        expire_time=timestamp_pb2.Timestamp(seconds=2_000_000_000),
    )
    payload = base64.urlsafe_b64encode(claims.SerializeToString()).rstrip(b"=").decode()
    assert token_claims(f"v1.{payload}.c2ln") == claims
    with pytest.raises(ValueError, match="not a Feltline v1 token"):
        token_claims("Bearer xyz")


def test_a_client_needs_somewhere_to_connect() -> None:
    with pytest.raises(ValueError, match="target"):
        Client()


def test_tls_takes_a_client_certificate_with_its_key_and_no_channel_of_ones_own() -> None:
    with pytest.raises(ValueError, match="needs its key"):
        Tls(cert=b"-----BEGIN CERTIFICATE-----")
    with (
        grpc.insecure_channel("127.0.0.1:1") as channel,
        pytest.raises(ValueError, match="not both"),
    ):
        Client(channel=channel, tls=Tls())
