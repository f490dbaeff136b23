"""Each game is one module of ``feltline.engine.games``: its description
is complete, its house stakes open a table, and its docstring's hand plays
as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from dataclasses import replace

import pytest

from feltline.engine import games
from feltline.engine.errors import ConfigError
from feltline.engine.games import VARIANTS
from feltline.engine.hand.rules import Game, Rules
from feltline.engine.hand.script import DOWN, FORCED, SHOWDOWN, UP, Opening, bet, deal
from feltline.engine.table.house import TableConfig

MODULES = [
    importlib.import_module(f"feltline.engine.games.{m.name}")
    for m in pkgutil.iter_modules(games.__path__)
    if m.name != "variant"
]


def test_every_game_has_one_module_and_every_module_one_game() -> None:
    assert sorted(m.VARIANT.game for m in MODULES) == sorted(Game)
    assert all(VARIANTS[m.VARIANT.game] is m.VARIANT for m in MODULES)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_the_docstring_states_the_rules_and_plays_a_hand(module: object) -> None:
    result = doctest.testmod(module, raise_on_error=False)  # type: ignore[arg-type]
    assert result.attempted > 5
    assert result.failed == 0


@pytest.mark.parametrize("game", Game)
def test_the_house_stakes_open_a_table_of_every_size_the_game_allows(game: Game) -> None:
    rules = Rules.house(game)
    variant = rules.variant
    for seats in range(2, variant.max_seats + 1):
        TableConfig(rules, seats).validate()
    with pytest.raises(ConfigError, match=f"table has 2 to {variant.max_seats} seats"):
        TableConfig(rules, variant.max_seats + 1).validate()


@pytest.mark.parametrize("game", Game)
def test_a_duplicate_table_has_at_most_the_games_duplicate_seats(game: Game) -> None:
    most = VARIANTS[game].duplicate_seats
    if not most:
        with pytest.raises(ConfigError, match=f"^{game} is not offered in a duplicate match$"):
            TableConfig(replace(Rules.house(game), fixed_seats=2), 2).validate()
        return
    TableConfig(replace(Rules.house(game), fixed_seats=most), most).validate()
    with pytest.raises(ConfigError, match=f"has 2 to {most} seats"):
        TableConfig(replace(Rules.house(game), fixed_seats=most + 1), most + 1).validate()


def test_jackpots_carried_pots_keep_it_out_of_duplicate_and_mixed_tables() -> None:
    offered = {g for g, v in VARIANTS.items() if v.duplicate_seats}
    mixed = {g for g, v in VARIANTS.items() if v.mixed}
    assert offered == mixed == set(Game) - {Game.JACKPOTS}


@pytest.mark.parametrize(
    ("game", "first", "later"),
    [
        (Game.STUD, Opening.LOW_CARD, Opening.HIGH_SHOWING),
        (Game.STUD_HI_LO, Opening.LOW_CARD, Opening.HIGH_SHOWING),
        (Game.RAZZ, Opening.HIGH_CARD, Opening.LOW_SHOWING),
    ],
)
def test_the_stud_games_deal_and_bet_seven_streets(
    game: Game, first: Opening, later: Opening
) -> None:
    # Spelled out street by street: the games state them once, and only
    # who opens differs between them.
    assert VARIANTS[game].steps == (
        FORCED,
        deal("third street", DOWN, DOWN, UP),
        bet("third street betting", big=False, opening=first),
        deal("fourth street", UP),
        bet("fourth street betting", big=False, opening=later),
        deal("fifth street", UP),
        bet("fifth street betting", big=True, opening=later),
        deal("sixth street", UP),
        bet("sixth street betting", big=True, opening=later),
        deal("seventh street", DOWN),
        bet("seventh street betting", big=True, opening=later),
        SHOWDOWN,
    )
