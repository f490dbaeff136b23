"""Errors from the server, with the machine-readable details it sent.

The server puts a ``google.rpc.Status`` in the ``grpc-status-details-bin``
trailer. Reading it would usually take ``googleapis-common-protos``; a thin
client should not need it, and registering those files in the default
descriptor pool could clash with another copy in the same process. So the
few ``google.rpc`` messages read here are declared, wire-compatibly, in a
descriptor pool of this module's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

DETAILS_KEY = "grpc-status-details-bin"
_TYPE_PREFIX = "type.googleapis.com/"

_F = descriptor_pb2.FieldDescriptorProto


def _message_classes() -> dict[str, Any]:
    """Status, ErrorInfo, BadRequest and RetryInfo, by their google.rpc names.
    Details travel as Any (type_url 1, value 2); a map is a repeated entry."""
    file = descriptor_pb2.FileDescriptorProto(
        name="feltline_client/google_rpc_subset.proto", package="google.rpc", syntax="proto3"
    )

    def message(name: str, *fields: tuple[str, int, int, int, str]) -> None:
        proto = file.message_type.add(name=name)
        for field_name, number, kind, label, type_name in fields:
            added = proto.field.add(name=field_name, number=number, type=kind, label=label)
            if type_name:
                added.type_name = type_name

    one, many = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED
    message("Any", ("type_url", 1, _F.TYPE_STRING, one, ""), ("value", 2, _F.TYPE_BYTES, one, ""))
    message(
        "Status",
        ("code", 1, _F.TYPE_INT32, one, ""),
        ("message", 2, _F.TYPE_STRING, one, ""),
        ("details", 3, _F.TYPE_MESSAGE, many, ".google.rpc.Any"),
    )
    message("Entry", ("key", 1, _F.TYPE_STRING, one, ""), ("value", 2, _F.TYPE_STRING, one, ""))
    message(
        "ErrorInfo",
        ("reason", 1, _F.TYPE_STRING, one, ""),
        ("domain", 2, _F.TYPE_STRING, one, ""),
        ("metadata", 3, _F.TYPE_MESSAGE, many, ".google.rpc.Entry"),
    )
    message(
        "FieldViolation",
        ("field", 1, _F.TYPE_STRING, one, ""),
        ("description", 2, _F.TYPE_STRING, one, ""),
    )
    message(
        "BadRequest", ("field_violations", 1, _F.TYPE_MESSAGE, many, ".google.rpc.FieldViolation")
    )
    message(
        "Duration", ("seconds", 1, _F.TYPE_INT64, one, ""), ("nanos", 2, _F.TYPE_INT32, one, "")
    )
    message("RetryInfo", ("retry_delay", 1, _F.TYPE_MESSAGE, one, ".google.rpc.Duration"))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"google.rpc.{name}"))
        for name in ("Status", "ErrorInfo", "BadRequest", "RetryInfo")
    }


_RPC = _message_classes()


@dataclass(frozen=True)
class FieldViolation:
    """One field of a request that broke a constraint, and why."""

    field: str
    description: str


@dataclass(eq=False)
class FeltlineError(Exception):
    """A call the server refused. ``reason`` is an ``ErrorReason`` name
    without its prefix (``"STALE_STATE"``), empty if the server gave none;
    ``metadata`` its ErrorInfo metadata; ``retry_after`` seconds to wait
    before retrying, when the server said."""

    code: grpc.StatusCode
    message: str
    reason: str = ""
    domain: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    violations: tuple[FieldViolation, ...] = ()
    retry_after: float | None = None

    def __str__(self) -> str:
        reason = f" {self.reason}" if self.reason else ""
        return f"{self.code.name}{reason}: {self.message}"


def from_rpc_error(error: grpc.RpcError) -> FeltlineError:
    """The FeltlineError an RpcError from a call stands for."""
    call = cast(grpc.Call, error)
    code = call.code() or grpc.StatusCode.UNKNOWN
    text = call.details() or ""
    trailer = dict(call.trailing_metadata() or ())
    raw = trailer.get(DETAILS_KEY)
    if not isinstance(raw, bytes):
        return FeltlineError(code, text)
    status = _RPC["Status"].FromString(raw)
    found: dict[str, Any] = {}
    for detail in status.details:
        name = detail.type_url.removeprefix(_TYPE_PREFIX)
        short = name.removeprefix("google.rpc.")
        if name.startswith("google.rpc.") and short in _RPC:
            found[short] = _RPC[short].FromString(detail.value)
    info = found.get("ErrorInfo")
    bad = found.get("BadRequest")
    retry = found.get("RetryInfo")
    return FeltlineError(
        code=code,
        message=status.message or text,
        reason=info.reason if info else "",
        domain=info.domain if info else "",
        metadata={e.key: e.value for e in info.metadata} if info else {},
        violations=tuple(FieldViolation(v.field, v.description) for v in bad.field_violations)
        if bad
        else (),
        retry_after=retry.retry_delay.seconds + retry.retry_delay.nanos / 1e9
        if retry and retry.HasField("retry_delay")
        else None,
    )
