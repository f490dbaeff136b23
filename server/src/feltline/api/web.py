"""The API for browsers: the Connect protocol and gRPC-Web, beside gRPC.

A browser cannot speak gRPC as ``grpcio`` serves it (it cannot read HTTP/2
trailers), so ``feltline serve --web-port`` also answers the protocols a
page can: Connect (JSON or binary) and gRPC-Web, over HTTP/1.1 and HTTP/2,
as ``connectrpc`` implements them, served by ``hypercorn`` on the gRPC
server's own event loop.

Nothing about a call is served twice. :class:`WebApi` reaches each method
through the very handlers the gRPC server was given (the same servicer
objects) and through the same interceptor objects, in the same order, as
``grpc.aio`` does per call: metrics, admission (one count of calls in hand
for both protocols), authentication from the same ``authorization``
header, forwarding, error mapping and validation. Only the transport is
translated: the headers become the call's metadata, and the status the
interceptors set on the call (code, message, the ``google.rpc.Status``
trailer) becomes the protocol's error, whose details a page reads.

Browsers' cross-origin calls are answered only for the origins an operator
lists (:class:`Origins`); a page served from the same address is always
answered, and a client that is no browser sends no ``Origin``. The port
also serves the web table's page (:class:`Site`), built from
``clients/web/app`` into ``feltline/api/page``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, cast

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.message import Message
from google.rpc import status_pb2
from grpc.aio import AbortError
from hypercorn.asyncio import serve
from hypercorn.config import Config
from protobuf.wkt import Any as AnyDetail

from feltline.api.intercept import Handler, Undecodable
from feltline_replay.histories import html

Interceptors = Sequence[grpc.aio.ServerInterceptor]
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]

# HTTP's own headers, and the protocols': the rest of a request's headers
# are its metadata, as a gRPC client's would be.
HTTP_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-encoding",
        "content-length",
        "content-type",
        "cookie",
        "host",
        "origin",
        "pragma",
        "priority",
        "referer",
        "te",
        "transfer-encoding",
        "user-agent",
        "x-grpc-web",
        "x-user-agent",
    }
)
PROTOCOL_PREFIXES = ("connect-", "grpc-", "sec-", ":")
STATUS_DETAILS = "grpc-status-details-bin"
# What a page may send and read across origins (Connect's and gRPC-Web's own).
ALLOWED_HEADERS = (
    "authorization, content-type, connect-protocol-version, connect-timeout-ms, "
    "grpc-timeout, x-grpc-web, x-user-agent"
)
EXPOSED_HEADERS = "grpc-status, grpc-message, grpc-status-details-bin"
# The page's files, by extension: what Site serves.
PAGE_TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
}
# The page runs only its own files and talks only to this server; the one
# code inline it allows is the HTML replayer's, by hash, for a hand it
# fetched and opened (a blob: document runs under its opener's policy).
_REPLAYER_SCRIPT, _REPLAYER_STYLE = html.inline_hashes()
PAGE_HEADERS = [
    (b"cache-control", b"no-cache"),
    (b"x-content-type-options", b"nosniff"),
    (
        b"content-security-policy",
        f"default-src 'self'; script-src 'self' {_REPLAYER_SCRIPT}; "
        f"style-src 'self' {_REPLAYER_STYLE}; base-uri 'none'; frame-ancestors 'none'; "
        "form-action 'self'".encode(),
    ),
]


class _Details(grpc.HandlerCallDetails):
    """A call's method and metadata, as ``grpc.aio`` hands interceptors."""

    def __init__(self, method: str, metadata: tuple[tuple[str, str], ...]) -> None:
        self.method = method
        self.invocation_metadata = metadata


