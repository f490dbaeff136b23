"""PokerStars-style text: hold'em read by the ``poker`` package's
PokerStars parser, written by others; and for every game, a reader of the
text here that adds the chips up: every pot is what was put in, less what
came back, and the winners take it less the rake."""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Iterator
from contextlib import redirect_stdout
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from feltline.engine.events import BoardDealt, PotAwarded
from feltline.engine.rules import Game, Rake, Structure
from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.histories import LoggedHand, logged_hands, pokerstars

from .conftest import Played
from .random_hands import random_hands

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # poker 0.30 imports pkg_resources, which warns
    from poker.card import Card
    from poker.room.pokerstars import PokerStarsHandHistory

NAME = r"(?P<name>.+?)"
PUTS = [
    re.compile(rf"^{NAME}: posts (?:the ante|small blind|big blind) (?P<amount>\d+)"),
    re.compile(rf"^{NAME}: (?:calls|bets|brings in for) (?P<amount>\d+)"),
    re.compile(rf"^{NAME}: has (?P<amount>\d+) in the pot from earlier deals"),
]
RAISES_TO = re.compile(rf"^{NAME}: (?:raises \d+ to|completes it to) (?P<to>\d+)")
RETURNED = re.compile(
    rf"^(?:Uncalled bet \((?P<amount>\d+)\)|Hand cancelled: (?P<back>\d+)) returned to {NAME}$"
)
COLLECTED = re.compile(rf"^{NAME} collected (?P<amount>\d+) from (?:pot|main pot|side pot-\d+)$")
TOTAL = re.compile(r"^Total pot (?P<total>\d+)(?P<parts>.*?) \| Rake (?P<rake>\d+)$")
CARRIED = re.compile(r"^The pot of (?P<amount>\d+) carries to the next deal$")
DEAD = re.compile(r"^Dead money in the pot: (?P<amount>\d+)$")
FIRST_ROUND = ("*** HOLE CARDS", "*** 3rd STREET", "*** DEALING HANDS")
SEAT = re.compile(rf"^Seat (?P<seat>\d+): {NAME} \((?P<stack>\d+) in chips\)$")


def add_up(text: str) -> dict[str, int]:
    """Each player's stack at the end, from the text alone, checking the
    pot on the way."""
    stacks: dict[str, int] = {}
    in_round: dict[str, int] = {}
    put = back = collected = carried = 0
    total = rake = None
    for line in text.splitlines():
        if line.startswith("*** ") and not line.startswith(FIRST_ROUND):
            in_round = {}  # a new betting round (the blinds belong to the first)
        if (seat := SEAT.match(line)) and total is None and not put:
            stacks[seat["name"]] = int(seat["stack"])
            continue
        for pattern in PUTS:
            if match := pattern.match(line):
                amount = int(match["amount"])
                put += amount
                if "earlier deals" not in line:
                    stacks[match["name"]] -= amount
                    if "ante" not in line:
                        in_round[match["name"]] = in_round.get(match["name"], 0) + amount
                break
        if match := RAISES_TO.match(line):
            amount = int(match["to"]) - in_round.get(match["name"], 0)
            put += amount
            stacks[match["name"]] -= amount
            in_round[match["name"]] = int(match["to"])
        if match := RETURNED.match(line):
            amount = int(match["amount"] or match["back"])
            back += amount
            stacks[match["name"]] += amount
        if match := COLLECTED.match(line):
            collected += int(match["amount"])
            stacks[match["name"]] += int(match["amount"])
        if match := DEAD.match(line):
            put += int(match["amount"])
        if match := CARRIED.match(line):
            carried += int(match["amount"])
        if match := TOTAL.match(line):
            total, rake = int(match["total"]), int(match["rake"])
            parts = [int(p) for p in re.findall(r"pot(?:-\d+)? (\d+)\.", match["parts"])]
            assert not parts or sum(parts) == total
    assert total is not None
    assert rake is not None
    assert total == put - back, (total, put, back, text)
    assert collected == total - rake - carried, text
    return stacks


def check(hand: LoggedHand) -> str:
    text = pokerstars.one(hand)
    final = add_up(text)
    names = {s.seat: s.player for s in hand.started.deal.seats}
    assert final == {names[seat]: chips for seat, chips in hand.ended.stacks}, text
    return text


