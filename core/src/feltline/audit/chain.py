"""The hash chain over a stream's events (``feltline-chain-v1``).

Each link is ``SHA-256(previous link || canonical(record))``, where the first
previous link is 32 zero bytes and the record names the stream (``hand``,
``table``, ``account``, ``match``, ``tournament``, ``server``, the one stream of the
server's keys, ``log``, the transparency log's, or ``invite``, a used
sign-in link's, with its id), the event's position in the stream,
its type, the version it was written under and its data as written, and
for a hand's records written since (``timed``), the time it was recorded
at. Changing, dropping, reordering or moving any event to another stream,
or to another time, changes every link after it. ``docs/audit.md`` states
this for outside verifiers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping

from feltline.audit.codec import JSON, canonical

CHAIN_ALGORITHM = "feltline-chain-v1"
GENESIS = bytes(32)


STREAMS = ("hand", "table", "account", "server", "match", "tournament", "log", "invite")
"""The kinds of stream, each the key that names its id in a chain record."""


def link(
    previous: bytes,
    *,
    kind: str,
    stream: str,
    position: int,
    name: str,
    version: int,
    data: Mapping[str, JSON],
    encode: Callable[[JSON], bytes] = canonical,
    at: int | None = None,
) -> bytes:
    """The link after ``previous`` for one event of the ``kind`` stream
    ``stream``, recorded ``at`` (whole seconds) if its record chains its
    time. ``encode`` writes the record's canonical form: another writer of
    the same bytes may be given, for speed."""
    if kind not in STREAMS:
        raise ValueError(f"no kind of stream {kind!r}")
    record: dict[str, JSON] = {
        "data": data if type(data) is dict else dict(data),
        kind: stream,
        "position": position,
        "type": name,
        "version": version,
    }
    if at is not None:
        record["at"] = at
    return hashlib.sha256(previous + encode(record)).digest()
