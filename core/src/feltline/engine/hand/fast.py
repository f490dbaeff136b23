"""The hand's shortcuts past Python's slow paths, all in one place.

Each keeps the types and rules of the slow path it replaces; what each
buys, a call, is ``bench/fast.py``'s to measure (its figures, beside the
slow path in the same run, in docs/performance.md):

- Enum members as module names. Python 3.11 reads ``Phase.BETTING``
  through ``EnumType.__getattr__``, some 20 times slower than a module's
  own name, and the deciders compare the phase, the step and the action
  many times an event.
- :func:`replace`, ``dataclasses.replace`` for the state's records without
  their ``__init__``: one dict union set as the new record's ``__dict__``,
  7 to 12 times faster. So the records are frozen dataclasses without
  slots.
- :func:`by_class`, a dict in front of ``functools.singledispatch``: one
  lookup by the event's class instead of singledispatch's cache behind a
  weak reference, some 40 times faster, once an event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from feltline.engine.hand.events import Action, Forced
from feltline.engine.hand.script import Kind, Opening, Phase
from feltline.engine.hand.stakes import Structure

if TYPE_CHECKING:
    from dataclasses import replace as replace  # noqa: PLC0414 (exported)
else:

    def replace(obj, /, **changes):
        """A new record whose attributes are a copy of the old one's with
        ``changes`` over them. Type checkers see ``dataclasses.replace``,
        so every change still names a field with a value of its type."""
        new = _new(obj.__class__)
        _set(new, "__dict__", obj.__dict__ | changes)
        return new

    _new = object.__new__
    _set = object.__setattr__  # the records are frozen: their own __setattr__ raises


def by_class(generic: Any) -> dict[type, Callable[..., Any]]:
    """A ``singledispatch`` function's rules by the exact class each was
    registered for; a class missing from it is ``generic.dispatch``'s."""
    return {cls: rule for cls, rule in generic.registry.items() if cls is not object}


NOT_STARTED = Phase.NOT_STARTED
COMMITTING = Phase.COMMITTING
REVEALING = Phase.REVEALING
DEALING = Phase.DEALING
BETTING = Phase.BETTING
DRAWING = Phase.DRAWING
DECLARING = Phase.DECLARING
ENDED = Phase.ENDED

FORCED_STEP = Kind.FORCED
DEAL_STEP = Kind.DEAL
BOARD_STEP = Kind.BOARD
BET_STEP = Kind.BET
DRAW_STEP = Kind.DRAW
DECLARE_STEP = Kind.DECLARE
SHOWDOWN_STEP = Kind.SHOWDOWN

BLINDS = Opening.BLINDS
LOW_CARD = Opening.LOW_CARD
HIGH_CARD = Opening.HIGH_CARD
HIGH_SHOWING = Opening.HIGH_SHOWING
LOW_SHOWING = Opening.LOW_SHOWING
FIRST_BETTOR = Opening.FIRST_BETTOR

FOLD = Action.FOLD
CHECK = Action.CHECK
CALL = Action.CALL
BET = Action.BET
RAISE = Action.RAISE
COMPLETE = Action.COMPLETE
BRING_IN = Action.BRING_IN

ANTE = Forced.ANTE
SMALL_BLIND = Forced.SMALL_BLIND
BIG_BLIND = Forced.BIG_BLIND

FIXED_LIMIT = Structure.FIXED_LIMIT
POT_LIMIT = Structure.POT_LIMIT
