"""The standard gRPC server metrics, as go-grpc-prometheus counts them:
each call started and handled (with its status code, spelt as Go spells
it), each message received and sent, and how long the call took.

:class:`RpcMetrics` is the outermost interceptor, so a call refused for
its token is counted too, and it counts every service, health checking
and reflection included. Unary calls run in the server's thread pool,
whose servicer context cannot tell the code it was given, so each call's
servicer is handed :class:`_Told`, which notes it on the way through; it
also counts what a stream writes.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from grpc.aio import AbortError

from feltline import metrics
from feltline.api.intercept import Handler

# Go's names for the codes (codes.Code.String()), which dashboards expect.
GO_CODES = {
    grpc.StatusCode.OK: "OK",
    grpc.StatusCode.CANCELLED: "Canceled",
    grpc.StatusCode.UNKNOWN: "Unknown",
    grpc.StatusCode.INVALID_ARGUMENT: "InvalidArgument",
    grpc.StatusCode.DEADLINE_EXCEEDED: "DeadlineExceeded",
    grpc.StatusCode.NOT_FOUND: "NotFound",
    grpc.StatusCode.ALREADY_EXISTS: "AlreadyExists",
    grpc.StatusCode.PERMISSION_DENIED: "PermissionDenied",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "ResourceExhausted",
    grpc.StatusCode.FAILED_PRECONDITION: "FailedPrecondition",
    grpc.StatusCode.ABORTED: "Aborted",
    grpc.StatusCode.OUT_OF_RANGE: "OutOfRange",
    grpc.StatusCode.UNIMPLEMENTED: "Unimplemented",
    grpc.StatusCode.INTERNAL: "Internal",
    grpc.StatusCode.UNAVAILABLE: "Unavailable",
    grpc.StatusCode.DATA_LOSS: "DataLoss",
    grpc.StatusCode.UNAUTHENTICATED: "Unauthenticated",
}


class _Method:
    """One method's series, looked up once: labelling is the costly part."""

    def __init__(self, kind: str, path: str) -> None:
        _, service, name = path.split("/") if path.count("/") == 2 else ("", "", path)
        labels = (kind, service, name)
        self.labels = labels
        self.started = metrics.RPC_STARTED.labels(*labels)
        self.received = metrics.RPC_RECEIVED.labels(*labels)
        self.sent = metrics.RPC_SENT.labels(*labels)
        self.seconds = metrics.RPC_SECONDS.labels(*labels)
        self._handled: dict[grpc.StatusCode, Any] = {}

    def handled(self, code: grpc.StatusCode, began: float) -> None:
        counter = self._handled.get(code)
        if counter is None:
            counter = self._handled[code] = metrics.RPC_HANDLED.labels(*self.labels, GO_CODES[code])
        counter.inc()
        self.seconds.observe(time.perf_counter() - began)


class _Told:
    """A servicer context that notes the status code it is given and
    counts the messages written through it."""

    __slots__ = ("_context", "_method", "code")

    def __init__(self, context: Any, method: _Method) -> None:
        self._context = context
        self._method = method
        self.code = grpc.StatusCode.OK

    def set_code(self, code: grpc.StatusCode) -> None:
        self.code = code
        self._context.set_code(code)

    def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()) -> Any:
        self.code = code
        return self._context.abort(code, details, trailing_metadata)

    async def write(self, message: Any) -> None:
        await self._context.write(message)
        self._method.sent.inc()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def ended(self, error: BaseException | None) -> grpc.StatusCode:
        """The call's status, given what its servicer raised, if anything."""
        if error is None or isinstance(error, AbortError):
            return self.code
        if isinstance(error, asyncio.CancelledError):
            return grpc.StatusCode.CANCELLED
        return grpc.StatusCode.UNKNOWN


class RpcMetrics(grpc.aio.ServerInterceptor):
    """Counts every call of every service into :mod:`feltline.metrics`."""

    def __init__(self) -> None:
        self._methods: dict[str, _Method] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        path = handler_call_details.method
        kind = _kind(handler)
        method = self._methods.get(path)
        if method is None:
            method = self._methods[path] = _Method(kind, path)
        return _counted(handler, kind, method)


def _kind(handler: Handler) -> str:
    if handler.request_streaming:
        return "bidi_stream" if handler.response_streaming else "client_stream"
    return "server_stream" if handler.response_streaming else "unary"


def _counted(handler: Handler, kind: str, method: _Method) -> Handler:
    """``handler`` counted: its servicer wrapped to suit how it is written
    (a plain function, a coroutine, an async generator)."""
    serve: Any = {
        "unary": handler.unary_unary,
        "server_stream": handler.unary_stream,
        "client_stream": handler.stream_unary,
        "bidi_stream": handler.stream_stream,
    }[kind]
    streaming_in = handler.request_streaming
    streaming_out = handler.response_streaming

    def begin(request: Any) -> Any:
        method.started.inc()
        if streaming_in:
            return _received(request, method)
        method.received.inc()
        return request

    def finish(told: _Told, error: BaseException | None, response: Any, began: float) -> None:
        code = told.ended(error)
        answered = error is None and response is not None and code is grpc.StatusCode.OK
        if answered and not streaming_out:
            method.sent.inc()
        method.handled(code, began)

    if inspect.isasyncgenfunction(serve):
        generator = serve

        async def counted_stream(request: Any, context: Any) -> AsyncIterator[Any]:
            began = time.perf_counter()
            told = _Told(context, method)
            error: BaseException | None = None
            try:
                async for item in generator(begin(request), told):
                    method.sent.inc()
                    yield item
            except BaseException as e:
                error = e
                raise
            finally:
                finish(told, error, None, began)

        wrapped: Any = counted_stream
    elif inspect.iscoroutinefunction(serve):
        coroutine = serve

        async def counted_coroutine(request: Any, context: Any) -> Any:
            began = time.perf_counter()
            told = _Told(context, method)
            error: BaseException | None = None
            response = None
            try:
                response = await coroutine(begin(request), told)
                return response
            except BaseException as e:
                error = e
                raise
            finally:
                finish(told, error, response, began)

        wrapped = counted_coroutine
    elif not streaming_in and not streaming_out:
        function = serve

        def counted_call(request: Any, context: Any) -> Any:
            began = time.perf_counter()
            told = _Told(context, method)
            error: BaseException | None = None
            response = None
            try:
                response = function(begin(request), told)
                return response
            except BaseException as e:
                error = e
                raise
            finally:
                finish(told, error, response, began)

        wrapped = counted_call
    else:
        raise ValueError(f"streams must be async generators or coroutines, not {serve}")
    make = {
        "unary": grpc.unary_unary_rpc_method_handler,
        "server_stream": grpc.unary_stream_rpc_method_handler,
        "client_stream": grpc.stream_unary_rpc_method_handler,
        "bidi_stream": grpc.stream_stream_rpc_method_handler,
    }[kind]
    return make(
        wrapped,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


async def _received(requests: AsyncIterator[Any], method: _Method) -> AsyncIterator[Any]:
    async for request in requests:
        method.received.inc()
        yield request
