"""A tournament's hands in the hand histories: a sit-and-go on two tables
played to its end, exported (the whole store, or one of its tables), and
each hand written with the tournament's name and the level the tournament
says the hand was dealt at, beside the hand's blinds: OHH's
``tournament_info``, PokerStars' tournament header, PHH's ``event`` and
``level``, and the HTML replayer's line, in a browser."""

from __future__ import annotations

import io
import json
import random
import re
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import pytest
from playwright.sync_api import Browser
from pokerkit import HandHistory

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.domain.ids import tournament_table_id
from feltline.engine.tournament import HandBegun
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.export import hand_id
from feltline_replay.histories import FORMATS, LoggedHand, logged_hands
from feltline_replay.histories.pokerstars import roman
from tests.replay.test_html import _convert, _embedded, _open, _step_to, browser
from tests.replay.test_ohh import SpecHandHistory
from tests.store.players import cid
from tests.store.test_tournament import BUY_IN, FEE, LEVELS, create, play, players

__all__ = ["browser"]  # the HTML tests' chromium, a fixture of this module too


@dataclass(frozen=True)
class Played:
    key: UUID
    store: Path
    levels: dict[str, int]  # each hand's level, by the hand's id, as the tournament began it
    tables: tuple[UUID, ...]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    store = tmp_path_factory.mktemp("tournament-histories") / "feltline.db"
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(store)}).env
    room = Room(Streams(Signer.generate(), env=env))
    key = create(room, entrants=7, size=4)
    for name in players(room, 7):
        room.register_tournament(key, cid(), name, at=0)
    play(room, key, random.Random(11))
    levels = {
        str(hand_id(tournament_table_id(key, e.table), e.hand)): e.level
        for _, e in room.tournament_events(key)
        if isinstance(e, HandBegun)
    }
    tables = tuple(sorted({tournament_table_id(key, n) for n in (1, 2)}))
    room.close()
    return Played(key, store, levels, tables)


def _exported(played: Played, *selection: str) -> list[LoggedHand]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["export", "--store", str(played.store), *selection]) == 0
    _, records = log.read(io.StringIO(out.getvalue()))
    return list(logged_hands(records))


@pytest.fixture(scope="module")
def hands(played: Played) -> list[LoggedHand]:
    return _exported(played)


def test_every_hand_is_at_the_level_the_tournament_began_it_at(
    played: Played, hands: list[LoggedHand]
) -> None:
    assert len(hands) == len(played.levels) > 8
    assert {h.id: h.stage.level for h in hands if h.stage} == played.levels
    assert len(set(played.levels.values())) >= 3  # the blinds went up
    for hand in hands:
        assert hand.stage is not None
        assert (hand.stage.name, hand.stage.tournament) == ("Turbo", str(played.key))
        assert (hand.stage.buy_in, hand.stage.fee, hand.stage.tables) == (BUY_IN, FEE, 2)
        assert hand.started.rules.stakes == LEVELS[hand.stage.level - 1].stakes


def test_one_tables_export_carries_its_tournament_and_so_its_levels(
    played: Played, tmp_path: Path
) -> None:
    table = played.tables[0]
    alone = _exported(played, "--table", str(table))
    ids = {str(hand_id(table, n)) for n in range(1, len(played.levels) + 1)}
    assert {h.id: h.stage.level if h.stage else None for h in alone} == {
        h: level for h, level in played.levels.items() if h in ids
    }
    assert alone
    path = tmp_path / "table.log"
    assert (
        main(["export", "--store", str(played.store), "--table", str(table), "--output", str(path)])
        == 0
    )
    assert main(["verify", str(path)]) == 0  # the tournament's stream checks out in it too


