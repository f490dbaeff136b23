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


def _config_before_seat_entropy(data: dict[str, JSON]) -> dict[str, JSON]:
    unused = ("seat_entropy", "contribution_window_ms")
    return {**data, "config": {k: v for k, v in data["config"].items() if k not in unused}}


def _config_before_mixed_tables(data: dict[str, JSON]) -> dict[str, JSON]:
    return {**data, "config": {k: v for k, v in data["config"].items() if k != "rotation"}}


def _config_before_time_banks(data: dict[str, JSON]) -> dict[str, JSON]:
    return {**data, "config": {k: v for k, v in data["config"].items() if k != "time_bank"}}


DOWNCASTERS: Mapping[tuple[str, int], Callable[[dict[str, JSON]], dict[str, JSON]]] = {
    ("HandStarted", 2): _without("algorithm"),
    ("HandStarted", 3): _flat_deal,
    ("HandDealt", 2): _flat_deal,
    ("HandDealt", 3): _without("turn"),
    ("SatDown", 2): _without("bank"),
    ("TableOpened", 2): _without("name"),
    ("TableOpened", 3): _config_before_seat_entropy,
    ("TableOpened", 4): _config_before_mixed_tables,
    ("TableOpened", 5): _config_before_time_banks,
    ("MatchCreated", 2): _config_before_seat_entropy,
    ("MatchCreated", 3): _config_before_mixed_tables,
    ("MatchCreated", 4): _config_before_time_banks,
    ("TournamentCreated", 2): _config_before_mixed_tables,
    ("TournamentCreated", 3): _config_before_time_banks,
}
"""(event name, version) -> a function from that version's data to the one before's."""


def as_stored(name: str, data: dict[str, JSON], version: int, under: int) -> dict[str, JSON]:
    """``data`` of a ``name`` event at ``version``, as version ``under`` held it."""
    for v in range(version, under, -1):
        data = DOWNCASTERS[name, v](data)
    return data
