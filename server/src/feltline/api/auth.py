"""Who is calling: every Feltline call carries ``authorization: Bearer
<token>``, checked before anything else runs.

:class:`AuthInterceptor` verifies the token and runs the whole call, a
stream to its last message, in a scope where :func:`current_caller` is the
token's caller and structlog's context names them, so a servicer neither
reads metadata nor passes the caller around.
A call without a valid token ends ``UNAUTHENTICATED`` before its servicer
runs. Health checking and reflection need no token (:mod:`intercept`).

What a role may do is the servicer's to say, with :func:`require_role`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from functools import lru_cache, partial
from typing import Any

import grpc
import structlog
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from feltline.api import intercept, tokens
from feltline.api.errors import ApiError, from_exception
from feltline.api.tokens import Caller, ExpiredToken, Role, TokenError
from feltline_protos.v1 import auth_pb2, errors_pb2

Clock = Callable[[], datetime]
# The one call an invite's token may make.
SIGN_IN = "/feltline.v1.SessionService/CreateSession"
_CALLER: ContextVar[Caller] = ContextVar("feltline_caller")


def utc_now() -> datetime:
    return datetime.now(UTC)


class AuthInterceptor(intercept.Interceptor):
    """Verifies each call's bearer token against the server's public key,
    expiry against ``clock``. A client sends the same token call after call,
    and checking its signature costs more than most calls' own work, so the
    callers of the latest ``remember`` tokens that verified are kept."""

    def __init__(
        self, key: Ed25519PublicKey, *, clock: Clock = utc_now, remember: int = 4096
    ) -> None:
        self._clock = clock
        self._signed = lru_cache(maxsize=remember)(partial(tokens.signed, key=key))

    def enter(self, call: grpc.HandlerCallDetails, request: Any, context: Any) -> intercept.Scope:
        try:
            caller = self.authenticate(call.invocation_metadata)
            if caller.invite and call.method != SIGN_IN:
                raise ApiError(
                    errors_pb2.ERROR_REASON_TOKEN_INVALID,
                    "an invite's token only signs in (SessionService.CreateSession): "
                    "open the link in the web table, which does",
                )
        except (ApiError, TokenError) as e:
            refusal = from_exception(e)
            who = _claims(e.caller) if isinstance(e, ExpiredToken) else {}
            raise intercept.refuse(
                context, refusal.status(), method=call.method, reason=refusal.reason_name, **who
            ) from None
        return _serving(caller, call.method)

    def authenticate(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> Caller:
        """The caller named by the one ``authorization`` entry of ``metadata``."""
        values = [value for key, value in metadata or () if key == "authorization"]
        if not values:
            raise ApiError(
                errors_pb2.ERROR_REASON_TOKEN_MISSING,
                "no bearer token: send the metadata entry 'authorization: Bearer <token>'",
            )
        scheme, _, token = str(values[0]).partition(" ")
        if len(values) > 1 or scheme.lower() != "bearer" or not token.strip():
            raise ApiError(
                errors_pb2.ERROR_REASON_TOKEN_INVALID,
                "send exactly one metadata entry 'authorization: Bearer <token>'",
            )
        return tokens.current(self._signed(token.strip()), now=self._clock())


def current_caller() -> Caller:
    """The caller of the call being served. Outside an authenticated call
    (a bug) it raises, and the call ends ``INTERNAL``."""
    try:
        return _CALLER.get()
    except LookupError:
        raise RuntimeError("no authenticated call is being served in this context") from None


def require_role(*roles: Role) -> Caller:
    """The caller, if its role is one of ``roles``; else ``PERMISSION_DENIED``
    (``ROLE_FORBIDDEN``)."""
    caller = current_caller()
    if caller.role not in roles:
        allowed = " or ".join(_name(role) for role in roles)
        raise ApiError(
            errors_pb2.ERROR_REASON_ROLE_FORBIDDEN,
            f"this call is for {allowed} tokens; this token's role is {_name(caller.role)}",
        )
    return caller


@contextmanager
def _serving(caller: Caller, method: str) -> Iterator[None]:
    """Name the caller to the servicer and to every log line of the call."""
    named = _CALLER.set(caller)
    bound = structlog.contextvars.bind_contextvars(method=method, **_claims(caller))
    try:
        yield
    finally:
        structlog.contextvars.reset_contextvars(**bound)
        _CALLER.reset(named)


def _claims(caller: Caller) -> dict[str, str]:
    """Who a token speaks for, as log lines name them: never the token."""
    return {"role": _name(caller.role), "player_id": caller.player_id, "token_id": caller.token_id}


def _name(role: Role) -> str:
    return auth_pb2.Role.Name(role).removeprefix("ROLE_").lower()
