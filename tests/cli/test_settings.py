"""The operator's table settings, read from the command line and checked
before anything is sent: each refusal word for word, and the tables the
defaults and a few choices make (no server needed)."""

from __future__ import annotations

import argparse

import pytest

from feltline.api import convert
from feltline.engine.cards.values import System
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.table.house import (
    DEFAULT_ACTION_CLOCK,
    DEFAULT_ANTE_CAP,
    TableConfig,
    TimeBank,
    TimeCharge,
)
from feltline.floor.settings import SettingError, Settings, add_options, settings


def read(*options: str, game_required: bool = False) -> Settings:
    parser = argparse.ArgumentParser()
    add_options(parser, game_required=game_required)
    return settings(parser.parse_args(list(options)))


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        (
            ["--game", "stud-hi-lo", "--small-blind", "2"],
            "stud-hi-lo has no blinds: only hold'em, Omaha or Omaha high-low takes "
            "--small-blind, --big-blind",
        ),
        (
            ["--game", "jackpots", "--big-blind", "2"],
            "jackpots has no blinds: only hold'em, Omaha or Omaha high-low takes "
            "--small-blind, --big-blind",
        ),
        (
            ["--small-bet", "20"],
            "in no-limit hold'em the minimum bet is the big blind: set --big-blind, "
            "not --small-bet",
        ),
        (
            ["--structure", "pot-limit", "--small-bet", "5"],
            "in pot-limit hold'em the minimum bet is the big blind: set --big-blind, "
            "not --small-bet",
        ),
        (["--big-bet", "20"], "--big-bet is for fixed limit, not no-limit"),
        (
            ["--game", "holdem", "--bring-in", "2"],
            "holdem has no bring-in: only stud high-low, seven-card stud or razz takes --bring-in",
        ),
        (
            ["--game", "draw-declare", "--bring-in", "2"],
            "draw-declare has no bring-in: "
            "only stud high-low, seven-card stud or razz takes --bring-in",
        ),
        (["--raise-cap", "2"], "--raise-cap is for fixed limit, not no-limit"),
        (
            ["--structure", "pot-limit", "--capped-heads-up"],
            "--capped-heads-up is for fixed limit, not pot-limit",
        ),
        (
            ["--draw-limit-small", "4"],
            "holdem has no draw: the draw limits are for draw games",
        ),
        (
            ["--game", "stud-hi-lo", "--draw-limit-large", "2"],
            "stud-hi-lo has no draw: the draw limits are for draw games",
        ),
        # The defaults' own values, given: hold'em still has no draw.
        (["--draw-limit-small", "5"], "holdem has no draw: the draw limits are for draw games"),
        (
            ["--game", "stud-hi-lo", "--draw-limit-large", "3"],
            "stud-hi-lo has no draw: the draw limits are for draw games",
        ),
        (
            ["--game", "jackpots", "--draw-limit-small", "0"],
            "--draw-limit-small is 1 to 5 cards, not 0",
        ),
        (
            ["--game", "jackpots", "--draw-limit-small", "6"],
            "--draw-limit-small is 1 to 5 cards, not 6",
        ),
        (
            ["--game", "draw-declare", "--draw-limit-large", "0"],
            "--draw-limit-large is 1 to 5 cards, not 0",
        ),
        (
            ["--game", "draw-declare", "--draw-limit-large", "6"],
            "--draw-limit-large is 1 to 5 cards, not 6",
        ),
        (["--ante-cap", "2"], "--ante-cap is for jackpots, whose pots carry over"),
        (["--time-window", "600"], "--time-window needs --time-charge"),
        (["--ante", "-1"], "--ante is a number of chips, not -1"),
        (["--small-blind", "-1"], "--small-blind is a number of chips, not -1"),
        (["--time-charge", "-2"], "--time-charge is a number of chips, not -2"),
        (["--min-buy-in", "0"], "--min-buy-in is at least one chip, not 0"),
        (["--max-buy-in", "-5"], "--max-buy-in is at least one chip, not -5"),
        (["--rake-cap", "5"], "--rake-cap needs --rake"),
        (
            ["--rake", "five", "--rake-cap", "5"],
            "--rake is a percentage such as 5 or 2.5, not 'five'",
        ),
        (
            ["--rake", "2.555", "--rake-cap", "5"],
            "--rake is above 0 and below 100%, in hundredths at most, not 2.555",
        ),
        (
            ["--rake", "0", "--rake-cap", "5"],
            "--rake is above 0 and below 100%, in hundredths at most, not 0",
        ),
        (
            ["--rake", "100%", "--rake-cap", "5"],
            "--rake is above 0 and below 100%, in hundredths at most, not 100%",
        ),
        (["--rake", "5"], "--rake needs --rake-cap, the most it takes from one hand"),
        (
            ["--rake", "5", "--rake-cap", "0"],
            "--rake-cap is at least one chip, not 0: a rake capped at 0 takes nothing "
            "(leave out --rake for none)",
        ),
        (["--rake", "5", "--rake-cap", "-1"], "--rake-cap is at least one chip, not -1"),
        # The engine's own refusal, as it says it.
        (["--seats", "11"], "a holdem table has 2 to 10 seats, not 11"),
        # The server's rules (protovalidate), said with the option at fault.
        (
            ["--time-charge", "2", "--time-window", "59"],
            "--time-window must be greater than or equal to 60s and less than or equal to 86400s "
            "(the server's rules)",
        ),
        (
            ["--action-clock", "3601"],
            "--action-clock must be greater than or equal to 1s and less than or equal to "
            "3600s (the server's rules)",
        ),
    ],
)
def test_each_refusal_says_what_is_wrong(options: list[str], refusal: str) -> None:
    with pytest.raises(SettingError) as refused:
        read(*options)
    assert str(refused.value) == refusal


