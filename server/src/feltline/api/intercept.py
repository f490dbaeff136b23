"""The plumbing of Feltline's server interceptors.

Each interceptor does something around every call of a Feltline service:
before it (check the token, the request) and around each step of it (run in
the caller's context, turn exceptions into statuses). A response stream's
steps are its ``next()`` calls, made by grpc after the handler has returned,
so wrapping only the call would miss everything a streaming servicer does:
:func:`around` wraps the call and every step alike.

The services grpc itself provides, health checking and reflection, pass
untouched: they need no token, and health's non-blocking ``Watch`` depends
on an attribute of its own handler that a wrapper would hide.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeAlias, TypeVar

import grpc
from grpc_health.v1 import health
from grpc_reflection.v1alpha import reflection

T = TypeVar("T")
Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic in its stubs only
OPEN_SERVICES = frozenset({health.SERVICE_NAME, reflection.SERVICE_NAME})
_END = object()


class Scope(Protocol):
    """Runs one step of a call: the call itself, or one ``next()`` of its
    response stream."""

    def __call__(self, step: Callable[[], T], /) -> T: ...


def run(step: Callable[[], T]) -> T:
    """The scope that adds nothing."""
    return step()


def service_of(method: str) -> str:
    """``feltline.v1.TableService`` from ``/feltline.v1.TableService/GetTable``."""
    return method.split("/")[1] if method.count("/") == 2 else ""


class Interceptor(grpc.ServerInterceptor, abc.ABC):
    """Calls :meth:`enter` before every call of a Feltline service and runs
    the call's steps in the scope it returns."""

    @abc.abstractmethod
    def enter(
        self, call: grpc.HandlerCallDetails, request: Any, context: grpc.ServicerContext
    ) -> Scope:
        """Called once per call with its request (a request iterator for
        client streams), before the servicer sees it."""

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Handler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = continuation(handler_call_details)
        if handler is None or service_of(handler_call_details.method) in OPEN_SERVICES:
            return handler
        return around(
            handler,
            lambda request, context: self.enter(handler_call_details, request, context),
        )


def around(handler: Handler, enter: Callable[[Any, grpc.ServicerContext], Scope]) -> Handler:
    """``handler`` with ``enter`` called first and every step in its scope."""
    behavior: Callable[[Any, grpc.ServicerContext], Any] | None = (
        handler.unary_unary or handler.unary_stream or handler.stream_unary or handler.stream_stream
    )
    if behavior is None:
        raise ValueError("a method handler without a behavior")
    call = behavior

    def unary(request: Any, context: grpc.ServicerContext) -> Any:
        return enter(request, context)(lambda: call(request, context))

    def streaming(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        scope = enter(request, context)
        responses = scope(lambda: iter(call(request, context)))
        while (item := scope(lambda: next(responses, _END))) is not _END:
            yield item

    make = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }[handler.request_streaming, handler.response_streaming]
    return make(
        streaming if handler.response_streaming else unary,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )
