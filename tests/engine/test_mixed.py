"""A mixed table: its games dealt in turn on the rotation's schedule, each
hand with its own game's forced bets from the table's stakes, chips
conserved through the rotation, and rotations no table could deal refused."""

import random
from dataclasses import replace
from functools import reduce

import pytest

from feltline.engine.errors import ConfigError
from feltline.engine.hand.commands import StartHand
from feltline.engine.hand.events import HandEnded, HandStarted
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.table.commands import (
    DealHand,
    EndHand,
    OpenTable,
    SitDown,
    StandUp,
    TableCommand,
)
from feltline.engine.table.decide import decide
from feltline.engine.table.errors import GameOptionError
from feltline.engine.table.events import HandDealt
from feltline.engine.table.evolve import evolve
from feltline.engine.table.house import Rotation, TableConfig, Turn
from feltline.engine.table.state import Table

from .players import choose, play

HORSE = (Game.HOLDEM, Game.OMAHA_HI_LO, Game.RAZZ, Game.STUD, Game.STUD_HI_LO)
STAKES = Stakes(
    Structure.FIXED_LIMIT, small_bet=10, big_bet=20, small_blind=5, big_blind=10, ante=2, bring_in=3
)


def config(hands: int = 2, games: tuple[Game, ...] = HORSE, seats: int = 6) -> TableConfig:
    return TableConfig(Rules(games[0], STAKES), seats, rotation=Rotation(games, hands))


def run(table: Table, *commands: TableCommand) -> Table:
    for command in commands:
        table = reduce(evolve, decide(table, command), table)
    return table


def seated(cfg: TableConfig, players: int = 4) -> Table:
    table = run(Table(), OpenTable(cfg, at=0))
    return run(table, *(SitDown(s, f"p{s}", 200, at=0) for s in range(1, players + 1)))


def play_hand(table: Table, rng: random.Random) -> tuple[Table, HandDealt, HandStarted]:
    """Deal the next hand, play it with a cautious bot's moves, settle it."""
    assert table.config is not None
    events = decide(table, DealHand(at=1, seed=rng.randbytes(32)))
    dealt = events[-1]
    assert isinstance(dealt, HandDealt)
    table = reduce(evolve, events, table)
    start = StartHand(table.config.rules_at(dealt.turn), dealt.deal, rng.randbytes(32))
    played = play(start, lambda hand: choose(hand, rng))
    started, ended = played.events[0], played.events[-1]
    assert isinstance(started, HandStarted)
    assert isinstance(ended, HandEnded)
    return run(table, EndHand(ended.stacks, None, ended.rake)), dealt, started


def test_the_games_come_in_turn_each_for_its_hands_and_round_again() -> None:
    rng = random.Random(1)
    table = seated(config(hands=2))
    games, turns = [], []
    for _ in range(11):
        table, dealt, started = play_hand(table, rng)
        games.append(started.rules.game)
        turns.append(dealt.turn)
    assert games == [g for g in HORSE for _ in (1, 2)] + [Game.HOLDEM]
    holdem, omaha, razz = Game.HOLDEM, Game.OMAHA_HI_LO, Game.RAZZ
    assert turns[:3] == [
        Turn(holdem, 1, 2, omaha),
        Turn(holdem, 2, 2, omaha),
        Turn(omaha, 1, 2, razz),
    ]
    assert turns[6] == Turn(Game.STUD, 1, 2, Game.STUD_HI_LO)
    assert turns[-1] == Turn(holdem, 1, 2, omaha)


def test_each_game_posts_its_own_forced_bets_from_the_tables_stakes() -> None:
    cfg = config().validate()
    holdem = cfg.rules_at(Turn(Game.HOLDEM, 1, 2, Game.OMAHA_HI_LO)).stakes
    razz = cfg.rules_at(Turn(Game.RAZZ, 1, 2, Game.STUD)).stakes
    assert (holdem.small_blind, holdem.big_blind, holdem.ante, holdem.bring_in) == (5, 10, 0, 0)
    assert (razz.small_blind, razz.big_blind, razz.ante, razz.bring_in) == (0, 0, 2, 3)
    assert (razz.small_bet, razz.big_bet) == (holdem.small_bet, holdem.big_bet) == (10, 20)


def test_an_orbit_is_as_many_hands_as_players_dealt_into_the_games_first() -> None:
    rng = random.Random(2)
    table = seated(config(hands=0), players=3)
    table, dealt, _ = play_hand(table, rng)
    assert dealt.turn == Turn(Game.HOLDEM, 1, 3, Game.OMAHA_HI_LO)
    table = run(table, SitDown(5, "late", 200, at=1, post_now=True))
    for _ in range(2):
        table, dealt, started = play_hand(table, rng)
        assert started.rules.game is Game.HOLDEM
    assert dealt.turn == Turn(Game.HOLDEM, 3, 3, Game.OMAHA_HI_LO)
    table, dealt, started = play_hand(table, rng)
    assert started.rules.game is Game.OMAHA_HI_LO
    assert dealt.turn == Turn(Game.OMAHA_HI_LO, 1, 4, Game.RAZZ)


