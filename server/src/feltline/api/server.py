"""The gRPC server every Feltline service runs in.

:class:`Server` is a ``grpc.aio`` server on an event loop of its own
thread, behind a blocking interface. Response streams (watches) are async
generators on that loop, so a table's change reaches its watchers without a
thread each; unary calls run in a thread pool, as the Room's work blocks on
locks and the disk. Each thread hand-off costs far more than the work of
sending a message, which is why the streams live on the loop.

Admission comes first (:mod:`feltline.api.admission`): it refuses, on the
loop and at once, the unary calls past the number the process serves
promptly, and runs the others in the pool. The other interceptors follow
in their order (authentication, then forwarding a
call at a table another process owns, then error mapping, then request
validation, so an unauthenticated caller learns nothing about its
request), with standard health checking and server reflection; a metered
server counts every call first (:mod:`feltline.api.rpc_metrics`). Health
reports SERVING for the server (``""``) and for each service given.

Given a web port (:meth:`Server.add_web_port`), the same handlers, through
the same interceptor objects, are also served to browsers
(:mod:`feltline.api.web`) on the same event loop.
"""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import threading
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from google.protobuf.descriptor import ServiceDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from feltline.api.admission import Admission
from feltline.api.auth import AuthInterceptor, Clock, utc_now
from feltline.api.errors import ErrorInterceptor
from feltline.api.forward import Forwarding
from feltline.api.intercept import Handler
from feltline.api.rpc_metrics import RpcMetrics
from feltline.api.validation import ValidationInterceptor

S = TypeVar("S")
T = TypeVar("T")

# Calls gRPC holds for the server before it drops some (OPTIONS): ten
# times the watches of 250 tables of four, all opened at once.
PENDING = 10_000
# grpc shares a port by default (SO_REUSEPORT): a second server on a port
# in use would start, and the kernel would split clients between the two.
OPTIONS = (
    ("grpc.so_reuseport", 0),
    # Clients may ping every 5 s, with or without calls in flight: the SDK
    # pings every 10 s to find a frozen server (feltline_client.client).
    # gRPC's name for the interval is "min_ping_interval_without_data_ms"
    # (GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS); a name it does
    # not know is ignored, and its 5 minutes then made every client's third
    # ping on a quiet watch a GOAWAY "too_many_pings" (tests/api/test_keepalive.py).
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
    # And the server pings its clients, so that a watcher whose machine went
    # away does not hold its stream (and its place) for the kernel's hours.
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    # Calls that arrived and that grpc.aio has not yet taken (it takes them
    # one at a time on the event loop) wait in gRPC's queue. Past 1,000 of
    # them, by default, gRPC drops calls at random, more of them the longer
    # the queue, and each caller sees a bare CANCELLED that no log shows:
    # every watcher of a few hundred tables opening its watch at once (the
    # clients of a restarted server coming back) lost a few watches so. The
    # queue holds such a surge; admission refuses what is too much, with a
    # hint, once each call is taken.
    ("grpc.server.max_pending_requests", PENDING),
    ("grpc.server.max_pending_requests_hard_limit", 2 * PENDING),
)
# Unary calls in hand at once, running or waiting for a thread: past it a
# call is refused (docs/performance.md, "Overload", says how it was chosen).
ADMIT = 16


class ListenError(OSError):
    """The server cannot listen on the address it was given; the message
    says why, in one line for the operator."""


@dataclass(frozen=True)
class Service:
    """A servicer to serve: its service's full name, for health checking and
    reflection, and how to add it to a server."""

    name: str
    add: Callable[[grpc.aio.Server], None]


def service(
    descriptor: ServiceDescriptor, add_to_server: Callable[[S, Any], None], servicer: S
) -> Service:
    """``service(tables_pb2.DESCRIPTOR.services_by_name["TableService"],
    tables_pb2_grpc.add_TableServiceServicer_to_server, TableServicer(room))``"""
    return Service(descriptor.full_name, lambda server: add_to_server(servicer, server))