def test_a_number_too_large_for_the_api_is_refused_before_it_is_sent() -> None:
    with pytest.raises(SettingError, match=r"^a setting is too large to send \(.+\)$"):
        read("--game", "stud-hi-lo", "--ante", "1" + "0" * 22)


@pytest.mark.parametrize(
    ("game", "stakes", "seats"),
    [
        (Game.HOLDEM, Stakes(Structure.NO_LIMIT, 10, 0, 0, 5, 10), 6),
        (Game.STUD_HI_LO, Stakes(Structure.FIXED_LIMIT, 10, 20, ante=2, bring_in=3), 6),
        (Game.DRAW_DECLARE, Stakes(Structure.FIXED_LIMIT, 10, 20, ante=5), 6),
        (Game.JACKPOTS, Stakes(Structure.FIXED_LIMIT, 10, 20, ante=5), 6),
    ],
)
def test_the_defaults_are_each_game_s_usual_table(game: Game, stakes: Stakes, seats: int) -> None:
    wanted = read("--game", game.value)
    rules = Rules(game, stakes, low=System.ACE_TO_FIVE, draw_limit_small=5, draw_limit_large=3)
    assert (wanted.config, wanted.name) == (TableConfig(rules, seats), f"{game} table")
    assert wanted.message == convert.table_config(wanted.config)
    assert wanted.config.action_clock == DEFAULT_ACTION_CLOCK
    assert wanted.config.ante_cap == DEFAULT_ANTE_CAP


def test_each_choice_reaches_the_table() -> None:
    wanted = read(
        *("--game", "jackpots", "--small-bet", "20", "--raise-cap", "2", "--capped-heads-up"),
        *("--draw-limit-small", "4", "--draw-limit-large", "2", "--ante-cap", "2"),
        *("--time-charge", "3", "--time-window", "600", "--seats", "5"),
        *("--min-buy-in", "300", "--max-buy-in", "900", "--action-clock", "45"),
        *("--time-bank", "90", "--time-bank-refill", "10", "--name", "Kitchen"),
        game_required=True,
    )
    stakes = Stakes(Structure.FIXED_LIMIT, 20, 40, ante=5, raise_cap=2, uncapped_heads_up=False)
    rules = Rules(Game.JACKPOTS, stakes, draw_limit_small=4, draw_limit_large=2)
    config = TableConfig(
        rules,
        5,
        min_buy_in=300,
        max_buy_in=900,
        time_charge=TimeCharge(3, 600),
        ante_cap=2,
        action_clock=45,
        time_bank=TimeBank(90, 10),
    )
    assert (wanted.config, wanted.name) == (config, "Kitchen")
    assert wanted.message == convert.table_config(config)


