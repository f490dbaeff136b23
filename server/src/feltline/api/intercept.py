"""The plumbing of Feltline's server interceptors.

Each interceptor does something around every call of a Feltline service:
before it (check the token, the request), refusing the call by raising, and
around the whole of it (name the caller, turn exceptions into statuses), as
the context manager it returns. Unary calls run in the server's thread pool
and their interceptors with them, in the same thread; response streams are
async generators on the server's event loop, and their interceptors' scopes
stay open from the first message to the last.

A call refused here ends with the status set on its context
(:func:`refuse`), never with an exception grpc would report as ``UNKNOWN``,
and its refusal is logged there, once.

The services grpc itself provides, health checking and reflection, pass
untouched: they need no token.
"""

from __future__ import annotations

import abc
import inspect
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any, TypeAlias

import grpc
from grpc_health.v1 import health
from grpc_reflection.v1alpha import reflection

from feltline.api.logging import log_refusal

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic in its stubs only
Scope: TypeAlias = AbstractContextManager[object]
OPEN_SERVICES = frozenset({health.SERVICE_NAME, reflection.SERVICE_NAME})


class Refused(Exception):
    """The call was ended with a status already: stop serving it."""


class Undecodable:
    """A request whose payload did not decode as its message type. grpc
    would end the call ``UNKNOWN`` and log a traceback, for what is the
    client's mistake; handed on as this instead, it reaches the
    interceptors, and validation refuses it as ``INVALID_ARGUMENT`` once the
    token has been checked."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _decoding(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """``deserializer``, returning :class:`Undecodable` where it raises."""
    if deserializer is None or getattr(deserializer, "_feltline_decoding", False):
        return deserializer
    decode = deserializer

    def decoding(data: bytes) -> Any:
        try:
            return decode(data)
        except Exception as e:  # a payload that fails to decode, however it fails
            return Undecodable(e)

    decoding._feltline_decoding = True  # type: ignore[attr-defined]
    return decoding


def refuse(
    context: grpc.ServicerContext | grpc.aio.ServicerContext[Any, Any],
    status: grpc.Status,
    *,
    method: str,
    reason: str,
    **who: str,
) -> Refused:
    """End the call with ``status`` (for ``reason``, an ``ErrorReason``
    name) and log it (:func:`~feltline.api.logging.log_refusal`), with the
    caller's peer and ``who`` they are where no token has said it; the
    exception to raise to stop serving it. A server fault (``INTERNAL``) is
    not a refusal: the error interceptor logs it with its traceback."""
    if status.code is not grpc.StatusCode.INTERNAL:
        log_refusal(
            status.code.name,
            method=method,
            reason=reason,
            message=status.details,
            peer=context.peer(),
            **who,
        )
    context.set_code(status.code)
    context.set_details(status.details)
    context.set_trailing_metadata(status.trailing_metadata)
    return Refused(status.details)


def service_of(method: str) -> str:
    """``feltline.v1.TableService`` from ``/feltline.v1.TableService/GetTable``."""
    return method.split("/")[1] if method.count("/") == 2 else ""


class Interceptor(grpc.aio.ServerInterceptor, abc.ABC):
    """Calls :meth:`enter` before every call of a Feltline service and runs
    the call inside the scope it returns."""

    @abc.abstractmethod
    def enter(self, call: grpc.HandlerCallDetails, request: Any, context: Any) -> Scope:
        """Called once per call with its request, before the servicer sees
        it; raises :class:`Refused` (after :func:`refuse`) to end the call."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None or service_of(handler_call_details.method) in OPEN_SERVICES:
            return handler
        return around(
            handler,
            lambda request, context: self.enter(handler_call_details, request, context),
        )


def around(handler: Handler, enter: Callable[[Any, Any], Scope]) -> Handler:
    """``handler`` with ``enter`` called first and the call run in its scope.
    Unary methods may be plain functions; response streams must be async
    generators, whose scope has to outlive a thread pool's single step."""
    if handler.request_streaming:
        raise ValueError("Feltline serves no client streams")
    if handler.response_streaming:
        stream = handler.unary_stream
        if inspect.isasyncgenfunction(stream):
            servicer = stream

            # A coroutine that writes, not a generator that yields: grpc
            # drops a cancelled call's generator unclosed, and asyncio then
            # closes it in a task and a context of its own, where the
            # scopes' context variables cannot be reset. Here the call's
            # own task closes the servicer's stream, then the scopes.
            async def body(request: Any, context: Any) -> None:
                items = servicer(request, context)
                try:
                    async for item in items:
                        await context.write(item)
                finally:
                    await items.aclose()

        elif inspect.iscoroutinefunction(stream):  # an inner interceptor's
            body = stream
        else:
            raise ValueError(f"response streams must be async generators, not {stream}")

        async def streaming(request: Any, context: Any) -> None:
            try:
                with enter(request, context):
                    await body(request, context)
            except Refused:
                return

        return grpc.unary_stream_rpc_method_handler(
            streaming,
            request_deserializer=_decoding(handler.request_deserializer),
            response_serializer=handler.response_serializer,
        )
    call = handler.unary_unary
    assert call is not None

    def unary(request: Any, context: Any) -> Any:
        try:
            with enter(request, context):
                return call(request, context)
        except Refused:
            pass
        return None

    return grpc.unary_unary_rpc_method_handler(
        unary,
        request_deserializer=_decoding(handler.request_deserializer),
        response_serializer=handler.response_serializer,
    )
