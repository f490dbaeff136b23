"""Structured logs: JSON lines in production, readable lines in a terminal,
and never a card.

:func:`configure` sets up structlog, and the standard library's logging
(grpc's, the key file's warnings) through the same processors, so every
line has one shape. JSON is chosen by ``FELTLINE_LOG_FORMAT=json`` or when
the output is not a terminal; ``FELTLINE_LOG_FORMAT=console`` forces the
readable form.

:func:`hide_cards` runs on every line: a field named for cards is blanked
whatever it holds, and any other text (the message, an exception's
traceback, an object's repr) is scrubbed of anything spelled like a card.
A log reader is not a player: even a card the table may show is hidden, so
no line can show one it may not.

:func:`log_action` is the one line per action a servicer writes; the auth
interceptor has already bound who the caller is to the call's context.
:func:`log_refusal` is the one line per refused call.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any, TextIO

import structlog
from structlog.typing import Processor

from feltline.api.secrecy import scrub

CARD_FIELDS = frozenset(
    {"card", "cards", "discards", "set_aside", "hole_cards", "board", "deck", "seed"}
)
HIDDEN = "[hidden]"
HANDLER_NAME = "feltline"

_actions = structlog.stdlib.get_logger("feltline.actions")
_refusals = structlog.stdlib.get_logger("feltline.api")


def hide_cards(
    logger: object, method_name: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """A structlog processor: card fields blanked, all other text scrubbed."""
    for key, value in event_dict.items():
        event_dict[key] = HIDDEN if key in CARD_FIELDS else _clean(value)
    return event_dict


def _clean(value: object) -> object:
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, Mapping):
        return {
            key: HIDDEN if key in CARD_FIELDS else _clean(inner) for key, inner in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_clean(inner) for inner in value]
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return scrub(repr(value))


def configure(
    *, stream: TextIO | None = None, json: bool | None = None, level: int | str = logging.INFO
) -> None:
    """Send every log line to ``stream`` (stdout by default), as JSON or
    readable text (by default as :mod:`this module <feltline.api.logging>`
    says). Calling it again replaces what an earlier call set up."""
    out = stream or sys.stdout
    if json is None:
        chosen = os.environ.get("FELTLINE_LOG_FORMAT", "").lower()
        json = chosen == "json" or (chosen != "console" and not out.isatty())
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,  # plain text, never locals
        hide_cards,
    ]
    renderer: Processor = (
        structlog.processors.JSONRenderer()
        if json
        else structlog.dev.ConsoleRenderer(colors=out.isatty())
    )
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(out)
    handler.set_name(HANDLER_NAME)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)


def log_action(
    name: str, /, *, table_id: str, hand_number: int = 0, seat: int | None = None, **fields: Any
) -> None:
    """One line for one action (``sit_down``, ``act``, ``close_table``...):
    where it happened, and whatever else the servicer adds (``action``,
    ``request_id``...)."""
    _actions.info(name, table_id=table_id, hand_number=hand_number, seat=seat, **fields)


def log_refusal(code: str, /, *, method: str, reason: str, message: str, **who: Any) -> None:
    """One line for one refused call: its status code, the reason and
    message the caller got, the method, and who called as far as is known
    (the caller the auth interceptor bound, or ``who``: the peer, an
    expired token's claims); of a token, only its id. A failed
    authentication is a warning (someone may be trying tokens), anything
    else the caller's mistake, at info."""
    level = logging.WARNING if code == "UNAUTHENTICATED" else logging.INFO
    _refusals.log(level, "refused", code=code, reason=reason, method=method, message=message, **who)
