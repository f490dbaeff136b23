"""Admission: a process takes on no more unary calls than it serves
promptly, and refuses the others at once with a retry hint.

``grpc.aio`` accepts every call that arrives and queues the unary ones,
without limit, in front of the thread pool that runs them. Offered more
than it can do, a process then answers each call later than the one
before: clients time out, and their retries join the queue behind calls
whose callers have gone, so the work done per answer grows and the rate
falls far below what the process can do. Counting the unary calls in
hand (running, or waiting for a thread) and refusing those past a limit
keeps the queue short: the calls taken are served at full speed, and the
others learn at once, before any work is spent on them (not even the
token check), that they should come back after the hint
(``RESOURCE_EXHAUSTED``, reason ``OVERLOADED``, with ``RetryInfo``). The
hint is spread, so that a room of bots refused together does not come
back together.

Watches are not counted: they are long-lived and wait on the event loop,
not in a thread; each sends its next batch only once the last is written
(:mod:`feltline.api.watch` reads the store at its own pace), so a slow
watcher holds no queue of its own, only its place in the table's stream.

The calls run in the pool from here, not from ``grpc.aio``: a call given to
the pool by ``grpc.aio`` and then cancelled before a thread took it would
never run, and so could not say it was done.
"""

from __future__ import annotations

import asyncio
import contextvars
import random
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, Future
from functools import partial
from typing import Any, cast

import grpc

from feltline.api.errors import ApiError
from feltline.api.intercept import OPEN_SERVICES, Handler, refuse, service_of
from feltline_protos.v1 import errors_pb2

R = errors_pb2.ErrorReason
RETRY = 1.0  # seconds: the least a refused client waits; each is told up to twice it


class Admission(grpc.aio.ServerInterceptor):
    """Runs each unary call of a Feltline service in ``pool``, at most
    ``limit`` at a time counting those waiting for a thread; refuses the
    others ``OVERLOADED`` with a hint of ``retry_after`` to twice it."""

    def __init__(self, pool: Executor, limit: int, *, retry_after: float = RETRY) -> None:
        self.pool = pool
        self.limit = limit
        self.retry_after = retry_after
        self._in_hand = 0
        self._guard = threading.Lock()  # taken on the loop, and by threads ending calls
        self._unary: set[str] = set()  # the methods found to be unary so far
        # Past the limit a unary method is refused before the interceptors
        # behind this one make its handler, and its request is not decoded:
        # a refusal has to cost far less than a call.
        self._refused: dict[str, Handler] = {}  # by method: a refusal names it in the log

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        method = handler_call_details.method
        if method in self._unary and self._in_hand >= self.limit:
            return self._refusing(method)
        handler = await continuation(handler_call_details)
        if (
            handler is None
            or service_of(handler_call_details.method) in OPEN_SERVICES
            or handler.response_streaming
            or handler.unary_unary is None
        ):
            return handler
        self._unary.add(method)
        call = handler.unary_unary

        async def admitted(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            with self._guard:
                taken = self._in_hand < self.limit
                self._in_hand += taken
            if not taken:
                return self._refuse(method, context)
            loop = asyncio.get_running_loop()
            sync = cast(grpc.ServicerContext, Sync(context, loop))  # as it behaves
            run = contextvars.copy_context().run
            work: Future[Any] = self.pool.submit(run, call, request, sync)
            # Done when it ends, or when it is cancelled before a thread took it.
            work.add_done_callback(self._release)
            return await asyncio.wrap_future(work)

        return grpc.unary_unary_rpc_method_handler(
            admitted,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    def _release(self, _: Future[Any]) -> None:
        with self._guard:
            self._in_hand -= 1

    def _refusing(self, method: str) -> Handler:
        """The handler that refuses a call of ``method``, made once."""
        handler = self._refused.get(method)
        if handler is None:

            async def refused(_: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
                self._refuse(method, context)

            handler = self._refused[method] = grpc.unary_unary_rpc_method_handler(refused)
        return handler

    def _refuse(self, method: str, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        error = self.refusal()
        refuse(context, error.status(), method=method, reason=error.reason_name)

    def refusal(self) -> ApiError:
        return ApiError(
            R.ERROR_REASON_OVERLOADED,
            f"the server has {self.limit} calls in hand, as many as it serves promptly: "
            "send the same request (same request_id) again after the RetryInfo delay",
            retry_after=round(random.uniform(self.retry_after, 2 * self.retry_after), 3),
        )


class Sync:
    """A ``grpc.aio`` call's context as a servicer running in a thread sees
    it (what ``grpc.aio`` hands a plain function): the same, except that
    what is a coroutine on the loop is run there and waited for."""

    def __init__(
        self, context: grpc.aio.ServicerContext[Any, Any], loop: asyncio.AbstractEventLoop
    ) -> None:
        self._context = context
        self._loop = loop

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()) -> None:
        self._wait(partial(self._context.abort, code, details, trailing_metadata))

    def send_initial_metadata(self, initial_metadata: Any) -> None:
        self._wait(partial(self._context.send_initial_metadata, initial_metadata))

    def _wait(self, work: Callable[[], Awaitable[None]]) -> None:
        async def run() -> None:
            await work()

        asyncio.run_coroutine_threadsafe(run(), self._loop).result()
