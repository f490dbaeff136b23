"""The garbage collector's policy for a process that serves tables.

A server holds its tables, hands and feeds for as long as it runs:
hundreds of thousands of objects that are never cyclic garbage (frozen
records, freed by reference counting when replaced), which the collector's
full passes nevertheless scan, all of them, holding the GIL. At 200 tables
acting once each every two seconds those passes were the latency tail (p99
181-205 ms, and 23-31 ms with this policy; docs/performance.md, "The API
at a cardroom's pace").

So after each full pass the survivors are frozen (:func:`gc.freeze`), and
later passes scan only what came since. What that costs is a cycle that
runs through a frozen object: it is never reclaimed while frozen. Every
``thaw`` seconds the next full pass finds nothing frozen, scans everything
and reclaims such cycles, once.

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
    """Freeze what lives now and what survives each full pass from here on."""
    thawed = clock()

    def after(phase: str, info: dict[str, Any]) -> None:
        nonlocal thawed
        if phase != "stop" or info["generation"] != 2:
            return
        if clock() - thawed >= thaw:
            gc.unfreeze()  # the next full pass scans everything
            thawed = clock()
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
