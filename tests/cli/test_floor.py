"""``feltline table`` and ``feltline chips`` against a real server, with the
admin token minted from the local key file or given with ``--token``."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feltline.api import logging as logs
from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.cli import main
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_client import Client
from feltline_protos.v1 import auth_pb2


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Feltline]:
    """A server whose key is in FELTLINE_KEY_FILE, as ``serve`` leaves it."""
    key_file = tmp_path / "feltline.key"
    signer = Signer.create(key_file)
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key_file))
    monkeypatch.delenv("FELTLINE_TOKEN", raising=False)
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / "floor.db")}).env
    logs.configure(stream=io.StringIO())  # the server's log, apart from the commands' output
    room = Room(Streams(signer, env=env))
    running = Feltline(room, signer.public_key, tick=0.2).start()
    monkeypatch.setenv("FELTLINE_TARGET", running.target)
    yield running
    running.stop()
    room.close()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def opened(out: str) -> str:
    """The id ``table open`` printed (the server's log shares the output here)."""
    found = re.search(r"opened (\S+)", out)
    assert found, out
    return found[1]


def one_line(status: int, err: str, command: str) -> str:
    assert status == 1
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"feltline {command}: ")
    return lines[0]


def test_a_table_opened_with_defaults_is_listed_shown_and_closed(
    server: Feltline, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "table", "open", "--game", "stud-hi-lo", "--name", "Friday stud")
    assert status == 0
    assert "Friday stud: stud-hi-lo fixed-limit 10/20 ante 2 bring-in 3" in out
    assert "6 seats, buy-in 200 to 500" in out  # 10 and 25 big bets
    table_id = opened(out)
    status, out, _ = run(capsys, "table", "open", "--game", "holdem", "--structure", "fixed-limit")
    assert "holdem fixed-limit 10/20 blinds 5/10" in out  # the bets first, as rooms post it
    status, out, _ = run(capsys, "table", "list")
    assert status == 0
    assert table_id in out
    assert "open" in out
    status, out, _ = run(capsys, "table", "show", table_id, "--json")
    shown = json.loads(out)
    assert shown["display_name"] == "Friday stud"
    assert shown["config"]["rules"]["stakes"]["raise_cap"] == 3
    assert shown["config"]["action_clock"] == "30s"
    status, out, _ = run(capsys, "table", "close", table_id)
    assert status == 0
    assert f"closed {table_id}" in out
    status, out, _ = run(capsys, "table", "list", "--json")
    assert json.loads(out)[0]["state"] == "TABLE_STATE_CLOSED"


def test_every_setting_reaches_the_table(
    server: Feltline, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys,
        *("table", "open", "--game", "draw-declare", "--structure", "pot-limit"),
        *("--small-bet", "20", "--ante", "4", "--seats", "5", "--low", "deuce-to-seven"),
        *("--draw-limit-small", "4", "--draw-limit-large", "2", "--rake", "2.5"),
        *("--rake-cap", "30", "--action-clock", "12", "--min-buy-in", "500"),
        *("--max-buy-in", "3000", "--json"),
    )
    assert status == 0, err
    config = json.loads(out)["config"]
    rules = config["rules"]
    assert rules["game"] == "GAME_DRAW_DECLARE"
    assert rules["stakes"]["structure"] == "STRUCTURE_POT_LIMIT"
    assert rules["stakes"]["small_bet"] == "20"
    assert rules["stakes"]["ante"] == "4"
    assert rules["low"] == "LOW_SYSTEM_DEUCE_TO_SEVEN"
    assert (rules["draw_limit_small"], rules["draw_limit_large"]) == (4, 2)
    assert rules["rake"] == {"basis_points": 250, "cap": "30"}
    assert (config["seats"], config["action_clock"]) == (5, "12s")
    assert (config["min_buy_in"], config["max_buy_in"]) == ("500", "3000")
    status, out, err = run(
        capsys,
        *("table", "open", "--game", "jackpots", "--big-bet", "30", "--raise-cap", "2"),
        *("--capped-heads-up", "--ante-cap", "2", "--time-charge", "3", "--time-window", "600"),
        "--json",
    )
    assert status == 0, err
    config = json.loads(out)["config"]
    assert config["rules"]["stakes"]["raise_cap"] == 2
    assert config["rules"]["stakes"]["uncapped_heads_up"] is False
    assert config["ante_cap"] == 2
    assert config["time_charge"] == {"amount": "3", "window": "600s"}
    status, out, err = run(
        capsys, "table", "open", "--game", "stud-hi-lo", "--joker", "--bring-in", "5", "--json"
    )
    assert status == 0, err
    assert json.loads(out)["config"]["rules"]["joker"] is True