def store_hands(played: Played) -> Iterator[LoggedHand]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["export", "--store", str(played.path)]) == 0
    _, records = log.read(io.StringIO(out.getvalue()))
    return logged_hands(records)


def test_every_hand_of_the_store_adds_up(played: Played) -> None:
    heads: set[str] = set()
    for hand in store_hands(played):
        text = check(hand)
        heads.add(text.split(": ", 1)[1].split(" (")[0])
    assert heads == {"Hold'em No Limit", "7 Card Stud Hi/Lo Limit", "5 Card Draw Limit"}, heads


@pytest.mark.parametrize(
    ("game", "structure"),
    [
        (Game.HOLDEM, Structure.NO_LIMIT),
        (Game.HOLDEM, Structure.POT_LIMIT),
        (Game.HOLDEM, Structure.FIXED_LIMIT),
        (Game.STUD_HI_LO, Structure.FIXED_LIMIT),
        (Game.DRAW_DECLARE, Structure.FIXED_LIMIT),
        (Game.JACKPOTS, Structure.FIXED_LIMIT),
    ],
)
def test_random_hands_of_every_game_add_up(game: Game, structure: Structure) -> None:
    side_pots = 0
    for hand in random_hands(game, structure, 150, 31, rake=Rake(500, 20)):
        side_pots += "side pot-1" in check(hand)
    assert side_pots > 0


@pytest.mark.parametrize(
    ("structure", "limit"),
    [
        (Structure.NO_LIMIT, "NL"),
        (Structure.POT_LIMIT, "PL"),
        (Structure.FIXED_LIMIT, "FL"),
    ],
)
def test_holdem_reads_in_the_poker_packages_parser(structure: Structure, limit: str) -> None:
    for hand in random_hands(Game.HOLDEM, structure, 100, 41):
        text = pokerstars.one(hand)
        parsed = PokerStarsHandHistory(text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed.parse()
        assert parsed.ident == str(pokerstars.number(hand))
        assert "Hold'em" in parsed.game.value
        assert parsed.limit.name == limit
        started = hand.started
        seated = [p for p in parsed.players if not p.name.startswith("Empty Seat")]
        players = {p.name: (p.seat, p.stack) for p in seated}
        assert players == {s.player: (s.seat, s.stack) for s in started.deal.seats}
        assert parsed.button.seat == started.deal.button
        pots = [e for e in hand.events if isinstance(e, PotAwarded)]
        assert parsed.total_pot == sum(p.amount for p in pots)
        board = list(parsed.flop.cards) if parsed.flop else []
        board += [c for c in (parsed.turn, parsed.river) if c is not None]
        dealt = [c for e in hand.events if isinstance(e, BoardDealt) for c in e.cards]
        assert board == [Card(str(c)) for c in dealt]
        if dealt:  # without a board line, the parser skips the summary's first seat
            won = {s.seat for p in pots for s in p.shares}
            winners = {name.split(" (")[0] for name in parsed.winners}
            assert winners == {s.player for s in started.deal.seats if s.seat in won}
        stakes = started.rules.stakes
        assert parsed.sb == Decimal(stakes.small_bet if limit == "FL" else stakes.small_blind)


def test_a_cancelled_hand_hands_back_all_that_was_put_in() -> None:
    cancelled = 0
    for hand in random_hands(Game.HOLDEM, Structure.NO_LIMIT, 60, 9, cancels=0.05):
        text = check(hand)
        if hand.ended.cancelled:
            cancelled += 1
            assert "Hand cancelled: " in text
            assert "Total pot 0 | Rake 0" in text
    assert cancelled > 0


def test_eastern_time_follows_the_time_zone_database() -> None:
    new_york = ZoneInfo("America/New_York")
    start = datetime(2025, 1, 1, tzinfo=UTC)
    for hours in range(0, 3 * 365 * 24, 7):  # every seventh hour for three years
        moment = start + timedelta(hours=hours)
        expected = moment.astimezone(new_york).replace(tzinfo=None)
        assert pokerstars.eastern(moment) == expected, moment
    for edge in (
        "2026-03-08T06:59:59",
        "2026-03-08T07:00:00",
        "2026-11-01T05:59:59",
        "2026-11-01T06:00:00",
    ):
        moment = datetime.fromisoformat(edge).replace(tzinfo=UTC)
        assert pokerstars.eastern(moment) == moment.astimezone(new_york).replace(tzinfo=None)