class Server:
    """A server for ``services``, not yet bound to a port nor started.
    ``key`` is the server's public key, which checks bearer tokens. Each
    unary call holds one of ``max_workers`` threads while it runs; past
    ``admit`` unary calls in hand, running or waiting for a thread, the
    next is refused ``OVERLOADED`` with a retry hint."""

    def __init__(
        self,
        services: Iterable[Service],
        *,
        key: Ed25519PublicKey,
        clock: Clock = utc_now,
        max_workers: int = 32,
        admit: int = ADMIT,
        tls: Tls | None = None,
        metered: bool = False,
    ) -> None:
        self._forwarding = Forwarding(tls)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="feltline-grpc", daemon=True
        )
        self._thread.start()
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="feltline-rpc")
        self.admission = Admission(self._pool, admit)
        self.interceptors: list[grpc.aio.ServerInterceptor] = [
            *([RpcMetrics()] if metered else []),
            self.admission,
            AuthInterceptor(key, clock=clock),
            self._forwarding,
            ErrorInterceptor(),
            ValidationInterceptor(),
        ]
        # Each method's handler as the gRPC server is given it, by path:
        # what the web port serves too.
        self.handlers = Handlers()
        self._web: list[tuple[socket.socket, Tls | None, tuple[str, ...]]] = []
        self._web_stopping = asyncio.Event()
        self._web_serving: list[Future[None]] = []
        self._server = self._run(self._build(list(services)))

    async def _build(self, services: list[Service]) -> grpc.aio.Server:
        server = grpc.aio.server(
            migration_thread_pool=self._pool, options=OPTIONS, interceptors=self.interceptors
        )
        checker = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(checker, server)
        names = [health.SERVICE_NAME, reflection.SERVICE_NAME]
        for each in services:
            each.add(server)
            each.add(cast(grpc.aio.Server, self.handlers))
            await checker.set(each.name, health_pb2.HealthCheckResponse.SERVING)
            names.append(each.name)
        await checker.set(health.OVERALL_HEALTH, health_pb2.HealthCheckResponse.SERVING)
        reflection.enable_server_reflection(names, server)
        return server

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def add_insecure_port(self, address: str) -> int:
        """Listen on ``address``; the port, or :class:`ListenError`."""

        async def add() -> int:
            return self._server.add_insecure_port(address)

        return self._listen(address, add)

    def add_secure_port(self, address: str, tls: Tls) -> int:
        """Listen on ``address`` over TLS; the port, or :class:`ListenError`."""
        credentials = tls.credentials()

        async def add() -> int:
            return self._server.add_secure_port(address, credentials)

        return self._listen(address, add)

    def add_web_port(
        self, address: str, *, tls: Tls | None = None, origins: Iterable[str] = ()
    ) -> int:
        """Serve the same services to browsers (Connect and gRPC-Web) on
        ``address``, over TLS if ``tls`` is given, answering cross-origin
        calls from ``origins`` only; the port, or :class:`ListenError`."""
        # Imported here: connectrpc and hypercorn take most of a second to
        # load, which a server without a web port need not spend.
        from feltline.api import web  # noqa: PLC0415

        try:
            sock = web.listen(address)
        except (OSError, ValueError):
            why = why_not(address) or "it cannot be bound"
            raise ListenError(f"cannot listen on {address}: {why}") from None
        self._web.append((sock, tls, tuple(origins)))
        return int(sock.getsockname()[1])

    def _listen(self, address: str, add: Callable[[], Coroutine[Any, Any, int]]) -> int:
        try:
            port = self._run(add())
        except RuntimeError:
            port = 0
        if not port:
            why = why_not(address) or "grpc could not bind it"
            raise ListenError(f"cannot listen on {address}: {why}")
        return port

    def start(self) -> None:
        self._run(self._server.start())
        if self._web:
            self._serve_web()

    def _serve_web(self) -> None:
        from feltline.api import web  # noqa: PLC0415 (loaded by add_web_port already)

        for sock, tls, origins in self._web:
            app = web.Origins(web.Site(web.WebApi(self.handlers, self.interceptors)), origins)
            keys = None if tls is None else (tls.chain, tls.key, tls.client_ca)
            self._web_serving.append(
                asyncio.run_coroutine_threadsafe(
                    web.run(app, sock, self._web_stopping, keys), self._loop
                )
            )

    def stop(self, grace: float | None = None) -> None:
        """Stop serving, letting calls finish for ``grace`` seconds; then the
        loop and the threads end."""
        if not self._thread.is_alive():
            return
        self._loop.call_soon_threadsafe(self._web_stopping.set)
        for serving in self._web_serving:
            serving.result()
        for sock, _, _ in self._web:
            sock.close()  # one never served
        self._run(self._server.stop(grace))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
        self._pool.shutdown(wait=False)
        self._forwarding.close()


