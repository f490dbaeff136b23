"""The chain's canonical form (``docs/audit.md``) written by orjson, three
times faster than the standard library, wherever its bytes are sure to be
the same: orjson sorts keys by code point and writes integers, strings,
booleans and null as ``json`` does, but leaves non-ASCII characters and
DEL unescaped, and refuses integers beyond 64 bits. Output with any of
them, or with any escape at all, is made again by
:func:`feltline.audit.codec.canonical`. Floats are the one thing orjson
writes otherwise (``1e-7`` for ``1e-07``, ``null`` for ``NaN``) that this
cannot see: no event holds one, so give it only data that decoded to an
event."""

from __future__ import annotations

import orjson

from feltline.audit.codec import JSON
from feltline.audit.codec import canonical as standard


def canonical(value: JSON) -> bytes:
    """``codec.canonical(value)`` for a ``value`` without floats."""
    try:
        fast = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return standard(value)
    if fast.isascii() and b"\\" not in fast and b"\x7f" not in fast:
        return fast
    return standard(value)