@pytest.mark.parametrize(
    ("options", "why"),
    [
        (["--game", "holdem", "--ante", "-1"], "--ante is a number of chips, not -1"),
        (["--game", "stud-hi-lo", "--big-blind", "10"], "stud-hi-lo has no blinds"),
        (["--game", "holdem", "--seats", "11"], "holdem table has 2 to 10 seats, not 11"),
        (["--game", "holdem", "--raise-cap", "2"], "--raise-cap is for fixed limit"),
        (["--game", "holdem", "--joker"], "only stud high-low deals the joker"),
        (["--game", "stud-hi-lo", "--bring-in", "20"], "bring-in of at least one chip"),
        (["--game", "holdem", "--rake", "5"], "--rake needs --rake-cap"),
        (["--game", "holdem", "--rake", "x", "--rake-cap", "1"], "a percentage"),
        (
            ["--game", "holdem", "--rake", "5", "--rake-cap", "9", "--time-charge", "2"],
            "a rake or a time charge, not both",
        ),
        (["--game", "holdem", "--min-buy-in", "900", "--max-buy-in", "800"], "no more than"),
        (["--game", "holdem", "--action-clock", "0"], "at least a second"),
        (["--game", "holdem", "--low", "ace-to-six"], "only draw-declare chooses its low"),
        (["--game", "holdem", "--small-bet", "20"], "the minimum bet is the big blind"),
        # Too large for the API's fields: said here, not a traceback.
        (["--game", "stud-hi-lo", "--ante", "1" + "0" * 22], "too large"),
        (["--game", "jackpots", "--raise-cap", "1" + "0" * 22], "too large"),
        (["--game", "holdem", "--action-clock", "1" + "0" * 22], "too large"),
        # A rake that never takes a chip: the server takes it, but it is a mistake.
        (["--game", "holdem", "--rake", "5", "--rake-cap", "0"], "--rake-cap is at least one"),
        # The server's bounds (the protos' rules), narrower than the engine's.
        (["--game", "draw-declare", "--draw-limit-small", "0"], "is 1 to 5 cards, not 0"),
        (["--game", "jackpots", "--draw-limit-large", "6"], "is 1 to 5 cards, not 6"),
        (["--game", "holdem", "--action-clock", "3601"], "--action-clock must be greater"),
        (
            ["--game", "holdem", "--time-charge", "2", "--time-window", "59"],
            "--time-window must be greater than or equal to 60s",
        ),
        (["--game", "holdem", "--big-blind", "2" + "0" * 12], "--big-blind must be less"),
    ],
)
def test_a_setting_no_table_could_have_is_one_line_and_nothing_sent(
    server: Feltline, capsys: pytest.CaptureFixture[str], options: list[str], why: str
) -> None:
    status, _, err = run(capsys, "table", "open", *options)
    assert why in one_line(status, err, "table open")
    status, out, _ = run(capsys, "table", "list")
    assert out.strip() == "no tables"


def test_the_servers_validation_is_one_line(
    server: Feltline, capsys: pytest.CaptureFixture[str]
) -> None:
    """The name's rules are the server's (protovalidate): its refusal, not a traceback."""
    status, _, err = run(capsys, "table", "open", "--game", "holdem", "--name", "x" * 81)
    line = one_line(status, err, "table open")
    assert "refused (INVALID_REQUEST)" in line
    assert "display_name" in line
    status, _, err = run(capsys, "table", "show", "00000000-0000-4000-8000-000000000000")
    assert "TABLE_NOT_FOUND" in one_line(status, err, "table show")


def test_a_table_is_shown_and_closed_by_its_name(
    server: Feltline, capsys: pytest.CaptureFixture[str]
) -> None:
    """As ``feltline-play --table`` takes it: an open table's name, exactly
    or else ignoring case; a name two open tables share, or none has, is one
    line."""
    kitchen = opened(run(capsys, "table", "open", "--game", "holdem", "--name", "Kitchen")[1])
    status, out, err = run(capsys, "table", "show", "Kitchen")
    assert status == 0, err
    assert out.startswith(f"{kitchen}  Kitchen ")
    status, _, err = run(capsys, "table", "show", "Garage")
    line = one_line(status, err, "table show")
    assert line.endswith("no open table is named 'Garage'; give its id or name")
    other = opened(run(capsys, "table", "open", "--game", "holdem", "--name", "kitchen")[1])
    status, _, err = run(capsys, "table", "close", "KITCHEN")  # two by case: which?
    line = one_line(status, err, "table close")
    assert "2 open tables are named 'KITCHEN' (" in line
    assert kitchen in line
    assert other in line
    assert line.endswith("): give the id")
    status, out, err = run(capsys, "table", "close", "Kitchen")  # exactly one by its spelling
    assert (status, out.split()[:2]) == (0, ["closed", kitchen]), err
    status, out, err = run(capsys, "table", "close", "KITCHEN")  # the other, now alone
    assert (status, out.split()[:2]) == (0, ["closed", other]), err
    status, _, err = run(capsys, "table", "close", "kitchen")  # closed tables are not named
    assert "no open table is named 'kitchen'" in one_line(status, err, "table close")


