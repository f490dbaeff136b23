"""Scoring a duplicate match (docs/rules.md, "Duplicate poker").

Every table of a match plays deal k from the same deck, so a seat's result
is compared only with the same seat's results at the other tables: luck
cancels out, skill is what is left. Pure functions over whole chips.

A deal's results are given per table, in the match's table order, each a
mapping of seat to result (chips at the end less chips at the start). Every
table seats the same seats, which the functions check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from feltline.engine.errors import ConfigError

Results = Sequence[Mapping[int, int]]


def _seats(results: Results) -> tuple[int, ...]:
    """The seats every table reports, refused unless the same at each."""
    if len(results) < 2:
        raise ConfigError(f"a duplicate deal is scored over two or more tables, not {len(results)}")
    seats = tuple(sorted(results[0]))
    for t, table in enumerate(results):
        if tuple(sorted(table)) != seats:
            raise ConfigError(
                f"table {t} reports seats {sorted(table)}, not the match's {list(seats)}"
            )
    return seats


def scores(results: Results) -> list[dict[int, int]]:
    """Each table's duplicate score per seat for one deal: T times the result
    less the sum of the same seat's results over all T tables. Whole
    numbers, and they sum to zero over the deal (each seat's T scores do)."""
    seats = _seats(results)
    count = len(results)
    total = {s: sum(table[s] for table in results) for s in seats}
    return [{s: count * table[s] - total[s] for s in seats} for table in results]


def matchpoints(results: Results) -> list[dict[int, int]]:
    """Each table's matchpoints per seat for one deal: 2 for every other
    table whose same seat did worse, 1 for every one that did as well."""
    seats = _seats(results)
    points: list[dict[int, int]] = []
    for t, table in enumerate(results):
        others = [r for u, r in enumerate(results) if u != t]
        points.append(
            {
                s: sum(2 if table[s] > o[s] else 1 if table[s] == o[s] else 0 for o in others)
                for s in seats
            }
        )
    return points


def chip_results(start: int, stacks: Mapping[int, int]) -> dict[int, int]:
    """A table's results for a deal every seat began with ``start`` chips."""
    return {seat: stack - start for seat, stack in stacks.items()}