class WebContext:
    """A call's context as the servicers and interceptors see a
    ``grpc.aio`` one: its metadata, peer and deadline, the status they set,
    and ``write`` for a response stream, which waits until the message is
    taken for sending (as gRPC waits for flow control)."""

    def __init__(self, metadata: tuple[tuple[str, str], ...], peer: str, timeout: float | None):
        self._metadata = metadata
        self._peer = peer
        self._deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        self.status = grpc.StatusCode.OK
        self.message = ""
        self.trailers: tuple[tuple[str, str | bytes], ...] = ()
        self.sent: asyncio.Queue[object] = asyncio.Queue()

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - asyncio.get_running_loop().time())

    def set_code(self, code: grpc.StatusCode) -> None:
        self.status = code

    def set_details(self, details: str) -> None:
        self.message = details

    def set_trailing_metadata(self, metadata: Iterable[tuple[str, str | bytes]]) -> None:
        self.trailers = tuple(metadata)

    async def abort(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing_metadata: Iterable[tuple[str, str | bytes]] = (),
    ) -> None:
        self.set_code(code)
        self.set_details(details)
        self.set_trailing_metadata(trailing_metadata)
        raise AbortError(details)

    async def write(self, message: Any) -> None:
        self.sent.put_nowait(message)
        await self.sent.join()

    def refusal(self) -> ConnectError | None:
        """The status set on the call as the protocol's error, if not OK."""
        if self.status is grpc.StatusCode.OK:
            return None
        details: list[ErrorDetail] = []
        for key, value in self.trailers:
            if key == STATUS_DETAILS and isinstance(value, bytes):
                details.extend(
                    ErrorDetail(AnyDetail(type_url=each.type_url, value=each.value))
                    for each in status_pb2.Status.FromString(value).details
                )
        return ConnectError(_code(self.status), self.message, details)


def _code(status: grpc.StatusCode) -> Code:
    if status is grpc.StatusCode.CANCELLED:
        return Code.CANCELED
    return Code[status.name]


class Encoded:
    """A response a servicer sent serialized already (``WatchTableBatches``,
    a forwarded call's answer), with its type for the JSON codec."""

    __slots__ = ("data", "kind")

    def __init__(self, data: bytes, kind: type[Message]) -> None:
        self.data = data
        self.kind = kind


class ProtoCodec:
    """Binary protobuf. A request stays bytes, for the method's own
    deserializer to decode, as for gRPC."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Message | Encoded) -> bytes:
        if isinstance(message, Encoded):
            return message.data
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> bytes:
        return bytes(data)


class JsonCodec:
    """Protobuf's JSON mapping. A request that does not parse reaches the
    interceptors as :class:`Undecodable`, refused once the token is checked,
    as a gRPC call's undecodable payload is."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message | Encoded) -> bytes:
        if isinstance(message, Encoded):
            message = message.kind.FromString(message.data)
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Any:
        try:
            return json_format.Parse(bytes(data), message_class())
        except json_format.ParseError as e:
            return Undecodable(e)


