"""``feltline-replay match``: a duplicate match checked from the store
alone (every table dealt the same deck from the committed seed, the scores
from the stored hands), a revealed deal shown side by side, nothing shown
of an unrevealed one, and a changed match record caught."""

from __future__ import annotations

import io
import random
import sqlite3
from contextlib import redirect_stdout
from pathlib import Path
from uuid import UUID

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.engine.hand.rules import Game
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_replay.cli import main
from feltline_replay.duplicate import check_match, side_by_side
from feltline_replay.store import SqliteRows
from tests.store.test_match import create, play, seat_everyone, step


def room_at(path: Path, signer: Signer) -> Room:
    return Room(Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env))


@pytest.fixture
def played(tmp_path: Path) -> tuple[Path, Signer, UUID]:
    """A stud match of two tables: two deals revealed, the third under way."""
    path, signer = tmp_path / "match.db", Signer.generate()
    room = room_at(path, signer)
    match = create(room, Game.STUD_HI_LO, deals=3)
    seat_everyone(room, match)
    rngs = [random.Random(21), random.Random(22)]
    play(room, match, rngs, until=2)
    for t, table in enumerate(room.match(match).match.tables):  # deal 3 under way at both
        if room.table(table).table.dealt is None:
            room.deal_match(match, t, at=0)
    step(room, match, 0, rngs[0])
    room.close()
    return path, signer, match


def test_the_store_shows_every_table_dealt_the_same_deck_and_the_scores(
    played: tuple[Path, Signer, UUID],
) -> None:
    path, signer, match = played
    rows = SqliteRows(path)
    report = check_match(rows, match, signer.public_hex)
    assert report.failures == []
    assert (report.deals, report.revealed, report.hands) == (3, 2, 4)
    assert sum(score for score, _ in report.totals.values()) == 0
    room = room_at(path, signer)
    standings = {
        (s.table, s.seat): (s.score, s.matchpoints) for s in room.match(match).match.standings()
    }
    assert report.totals == standings  # the server's standings follow from the stored hands
    room.close()
    shown = side_by_side(rows, match, 1)
    assert shown.splitlines()[0].split() == ["table", "0", "table", "1"]
    assert "seat 1 gets" in shown
    with pytest.raises(ValueError, match="deal 3 is not revealed"):
        side_by_side(rows, match, 3)
    rows.close()


def test_the_command_prints_the_deal_and_the_verdict(played: tuple[Path, Signer, UUID]) -> None:
    path, signer, match = played
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(
            [
                "match",
                str(match),
                "--store",
                str(path),
                "--deal",
                "2",
                "--public-key",
                signer.public_hex,
            ]
        )
    assert code == 0
    text = out.getvalue()
    assert "2 tables, 2 of 3 deals revealed, 4 hands, the same deck at every table: ok" in text


def test_a_changed_match_record_is_caught(played: tuple[Path, Signer, UUID]) -> None:
    path, signer, match = played
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT rowid, state FROM stored_events"
            " WHERE originator_id = ? AND topic LIKE '%MatchRecord' ORDER BY originator_version",
            (match.hex,),
        ).fetchall()
        played_row = next(r for r in rows if b'"DealPlayed"' in r[1])
        changed = played_row[1].replace(b'"stacks":[[1,', b'"stacks":[[1,1', 1)
        assert changed != played_row[1]
        db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (changed, played_row[0]))
    report = check_match(SqliteRows(path), match, signer.public_hex)
    assert any("does not fit the chain" in f for f in report.failures)
    assert any("did not end with the stacks the match recorded" in f for f in report.failures)
