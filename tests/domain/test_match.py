"""The match aggregate without a database: its decisions, its chain, and
that its public record holds only the seeds' commitments."""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from uuid import uuid4

import pytest

from feltline.audit.codec import encode_event
from feltline.domain.chained import TamperedError
from feltline.domain.hand import CommandIdReused
from feltline.domain.match import (
    MATCH_EVENT_TYPES,
    DealPlayed,
    DealRevealed,
    MatchCreated,
    MatchRecord,
    MatchStream,
    SeatError,
    WaitingForTables,
)
from feltline.domain.match import Match as MatchState
from feltline.domain.match import project as project_match
from feltline.engine.cards.deck import commitment
from feltline.engine.errors import ConfigError
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from tests.tables import TABLES

CONFIG = TableConfig(replace(TABLES[Game.HOLDEM], fixed_seats=2), 2, min_buy_in=100, max_buy_in=100)
SEEDS = tuple(secrets.token_bytes(32) for _ in range(3))


def created(ahead: int = 0) -> tuple[list[MatchRecord], MatchStream]:
    tables = (uuid4(), uuid4(), uuid4())
    events = MatchState.create(
        "m", CONFIG, tables, deals=3, stack=100, ahead=ahead, seeds=SEEDS, by="admin", at=5
    )
    records, stream = MatchStream.new(uuid4()).record("c", "fp-c", events)
    return list(records), stream


def seated(stream: MatchStream) -> tuple[list[MatchRecord], MatchStream]:
    made: list[MatchRecord] = []
    for t in range(3):
        for seat in (1, 2):
            records, stream = stream.record(
                f"j{t}{seat}", "fp", stream.match.take(t, seat, f"p{t}{seat}")
            )
            made += records
    return made, stream


def test_the_public_record_commits_to_each_seed_and_holds_none() -> None:
    records, stream = created()
    first = records[0]
    assert first.type == "MatchCreated"
    text = json.dumps(first.data)
    assert all(seed.hex() not in text for seed in SEEDS)
    setup = stream.match.setup
    assert setup.commitments == tuple(commitment(s) for s in SEEDS)
    assert isinstance(setup, MatchCreated)


def test_deals_wait_for_seats_and_for_the_slowest_table_and_reveal_at_the_last() -> None:
    _, stream = created()
    with pytest.raises(WaitingForTables, match="6 more players"):
        stream.match.next_deal(0)
    _, stream = seated(stream)
    match = stream.match
    assert [match.next_deal(t) for t in range(3)] == [1, 1, 1]
    for t in (0, 1):
        events = match.end_deal(t, 1, {1: 150, 2: 50})
        assert events == [DealPlayed(1, t, ((1, 150), (2, 50)))]  # no seed yet
        _, stream = stream.record(f"e{t}", "fp", events)
        match = stream.match
    with pytest.raises(WaitingForTables, match="waits at deal 2"):
        match.next_deal(0)
    assert match.standings()[0].score == 0  # nothing scored before the reveal
    last = match.end_deal(2, 1, {1: 100, 2: 100})
    assert last[-1] == DealRevealed(1, SEEDS[0])
    _, stream = stream.record("e2", "fp", last)
    match = stream.match
    assert match.next_deal(0) == 2
    # Seat 1 won 50, 50 and 0: the sum is 100, so 3*50-100 = 50, 50, -100.
    by_place = {(s.table, s.seat): s.score for s in match.standings()}
    assert by_place == {(0, 1): 50, (1, 1): 50, (2, 1): -100, (0, 2): -50, (1, 2): -50, (2, 2): 100}
    with pytest.raises(WaitingForTables, match="not playing deal 1"):
        match.end_deal(0, 1, {1: 100, 2: 100})


def test_seats_are_taken_once_by_one_player_each() -> None:
    _, stream = created()
    _, stream = stream.record("j", "fp", stream.match.take(0, 1, "ann"))
    with pytest.raises(SeatError, match="taken by ann"):
        stream.match.take(0, 1, "bob")
    with pytest.raises(SeatError, match="already plays"):
        stream.match.take(1, 2, "ann")
    with pytest.raises(SeatError, match="tables 0 to 2"):
        stream.match.take(3, 1, "bob")
    with pytest.raises(CommandIdReused):
        stream.repeat("j", "fp-other")


def test_a_match_is_refused_unless_it_can_be_played() -> None:
    tables = (uuid4(), uuid4())
    for kwargs, refusal in [
        ({"deals": 0}, "1 to 500 deals"),
        ({"ahead": 3}, "0 to 2 deals ahead"),
        ({"stack": 0}, "at least 1 chip"),
        ({"seeds": SEEDS[:2]}, "one 32-byte seed per deal"),
    ]:
        args = {"deals": 3, "stack": 100, "ahead": 0, "seeds": SEEDS, **kwargs}
        with pytest.raises(ConfigError, match=refusal):
            MatchState.create("m", CONFIG, tables, by="a", at=0, **args)


def test_a_stored_match_loads_only_if_its_chain_holds() -> None:
    records, stream = created()
    more, stream = seated(stream)
    stored = [*records, *more]
    assert project_match(None, stored) == stream
    changed = replace(stored[2], data={**stored[2].data, "player": "mallory"})
    with pytest.raises(TamperedError, match="does not match its chain link"):
        project_match(None, [*stored[:2], changed, *stored[3:]])
    assert set(MATCH_EVENT_TYPES) == {
        "MatchCreated",
        "DecksDrawn",
        "SeatTaken",
        "DealPlayed",
        "DealRevealed",
    }
    assert encode_event(DealRevealed(1, SEEDS[0]), MATCH_EVENT_TYPES)[2]["seed"] == SEEDS[0].hex()
