"""The hash chain over a stream's events (``feltline-chain-v1``).

Each link is ``SHA-256(previous link || canonical(record))``, where the first
previous link is 32 zero bytes and the record names the stream (``hand``,
``table``, ``account``, ``match`` or ``server``, the one stream of the
server's keys, with its id), the event's position in the stream,
its type, the version it was written under and its data as written.
Changing, dropping, reordering or moving any event to another stream changes
every link after it. ``docs/audit.md`` states this for outside verifiers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from feltline.audit.codec import JSON, canonical

CHAIN_ALGORITHM = "feltline-chain-v1"
GENESIS = bytes(32)


STREAMS = ("hand", "table", "account", "server", "match")
"""The kinds of stream, each the key that names its id in a chain record."""

# Each kind's record with its keys in sorted order, written out rather than
# built as an object to be sorted: the same bytes, once per stored event. The
# stream's key sorts among the others at its own place (``_AT``).
_KEYS = {kind: sorted(("data", kind, "position", "type", "version")) for kind in STREAMS}
_RECORDS = {
    kind: b"{" + b",".join(b'"%b":%%b' % k.encode() for k in keys) + b"}"
    for kind, keys in _KEYS.items()
}
_AT = {kind: keys.index(kind) for kind, keys in _KEYS.items()}


def link(
    previous: bytes,
    *,
    kind: str,
    stream: str,
    position: int,
    name: str,
    version: int,
    data: Mapping[str, JSON],
) -> bytes:
    """The link after ``previous`` for one event of the ``kind`` stream ``stream``."""
    values = [canonical(dict(data)), b"%d" % position, canonical(name), b"%d" % version]
    values.insert(_AT[kind], canonical(stream))
    record = _RECORDS[kind] % tuple(values)
    return hashlib.sha256(previous + record).digest()
