"""The serving process's collector policy: what survives a pass of the
older generations is frozen, so later passes skip it, and everything is
thawed once a while so that cycles through frozen objects are still
reclaimed."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from feltline.api.collector import short_pauses


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Iterator[Clock]:
    """A policy installed on a clock of the test's; the process's collector
    as it was afterwards."""
    callbacks = list(gc.callbacks)
    yield Clock()
    gc.callbacks[:] = callbacks
    gc.unfreeze()


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_what_lives_when_installed_is_frozen(clock: Clock) -> None:
    gc.unfreeze()
    kept = [[n] for n in range(1000)]
    short_pauses(thaw=60, clock=clock)
    assert gc.get_freeze_count() >= len(kept)
    assert not any(o is kept for o in gc.get_objects())


@pytest.mark.parametrize("generation", [1, 2], ids=["a middle pass", "a full pass"])
def test_what_survives_an_older_pass_is_frozen(clock: Clock, generation: int) -> None:
    """Frozen at the middle pass already, before a full pass scans it."""
    short_pauses(thaw=60, clock=clock)
    frozen = gc.get_freeze_count()
    kept = [[n] for n in range(1000)]
    gc.collect(generation)
    assert gc.get_freeze_count() >= frozen + len(kept)
    assert not any(o is kept for o in gc.get_objects(generation=2))


def test_after_the_thaw_nothing_is_frozen_until_a_full_pass_has_scanned_everything(
    clock: Clock,
) -> None:
    short_pauses(thaw=60, clock=clock)
    clock.now = 60
    gc.collect(1)  # the thaw is due
    assert gc.get_freeze_count() == 0
    gc.collect(1)  # a middle pass freezes nothing while the full pass is to come
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gc.get_freeze_count() > 0


def test_a_cycle_through_a_frozen_object_is_reclaimed_after_the_thaw(clock: Clock) -> None:
    short_pauses(thaw=60, clock=clock)
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    gc.collect()  # frozen with the survivors
    del a, b
    gc.collect()
    assert gone() is not None  # frozen: not scanned
    clock.now = 60
    gc.collect()  # the first full pass once the thaw time is up thaws everything
    assert gc.get_freeze_count() == 0
    gc.collect()  # scans everything: the cycle is garbage
    assert gone() is None
    assert gc.get_freeze_count() > 0  # and freezes the survivors again


def test_a_cycle_that_dies_before_a_full_pass_is_reclaimed_by_it(clock: Clock) -> None:
    """Freezing is for what survives a pass: garbage made since the last
    one is collected by the next, never frozen with the survivors."""
    short_pauses(thaw=60, clock=clock)
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None
