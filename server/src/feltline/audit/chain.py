"""The hash chain over a hand's events (``feltline-chain-v1``).

Each link is ``SHA-256(previous link || canonical(record))``, where the first
previous link is 32 zero bytes and the record names the hand, the event's
position in the hand's stream, its type, the version it was written under and
its data as written. Changing, dropping, reordering or moving any event to
another hand changes every link after it. ``docs/audit.md`` states this for
outside verifiers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from feltline.audit.codec import JSON, canonical

CHAIN_ALGORITHM = "feltline-chain-v1"
GENESIS = bytes(32)


def link(
    previous: bytes, *, hand: str, position: int, name: str, version: int, data: Mapping[str, JSON]
) -> bytes:
    """The link after ``previous`` for one event of ``hand``. The record's
    canonical form is written out in its keys' sorted order rather than
    built as an object to be sorted: the same bytes, once per stored event."""
    record = b'{"data":%b,"hand":%b,"position":%d,"type":%b,"version":%d}' % (
        canonical(dict(data)),
        canonical(hand),
        position,
        canonical(name),
        version,
    )
    return hashlib.sha256(previous + record).digest()