class WebApi(ConnectASGIApplication[Mapping[str, Handler]]):
    """An ASGI application serving ``handlers`` (by method path, as the
    gRPC server was given them) through ``interceptors``."""

    def __init__(self, handlers: Mapping[str, Handler], interceptors: Interceptors) -> None:
        self._handlers = handlers
        self._interceptors_of_grpc = tuple(interceptors)
        super().__init__(
            service=handlers,
            endpoints=self._endpoints_of,
            codecs=[ProtoCodec(), JsonCodec()],
        )

    @property
    def path(self) -> str:
        return "/"

    def _endpoints_of(self, handlers: Mapping[str, Handler]) -> Mapping[str, Any]:
        pool = descriptor_pool.Default()
        endpoints: dict[str, Any] = {}
        for path, handler in handlers.items():
            service, name = path.strip("/").split("/")
            method = pool.FindServiceByName(service).methods_by_name[name]
            streams = handler.response_streaming
            info: MethodInfo[Any, Any] = MethodInfo(
                name=name,
                service_name=service,
                input=message_factory.GetMessageClass(method.input_type),
                output=message_factory.GetMessageClass(method.output_type),
                idempotency_level=IdempotencyLevel.UNKNOWN,
                stream_type=StreamType.SERVER_STREAM if streams else StreamType.UNARY,
            )
            if streams:
                endpoints[path] = Endpoint.server_stream(info, self._streaming(path, info))
            else:
                endpoints[path] = Endpoint.unary(info, self._unary(path, info))
        return endpoints

    async def _handler(self, path: str, metadata: tuple[tuple[str, str], ...]) -> Handler:
        """The method's handler through the interceptors, as grpc.aio makes
        it for each call."""

        async def chain(at: int, details: grpc.HandlerCallDetails) -> Handler | None:
            if at == len(self._interceptors_of_grpc):
                return self._handlers.get(details.method)
            return await self._interceptors_of_grpc[at].intercept_service(
                lambda later: chain(at + 1, later), details
            )

        handler = await chain(0, _Details(path, metadata))
        assert handler is not None  # every path served is one of the handlers
        return handler

    def _unary(
        self, path: str, info: MethodInfo[Any, Any]
    ) -> Callable[[Any, RequestContext[Any, Any]], Awaitable[Any]]:
        async def call(payload: Any, request: RequestContext[Any, Any]) -> Any:
            context = _context(request)
            handler = await self._handler(path, context.invocation_metadata())
            serve = handler.unary_unary
            assert serve is not None
            assert asyncio.iscoroutinefunction(serve)  # as the interceptors make them
            response = None  # an aborted call answers with its status alone
            with contextlib.suppress(AbortError):
                response = await serve(_request(handler, payload), cast(Any, context))
            if (refusal := context.refusal()) is not None:
                raise refusal
            return _response(response, info)

        return call

    def _streaming(
        self, path: str, info: MethodInfo[Any, Any]
    ) -> Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]]:
        end = object()

        async def stream(payload: Any, request: RequestContext[Any, Any]) -> AsyncIterator[Any]:
            context = _context(request)
            handler = await self._handler(path, context.invocation_metadata())
            serve = handler.unary_stream
            assert serve is not None
            assert asyncio.iscoroutinefunction(serve)  # as the interceptors make them

            async def writing() -> None:
                try:
                    with contextlib.suppress(AbortError):
                        await serve(_request(handler, payload), cast(Any, context))
                finally:
                    context.sent.put_nowait(end)

            task = asyncio.ensure_future(writing())
            try:
                while (item := await context.sent.get()) is not end:
                    yield _response(item, info)
                    context.sent.task_done()
                await task
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if (refusal := context.refusal()) is not None:
                raise refusal

        return stream


def _context(request: RequestContext[Any, Any]) -> WebContext:
    headers = request.request_headers
    metadata = tuple(
        (key, value)
        for key in headers
        if key not in HTTP_HEADERS and not key.startswith(PROTOCOL_PREFIXES)
        for value in headers.getall(key)
    )
    client = request.client_address or ""
    peer = f"ipv6:{client}" if client.count(":") > 1 else f"ipv4:{client}"
    timeout = request.timeout_ms
    return WebContext(metadata, peer, None if timeout is None else timeout / 1000)


def _request(handler: Handler, payload: Any) -> Any:
    """The request as the handler takes it: bytes decoded by its own
    deserializer (which yields :class:`Undecodable` where they fail)."""
    if isinstance(payload, bytes):
        assert handler.request_deserializer is not None
        return handler.request_deserializer(payload)
    return payload


def _response(response: Any, info: MethodInfo[Any, Any]) -> Any:
    return Encoded(response, info.output) if isinstance(response, bytes) else response


