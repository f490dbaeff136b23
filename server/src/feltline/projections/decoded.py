"""A stored record's engine event, decoded once for every projection that
reads it: the follower hands the same record to each view in a step, and
decoding is the largest part of applying one."""

from __future__ import annotations

import threading

from feltline.audit.codec import EVENT_TYPES, TABLE_EVENT_TYPES, decode_event
from feltline.domain.hand import Recorded
from feltline.domain.table import TableRecord
from feltline.engine.hand.events import Event

KEPT = 4096  # records remembered, well over a page
_kept: dict[int, tuple[TableRecord | Recorded, Event]] = {}
_lock = threading.Lock()


def event_of(record: TableRecord | Recorded) -> Event:
    """The record's event, upcast to its current version. A record is
    remembered with its event, so its id cannot be reused while kept."""
    found = _kept.get(id(record))
    if found is not None and found[0] is record:
        return found[1]
    types = TABLE_EVENT_TYPES if isinstance(record, TableRecord) else EVENT_TYPES
    event = decode_event(record.type, record.version, record.data, types)
    with _lock:
        if len(_kept) >= KEPT:
            _kept.clear()
        _kept[id(record)] = (record, event)
    return event
