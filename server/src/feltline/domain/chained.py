"""Every stream, hand, table or account, is hash-chained and signed.

Each stored record carries the chain link after it (:mod:`feltline.audit.chain`),
and every commit signs the last record it appends to each stream with the
server's Ed25519 key. A stream loads only if every link holds, every
signature verifies and its last record is signed: the last signature covers
every link before it, so nobody without the key can change, add, reorder or
drop a record (the seed and deck of a hand in progress included) and have
it load. What that leaves is cutting a stream back to the end of an earlier
commit, which a verifier finds by comparing the stream with those that name
it (the table's record of the hand, the account's of the table).

Which keys are trusted is the store's business (:mod:`feltline.store.keys`):
a stream names the key that signed its last record, and the store refuses
one signed by any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast
from uuid import UUID

from feltline.audit import chain, keys
from feltline.audit.codec import JSON
from feltline.engine.hand.fast import replace


class TamperedError(Exception):
    """A stored stream does not match its chain or its signatures."""


@dataclass(frozen=True)
class Signed:
    """What every chained record adds: its ``signature`` of its link by the
    key ``signed_by`` (64 hex digits), when it was the last of a commit."""

    signature: str = field(default="", kw_only=True)
    signed_by: str = field(default="", kw_only=True)

    @staticmethod
    def unsigned(state: dict[str, Any]) -> None:
        """The upcast for records stored before commits were signed."""
        state.setdefault("signature", "")
        state.setdefault("signed_by", "")

    @staticmethod
    def unchained(state: dict[str, Any]) -> None:
        """The upcast for records stored before their stream was chained:
        with no link, such a stream no longer loads."""
        state["link"] = ""
        Signed.unsigned(state)


R = TypeVar("R")


def follow(
    previous: bytes,
    record: Signed,
    link: str,
    *,
    kind: str,
    stream: UUID,
    position: int,
    name: str,
    version: int,
    data: Mapping[str, JSON],
    at: int | None = None,
) -> bytes:
    """The link after ``previous`` for a stored record (recorded ``at``, if
    its time is chained), which must be the ``link`` it stores and, if the
    record is signed, signed by its key."""
    computed = chain.link(
        previous,
        kind=kind,
        stream=str(stream),
        position=position,
        name=name,
        version=version,
        data=data,
        at=at,
    )
    if computed.hex() != link:
        raise TamperedError(f"{kind} {stream}: event {position} does not match its chain link")
    if record.signature and not keys.verify(record.signed_by, computed, record.signature):
        raise TamperedError(f"{kind} {stream}: the signature of event {position} does not verify")
    return computed


def sign(records: Sequence[R], signer: keys.Signer) -> list[R]:
    """``records`` with the last of each stream's signed (a hand's seal,
    which is signed already, is not a :class:`Signed` record)."""
    last = {cast(Chained, r).originator_id: i for i, r in enumerate(records)}
    out = list(records)
    for i in last.values():
        record = out[i]
        if isinstance(record, Signed):
            digest = bytes.fromhex(cast(Chained, record).link)
            out[i] = cast(
                R, replace(record, signature=signer.sign(digest).hex(), signed_by=signer.public_hex)
            )
    return out


class Chained(Protocol):
    """A stored record of any stream."""

    @property
    def originator_id(self) -> UUID: ...

    @property
    def link(self) -> str: ...
