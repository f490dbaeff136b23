"""Events' data as older codec versions stored it: the inverse of each
upcaster in ``feltline.audit.codec``, so that a test can write a store or
a log the way an older server did and show that it still loads, replays
and verifies."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from feltline.audit.codec import JSON


def _flat_deal(data: dict[str, JSON]) -> dict[str, JSON]:
    """The deal's fields back beside the event's own."""
    return {**{k: v for k, v in data.items() if k != "deal"}, **data["deal"]}


def _without(name: str) -> Callable[[dict[str, JSON]], dict[str, JSON]]:
    return lambda data: {k: v for k, v in data.items() if k != name}


DOWNCASTERS: Mapping[tuple[str, int], Callable[[dict[str, JSON]], dict[str, JSON]]] = {
    ("HandStarted", 2): _without("algorithm"),
    ("HandStarted", 3): _flat_deal,
    ("HandDealt", 2): _flat_deal,
    ("TableOpened", 2): _without("name"),
}
"""(event name, version) -> a function from that version's data to the one before's."""


def as_stored(name: str, data: dict[str, JSON], version: int, under: int) -> dict[str, JSON]:
    """``data`` of a ``name`` event at ``version``, as version ``under`` held it."""
    for v in range(version, under, -1):
        data = DOWNCASTERS[name, v](data)
    return data
