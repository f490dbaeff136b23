"""``feltline-replay tournament``: each of its checks, shown to fire.

A multi-table tournament is played to its end once, in a SQLite store.
Every forgery of its stream here is made by someone holding the server's
key: the events are changed, every link is recomputed and every signature
made again, so the chain holds and only the check under test stands
between the forgery and "ok". A forgery of a decision the rules make
(a seat draw, a level, a move, a place, a prize) may throw later
decisions off too, as the state it leaves differs: the first failure is
the one under test, and none is about the chain.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from feltline.audit import chain
from feltline.audit.codec import TOURNAMENT_EVENT_TYPES, decode_event, encode_event
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.domain import ids
from feltline.engine.cards.deck import commitment
from feltline.engine.hand.events import Event
from feltline.engine.tournament import (
    HandBegun,
    Paid,
    Placed,
    PlayerMoved,
    SeatsDrawn,
    SeedRevealed,
)
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_replay import tournament as checked
from feltline_replay.cli import main as replay
from feltline_replay.export import Selection, export, hand_id
from feltline_replay.log import write
from feltline_replay.store import open_rows, record
from feltline_replay.tournament import check_tournament
from tests.store.players import cid
from tests.store.test_tournament import (
    BANK,
    assert_ranked,
    banked,
    create,
    play,
    play_spending_banks,
    players,
)

Record = dict[str, Any]


@dataclass
class Played:
    """A finished tournament in a store, and the streams as stored."""

    key: UUID
    path: Path
    signer: Signer
    stored: dict[UUID, list[Record]]

    def streams(self, **changed: list[Record]) -> Callable[[UUID], list[Record]]:
        """The stored streams, ``changed`` ones (by id's hex) instead."""

        def read(stream: UUID) -> list[Record]:
            if stream.hex in changed:
                return changed[stream.hex]
            if stream not in self.stored:
                rows = open_rows(str(self.path))
                try:
                    self.stored[stream] = [record(stream, *row) for row in rows.stream(stream)]
                finally:
                    rows.close()
            return self.stored[stream]

        return read

    def failures(self, **changed: list[Record]) -> list[str]:
        return check_tournament(self.key, self.streams(**changed), self.signer.public_hex).failures

    def forged(self, change: Callable[[list[Event]], None]) -> list[str]:
        """The failures of the tournament's stream with its events changed
        by ``change`` (in place), chained and signed again with the key."""
        records = [dict(r) for r in self.streams()(self.key)]
        events = [
            decode_event(r["type"], r["version"], r["data"], TOURNAMENT_EVENT_TYPES)
            for r in records
        ]
        change(events)
        link = chain.GENESIS
        for position, (r, event) in enumerate(zip(records, events, strict=True), 1):
            r["type"], r["version"], r["data"] = encode_event(event, TOURNAMENT_EVENT_TYPES)
            link = chain.link(
                link,
                kind="tournament",
                stream=str(self.key),
                position=position,
                name=r["type"],
                version=r["version"],
                data=r["data"],
            )
            r["link"] = link.hex()
            if r.get("signature"):
                r["signature"] = self.signer.sign(link).hex()
                r["signed_by"] = self.signer.public_hex
        return self.failures(**{self.key.hex: records})


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    path = tmp_path_factory.mktemp("tournament") / "feltline.db"
    signer = Signer.generate()
    room = Room(Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env))
    key = create(room, entrants=14, size=5)
    for name in players(room, 14):
        room.register_tournament(key, cid(), name, at=0)
    play(room, key, random.Random(3))
    room.close()
    return Played(key, path, signer, {})


def test_the_played_tournament_checks_out(played: Played) -> None:
    report = check_tournament(played.key, played.streams(), played.signer.public_hex)
    assert report.failures == []
    assert report.state.finished is not None
    assert report.hands > 10
    assert_ranked(report.state.placed.values(), 14)


def test_the_replay_ids_are_the_server_s() -> None:
    key = UUID(int=7)
    assert checked.table_id(key, 3) == ids.tournament_table_id(key, 3)
    assert checked.pool_id(key) == ids.pool_id(key)
    assert checked.account_id("p01") == ids.account_id("p01")


