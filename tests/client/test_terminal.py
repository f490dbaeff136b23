"""``feltline-play`` driven through stdin, against a bot across the table."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from feltline_client.bots import CallingStation, Player
from feltline_client.table import Move
from feltline_client.terminal import REMIND_AT, Terminal, describe, main, parse_move, render
from feltline_protos.v1 import common_pb2, events_pb2, tables_pb2, watch_pb2

from .conftest import Room


def test_typed_moves_parse() -> None:
    assert parse_move("raise 80") == Move("raise", to=80)
    assert parse_move("draw as kd") == Move("draw", discards=("As", "Kd"))
    assert parse_move("Declare HIGH") == Move("declare", declaration="high")
    assert parse_move("bring in") == Move("bring_in")


def test_the_pot_shown_counts_the_bets_in_front_of_the_seats() -> None:
    """Preflop with the blinds posted the pot is the blinds, not 0; later,
    what was collected plus this round's bets."""
    hand = tables_pb2.HandView(hand_number=1, street="preflop betting", button=1)
    hand.seats.add(seat=1, player_id="alice", stack=995, bet=5)
    hand.seats.add(seat=2, player_id="bob", stack=990, bet=10)
    assert render(hand, 1).splitlines()[0] == "-- hand 1, preflop betting -- pot 15"
    hand.street, hand.pot = "flop betting", 20
    hand.seats[0].bet, hand.seats[1].bet = 0, 10
    assert render(hand, 1).splitlines()[0] == "-- hand 1, flop betting -- pot 30"


def _opponent(room: Room, table: str, hands: int = 1) -> tuple[Player, threading.Thread]:
    player = Player(room.client("bob"), table, CallingStation(), seat=2, buy_in=400, hands=hands)
    thread = threading.Thread(target=player.play)
    thread.start()
    return player, thread


def test_a_hand_played_by_typing(room: Room) -> None:
    table = room.open_table()
    out = io.StringIO()
    typed = io.StringIO(
        "dance\n"  # not a move: explained, asked again
        "bet 20\n"
        "draw Zz\n"  # not a card: refused by the server, asked again
        "draw\n"
        "check\n"
        "declare high\n"
        # Declarations are simultaneous: if the bot's lands first, the one
        # above is STALE_STATE and the turn comes again. Else this is unread.
        "declare high\n"
    )
    argv = ["--target", room.target, "--token", room.players["alice"], "--table", table]
    argv += ["--seat", "1", "--buy-in", "400", "--hands", "1", *room.tls_args()]
    bob, thread = _opponent(room, table)
    assert main(argv, stdin=typed, stdout=out) == 0
    thread.join(10)
    room.close_table(table)
    text = out.getvalue()
    assert "you sit down at seat 1 with 400" in text
    assert "<- you" in text
    assert "[?? ?? ?? ?? ??]" in text  # the opponent's cards stay hidden
    assert "your turn: check | fold | bet 10..395" in text
    assert "? unknown move 'dance'" in text
    assert "refused:" in text
    assert "declare low | declare high | declare both" in text
    assert "seat 2 calls 20 (to 20)" in text
    assert "hand over; stacks:" in text
    assert text.rstrip().endswith("you stand up")
    assert bob.moves >= 3


