"""Requests are checked against the constraints the protos declare
(protovalidate), before anything else looks at them, so every language's
client and this server agree on what a well-formed request is.

A request that breaks any rule is refused ``INVALID_ARGUMENT``
(``INVALID_REQUEST``) with a ``BadRequest`` naming every field at fault.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import grpc
import protovalidate
from google.protobuf.message import Message

from feltline.api import intercept
from feltline.api.errors import ApiError
from feltline_protos.v1 import errors_pb2


def violations(request: Message) -> list[tuple[str, str]]:
    """Each broken rule as (field path, what the rule asks), e.g.
    ``("draw.discards[2]", "does not match regex pattern ...")``."""
    found = []
    for violation in protovalidate.collect_violations(request):
        proto = violation.proto
        elements = proto.field.elements if proto.field else []
        found.append((".".join(_element(e) for e in elements), proto.message))
    return found


def check(request: Message) -> None:
    """Refuse ``request`` if it breaks any rule of the contract."""
    broken = violations(request)
    if broken:
        fields = ", ".join(path or "the request" for path, _ in broken)
        raise ApiError(
            errors_pb2.ERROR_REASON_INVALID_REQUEST,
            f"the request breaks the contract's rules at {fields}; see the field violations",
            violations=broken,
        )


class ValidationInterceptor(intercept.Interceptor):
    """Checks every request message before its servicer sees it. Client
    streams (feltline.v1 has none) are not checked."""

    def enter(self, call: grpc.HandlerCallDetails, request: Any, context: Any) -> intercept.Scope:
        if isinstance(request, intercept.Undecodable):
            raise ApiError(
                errors_pb2.ERROR_REASON_INVALID_REQUEST,
                f"the request payload does not decode as {call.method}'s request message: "
                "send a serialized message of the type in the protos",
            )
        if isinstance(request, Message):
            check(request)
        return nullcontext()


def _element(element: protovalidate.FieldPathElementPb) -> str:
    if element.subscript is None:
        return element.field_name
    key = element.subscript.value
    return (
        f'{element.field_name}["{key}"]' if isinstance(key, str) else f"{element.field_name}[{key}]"
    )