def test_the_command_checks_a_store_and_a_whole_export(
    played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = played.signer.public_hex
    assert replay(["tournament", str(played.key), "--store", str(played.path)]) == 0
    assert capsys.readouterr().out.strip().endswith(": ok")
    log = tmp_path / "all.log"
    rows = open_rows(str(played.path))
    with log.open("w", encoding="utf-8") as file:
        write(file, export(rows, Selection(), public_key=key))
    rows.close()
    assert replay(["tournament", str(played.key), str(log), "--public-key", key]) == 0
    assert "14 entrants" in capsys.readouterr().out
    assert replay(["verify", str(log), "--public-key", key]) == 0


def test_a_running_tournament_is_exported_without_its_seed(tmp_path: Path) -> None:
    """Its stream holds the seed of the seat draws still to come: that
    record is withheld, and the rest is in the log."""
    path = tmp_path / "feltline.db"
    room = Room(
        Streams(Signer.generate(), env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env)
    )
    key = create(room, entrants=6)
    for name in players(room, 3):
        room.register_tournament(key, cid(), name, at=0)
    seed = room.tournament(key).tournament.seed
    room.close()
    rows = open_rows(str(path))
    lines = list(export(rows, Selection()))
    rows.close()
    assert lines[0]["accounts"]  # a log of everything
    stream = [line for line in lines if line.get("id") == str(key)]
    assert [(line["type"], line.get("withheld", False)) for line in stream[:2]] == [
        ("TournamentCreated", False),
        ("SeedDrawn", True),
    ]
    assert "data" not in stream[1]
    assert seed.hex() not in repr(lines)


def test_another_key_fails_the_signatures(played: Played) -> None:
    failures = check_tournament(played.key, played.streams(), Signer.generate().public_hex).failures
    assert failures
    assert all("signed by" in f for f in failures)


def _first(events: list[Event], kind: type[Event]) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, kind))


def _last(events: list[Event], kind: type[Event]) -> int:
    return max(i for i, e in enumerate(events) if isinstance(e, kind))


def test_seat_draw_seats_the_seed_did_not_draw(played: Played) -> None:
    def change(events: list[Event]) -> None:
        at = _first(events, SeatsDrawn)
        drawn = events[at]
        assert isinstance(drawn, SeatsDrawn)
        a, b = drawn.chairs[0], drawn.chairs[1]
        swapped = (replace(a, table=b.table, seat=b.seat), replace(b, table=a.table, seat=a.seat))
        events[at] = replace(drawn, chairs=(*swapped, *drawn.chairs[2:]))

    failures = played.forged(change)
    assert failures[0].startswith("seat draw: request 15, event 3: the rules give SeatsDrawn")
    assert not any("chain" in f or "signature" in f for f in failures)


def test_seat_draw_a_seed_that_is_not_the_committed_one(played: Played) -> None:
    def change(events: list[Event]) -> None:
        at = _first(events, SeedRevealed)
        events[at] = SeedRevealed(bytes(32))

    assert played.forged(change) == [
        f"seat draw: the revealed seed hashes to {commitment(bytes(32))}, not to the "
        f"commitment {_committed(played)} made when the tournament was created"
    ]


def _committed(played: Played) -> str:
    first = played.streams()(played.key)[0]
    return str(first["data"]["commitment"])


def test_level_a_hand_begun_at_a_level_not_the_current_one(played: Played) -> None:
    def change(events: list[Event]) -> None:
        at = _first(events, HandBegun)
        begun = events[at]
        assert isinstance(begun, HandBegun)
        events[at] = replace(begun, level=begun.level + 1)

    failures = played.forged(change)
    assert len(failures) == 2
    assert failures[0].startswith("level: request 16, event 1: the rules give HandBegun")
    assert failures[1].startswith("level: hand 1 of table 1 was dealt at")


def test_move_a_player_moved_to_another_seat(played: Played) -> None:
    def change(events: list[Event]) -> None:
        at = _last(events, PlayerMoved)
        moved = events[at]
        assert isinstance(moved, PlayerMoved)
        events[at] = replace(moved, to_seat=moved.to_seat % 5 + 1)

    failures = played.forged(change)
    assert failures[0].startswith("move: request ")
    assert "PlayerMoved" in failures[0]
    assert not any("chain" in f or "signature" in f for f in failures)


