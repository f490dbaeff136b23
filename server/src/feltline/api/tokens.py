"""Bearer tokens: ``v1.<claims>.<signature>``, as docs/api.md lays them out.

``<claims>`` is a serialized ``TokenClaims`` and ``<signature>`` the Ed25519
signature of the ASCII text ``v1.<claims>``, both unpadded base64url. The
server's own key (:class:`feltline.audit.keys.Signer`) signs them, so an
operator has one key to guard, and verifying needs only its public half.

Expiry is checked against an instant the caller passes in: nothing here
reads a clock, so tests and the interceptor decide what "now" is.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypeAlias

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from google.protobuf.message import DecodeError

from feltline.audit.keys import Signer
from feltline_protos.v1 import auth_pb2, errors_pb2

VERSION = "v1"
# The same rule as the contract's player ids (accounts.proto).
PLAYER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")

Role: TypeAlias = auth_pb2.Role.ValueType
ROLES: dict[str, Role] = {
    name.removeprefix("ROLE_").lower(): value
    for name, value in auth_pb2.Role.items()
    if value != auth_pb2.ROLE_UNSPECIFIED
}
"""The roles by their short names (``player``, ``spectator``, ...)."""
DEFAULT_TTL = 3600  # seconds: an hour, whatever the role
# Seconds: nothing revokes a token before it expires, so none outlives a year.
LONGEST_TTL = 366 * 24 * 3600


class TokenError(Exception):
    """A token the server refuses; ``reason`` says why, machine-readably."""

    reason: errors_pb2.ErrorReason.ValueType = errors_pb2.ERROR_REASON_TOKEN_INVALID


class InvalidToken(TokenError):
    """Malformed, badly signed, or claiming something no token may."""


class ExpiredToken(TokenError):
    """Well signed but past its expiry: the holder should get a new one.
    Its ``caller`` is who the token spoke for, which the server may log."""

    reason = errors_pb2.ERROR_REASON_TOKEN_EXPIRED

    def __init__(self, message: str, caller: Caller) -> None:
        super().__init__(message)
        self.caller = caller


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a verified token speaks for."""

    role: Role
    player_id: str
    token_id: str
    expires: datetime
    invite: bool = False  # an invite's token: it only signs in (sessions.py)


def mint(
    signer: Signer,
    role: Role,
    *,
    now: datetime,
    ttl: timedelta,
    player_id: str = "",
    token_id: str | None = None,
    invite: bool = False,
) -> str:
    """A token for ``role`` (and for a player, ``player_id``), valid from
    ``now`` for ``ttl``; an ``invite``'s, good only to sign in with. Refuses
    claims :func:`verify` would refuse."""
    check_claims(role, player_id)
    if not timedelta(0) < ttl <= timedelta(seconds=LONGEST_TTL):
        raise ValueError(f"a token lives above 0 and at most a year, not {ttl}")
    claims = auth_pb2.TokenClaims(
        role=role, player_id=player_id, token_id=token_id or str(uuid.uuid4()), invite=invite
    )
    claims.issue_time.FromDatetime(now)
    claims.expire_time.FromDatetime(now + ttl)
    signed = f"{VERSION}.{_encode(claims.SerializeToString(deterministic=True))}"
    return f"{signed}.{_encode(signer.sign(signed.encode('ascii')))}"


def verify(token: str, key: Ed25519PublicKey, *, now: datetime) -> Caller:
    """The caller a token speaks for, if ``key`` signed it and it is current
    at ``now``; :class:`InvalidToken` or :class:`ExpiredToken` if not."""
    return current(signed(token, key), now=now)


def current(caller: Caller, *, now: datetime) -> Caller:
    """``caller``, if its token has not expired at ``now``."""
    if now >= caller.expires:
        raise ExpiredToken(
            f"the token expired at {caller.expires.isoformat()}; get a new one", caller
        )
    return caller


def signed(token: str, key: Ed25519PublicKey) -> Caller:
    """The caller a token speaks for, if ``key`` signed it, whatever its
    expiry: a pure function of the token, so a server may remember it."""
    parts = token.split(".")
    if len(parts) != 3 or parts[0] != VERSION:
        raise InvalidToken(f"not a Feltline token: expected {VERSION}.<claims>.<signature>")
    payload, signature = _decode(parts[1]), _decode(parts[2])
    try:
        key.verify(signature, f"{VERSION}.{parts[1]}".encode("ascii"))
    except InvalidSignature:
        raise InvalidToken("the token's signature does not verify") from None
    try:
        claims = auth_pb2.TokenClaims.FromString(payload)
    except DecodeError:
        raise InvalidToken("the token's claims do not decode") from None
    try:
        check_claims(claims.role, claims.player_id)
    except ValueError as e:
        raise InvalidToken(f"the token claims what no token may: {e}") from None
    if not claims.HasField("expire_time"):
        raise InvalidToken("the token has no expiry")
    expires = claims.expire_time.ToDatetime(tzinfo=UTC)
    return Caller(claims.role, claims.player_id, claims.token_id, expires, claims.invite)


def check_claims(role: Role, player_id: str) -> None:
    """Refuse a role no token may carry, or a player id that does not fit it."""
    if role not in ROLES.values():
        raise ValueError(f"no such role {role}")
    if role == auth_pb2.ROLE_PLAYER and not PLAYER_ID.fullmatch(player_id):
        raise ValueError(
            f"a player's token names the player: 1 to 64 of A-Z a-z 0-9 _ . -, not {player_id!r}"
        )
    if role != auth_pb2.ROLE_PLAYER and player_id:
        raise ValueError("only a player's token names a player")


def _encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _decode(text: str) -> bytes:
    """Unpadded base64url, strictly: one text per byte string, so a token
    cannot be respelled and still pass."""
    if not _BASE64URL.fullmatch(text):
        raise InvalidToken("the token is not base64url")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise InvalidToken("the token is not base64url") from None
    if _encode(data) != text:
        raise InvalidToken("the token is not canonical base64url")
    return data