class Handlers(dict[str, Handler]):
    """The handlers a service adds to a server, by method path: a
    stand-in for the server that keeps them, for the web port."""

    def add_generic_rpc_handlers(self, _: object) -> None:
        """The same handlers come by name too (below)."""

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Handler]) -> None:
        self.update({f"/{service}/{name}": handler for name, handler in handlers.items()})


@dataclass(frozen=True)
class Tls:
    """A server's TLS: its certificate chain and private key (PEM), and the
    certificate authorities whose client certificates it requires, if any.
    :meth:`from_files` checks them, so that a wrong file is said at start
    rather than in every client's failed handshake."""

    chain: bytes
    key: bytes
    client_ca: bytes | None = None

    @classmethod
    def from_files(cls, cert: Path, key: Path, client_ca: Path | None = None) -> Tls:
        """The files' contents, or :class:`TlsError` saying what is wrong."""
        chain = _certificates(cert, "--tls-cert")
        try:
            private = serialization.load_pem_private_key(_read(key, "--tls-key"), password=None)
        except (ValueError, TypeError) as e:
            raise TlsError(f"--tls-key {key}: not an unencrypted PEM private key ({e})") from None
        public = serialization.PublicFormat.SubjectPublicKeyInfo
        if chain[0].public_key().public_bytes(
            serialization.Encoding.PEM, public
        ) != private.public_key().public_bytes(serialization.Encoding.PEM, public):
            raise TlsError(f"--tls-key {key} is not the key of the certificate in {cert}")
        if client_ca is not None:
            _certificates(client_ca, "--tls-client-ca")
        return cls(
            chain=cert.read_bytes(),
            key=key.read_bytes(),
            client_ca=client_ca.read_bytes() if client_ca is not None else None,
        )

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials(
            [(self.key, self.chain)],
            root_certificates=self.client_ca,
            require_client_auth=self.client_ca is not None,
        )


class TlsError(ValueError):
    """A TLS file that cannot serve; the message names it and says why."""


def _read(path: Path, option: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise TlsError(f"{option} {path}: {e.strerror}") from None


def _certificates(path: Path, option: str) -> list[x509.Certificate]:
    data = _read(path, option)
    try:
        found = x509.load_pem_x509_certificates(data)
    except ValueError:
        found = []
    if not found:
        raise TlsError(f"{option} {path}: no PEM certificate in it")
    return found


def why_not(address: str) -> str | None:
    """Why ``address`` cannot be listened on, as the operating system says
    (grpc says only that it failed), or None if it can: binding it as grpc
    would, without listening, tells, and leaves nothing behind."""
    host, _, port = address.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    try:
        found = socket.getaddrinfo(host or None, int(port), type=socket.SOCK_STREAM)
    except (OSError, ValueError) as e:
        return f"not an address of this machine ({e})"
    for family, kind, proto, _, where in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(where)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    return "the port is in use (is another server running on it?)"
                return os.strerror(e.errno) if e.errno else str(e)
    return None
