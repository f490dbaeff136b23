"""``feltline-replay convert``: a log's hands written as hand histories of
one format, streaming: one file for the set, or a file per hand. A hand
the format cannot hold is left out and named."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from feltline_replay.histories import Format, LoggedHand, logged_hands
from feltline_replay.log import Record
from feltline_replay.show import Viewer


@dataclass
class Converted:
    """The files written, how many hands they hold, and each hand left out
    with the reason."""

    files: list[Path] = field(default_factory=list)
    hands: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)


def convert(
    records: Iterable[Record],
    form: Format,
    output: Path,
    *,
    viewer: Viewer,
    each: bool = False,
) -> Converted:
    """Write the hands of ``records`` into the folder ``output``, as
    ``viewer`` may see them: the caller says whose view, every time."""
    output.mkdir(parents=True, exist_ok=True)
    done = Converted()
    hands = _writable(logged_hands(records, viewer), form, done)
    if not each:
        path = output / f"hands{form.set_suffix}"
        with path.open("w", encoding="utf-8") as file:
            file.writelines(form.many(hands))
        done.files.append(path)
        return done
    for hand in hands:
        path = output / f"{hand.id}{form.suffix}"
        path.write_text(form.one(hand), encoding="utf-8")
        done.files.append(path)
    return done


def _writable(hands: Iterable[LoggedHand], form: Format, done: Converted) -> Iterator[LoggedHand]:
    for hand in hands:
        reason = form.refuses(hand)
        if reason is not None:
            done.refused.append((hand.id, reason))
            continue
        done.hands += 1
        yield hand
