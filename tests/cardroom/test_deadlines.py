"""The action clock's deadlines against the plainest model of them (a
dict, searched whole): the same tables come due, earliest first, however
often deadlines move, and so across the heap's rebuilds."""

from __future__ import annotations

from uuid import UUID

from hypothesis import given, settings
from hypothesis import strategies as st

from feltline.cardroom.deadlines import SLACK, Deadlines

KEYS = [UUID(int=n) for n in range(12)]

Step = tuple[str, int, int | None]
steps = st.lists(
    st.one_of(
        st.tuples(st.just("set"), st.integers(0, 11), st.none() | st.integers(0, 400)),
        st.tuples(st.just("pop"), st.integers(0, 400), st.none()),
    ),
    max_size=400,
)


def due_in(model: dict[UUID, int], now: int) -> list[UUID]:
    return [k for d, k in sorted((d, k) for k, d in model.items() if d <= now)]


@settings(max_examples=150, deadline=None)
@given(steps)
def test_the_tables_due_are_the_model_s(script: list[Step]) -> None:
    deadlines, model = Deadlines(), dict[UUID, int]()
    for what, n, due in script:
        if what == "set":
            deadlines.set(KEYS[n], due)
            if due is None:
                model.pop(KEYS[n], None)
            else:
                model[KEYS[n]] = due
        else:
            expected = due_in(model, n)
            assert deadlines.pop_due(n) == expected
            for key in expected:
                del model[key]
        assert len(deadlines) == len(model)
        assert all(deadlines.get(k) == model.get(k) for k in KEYS)


def test_after_many_moves_the_heap_is_rebuilt_and_still_finds_the_earliest() -> None:
    """One table's deadline moved far more often than the slack allows,
    later each time, among tables due in the reverse order of their
    setting: after the rebuilds every table comes due at its own time."""
    deadlines = Deadlines()
    tables = [UUID(int=n) for n in range(1, 9)]
    for n, table in enumerate(tables):
        deadlines.set(table, 1000 - n)
    moving = UUID(int=99)
    sizes = []
    for due in range(10 * SLACK):
        deadlines.set(moving, 2000 + due)
        sizes.append(len(deadlines._heap))
    assert max(sizes) == 2 * len(deadlines) + SLACK  # stale entries kept up to the slack, no more
    assert deadlines.pop_due(993) == [tables[-1]]
    assert deadlines.pop_due(999) == list(reversed(tables[1:-1]))
    assert deadlines.pop_due(1999) == [tables[0]]
    assert deadlines.pop_due(2000 + 10 * SLACK) == [moving]
    assert len(deadlines) == 0


def test_a_deadline_set_again_unchanged_adds_nothing_to_the_heap() -> None:
    """The action clock sets each table's deadline after every action,
    most often to what it was: that must not grow the heap."""
    deadlines = Deadlines()
    table = UUID(int=1)
    for _ in range(3 * SLACK):
        deadlines.set(table, 1000)
    assert len(deadlines._heap) == 1
    assert deadlines.pop_due(1000) == [table]
