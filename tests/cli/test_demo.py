import json
import re
import urllib.request

import pytest

from feltline import demo
from feltline.cli import main
from feltline.store.check import Ledger
from feltline_protos.v1 import ledger_pb2


def test_demo_plays_every_game_and_hides_hole_cards(
    capsys: pytest.CaptureFixture[str], no_error_logs: list[str]
) -> None:
    """The demo runs a real server, bots play every game through the API,
    every chip is accounted for and every hand replays from the store, and
    nothing is logged as an error (the demo is a new user's first look)."""
    assert main(["demo", "--seed", "7", "--hands", "4"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"watch in a browser: http://127\.0\.0\.1:\d+/#token=\S+", out)
    for game in ("holdem", "stud-hi-lo", "draw-declare", "jackpots"):
        assert f"=== {game} ===" in out
        assert re.search(rf"  {game}: \d+", out)
    books = out[
        out.index("The ledger, read through the Ledger service") : out.index("=== duplicate")
    ]
    figures = {
        name: int(amount)
        for name, amount in re.findall(
            r"  (chips minted|in accounts|on tables|in pots): (\d+)", books
        )
    }
    carried = re.search(r"and (\d+) in carried jackpots pots", books)
    house = re.search(r"raked: (\d+); time charges: (\d+)", books)
    assert carried is not None
    assert house is not None
    minted = len(demo.TABLES) * demo.PLAYERS_PER_TABLE * 100 * demo.BUY_IN
    minted += 2 * demo.MATCH_SEATS * demo.BUY_IN  # each match table's bank
    assert figures["chips minted"] == minted
    held = figures["in accounts"] + figures["on tables"] + figures["in pots"] + int(carried[1])
    assert held + int(house[1]) + int(house[2]) == minted
    assert figures["in accounts"] > 0
    assert int(house[1]) > 0  # the hold'em and stud tables are raked
    assert int(house[2]) > 0  # the draw tables charge for time
    assert books.rstrip().endswith("every chip accounted for")
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
    # and last a sit-and-go of bots and its results: every place, the pool paid out
    pool = demo.SNG_ENTRANTS * demo.SNG_BUY_IN
    assert f"=== sit-and-go ===  {demo.SNG_ENTRANTS} entrants, prize pool {pool}" in out
    finish = [(int(m[1]), int(m[2])) for m in re.finditer(r"(\d+)  sng-bot-\d +(\d+)", out)]
    assert len(finish) == demo.SNG_ENTRANTS
    assert finish[0] == (1, pool * demo.SNG_SHARES[0] // 10_000)
    assert [place for place, _ in finish] == sorted(place for place, _ in finish)
    assert sum(prize for _, prize in finish) == pool


def test_demo_says_what_does_not_balance_rather_than_every_chip_accounted_for(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line is the ledger's verdict, not the demo's: an unbalanced
    summary from the service is printed as such, and the demo fails."""
    books = ledger_pb2.GetLedgerSummaryResponse(
        position=9, minted=100, in_accounts=90, balanced=False,
        problems=["the books hold 90 chips but 100 were minted"],
    )  # fmt: skip
    played = demo.Summary(hands={"holdem": 1}, replayed=1, ledger=Ledger(), books=books)
    monkeypatch.setattr(demo, "run", lambda hands, seed: played)
    assert demo.main(seed=1, hands=1) == 1
    out = capsys.readouterr().out
    assert "every chip accounted for" not in out
    assert "the ledger does not balance:\n  the books hold 90 chips but 100 were minted" in out


def test_the_demos_link_opens_the_web_table_with_the_live_tables() -> None:
    seen: dict[str, object] = {}

    def out(line: str) -> None:
        found = re.search(r"watch in a browser: (http://\S+)/#token=(\S+)", line)
        if found is not None:
            seen["url"], seen["token"] = found[1], found[2]
            with urllib.request.urlopen(f"{found[1]}/", timeout=10) as page:
                assert b'src="app.js"' in page.read()
        elif "hands played" in line and "tables" not in seen:  # while the demo plays
            listing = urllib.request.Request(
                f"{seen['url']}/feltline.v1.TableService/ListTables",
                data=b"{}",
                headers={
                    "content-type": "application/json",
                    "authorization": f"Bearer {seen['token']}",
                },
            )
            with urllib.request.urlopen(listing, timeout=10) as answer:
                seen["tables"] = json.loads(answer.read())["tables"]

    demo.run(1, seed=1, out=out)
    tables = seen["tables"]
    assert isinstance(tables, list)
    assert len(tables) == len(demo.TABLES)
