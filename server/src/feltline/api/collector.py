"""The garbage collector's policy for a process that serves tables.

A server holds its tables, hands and feeds for as long as it runs:
hundreds of thousands of objects that are never cyclic garbage (frozen
records, freed by reference counting when replaced), which the collector's
full passes nevertheless scan, all of them, holding the GIL. At 200 tables
acting once each every two seconds those passes were the latency tail (p99
181-205 ms, and 23-31 ms with this policy; docs/performance.md, "The API
at a cardroom's pace").

So what lives when the server starts, and what survives each pass of the
middle generation from then on, is frozen (:func:`gc.freeze`): no later
pass scans it. Freezing only after full passes was not enough: a full pass
comes once the survivors of younger passes since the last one reach a
quarter of what that one kept, and then scans them all. At 400 tables that
was 2 or 3 passes every 30 s of 50 to 150 ms, each stalling every call in
flight: the open loop's p99.9 (docs/performance.md, "Where the tail went").

What that costs is a cycle that runs through a frozen object: it is never
reclaimed while frozen. Every ``thaw`` seconds everything is thawed, the
next full pass scans everything and reclaims such cycles, once, and what
it keeps is frozen again.

With metrics on, every pass is timed (:func:`time_pauses`), so the
pauses this policy keeps short are seen in production, not only in a bench.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

from feltline import metrics

THAW = 3600.0  # seconds between full passes over everything


def short_pauses(thaw: float = THAW, clock: Callable[[], float] = time.monotonic) -> None:
    """Freeze what lives now and what survives each older pass from here on."""
    thawed = clock()
    thawing = False  # from a thaw to the full pass that scans everything

    def after(phase: str, info: dict[str, Any]) -> None:
        nonlocal thawed, thawing
        generation = info["generation"]
        if phase != "stop" or generation == 0:
            return
        if thawing:
            if generation == 2:
                thawing = False
                gc.freeze()
        elif clock() - thawed >= thaw:
            gc.unfreeze()
            thawed, thawing = clock(), True
        else:
            gc.freeze()

    gc.freeze()
    gc.callbacks.append(after)


def time_pauses(clock: Callable[[], float] = time.perf_counter) -> None:
    """Observe each pass of the collector, from now on, into
    ``feltline_gc_pause_seconds`` by generation."""
    pauses = [metrics.GC_PAUSES.labels(str(generation)) for generation in range(3)]
    began = 0.0

    def timed(phase: str, info: dict[str, Any]) -> None:
        nonlocal began
        if phase == "start":
            began = clock()
        else:
            pauses[info["generation"]].observe(clock() - began)

    gc.callbacks.append(timed)