@pytest.fixture(scope="module")
def spent(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A finished tournament with a time bank, which its players spent."""
    path = tmp_path_factory.mktemp("banked") / "feltline.db"
    signer = Signer.generate()
    room = Room(Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env))
    key = banked(room)
    play_spending_banks(room, key, random.Random(3))
    room.close()
    return Played(key, path, signer, {})


def test_move_a_moved_player_seated_with_a_bank_they_did_not_have(spent: Played) -> None:
    """The table a player is moved to seats them with the time bank they
    had left: the whole bank forged there is reported (and a later move
    from that table, which the forged bank then goes with). A seat stored
    before banks moved (``SatDown`` version 1, without one) had the whole
    bank, as the rules then said, and passes (a later move of theirs from
    there then carries that whole bank)."""
    assert spent.failures() == []
    for r in spent.streams()(spent.key):
        if r.get("type") != "PlayerMoved":
            continue
        moved = decode_event(r["type"], r["version"], r["data"], TOURNAMENT_EVENT_TYPES)
        assert isinstance(moved, PlayerMoved)
        table = checked.table_id(spent.key, moved.to_table)
        records = [dict(t) for t in spent.streams()(table)]
        at = next(
            i
            for i, t in enumerate(records)
            if t.get("type") == "SatDown"
            and t["command_id"] == f"tournament/{spent.key}/{r['command_id']}"
            and t["data"]["player"] == moved.player
        )
        left = records[at]["data"]["bank"]
        if left < BANK.seconds:
            break
    else:
        raise AssertionError("no spent bank was moved")
    sat = records[at]
    records[at] = {**sat, "data": {**sat["data"], "bank": BANK.seconds}}
    failures = spent.failures(**{table.hex: records})
    assert failures[0] == (
        f"move: {moved.player}'s move from table {moved.from_table} to table {moved.to_table} "
        f"(record {r['position']}) seated them with a time bank of 20 s, they had {left} s left"
    )
    assert all(f.startswith("move: ") for f in failures)  # and a later move of theirs, if any
    old = {k: v for k, v in sat["data"].items() if k != "bank"}
    records[at] = {**sat, "version": 1, "data": old}
    # This seat passes; a later move of theirs from that table then takes
    # the whole bank the old seat gave them, not what the store says.
    later = spent.failures(**{table.hex: records})
    assert not any(f"(record {r['position']})" in f for f in later)
    assert all(
        f.startswith(f"move: {moved.player}'s move from table {moved.to_table} ") for f in later
    )


def test_placing_a_player_placed_higher_than_they_finished(played: Played) -> None:
    def change(events: list[Event]) -> None:
        at = _first(events, Placed)
        placed = events[at]
        assert isinstance(placed, Placed)
        events[at] = replace(placed, place=placed.place - 1)

    failures = played.forged(change)
    assert len(failures) == 1
    assert failures[0].startswith("placing: request ")
    assert "Placed(place=14" in failures[0]


def test_payout_a_prize_shifted_to_another_place(played: Played) -> None:
    """The prizes still add up to the pool: the rules' split and the
    winners' accounts show it."""

    def change(events: list[Event]) -> None:
        paid = [i for i, e in enumerate(events) if isinstance(e, Paid)]
        for i, delta in zip(paid[:2], (1, -1), strict=True):
            prize = events[i]
            assert isinstance(prize, Paid)
            events[i] = replace(prize, amount=prize.amount + delta)

    failures = played.forged(change)
    assert failures[0].startswith("payout: request ")
    assert "Paid(" in failures[0]
    assert len(failures) == 3
    assert all(f.startswith("payout: ") for f in failures)
    assert "account received" in failures[1]


def test_payout_a_prize_the_winner_s_account_never_received(played: Played) -> None:
    state = check_tournament(played.key, played.streams()).state
    winner = state.finished.winner if state.finished else ""
    account = checked.account_id(winner)
    records = [r for r in played.streams()(account) if r.get("type") != "Received"]
    assert played.failures(**{account.hex: records}) == [
        f"payout: {winner}'s account received 0 from the prize pool, the tournament paid "
        f"them {state.paid[winner]}"
    ]


def test_hand_a_hand_that_ended_with_other_stacks(played: Played) -> None:
    hand = hand_id(checked.table_id(played.key, 1), 2)
    records = [dict(r) for r in played.streams()(hand)]
    ended = next(i for i, r in enumerate(records) if r.get("type") == "HandEnded")
    stacks = records[ended]["data"]["stacks"]
    (s1, c1), (s2, c2) = stacks[0], stacks[1]
    records[ended] = {
        **records[ended],
        "data": {**records[ended]["data"], "stacks": [[s1, c1 + 1], [s2, c2 - 1], *stacks[2:]]},
    }
    failures = played.failures(**{hand.hex: records})
    assert len(failures) == 1
    assert failures[0].startswith("hand: hand 2 of table 1 ended with stacks")


def test_an_unknown_tournament_is_refused(
    played: Played, capsys: pytest.CaptureFixture[str]
) -> None:
    assert replay(["tournament", str(UUID(int=1)), "--store", str(played.path)]) == 1
    assert "no tournament" in capsys.readouterr().err


def test_events_no_rules_could_reach_are_reported_not_raised(played: Played) -> None:
    """A move from a table the tournament never had: the rules' state
    cannot take it, and the check stops there with a failure; nor was it
    carried out at the tables."""

    def change(events: list[Event]) -> None:
        at = _first(events, PlayerMoved)
        moved = events[at]
        assert isinstance(moved, PlayerMoved)
        events[at] = replace(moved, from_table=99)

    failures = played.forged(change)
    assert failures[0].startswith("move: request ")
    assert failures[-2].startswith("decision: request ")
    assert "do not apply: KeyError(99)" in failures[-2]
    assert failures[-1].startswith("move: ")
    assert "'s move from table 99 to table " in failures[-1]
    assert failures[-1].endswith(") is not carried out at the tables")