def test_the_console_script_reads_the_environment(room: Room) -> None:
    """Run as people do: a process, the token from the environment, EOF to leave."""
    table = room.open_table()
    # A second hand for the script's end of input to arrive on its turn: bob
    # sits out of any hand after his last, so with one there would be no turn.
    bob, thread = _opponent(room, table, hands=2)
    env = {**os.environ, "FELTLINE_TARGET": room.target, "FELTLINE_TOKEN": room.players["alice"]}
    script = [sys.executable, "-m", "feltline_client.terminal", "--table", table]
    done = subprocess.run(
        [*script, "--seat", "1", "--buy-in", "400", *room.tls_args()],
        input="fold\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    bob.stop()
    thread.join(10)
    room.close_table(table)
    assert done.returncode == 0, done.stderr
    assert "seat 1 folds" in done.stdout
    assert "you stand up" in done.stdout


def test_a_table_found_by_name_and_a_wait_for_players_said(room: Room) -> None:
    table = room.open_table(common_pb2.GAME_HOLDEM)
    with room.client("admin") as admin:
        name = admin.get_table(table).display_name
    out = io.StringIO()
    argv = ["--target", room.target, "--token", room.players["alice"], "--table", name.upper()]
    argv += ["--seat", "1", "--buy-in", "400", "--hands", "1", *room.tls_args()]
    done: list[int] = []
    alice = threading.Thread(
        target=lambda: done.append(main(argv, stdin=io.StringIO("fold\n" * 5), stdout=out))
    )
    alice.start()
    deadline = time.monotonic() + 20
    while "waiting for other players" not in out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "waiting for other players: a hand needs two, you sit alone" in out.getvalue()
    bob, thread = _opponent(room, table)
    alice.join(30)
    bob.stop()
    thread.join(10)
    room.close_table(table)
    assert done == [0]
    assert "hand over; stacks:" in out.getvalue()


def test_a_name_no_open_table_has_is_one_line(
    room: Room, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--target", room.target, "--token", room.players["alice"], *room.tls_args()]
    assert main([*argv, "--table", "no such table"], stdout=io.StringIO()) == 1
    assert capsys.readouterr().err.splitlines() == [
        "feltline-play: no open table is named 'no such table'; give its id or name"
    ]


def _snapshot(status: int, hand: bool) -> watch_pb2.WatchTableResponse:
    table = tables_pb2.Table(
        viewer_seat=3,
        hands_dealt=7 if hand else 0,
        seats=[
            tables_pb2.Seat(seat=1, player_id="bob", status=common_pb2.SEAT_STATUS_PLAYING),
            tables_pb2.Seat(seat=2, player_id="carol", status=common_pb2.SEAT_STATUS_PLAYING),
            tables_pb2.Seat(seat=3, player_id="alice", status=status),  # type: ignore[arg-type]
        ],
    )
    if hand:
        table.current_hand.hand_number = 7
        table.current_hand.seats.add(seat=1)
        table.current_hand.seats.add(seat=2)
    return watch_pb2.WatchTableResponse(snapshot=watch_pb2.TableSnapshot(table=table))


@pytest.mark.parametrize(
    ("status", "hand", "said"),
    [
        (
            common_pb2.SEAT_STATUS_WAITING,
            True,
            "waiting for the big blind to reach your seat: you are dealt in there",
        ),
        (
            common_pb2.SEAT_STATUS_PLAYING,
            True,
            "waiting for the next hand: hand 7 is played without you",
        ),
        (common_pb2.SEAT_STATUS_PLAYING, False, ""),
        (common_pb2.SEAT_STATUS_WAITING, False, ""),  # the first hand deals everyone in
    ],
)
def test_a_seat_dealt_no_hand_says_what_it_waits_for(status: int, hand: bool, said: str) -> None:
    out = io.StringIO()
    terminal = Terminal(None, "t", io.StringIO(), out, None)  # type: ignore[arg-type]
    item = _snapshot(status, hand)
    terminal.tracker.feed(item)
    terminal.follow_seats(item)
    terminal.follow_seats(item)  # said once
    assert out.getvalue() == (f"{said}\n" if said else "")


class _ClosedWhileTyping(io.StringIO):
    """Input typed slowly: by the time ``quit`` is read, the table is closed."""

    def __init__(self, room: Room, table: str) -> None:
        super().__init__("quit\n")
        self.room, self.table = room, table

    def readline(self, size: int | None = -1) -> str:
        self.room.close_table(self.table)
        return super().readline(size)


def test_quit_at_a_table_closed_meanwhile_leaves_without_an_error(
    room: Room, capsys: pytest.CaptureFixture[str]
) -> None:
    table = room.open_table()
    _, thread = _opponent(room, table)
    out = io.StringIO()
    argv = ["--target", room.target, "--token", room.players["alice"], "--table", table]
    argv += ["--seat", "1", "--buy-in", "400", *room.tls_args()]
    assert main(argv, stdin=_ClosedWhileTyping(room, table), stdout=out) == 0
    thread.join(10)
    assert capsys.readouterr().err == ""
    assert "your turn:" in out.getvalue()
    # The table's stream is read while you type, so the close may be seen
    # before the quit is read: either way, a clean leaving.
    last = out.getvalue().splitlines()[-1]
    assert last.startswith(("you leave: ", "the table is closed: test over")), last


def _appears(out: io.StringIO, text: str, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while text not in out.getvalue():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


class _ClockRunsOut:
    """A client at a three-handed table where your clock runs out while you
    think and the hand goes on without you; nothing is sent."""

    def __init__(self, out: io.StringIO) -> None:
        self.out = out
        self.table = tables_pb2.Table(viewer_seat=1, hands_dealt=1)
        hand = self.table.current_hand
        hand.hand_number, hand.sequence, hand.street, hand.button = 1, 5, "preflop betting", 1
        for seat, name, bet in ((1, "alice", 0), (2, "bob", 5), (3, "carol", 10)):
            self.table.seats.add(seat=seat, player_id=name, stack=1000)
            hand.seats.add(seat=seat, player_id=name, stack=1000 - bet, bet=bet)
        hand.turn.seat = 1
        hand.turn.deadline.FromNanoseconds(int((time.time() + REMIND_AT + 1) * 1e9))
        hand.turn.options.actions.extend(
            [common_pb2.ACTION_KIND_FOLD, common_pb2.ACTION_KIND_CALL, common_pb2.ACTION_KIND_RAISE]
        )
        hand.turn.options.call_amount, hand.turn.options.min_to = 10, 20
        hand.turn.options.max_to = 1000
        self.read = threading.Event()

    def get_table(self, table_id: str) -> tables_pb2.Table:
        return self.table

    def watch(
        self, table_id: str, *, stop: threading.Event | None = None
    ) -> Iterator[watch_pb2.WatchTableResponse]:
        yield watch_pb2.WatchTableResponse(snapshot=watch_pb2.TableSnapshot(table=self.table))
        _appears(self.out, "left to act")  # the reminder, with 10 s left
        for sequence, seat, action, timed_out in (
            (6, 1, common_pb2.ACTION_KIND_FOLD, True),
            (7, 2, common_pb2.ACTION_KIND_CALL, False),
        ):
            acted = events_pb2.Acted(seat=seat, action=action, timed_out=timed_out)  # type: ignore[arg-type]
            if not timed_out:
                acted.amount, acted.total = 5, 10
            yield watch_pb2.WatchTableResponse(
                event=events_pb2.Event(hand_number=1, sequence=sequence, acted=acted)
            )
        yield watch_pb2.WatchTableResponse(turn=tables_pb2.Turn(seat=3))
        self.read.wait(10)
        closed = events_pb2.TableClosed(reason="test over")
        yield watch_pb2.WatchTableResponse(event=events_pb2.Event(table_closed=closed))


class _Thinking(io.StringIO):
    """A person who types only once the table has moved on: what was on the
    screen then is kept."""

    def __init__(self, out: io.StringIO, client: _ClockRunsOut) -> None:
        super().__init__("call\n")
        self.out, self.client, self.seen = out, client, ""

    def readline(self, size: int | None = -1) -> str:
        _appears(self.out, "seat 3 to act")
        self.seen = self.out.getvalue()
        self.client.read.set()
        return super().readline(size)


def test_the_table_is_printed_while_you_think_and_your_clock_shown() -> None:
    out = io.StringIO()
    client = _ClockRunsOut(out)
    typing = _Thinking(out, client)
    Terminal(client, "t", typing, out, None).run()  # type: ignore[arg-type]
    seen = typing.seen
    assert "your turn: fold | call 10 | raise 20..1000" in seen
    assert re.search(r"^\((11|12) s\) > $", seen, re.M)  # the prompt says the time left
    assert re.search(r"^(10|11) s left to act, then the clock acts for you$", seen, re.M)
    # What happened at the table reached the screen before Enter was pressed:
    assert "seat 1 folds (out of time)\nseat 2 calls 5 (to 10)\nseat 3 to act\n" in seen
    assert "not your turn any more: 'call' is not sent" in out.getvalue()
    assert out.getvalue().rstrip().endswith("the table is closed: test over")


def test_a_mixed_tables_deal_says_its_game_and_the_next() -> None:
    turn = common_pb2.RotationTurn(
        game=common_pb2.GAME_RAZZ, hand=2, hands=4, next_game=common_pb2.GAME_STUD
    )
    dealt = events_pb2.Event(hand_dealt=events_pb2.HandDealt(hand_number=7, turn=turn))
    assert describe(dealt, 1) == "== game: razz, hand 2 of 4; next stud"
    alone = events_pb2.Event(hand_dealt=events_pb2.HandDealt(hand_number=7))
    assert describe(alone, 1) is None  # a table of one game says nothing more


def test_a_time_bank_put_on_the_clock_is_said() -> None:
    used = events_pb2.Event(time_bank_used=events_pb2.TimeBankUsed(seat=2, seconds=45, turn=9))
    assert describe(used, 2) == "your time bank is on the clock: 45 s more"
    assert describe(used, 1) == "seat 2's time bank is on the clock: 45 s more"
