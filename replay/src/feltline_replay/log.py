"""The portable log (``feltline-log`` version 1): JSON lines, a header and then
each stored record of the exported streams exactly as the store holds it.

A record line is the stored record's own fields (``type``, ``version``,
``data``, ``link``, ``signature``, ``signed_by`` and the rest, or a seal's
``algorithm``, ``link``, ``signature``, ``public_key``) with three more that
the store keeps beside it: ``kind`` (``table``, ``hand`` or ``seal``),
``id`` (the stream's UUID) and ``position``. Each table's records come
first, then each exported hand of that table in hand order, so a verifier
reads one stream at a time (``docs/replay.md``); a log of everything ends
with every account's records (``kind`` ``account``), and says so in its
header (``accounts``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

import orjson

FORMAT = "feltline-log"
VERSION = 1

Record = dict[str, Any]
"""One line of the log, as parsed JSON."""


class LogError(ValueError):
    """A file that is not a feltline log this version can read."""


def header(
    *,
    public_key: str | None,
    exported_at: str,
    source: str,
    selection: Mapping[str, Any],
    complete: bool,
    accounts: bool = False,
) -> Record:
    """The first line: what was exported, from where and when. ``complete``
    says that every finished hand of every exported table is in the log, so
    a missing one is a failure rather than a hand not selected; ``accounts``
    that every account and every table is, so the chips they moved between
    them are compared (a log written before accounts were exported has no
    such field)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "public_key": public_key,
        "exported_at": exported_at,
        "source": source,
        "selection": dict(selection),
        "complete": complete,
        "accounts": accounts,
    }


def line(record: Record) -> str:
    """One record as its line of the log, without the line end."""
    return json.dumps(record, separators=(",", ":"))


def write(file: IO[str], lines: Iterable[Record]) -> int:
    """Write each record as one line; the number of hands written."""
    hands = 0
    for record in lines:
        file.write(line(record) + "\n")
        hands += record.get("kind") == "seal"
    return hands


def read(file: IO[str]) -> tuple[Record, Iterator[Record]]:
    """The header and the records after it, read as they are needed."""
    return head(file.readline()), _records(file)


def head(first: str | bytes) -> Record:
    """The header, from the log's first line."""
    try:
        parsed = json.loads(first)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise LogError(f"the first line is not JSON: {e}") from None
    if not isinstance(parsed, dict) or parsed.get("format") != FORMAT:
        raise LogError(f"not a {FORMAT} file: its first line has no format {FORMAT!r}")
    if parsed.get("version") != VERSION:
        raise LogError(f"{FORMAT} version {parsed.get('version')!r}: this reads version {VERSION}")
    return parsed


def read_lines(file: IO[str]) -> tuple[Record, Iterator[str]]:
    """The header and the record lines after it, unparsed: for a verifier
    that parses each hand where it checks it."""
    head, _ = read(file)
    return head, (line for line in file if line.strip())


def parse(text: str | bytes, where: str = "a line") -> Record:
    """One record line, parsed by orjson (three times faster than ``json``;
    it refuses ``NaN`` and reads integers beyond 64 bits as floats, neither
    of which a record holds)."""
    try:
        record = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        raise LogError(f"{where} of the log is not JSON: {e}") from None
    if not isinstance(record, dict):
        raise LogError(f"{where} of the log is not a JSON object")
    return record


def _records(file: IO[str]) -> Iterator[Record]:
    for number, text in enumerate(file, 2):
        if text.strip():
            yield parse(text, f"line {number}")
