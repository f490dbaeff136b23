"""A process notices what other processes stored, and only that: its own
commits, however many and however grouped, never count as another's."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from feltline.store.elsewhere import Elsewhere
from tests.store.test_room import HOLDEM, seated

from .conftest import Store


def test_a_process_s_own_commits_are_not_news_another_s_are(store: Store) -> None:
    room, other = store.room(), store.room()
    here = room.streams.elsewhere
    seen = here.look()
    table = seated(room, 3)
    room.deal(table, "d1", at=0)
    assert here.look() == seen
    other.open_table("elsewhere", HOLDEM, at=0)
    assert here.look() == seen + 1
    assert here.look() == seen + 1  # counted once
    assert other.streams.elsewhere.look() == 1  # the first room's writes, to the second


def test_concurrent_commits_grouped_together_are_still_one_s_own(store: Store) -> None:
    room = store.room()
    here = room.streams.elsewhere
    seen = here.look()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: room.mint(f"m{n}", f"p{n}", 10, by="admin"), range(64)))
    assert room.streams.group_commits[0].transactions < 64  # some commits were grouped
    assert here.look() == seen


def test_not_knowing_what_was_stored_counts_as_news() -> None:
    highest = [10]
    seen = Elsewhere(lambda: (highest[0],))
    highest[0] = 12
    seen.stored([11, 12])
    assert seen.look() == 0
    highest[0] = 13
    seen.stored(None)
    assert seen.look() == 1
    highest[0] = 16  # 14 was ours but is not yet counted; 15 and 16 are not ours
    assert seen.look() == 2
    seen.stored([14])  # counted late: below the mark now, ignored
    assert seen.look() == 2


def test_a_look_during_a_commit_of_ours_is_not_news_but_more_than_it_is() -> None:
    highest = [10]
    seen = Elsewhere(lambda: (highest[0],))
    seen.storing(2)
    highest[0] = 12  # committed, its ids not yet handed back
    assert seen.look() == 0  # what is in flight may explain it
    seen.stored([11, 12], 2)
    assert seen.look() == 0
    seen.storing(1)
    highest[0] = 15  # one in flight cannot explain three
    assert seen.look() == 1
    seen.stored([13], 1)
    assert seen.look() == 1


def test_rows_in_flight_that_fail_leave_another_s_rows_to_be_seen() -> None:
    highest = [10]
    seen = Elsewhere(lambda: (highest[0],))
    seen.storing(2)
    highest[0] = 11  # another writer's row, while ours are in flight
    assert seen.look() == 0  # not yet told apart
    seen.failed(2)  # ours were never stored: the row was another's
    assert seen.look() == 1


def test_a_look_left_unsettled_says_so_until_a_later_one_settles_it() -> None:
    highest = [10]
    seen = Elsewhere(lambda: (highest[0],))
    seen.storing(2)
    highest[0] = 12  # 11 is ours, 12 another's; our second row not yet stored
    assert seen.look() == 0
    assert seen.unsettled  # a refusal must not stand on what this look saw
    highest[0] = 13
    seen.stored([11, 13], 2)
    assert seen.look() == 1  # 12 is news now
    assert not seen.unsettled


def test_a_room_refusing_while_a_look_is_unsettled_catches_the_table_up_first(
    store: Store,
) -> None:
    room, other = store.room(), store.room()
    table = seated(room, 3)
    room.deal(table, "d1", at=0)
    room.streams.elsewhere.look()
    other.stand_up(table, "away", 3, at=1)  # the other room changes the table
    here = room.streams.elsewhere
    here.storing(10_000)  # as if a commit of ours were in flight meanwhile
    try:
        assert room.held.behind(table)  # unsettled: caught up before refusing
    finally:
        here.failed(10_000)
    assert room.table(table).table.seat(3) is not None  # stood up only after the hand
    assert room.table(table).version == other.table(table).version
