"""A request at a table another process owns is passed on to that process.

A client may connect to any server process of a cluster; each table is
served by the one holding its lease (:mod:`feltline.cardroom.owners`). A
unary call that reaches a process not owning its table is forwarded, as it
came (its bytes, its token, its deadline), to the owner, whose answer,
refusals and their details included, goes back unchanged: a client never
learns which process holds which table, and needs nothing from the
contract to follow a table around. Forwarding, not redirection, because it
keeps every client in every language as thin as it is: redirection would
have each one (the browser's too) find, connect to and fail over between
servers.

A forwarded call is never forwarded again: if ownership moved meanwhile,
or the owner cannot be reached (it died, and its lease has not expired
yet), the call is refused ``UNAVAILABLE`` with a retry hint, and the
client sends the same request again (the same request id: never applied
twice) once the table has an owner.

Response streams (watches) are served by any process from the store and
need no forwarding.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc

from feltline.api.errors import ApiError
from feltline.api.intercept import OPEN_SERVICES, Handler, refuse, service_of
from feltline.cardroom.errors import OwnedElsewhere
from feltline_protos.v1 import errors_pb2

if TYPE_CHECKING:
    from feltline.api.server import Tls

R = errors_pb2.ErrorReason
FORWARDED = "feltline-forwarded-by"  # the metadata a forwarded call carries
RETRY = 0.5  # seconds a client waits before sending again a call no owner took
# An owner frozen (SIGSTOP, a stalled VM) keeps its connection open: a ping
# unanswered in 10 s ends the forwarded call UNAVAILABLE ("cannot be
# reached", with a retry hint) instead of at the client's deadline; by the
# retry, its lease may have lapsed and this process takes the table.
# Pings go on while no data crosses (gRPC's default stops after two): a
# forwarded call waits on its owner without data, however long, as the
# SDK's channel does (feltline_client.client.CHANNEL_OPTIONS); the peer's
# server allows them (feltline.api.server.OPTIONS).
PEER_OPTIONS = (
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.ping_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
)
# Metadata of the transport, not of the call: never passed on.
TRANSPORT = frozenset({"user-agent", "te", "content-type", "grpc-accept-encoding"})


class Forwarding(grpc.aio.ServerInterceptor):
    """Passes each unary call that raises :class:`OwnedElsewhere` to the
    table's owner. ``tls`` is this server's own, which its peers share."""

    def __init__(self, tls: Tls | None = None) -> None:
        self.tls = tls
        self._channels: dict[str, grpc.Channel] = {}
        self._guard = threading.Lock()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if (
            handler is None
            or service_of(handler_call_details.method) in OPEN_SERVICES
            or handler.response_streaming
            or handler.unary_unary is None
        ):
            return handler
        call = handler.unary_unary
        method = handler_call_details.method
        serialize = handler.response_serializer
        # The call's metadata as it arrived, read now: a call whose client
        # went away before a thread took it (a process frozen, then thawed)
        # has its metadata freed under it, and read later it is garbage that
        # gRPC logs at error level.
        metadata = tuple(handler_call_details.invocation_metadata or ())

        def unary(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return call(request, context)
            except OwnedElsewhere as moved:
                return self._forward(method, request, context, moved, metadata)

        def passing(response: Any) -> bytes:  # the owner's answer is bytes already
            if isinstance(response, bytes):
                return response
            assert serialize is not None
            return bytes(serialize(response))

        return grpc.unary_unary_rpc_method_handler(
            unary, request_deserializer=handler.request_deserializer, response_serializer=passing
        )

    def _forward(
        self,
        method: str,
        request: Any,
        context: grpc.ServicerContext,
        moved: OwnedElsewhere,
        arrived: tuple[tuple[str, str | bytes], ...],
    ) -> bytes | None:
        metadata = [
            (key, value)
            for key, value in arrived
            if not key.startswith((":", "grpc-")) and key not in TRANSPORT
        ]
        if any(key == FORWARDED for key, _ in metadata) or not moved.address:
            self._unavailable(context, method, moved, "the table's owner is changing")
            return None
        try:
            return bytes(
                self._channel(moved.address).unary_unary(method)(
                    request.SerializeToString(),
                    metadata=(*metadata, (FORWARDED, "1")),
                    timeout=context.time_remaining(),
                )
            )
        except grpc.RpcError as e:
            if not isinstance(e, grpc.Call):
                raise
            trailing = e.trailing_metadata() or ()
            if e.code() is grpc.StatusCode.UNAVAILABLE and not any(
                key == "grpc-status-details-bin" for key, _ in trailing
            ):  # grpc's own: the owner cannot be reached
                self._unavailable(context, method, moved, "the table's owner cannot be reached")
                return None
            context.set_code(e.code())
            context.set_details(e.details() or "")
            context.set_trailing_metadata(tuple(trailing))
            return None

    def _unavailable(
        self, context: grpc.ServicerContext, method: str, moved: OwnedElsewhere, why: str
    ) -> None:
        """Refuse the call for now, with a retry hint (logged as every refusal is)."""
        error = ApiError(
            R.ERROR_REASON_TRY_AGAIN,
            f"{why} (table {moved.table_id}): send the same request (same request_id) "
            "again shortly",
            metadata={"table_id": str(moved.table_id)},
            retry_after=RETRY,
        )
        refuse(context, error.status(), method=method, reason=error.reason_name)

    def _channel(self, address: str) -> grpc.Channel:
        with self._guard:
            channel = self._channels.get(address)
            if channel is None:
                if self.tls is None:
                    channel = grpc.insecure_channel(address, options=PEER_OPTIONS)
                else:  # the peers' certificates are this server's kind
                    channel = grpc.secure_channel(
                        address,
                        grpc.ssl_channel_credentials(
                            root_certificates=self.tls.chain,
                            private_key=self.tls.key,
                            certificate_chain=self.tls.chain,
                        ),
                        options=PEER_OPTIONS,
                    )
                self._channels[address] = channel
            return channel

    def close(self) -> None:
        with self._guard:
            for channel in self._channels.values():
                channel.close()
            self._channels.clear()
