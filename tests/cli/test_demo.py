import re

import pytest

from feltline.cli import main


def test_demo_plays_every_game_and_hides_hole_cards(
    capsys: pytest.CaptureFixture[str], no_error_logs: list[str]
) -> None:
    """The demo runs a real server, bots play every game through the API,
    every chip is accounted for and every hand replays from the store, and
    nothing is logged as an error (the demo is a new user's first look)."""
    assert main(["demo", "--seed", "7", "--hands", "4"]) == 0
    out = capsys.readouterr().out
    for game in ("holdem", "stud-hi-lo", "draw-declare", "jackpots"):
        assert f"=== {game} ===" in out
        assert re.search(rf"  {game}: \d+", out)
    assert "every chip accounted for" in out
    played = re.search(r"replayed from the store to the same result: (\d+) of (\d+)", out)
    assert played is not None
    assert played[1] == played[2]
    assert int(played[1]) >= 16
    # a spectator never sees a face-down card as it is dealt
    assert not re.search(r"gets [2-9TJQKA][cdhs] \(down\)", out)
    assert "gets ?? (down)" in out
    # and it ends with a duplicate match of bots and its standings
    assert "=== duplicate match ===  4 of 4 deals" in out
    scores = [int(m[1]) for m in re.finditer(r"match-bot-\d-\d +\d +\d +(-?\d+)", out)]
    assert len(scores) == 6
    assert sum(scores) == 0
