"""Page tokens for lists read from the views: the last row's key, tied to
the query that gave it, so a token sent with other filters (or to another
method) is refused rather than answered with a page of something else.

A token is unpadded base64url of JSON ``[query digest, *key]``. It is not a
secret and needs no signature: every call checks the caller's rights on
its own filters, and a key only says where in that answer to resume.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Sequence

from feltline.api.errors import ApiError
from feltline_protos.v1 import errors_pb2

DEFAULT_SIZE = 50
Key = tuple[int | str, ...]


def query(method: str, *filters: object) -> str:
    """A short digest naming ``method`` asked with ``filters``."""
    text = json.dumps([method, *(str(f) for f in filters)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def token(asked: str, key: Key) -> str:
    text = json.dumps([asked, *key], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def after(asked: str, page_token: str, shape: Sequence[type[int] | type[str]]) -> Key | None:
    """The key ``page_token`` resumes after (None for the first page); the
    key's fields have the types of ``shape``. A token this query did not
    give out is refused ``INVALID_ARGUMENT``."""
    if not page_token:
        return None
    try:
        decoded = json.loads(base64.urlsafe_b64decode(page_token + "=" * (-len(page_token) % 4)))
    except (binascii.Error, ValueError):
        decoded = None
    fits = (
        isinstance(decoded, list)
        and len(decoded) == len(shape) + 1
        and decoded[0] == asked
        and all(type(v) is t for v, t in zip(decoded[1:], shape, strict=True))
    )
    if not fits:
        raise not_ours()
    assert isinstance(decoded, list)
    return tuple(decoded[1:])


def not_ours() -> ApiError:
    return ApiError(
        errors_pb2.ERROR_REASON_INVALID_REQUEST,
        "page_token is not one this server gave out for this request: send the "
        "next_page_token of the previous page, with the same filters",
        violations=[("page_token", "not a page token for this request's filters")],
    )


def size(page_size: int) -> int:
    return page_size or DEFAULT_SIZE
