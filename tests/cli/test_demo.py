import re

import pytest

from feltline.cli import main


def test_demo_plays_every_game_and_hides_hole_cards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    for game in ("holdem", "stud-hi-lo", "draw-declare", "jackpots"):
        assert f"=== {game} ===" in out
    assert out.count("chips on the table: 2000") == 4
    # a spectator never sees a face-down card as it is dealt
    assert not re.search(r"gets [2-9TJQKA][cdhs] \(down\)", out)
    assert "gets ?? (down)" in out
