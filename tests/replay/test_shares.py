"""Verifying in shares, each read where it is checked: a log cut by byte
ranges, a store by tables and hands, lines by count, of any size, reports
exactly what one share of everything reports, clean or tampered."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.export import Selection, heading, plan
from feltline_replay.store import open_rows
from feltline_replay.verify import (
    LogShare,
    Report,
    line_shares,
    log_shares,
    store_shares,
    verify,
    verify_shares,
)

from .conftest import Played

WHOLE = 1 << 40


def exported(played: Played, path: Path) -> int:
    """The store's log at ``path``; where its records begin."""
    assert main(["export", "--store", str(played.path), "--output", str(path)]) == 0
    with path.open("rb") as file:
        log.head(file.readline())
        return file.tell()


def tamper(path: Path) -> None:
    """One hand's amount changed and a blank line added, in the middle."""
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i in range(len(lines) // 2, len(lines)) if '"type":"Acted"' in lines[i])
    record = json.loads(lines[at])
    record["data"]["total"] += 1
    lines[at] = log.line(record) + "\n\n"
    path.write_text("".join(lines))


def begins_a_stream(path: Path, share: LogShare) -> bool:
    """The line before the share's first ends a stream: a seal, or another stream's."""
    with path.open("rb") as file:
        text = file.read(share.start)
    before = json.loads(text.rstrip(b"\n").rsplit(b"\n", 1)[-1])
    with path.open("rb") as file:
        file.seek(share.start)
        first = json.loads(file.readline())
    return bool(before.get("kind") == "seal" or before["id"] != first["id"])


@pytest.mark.parametrize("tampered", [False, True])
def test_a_log_in_shares_of_any_size_verifies_as_one(
    played: Played, tmp_path: Path, tampered: bool
) -> None:
    path = tmp_path / "all.log"
    start = exported(played, path)
    if tampered:
        tamper(path)
    key = played.signer.public_hex
    whole = verify_shares(log_shares(str(path), start, WHOLE), key)
    assert whole.ok is not tampered
    assert whole.hands >= 300
    for size in (1, 20_000, 1 << 20):
        shares = list(log_shares(str(path), start, size))
        assert len(shares) > 1
        assert shares[0].start == start
        assert shares[-1].end == path.stat().st_size
        assert all(a.end == b.start for a, b in pairwise(shares))
        assert all(begins_a_stream(path, s) for s in shares[1:])
        assert verify_shares(shares, key).as_json() == whole.as_json()
    assert verify_shares(log_shares(str(path), start), key, workers=2) == whole


def test_a_store_in_shares_of_any_size_verifies_as_one(played: Played) -> None:
    rows = open_rows(str(played.path))
    try:
        chosen = plan(rows, Selection())
        complete = bool(heading(rows, Selection(), chosen)["complete"])
    finally:
        rows.close()
    key = played.signer.public_hex

    def shares(size: int) -> Report:
        made = store_shares(str(played.path), chosen.tables, chosen.hands, size)
        return verify_shares(made, key, complete=complete)

    whole = shares(WHOLE)
    assert whole.ok
    assert whole.hands == chosen.count
    for size in (1, 7, 40):
        assert shares(size) == whole


def test_lines_in_shares_of_any_size_verify_as_one(played: Played, tmp_path: Path) -> None:
    path = tmp_path / "all.log"
    exported(played, path)
    tamper(path)
    with path.open() as file:
        _, lines = log.read_lines(file)
        every = list(lines)
    key = played.signer.public_hex
    whole = verify(every, key)
    assert not whole.ok
    for size in (1, 50):
        assert verify_shares(line_shares(every, size), key) == whole
    records = [log.parse(line) for line in every]
    assert verify_shares(line_shares(records, 3), key) == whole