def test_a_time_bank_is_refused_by_its_option_out_of_bounds() -> None:
    assert read("--time-bank", "30").config.time_bank == TimeBank(30, 0)
    for options, refusal in (
        (["--time-bank-refill", "5"], "--time-bank-refill needs --time-bank"),
        (["--time-bank", "0"], "a time bank holds 1 to 3600 seconds, not 0"),
        (["--time-bank", "30", "--time-bank-refill", "31"], "refills 0 to its 30 seconds"),
    ):
        with pytest.raises(SettingError, match=refusal):
            read(*options)


def test_a_rake_is_counted_in_basis_points() -> None:
    rules = read("--rake", "2.5%", "--rake-cap", "30").config.rules
    assert rules.rake == Rake(250, 30)
    assert read("--rake", "0.01", "--rake-cap", "1").config.rules.rake == Rake(1, 1)
    assert read("--rake", "99.99", "--rake-cap", "1").config.rules.rake == Rake(9999, 1)


def test_hold_em_s_blinds_set_its_minimum_bet_and_fixed_limit_its_bets() -> None:
    stakes = read("--small-blind", "10", "--big-blind", "20").config.rules.stakes
    assert (stakes.small_blind, stakes.big_blind, stakes.small_bet, stakes.big_bet) == (
        10,
        20,
        20,
        0,
    )
    fixed = read("--structure", "fixed-limit", "--small-bet", "20").config.rules.stakes
    assert (fixed.small_bet, fixed.big_bet, fixed.big_blind) == (20, 40, 10)


def test_stud_takes_a_joker_and_draw_declare_its_low() -> None:
    assert read("--game", "stud-hi-lo", "--joker", "--bring-in", "5").config.rules.joker
    low = read("--game", "draw-declare", "--low", "ace-to-six").config.rules.low
    assert low is System.ACE_TO_SIX


def test_each_bound_s_edge_is_taken() -> None:
    """The least draw, the greatest, no ante, a one-chip buy-in limit, and
    a rake given with its percent sign."""
    assert read("--game", "jackpots", "--draw-limit-small", "1").config.rules.draw_limit_small == 1
    assert read("--game", "jackpots", "--draw-limit-large", "5").config.rules.draw_limit_large == 5
    assert read("--ante", "0").config.rules.stakes.ante == 0
    assert read("--min-buy-in", "1").config.min_buy_in == 1
    rake = read("--rake", "5%", "--rake-cap", "3").config.rules.rake
    assert rake == Rake(500, 3)


@pytest.mark.parametrize(
    "options",
    [
        ["--small-blind", "-1"],
        ["--big-blind", "-1"],
        ["--structure", "fixed-limit", "--small-bet", "-1"],
        ["--structure", "fixed-limit", "--big-bet", "-1"],
        ["--game", "stud-hi-lo", "--bring-in", "-1"],
        ["--ante", "-1"],
    ],
)
def test_chips_below_none_are_refused_by_their_option(options: list[str]) -> None:
    option = options[-2]
    with pytest.raises(SettingError, match=f"^{option} is a number of chips, not -1$"):
        read(*options)


@pytest.mark.parametrize("game_required", [True, False])
def test_a_game_or_structure_not_offered_is_refused_by_the_parser(game_required: bool) -> None:
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_options(parser, game_required=game_required)
    for options in (["--game", "bridge"], ["--game", "holdem", "--structure", "spread-limit"]):
        with pytest.raises(argparse.ArgumentError, match="invalid choice"):
            parser.parse_args(options)
    if game_required:
        with pytest.raises(SystemExit):  # argparse exits on a missing option, whatever it is told
            parser.parse_args([])
    else:
        assert parser.parse_args([]).game == Game.HOLDEM.value
