"""``feltline-play`` driven through stdin, against a bot across the table."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading

from feltline_client.bots import CallingStation, Player
from feltline_client.table import Move
from feltline_client.terminal import main, parse_move

from .conftest import Room


def test_typed_moves_parse() -> None:
    assert parse_move("raise 80") == Move("raise", to=80)
    assert parse_move("draw as kd") == Move("draw", discards=("As", "Kd"))
    assert parse_move("Declare HIGH") == Move("declare", declaration="high")
    assert parse_move("bring in") == Move("bring_in")


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