def test_chips_are_conserved_and_the_table_replays_through_the_rotation() -> None:
    rng = random.Random(3)
    opening = [*decide(Table(), OpenTable(config(hands=1), at=0))]
    table = reduce(evolve, opening, Table())
    log = list(opening)
    for s in range(1, 6):
        sat = decide(table, SitDown(s, f"p{s}", 200, at=0))
        table = reduce(evolve, sat, table)
        log += sat
    chips = table.chips
    played = set()
    for _ in range(3 * len(HORSE)):
        events = decide(table, DealHand(at=1, seed=rng.randbytes(32)))
        table = reduce(evolve, events, table)
        dealt = events[-1]
        assert isinstance(dealt, HandDealt)
        assert table.config is not None
        start = StartHand(table.config.rules_at(dealt.turn), dealt.deal, rng.randbytes(32))
        hand = play(start, lambda hand: choose(hand, rng))
        ended = hand.events[-1]
        assert isinstance(ended, HandEnded)
        played.add(start.rules.game)
        events += decide(table, EndHand(ended.stacks, None, ended.rake))
        table = reduce(evolve, events[1:], table)
        log += events
        assert table.chips + table.house == chips
    assert played == set(HORSE)
    assert reduce(evolve, log, Table()) == table


def test_the_next_game_decides_what_a_newcomer_may_do() -> None:
    """Between hands a newcomer sits for the next hand's game: a big blind
    to post before hold'em, none before stud."""
    rng = random.Random(4)
    table = seated(config(hands=1, games=(Game.HOLDEM, Game.STUD)), players=2)
    table, _, _ = play_hand(table, rng)
    assert table.rules.game is Game.STUD
    with pytest.raises(GameOptionError, match="stud has no big blind to post"):
        decide(table, SitDown(5, "late", 200, at=1, post_now=True))
    table, _, _ = play_hand(table, rng)
    assert table.rules.game is Game.HOLDEM
    assert decide(table, SitDown(5, "late", 200, at=1, post_now=True))


def test_a_player_leaving_mid_rotation_changes_no_game() -> None:
    rng = random.Random(5)
    table = seated(config(hands=2), players=3)
    table, _, _ = play_hand(table, rng)
    table = run(table, StandUp(3))
    _, dealt, _ = play_hand(table, rng)
    assert dealt.turn == Turn(Game.HOLDEM, 2, 2, Game.OMAHA_HI_LO)


@pytest.mark.parametrize(
    ("cfg", "refusal"),
    [
        (config(games=(Game.HOLDEM,)), "a mixed table rotates two games or more"),
        (
            config(games=(Game.HOLDEM, Game.STUD, Game.HOLDEM)),
            "a mixed table deals each of its games once a round",
        ),
        (
            config(games=(Game.HOLDEM, Game.JACKPOTS)),
            "jackpots is not dealt at a mixed table, only draw-declare, stud high-low, hold'em, ",
        ),
        (
            replace(config(), rules=Rules(Game.STUD, STAKES)),
            "a mixed table's game is its rotation's first, holdem, not stud",
        ),
        (config(hands=101), "an orbit \\(0\\) or 1 to 100 hands, not 101"),
        (config(hands=-1), "not -1"),
        (config(seats=9), "a mixed table has 2 to 8 seats, not 9"),
        (
            replace(config(), rules=Rules(Game.HOLDEM, replace(STAKES, bring_in=0))),
            "razz needs a bring-in",
        ),
        (
            replace(config(), rules=Rules(Game.HOLDEM, replace(STAKES, big_blind=0))),
            "hold'em needs a big blind",
        ),
        (
            replace(config(seats=3), rules=Rules(Game.HOLDEM, STAKES, fixed_seats=3)),
            "a duplicate match deals one game, not a rotation",
        ),
    ],
)
def test_a_rotation_no_table_could_deal_is_refused(cfg: TableConfig, refusal: str) -> None:
    with pytest.raises(ConfigError, match=refusal):
        cfg.validate()


def test_a_table_of_one_game_has_no_turn() -> None:
    rng = random.Random(6)
    cfg = TableConfig(Rules.house(Game.OMAHA), 6, min_buy_in=200)
    table, dealt, started = play_hand(seated(cfg), rng)
    assert dealt.turn is None
    assert table.turn is None
    assert started.rules == cfg.validate().rules