class Origins:
    """Answers a browser's call from another origin only if the operator
    listed it (``--web-origin``), with the CORS headers that let its page
    read the answer; refuses, with 403 and no such headers, one from an
    origin not listed, before the call is served. A call from the page's
    own origin, or from no browser, passes as it is."""

    def __init__(self, app: Asgi, allowed: Iterable[str]) -> None:
        self._app = app
        self.allowed = frozenset(origin.rstrip("/") for origin in allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {
            key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]
        }
        origin = headers.get("origin")
        if origin is None or _same_origin(origin, headers.get("host", "")):
            await self._app(scope, receive, send)
            return
        if origin not in self.allowed:
            await _respond(send, 403, [], f"origin {origin} is not allowed here\n".encode())
            return
        cors = [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"vary", b"Origin"),
        ]
        if scope["method"] == "OPTIONS":
            await _respond(
                send,
                204,
                [
                    *cors,
                    (b"access-control-allow-methods", b"POST, GET"),
                    (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
                    (b"access-control-max-age", b"7200"),
                ],
                b"",
            )
            return
        cors.append((b"access-control-expose-headers", EXPOSED_HEADERS.encode()))

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *cors]}
            await send(message)

        await self._app(scope, receive, sending)


def _same_origin(origin: str, host: str) -> bool:
    return origin.partition("://")[2] == host


async def _respond(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Site:
    """The web table's page at ``/`` and its files, for ``GET`` and
    ``HEAD``; any other request is a call, for ``app``."""

    def __init__(self, app: Asgi) -> None:
        self._app = app
        folder = resources.files("feltline.api") / "page"
        self._files = {
            f"/{each.name}": (each.read_bytes(), PAGE_TYPES[Path(each.name).suffix])
            for each in folder.iterdir()
            if Path(each.name).suffix in PAGE_TYPES
        }
        self._files["/"] = self._files["/index.html"]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self._app(scope, receive, send)
            return
        found = self._files.get(scope["path"])
        if found is None:
            await _respond(send, 404, [], b"not found\n")
            return
        body, kind = found
        headers = [(b"content-type", kind), *PAGE_HEADERS]
        await _respond(send, 200, headers, body if scope["method"] == "GET" else b"")


class _TlsConfig(Config):
    """Hypercorn's configuration with the server's TLS (certificates held
    in memory, as gRPC's are), client certificates required where gRPC
    requires them."""

    def __init__(self, chain: bytes, key: bytes, client_ca: bytes | None) -> None:
        super().__init__()
        self._chain = chain
        self._key = key
        self._client_ca = client_ca

    @property
    def ssl_enabled(self) -> bool:
        return True

    def create_ssl_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.set_alpn_protocols(self.alpn_protocols)
        # ssl loads a certificate chain and key from files only: these are
        # private to this process and gone once read.
        with tempfile.TemporaryDirectory() as folder:
            chain, key = Path(folder, "chain.pem"), Path(folder, "key.pem")
            chain.write_bytes(self._chain)
            key.touch(mode=0o600)
            key.write_bytes(self._key)
            context.load_cert_chain(chain, key)
        if self._client_ca is not None:
            context.load_verify_locations(cadata=self._client_ca.decode())
            context.verify_mode = ssl.CERT_REQUIRED
        return context


def listen(address: str) -> socket.socket:
    """A socket bound to ``address`` (``host:port``) for the web port;
    :class:`OSError` if it cannot be."""
    host, _, port = address.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    family, kind, proto, _, where = socket.getaddrinfo(
        host or None, int(port), type=socket.SOCK_STREAM
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(where)
        sock.listen()  # connections wait from now on, until hypercorn takes them
    except OSError:
        sock.close()
        raise
    return sock


async def run(
    app: Asgi,
    sock: socket.socket,
    stopping: asyncio.Event,
    tls: tuple[bytes, bytes, bytes | None] | None,
) -> None:
    """Serve ``app`` on ``sock`` (taken over) until ``stopping`` is set."""
    config = Config() if tls is None else _TlsConfig(*tls)
    config.bind = [f"fd://{sock.detach()}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("feltline.web")
    config.graceful_timeout = 1.0
    await serve(cast(Any, app), config, shutdown_trigger=stopping.wait, mode="asgi")
