"""The gRPC server every Feltline service runs in.

:func:`build_server` makes a server with the interceptors in their order
(authentication, then error mapping, then request validation, so an
unauthenticated caller learns nothing about its request), standard health
checking and server reflection, and the servicers it is given. Health
reports SERVING for the server (``""``) and for each service given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import grpc
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from google.protobuf.descriptor import ServiceDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from feltline.api.auth import AuthInterceptor, Clock, utc_now
from feltline.api.errors import ErrorInterceptor
from feltline.api.validation import ValidationInterceptor

S = TypeVar("S")


@dataclass(frozen=True)
class Service:
    """A servicer to serve: its service's full name, for health checking and
    reflection, and how to add it to a server."""

    name: str
    add: Callable[[grpc.Server], None]


def service(
    descriptor: ServiceDescriptor, add_to_server: Callable[[S, grpc.Server], None], servicer: S
) -> Service:
    """``service(tables_pb2.DESCRIPTOR.services_by_name["TableService"],
    tables_pb2_grpc.add_TableServiceServicer_to_server, TableServicer(room))``"""
    return Service(descriptor.full_name, lambda server: add_to_server(servicer, server))


def build_server(
    services: Iterable[Service],
    *,
    key: Ed25519PublicKey,
    clock: Clock = utc_now,
    max_workers: int = 32,
) -> grpc.Server:
    """A server for ``services``, not yet bound to a port nor started.
    ``key`` is the server's public key, which checks bearer tokens. Each
    call, and each open watch stream, holds one of ``max_workers`` threads."""
    server = grpc.server(
        ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="feltline-rpc"),
        interceptors=[
            AuthInterceptor(key, clock=clock),
            ErrorInterceptor(),
            ValidationInterceptor(),
        ],
    )
    checker = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    names = [health.SERVICE_NAME, reflection.SERVICE_NAME]
    for each in services:
        each.add(server)
        checker.set(each.name, health_pb2.HealthCheckResponse.SERVING)
        names.append(each.name)
    checker.set(health.OVERALL_HEALTH, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        [*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    return server