def test_chips_are_minted_and_counted(server: Feltline, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "chips", "mint", "alice", "1500")
    assert status == 0
    assert out.strip() == "minted 1500 for alice; alice: 1500 in the account, 0 at tables"
    status, out, _ = run(capsys, "chips", "balance", "alice", "--json")
    assert json.loads(out) == {"player_id": "alice", "balance": "1500"}
    status, _, err = run(capsys, "chips", "balance", "nobody")
    assert "ACCOUNT_NOT_FOUND" in one_line(status, err, "chips balance")
    with pytest.raises(SystemExit) as exited:  # argparse: usage and exit 2
        main(["chips", "mint", "alice", "-5"])
    assert exited.value.code == 2
    assert "a whole number of chips above 0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # more than the API carries
        main(["chips", "mint", "alice", "1" + "0" * 22])
    assert exited.value.code == 2
    assert "more chips than the API carries" in capsys.readouterr().err


def test_a_hand_in_progress_shows_as_an_admin_may_see_it(
    server: Feltline, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = run(capsys, "table", "open", "--game", "holdem", "--action-clock", "60")
    table_id = opened(out)
    signer = Signer.load(tmp_path / "feltline.key")
    for name in ("alice", "bob"):
        assert run(capsys, "chips", "mint", name, "2000")[0] == 0
    players = []
    for seat, name in enumerate(("alice", "bob"), start=1):
        token = tokens.mint(
            signer,
            auth_pb2.ROLE_PLAYER,
            now=datetime.now(UTC),
            ttl=timedelta(minutes=5),
            player_id=name,
        )
        players.append(Client(server.target, token))
        players[-1].sit_down(table_id, seat, 1000)
    # Nobody acts: the first hand waits on its first player.
    admin = Client(
        server.target,
        tokens.mint(signer, auth_pb2.ROLE_ADMIN, now=datetime.now(UTC), ttl=timedelta(minutes=5)),
    )
    for item in admin.watch(table_id):
        if item.HasField("turn"):
            break
    status, out, _ = run(capsys, "table", "show", table_id)
    assert status == 0
    assert "seat 1  alice" in out
    assert "stack 1000" in out
    assert "hand 1, preflop betting: pot 15, button at seat 1" in out  # the blinds
    assert "seat 2  stack 990      bet 10" in out
    assert "[?? ??]" in out  # an admin never sees a face-down card
    assert "to act" in out
    status, out, _ = run(capsys, "table", "close", table_id)
    assert status == 0
    for client in (*players, admin):
        client.close()


def test_a_token_on_the_command_line_and_no_key_file(
    server: Feltline,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    signer = Signer.load(tmp_path / "feltline.key")
    token = tokens.mint(signer, auth_pb2.ROLE_ADMIN, now=datetime.now(UTC), ttl=timedelta(1))
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(tmp_path / "elsewhere.key"))
    status, _, err = run(capsys, "table", "list")
    assert "none can be minted here" in one_line(status, err, "table list")
    assert not (tmp_path / "elsewhere.key").exists()  # only serve makes a key
    status, out, _ = run(capsys, "table", "list", "--token", token, "--target", server.target)
    assert (status, out.strip()) == (0, "no tables")
    player = tokens.mint(
        signer, auth_pb2.ROLE_PLAYER, now=datetime.now(UTC), ttl=timedelta(1), player_id="al"
    )
    status, _, err = run(capsys, "chips", "mint", "al", "5", "--token", player)
    assert "ROLE_FORBIDDEN" in one_line(status, err, "chips mint")


def test_no_server_there_is_one_line(server: Feltline, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "table", "list", "--target", "127.0.0.1:1")
    assert "cannot reach a Feltline server at 127.0.0.1:1" in one_line(status, err, "table list")


def test_a_mixed_table_is_opened_and_shows_its_game_and_the_next(
    server: Feltline, capsys: pytest.CaptureFixture[str]
) -> None:
    horse = "holdem,omaha-hi-lo,razz,stud,stud-hi-lo"
    status, out, err = run(capsys, "table", "open", "--rotation", horse, "--hands-per-game", "8")
    assert status == 0, err
    assert (
        "mixed table: mixed holdem/omaha-hi-lo/razz/stud/stud-hi-lo (8 hands each) "
        "fixed-limit 10/20 blinds 5/10 ante 2 bring-in 3"
    ) in out
    table_id = opened(out)
    status, out, _ = run(capsys, "table", "show", table_id)
    assert "  game: holdem, hand 1 of 8; next omaha-hi-lo" in out
    status, out, _ = run(capsys, "table", "show", table_id, "--json")
    rotation = json.loads(out)["config"]["rotation"]
    assert rotation["games"][2] == "GAME_RAZZ"
    assert rotation["hands_per_game"] == 8


@pytest.mark.parametrize(
    ("options", "why"),
    [
        (["--rotation", "holdem,jackpots"], "jackpots is not dealt at a mixed table"),
        (["--rotation", "holdem,bridge"], "--rotation: no game 'bridge'"),
        (["--rotation", "holdem,stud,holdem"], "deals each of its games once a round"),
        (["--rotation", "holdem,stud", "--bring-in", "0"], "seven-card stud needs a bring-in"),
        (["--rotation", "holdem,razz", "--hands-per-game", "101"], "1 to 100 hands, not 101"),
        (["--game", "holdem", "--hands-per-game", "3"], "--hands-per-game needs --rotation"),
        (["--rotation", "holdem,razz", "--seats", "9"], "a mixed table has 2 to 8 seats"),
    ],
)
def test_a_rotation_no_table_could_deal_is_one_line_and_nothing_sent(
    server: Feltline, capsys: pytest.CaptureFixture[str], options: list[str], why: str
) -> None:
    status, _, err = run(capsys, "table", "open", *options)
    assert why in one_line(status, err, "table open")
    status, out, _ = run(capsys, "table", "list")
    assert out.strip() == "no tables"


def test_a_tournament_is_created_listed_shown_and_cancelled(
    server: Feltline, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``feltline tournament``: the first level from the table's options, each
    later one doubled; a player's entry shows, and a cancel refunds it."""
    status, out, err = run(
        capsys,
        *("tournament", "create", "--game", "holdem", "--name", "Turbo"),
        *("--small-blind", "10", "--big-blind", "20", "--buy-in", "100", "--fee", "10"),
        *("--entrants", "6", "--payouts", "65,35", "--levels", "3", "--level-hands", "5"),
    )
    assert status == 0, err
    found = re.search(r"created (\S+)  Turbo +registering 100\+10 holdem no-limit 10/20", out)
    assert found, out
    key = found[1]
    status, out, _ = run(capsys, "tournament", "show", key, "--json")
    shown = json.loads(out)
    assert [level["stakes"]["big_blind"] for level in shown["levels"]] == ["20", "40", "80"]
    assert {level["hands"] for level in shown["levels"]} == {5}
    assert shown["payouts"] == [{"entrants": 6, "shares": [6500, 3500]}]
    assert run(capsys, "chips", "mint", "ann", "500")[0] == 0
    signer = Signer.load(tmp_path / "feltline.key")
    ann = tokens.mint(
        signer,
        auth_pb2.ROLE_PLAYER,
        now=datetime.now(UTC),
        ttl=timedelta(minutes=5),
        player_id="ann",
    )
    with Client(server.target, ann) as player:
        player.register_tournament(key)
        assert player.get_account().balance == 390
    status, out, _ = run(capsys, "tournament", "list")
    assert status == 0
    assert f"{key}  Turbo" in out
    assert "1/6 entered, pool 100" in out
    status, out, _ = run(capsys, "tournament", "cancel", key, "--reason", "rain")
    assert status == 0
    assert f"cancelled {key}" in out
    status, out, _ = run(capsys, "tournament", "show", key)
    assert "cancelled: rain" in out
    with Client(server.target, ann) as player:
        assert player.get_account().balance == 500
    status, _, err = run(capsys, "tournament", "cancel", key)
    assert "refused (WRONG_PHASE): the tournament is over" in one_line(
        status, err, "tournament cancel"
    )
    status, _, err = run(
        capsys,
        "tournament",
        "create",
        "--game",
        "holdem",
        "--buy-in",
        "1",
        "--entrants",
        "2",
        "--payouts",
        "60,30",
    )
    assert "add up to 100, not 60,30" in one_line(status, err, "tournament create")