def test_ohh_says_tournament_and_its_info(hands: list[LoggedHand]) -> None:
    for hand in hands:
        assert hand.stage is not None
        ohh = json.loads(FORMATS["ohh"].one(hand))["ohh"]
        parsed = SpecHandHistory.model_validate(ohh)  # the spec's fields, as its readers read them
        assert parsed.tournament is True
        info = parsed.tournament_info
        assert info is not None
        assert (info.name, info.tournament_number, info.type) == (
            "Turbo",
            hand.stage.tournament,
            "MTT",
        )
        assert (info.buyin_amount, info.fee_amount, info.initial_stack) == (BUY_IN, FEE, 500)
        assert ohh["feltline_level"] == hand.stage.level
        stakes = LEVELS[hand.stage.level - 1].stakes
        assert stakes is not None
        assert (parsed.small_blind_amount, parsed.big_blind_amount) == (
            stakes.small_blind,
            stakes.big_blind,
        )


HEADER = re.compile(
    r"PokerStars Hand #\d+: Tournament #(\d+), (\d+)\+(\d+) Hold'em No Limit - "
    r"Level ([IVXLC]+) \((\d+)/(\d+)\) - \d{4}/\d\d/\d\d \d\d:\d\d:\d\d UTC \["
)


def test_pokerstars_writes_the_tournament_header(hands: list[LoggedHand]) -> None:
    numbers = set()
    for hand in hands:
        assert hand.stage is not None
        first = FORMATS["pokerstars"].one(hand).splitlines()[0]
        found = HEADER.match(first)
        assert found is not None, first
        number, buy_in, fee, level, small, big = found.groups()
        numbers.add(number)
        stakes = LEVELS[hand.stage.level - 1].stakes
        assert stakes is not None
        assert (int(buy_in), int(fee)) == (BUY_IN, FEE)
        assert (level, int(small), int(big)) == (
            roman(hand.stage.level),
            stakes.small_blind,
            stakes.big_blind,
        )
    assert len(numbers) == 1


def test_levels_are_roman_numerals() -> None:
    said = [roman(n) for n in (1, 3, 4, 9, 14, 40, 49, 90, 100)]
    assert said == ["I", "III", "IV", "IX", "XIV", "XL", "XLIX", "XC", "C"]


def test_phh_has_the_event_and_the_level(hands: list[LoggedHand]) -> None:
    for hand in hands[:5]:
        assert hand.stage is not None
        history = HandHistory.loads(FORMATS["phh"].one(hand))
        assert (history.event, history.level) == ("Turbo", hand.stage.level)


def test_the_replayer_shows_the_tournament_level_and_blinds(
    browser: Browser, played: Played, tmp_path: Path
) -> None:
    whole = tmp_path / "everything.log"
    assert main(["export", "--store", str(played.store), "--output", str(whole)]) == 0
    path = _convert(whole, tmp_path, "spectator")
    embedded = _embedded(path)
    ids = [h["id"] for h in embedded]
    last = embedded[-1]
    level = played.levels[last["id"]]
    stakes = LEVELS[level - 1].stakes
    assert stakes is not None
    said = f"Tournament Turbo, level {level}, blinds {stakes.small_blind}/{stakes.big_blind}"
    assert last["tournament"] == said
    page, asked = _open(browser, path)
    _step_to(page, ids, last["id"], 0)
    assert page.text_content("#stage") == said
    assert page.is_visible("#stage")
    assert all(url.startswith("file:") for url in asked)
    page.close()


def test_a_forged_level_out_of_range_is_written_not_a_traceback(played: Played) -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["export", "--store", str(played.store)]) == 0
    _, records = log.read(io.StringIO(out.getvalue()))
    lines = list(records)
    begun = next(r for r in lines if r.get("type") == "HandBegun")
    begun["data"]["level"] = 999  # its signature no longer holds: the checkers say so
    forged = next(h for h in logged_hands(lines) if h.stage and h.stage.level == 999)
    ohh = json.loads(FORMATS["ohh"].one(forged))["ohh"]
    assert (ohh["feltline_level"], ohh["tournament_info"]["speed"]["round_time"]) == (999, 0)
    assert " - Level CCCCCCCCCXCIX (" in FORMATS["pokerstars"].one(forged)
