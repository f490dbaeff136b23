"""A table whose seats contribute to the deck (``feltline-deck-v2``): the
dealer deals into the contribution window, the seats commit and reveal
through the room, and the clock closes the window once it has run out,
in milliseconds."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.clock import Clock
from feltline.cardroom.room import Room
from feltline.engine.cards.deck import CONTRIBUTED_ALGORITHM, DECK_ALGORITHM, deck_seed
from feltline.engine.errors import IllegalContribution
from feltline.engine.hand.events import Entropy, HandStarted
from feltline.engine.hand.rules import Game
from feltline.engine.hand.script import Phase
from feltline.engine.table.house import TableConfig
from feltline_replay.cli import main
from feltline_replay.export import hand_id
from tests.tables import TABLES

from .conftest import Seconds, open_room

BYTES = {seat: hashlib.sha256(b"seat %d" % seat).digest() for seat in (1, 2)}


def digest(seat: int) -> str:
    return hashlib.sha256(BYTES[seat]).hexdigest()


SIGNER = Signer.generate()


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    opened = open_room(tmp_path / "window.db", SIGNER)
    yield opened
    opened.close()


def table(room: Room, clock: Seconds, entropy: Entropy, window_ms: int) -> UUID:
    config = TableConfig(
        TABLES[Game.HOLDEM], 6, seat_entropy=entropy, contribution_window_ms=window_ms
    )
    table_id = room.open_table(f"{entropy}-{window_ms}", config, at=clock.now)
    for seat in (1, 2):
        room.mint(f"mint-{seat}", f"p{seat}", 1000, by="admin")
        room.sit_down(table_id, f"sit-{seat}", seat, f"p{seat}", 500, at=clock.now)
    return table_id


def ticking(room: Room, clock: Seconds) -> Clock:
    return Clock(room, clock, logged=lambda name, /, **fields: None)


def started(room: Room, table_id: UUID, number: int) -> HandStarted:
    stream = room.hand(table_id, number)
    event = stream.commands[next(iter(stream.commands))][1][0]
    assert isinstance(event, HandStarted)
    return event


def test_the_dealer_deals_into_the_window_and_nothing_is_dealt_until_it_closes(
    room: Room,
) -> None:
    clock = Seconds()
    table_id = table(room, clock, Entropy.OPTIONAL, 60_000)
    table_clock = ticking(room, clock)
    table_clock.tick()  # deals
    hand = room.hand(table_id, 1).hand
    assert started(room, table_id, 1).algorithm == CONTRIBUTED_ALGORITHM
    assert hand.phase is Phase.COMMITTING
    assert hand.stub == ()
    table_clock.tick()  # the window opens on the clock: a minute
    assert table_clock.tick() == 0
    assert room.hand(table_id, 1).hand.phase is Phase.COMMITTING


def test_seats_commit_and_reveal_and_the_window_leaves_out_a_withheld_reveal(
    room: Room, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = Seconds()
    table_id = table(room, clock, Entropy.OPTIONAL, 1)
    table_clock = ticking(room, clock)
    table_clock.tick()
    room.commit(table_id, 1, "commit-1", 1, digest(1), at=clock.now)
    room.commit(table_id, 1, "commit-2", 2, digest(2), at=clock.now)
    room.reveal(table_id, 1, "reveal-1", 1, BYTES[1], at=clock.now)
    assert room.hand(table_id, 1).hand.phase is Phase.REVEALING  # seat 2 has not revealed
    table_clock.tick()  # the reveal window opens on the clock
    time.sleep(0.01)
    assert table_clock.tick() == 1  # and closes
    hand = room.hand(table_id, 1).hand
    assert hand.phase is Phase.BETTING
    assert hand.deck_seed == deck_seed(hand.seed, {1: BYTES[1]})
    room.close_table(table_id, "close", at=clock.now)  # the hand is cancelled and sealed
    store = str(tmp_path / "window.db")
    capsys.readouterr()
    assert main(["verify", "--store", store, "--public-key", SIGNER.public_hex, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["hands"] == 1
    assert report["withheld"] == [
        {"id": str(hand_id(table_id, 1)), "seats": [2]}
        | {
            "table": str(table_id),
            "number": 1,
        }
    ]


def test_a_bad_contribution_is_refused_and_stores_nothing(room: Room) -> None:
    clock = Seconds()
    table_id = table(room, clock, Entropy.OPTIONAL, 60_000)
    ticking(room, clock).tick()
    before = room.hand(table_id, 1).version
    with pytest.raises(IllegalContribution, match="64 lowercase hex digits"):
        room.commit(table_id, 1, "commit-1", 1, "ab" * 31, at=clock.now)
    room.commit(table_id, 1, "commit-1b", 1, digest(1), at=clock.now)
    room.commit(table_id, 1, "commit-2", 2, digest(2), at=clock.now)
    with pytest.raises(IllegalContribution, match="does not hash to its commitment"):
        room.reveal(table_id, 1, "reveal-1", 1, BYTES[2], at=clock.now)
    assert room.hand(table_id, 1).version == before + 3  # two commitments, the reveals opened


def test_required_a_seat_that_does_not_commit_cancels_the_hand_and_the_next_is_dealt(
    room: Room,
) -> None:
    clock = Seconds()
    table_id = table(room, clock, Entropy.REQUIRED, 1)
    table_clock = ticking(room, clock)
    table_clock.tick()
    room.commit(table_id, 1, "commit-1", 1, digest(1), at=clock.now)
    table_clock.tick()
    time.sleep(0.01)
    assert table_clock.tick() == 1
    ended = room.hand(table_id, 1)
    assert ended.hand.phase is Phase.ENDED
    stacks = {s.number: s.stack for s in room.table(table_id).table.seats}
    assert stacks == {1: 500, 2: 500}  # nothing was bet: every chip back
    assert room.table(table_id).table.hands == 2
    assert room.hand(table_id, 2).hand.phase is Phase.COMMITTING


def test_a_table_with_seat_entropy_off_deals_as_before(room: Room) -> None:
    clock = Seconds()
    table_id = table(room, clock, Entropy.OFF, 500)
    ticking(room, clock).tick()
    assert started(room, table_id, 1).algorithm == DECK_ALGORITHM
    assert room.hand(table_id, 1).hand.phase is Phase.BETTING


def test_the_clock_wakes_for_a_window_that_closes_before_its_next_tick(room: Room) -> None:
    clock = Seconds()
    table_id = table(room, clock, Entropy.OPTIONAL, 200)
    table_clock = ticking(room, clock)
    assert table_clock.pause(0.5) == 0.5  # no window open
    table_clock.tick()  # deals
    table_clock.tick()  # sees the window open: 200 ms
    assert 0.1 < table_clock.pause(0.5) <= 0.2
    assert table_clock.pause(0.05) == 0.05
    assert room.hand(table_id, 1).hand.phase is Phase.COMMITTING
