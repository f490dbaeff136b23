"""PokerStars-style text: hold'em read by two PokerStars parsers written by
others, PokerKit's (which replays the hand to its final stacks) and the
``poker`` package's; and for every game, a reader of the text here that
adds the chips up: every pot is what was put in, less what came back, and
the winners take it less the rake."""

from __future__ import annotations

import io
import re
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from pokerkit import PokerStarsParser

from feltline.engine.cards.card import parse_cards
from feltline.engine.hand.events import (
    Acted,
    Action,
    BoardDealt,
    CardDealt,
    PotAwarded,
    StreetBegan,
)
from feltline.engine.hand.rules import Game, Rake, Rules, Structure
from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.histories import LoggedHand, logged_hands, pokerstars
from feltline_replay.show import Viewer
from tests.engine.players import rules

from .conftest import Played
from .pokerkit_rules import COVERED, NO_LIMIT_SHORT, SB_OPTION, SHORT_FORCED, forecast
from .random_hands import random_hands

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # poker 0.30 imports pkg_resources, which warns
    from poker.card import Card
    from poker.hand import Combo
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
    assert heads == {
        "Hold'em No Limit",
        "7 Card Stud Hi/Lo Limit",
        "5 Card Draw Hi/Lo Limit",
        "5 Card Draw Jackpots Limit",
    }, heads


@pytest.mark.parametrize(
    ("game", "structure"),
    [
        (Game.HOLDEM, Structure.NO_LIMIT),
        (Game.HOLDEM, Structure.POT_LIMIT),
        (Game.HOLDEM, Structure.FIXED_LIMIT),
        (Game.STUD_HI_LO, Structure.FIXED_LIMIT),
        (Game.STUD, Structure.FIXED_LIMIT),
        (Game.RAZZ, Structure.FIXED_LIMIT),
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
@pytest.mark.parametrize("viewer", ["auditor", "seat"])
def test_holdem_reads_in_the_poker_packages_parser(
    structure: Structure, limit: str, viewer: str
) -> None:
    for whole in random_hands(Game.HOLDEM, structure, 100, 41):
        hand = whole
        if viewer == "seat":  # the view of the last seat in the table's order
            hand = as_seat(whole, whole.started.deal.seats[-1].seat)
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
        me = pokerstars.hero(hand)
        assert parsed.hero.name == {s.seat: s.player for s in started.deal.seats}[me]
        mine = [e.card for e in hand.played if isinstance(e, CardDealt) and e.seat == me]
        assert parsed.hero.combo == Combo(f"{mine[0]}{mine[1]}")


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


def as_seat(hand: LoggedHand, seat: int) -> LoggedHand:
    """The hand as ``seat`` saw it."""
    viewer = Viewer("seat", seat)
    events = tuple(viewer.sees(e) for e in hand.played)
    return replace(hand, events=events, viewer=viewer)


def pokerkit_stacks(text: str) -> dict[str, int] | None:
    """Each player's final stack as PokerKit 0.7.7's PokerStars parser
    replays the text, or None where it cannot (it prints why)."""
    try:
        with redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # fields it does not know, a fold it finds needless
            (history,) = PokerStarsParser()(text, error_status=True)
            final = list(history)[-1]
    except ValueError:
        return None
    assert history.players is not None
    return dict(zip(history.players, final.stacks, strict=True))


def test_pokerkit_replays_every_holdem_hand_to_feltlines_stacks() -> None:
    """PokerKit reads the hole cards of the one hero, each shown hand (by
    its description: without one it mucks the cards) and every action,
    and reaches Feltline's final stacks; it reads only no-limit hold'em.
    A hand that meets a RULES.md difference from PokerKit (a short blind
    that does not shrink the call, raising when every opponent is
    covered, ...) is named by :mod:`tests.replay.pokerkit_rules` and
    counted; where a pot split unevenly, only the odd chips may move
    between the seats sharing it."""
    differences: Counter[str] = Counter()
    agreed = 0
    for hand in random_hands(Game.HOLDEM, Structure.NO_LIMIT, 300, 7):
        text = pokerstars.one(hand)
        names = {s.seat: s.player for s in hand.started.deal.seats}
        expected = {names[seat]: chips for seat, chips in hand.ended.stacks}
        predicted = forecast(hand.played)
        if predicted.refusal is not None:
            differences[predicted.refusal.rule] += 1
            continue
        got = pokerkit_stacks(text)
        assert got is not None, text
        odd = {names[s] for s in predicted.odd_chips}
        assert {p: c for p, c in got.items() if p not in odd} == {
            p: c for p, c in expected.items() if p not in odd
        }, text
        assert sum(got[p] for p in odd) == sum(expected[p] for p in odd), text
        agreed += 1
    assert agreed >= 270, (agreed, differences)
    assert set(differences) <= {SHORT_FORCED, COVERED, SB_OPTION, NO_LIMIT_SHORT}, differences


@pytest.mark.parametrize("game", [Game.HOLDEM, Game.STUD_HI_LO, Game.DRAW_DECLARE, Game.JACKPOTS])
def test_one_hero_at_most_and_the_spectator_none(game: Game) -> None:
    """Trackers take every seat with a ``Dealt to`` line showing face-down
    cards as a hero: a seat's file names it, an auditor's the first seat
    dealt to (the others' cards after the summary), a spectator's none."""
    structure = Structure.NO_LIMIT if game is Game.HOLDEM else Structure.FIXED_LIMIT
    for hand in random_hands(game, structure, 40, 3):
        first = next(e.seat for e in hand.played if isinstance(e, CardDealt))
        seat = hand.started.deal.seats[-1].seat
        names = {s.seat: s.player for s in hand.started.deal.seats}
        for view, hero in ((hand, first), (as_seat(hand, seat), seat), (spectator(hand), None)):
            text = pokerstars.one(view)
            heroes = {m["name"] for m in DEALT_DOWN.finditer(text) if down(view, m)}
            assert heroes == ({names[hero]} if hero is not None else set()), text
        text = pokerstars.one(hand)
        for s, player in names.items():
            mine = {str(e.card) for e in hand.played if isinstance(e, CardDealt) and e.seat == s}
            assert mine <= set(re.findall(r"[2-9TJQKA][cdhs]", cards_named(text, player))), text


DEALT_DOWN = re.compile(r"^Dealt to (?P<name>\S+) (?P<cards>.*)$", re.MULTILINE)


def down(hand: LoggedHand, dealt: re.Match[str]) -> bool:
    """Whether a ``Dealt to`` line shows a face-down card."""
    tokens = set(re.findall(r"[2-9TJQKA][cdhs]|Jk", dealt["cards"]))
    face_down = {
        str(e.card) for e in hand.events if isinstance(e, CardDealt) and not e.face_up and e.card
    }
    return bool(tokens & face_down)


def cards_named(text: str, player: str) -> str:
    """Every card the text gives ``player``: its Dealt to, discards, shows
    and auditor's lines."""
    mine = [
        line
        for line in text.splitlines()
        if line.startswith(
            (
                f"Dealt to {player} ",
                f"{player}: shows ",
                f"{player}: discards ",
                f"{player} was dealt ",
            )
        )
    ]
    return " ".join(mine)


def spectator(hand: LoggedHand) -> LoggedHand:
    viewer = Viewer("spectator")
    return replace(hand, events=tuple(viewer.sees(e) for e in hand.played), viewer=viewer)


def test_the_summary_says_where_each_seat_folded() -> None:
    where = {0: "before Flop", 3: "on the Flop", 4: "on the Turn", 5: "on the River"}
    folds = Counter[str]()
    for hand in random_hands(Game.HOLDEM, Structure.NO_LIMIT, 200, 5):
        text = pokerstars.one(hand)
        board = 0
        for event in hand.played:
            if isinstance(event, BoardDealt):
                board += len(event.cards)
            if isinstance(event, Acted) and event.action is Action.FOLD:
                name = {s.seat: s.player for s in hand.started.deal.seats}[event.seat]
                summary = text.split("*** SUMMARY ***")[1].splitlines()
                line = next(x for x in summary if x.startswith(f"Seat {event.seat}: "))
                assert line.startswith(f"Seat {event.seat}: {name} "), text
                assert f" folded {where[board]}" in line, text
                folds[where[board]] += 1
    assert set(folds) == set(where.values())
    for hand in random_hands(Game.STUD_HI_LO, Structure.FIXED_LIMIT, 30, 5):
        street = ""
        for event in hand.played:
            if isinstance(event, StreetBegan) and event.name.endswith("street"):
                street = event.name.split()[0]
            if isinstance(event, Acted) and event.action is Action.FOLD:
                nth = {"third": "3rd", "fourth": "4th", "fifth": "5th", "sixth": "6th"}
                word = nth.get(street, "7th")
                assert f"Seat {event.seat}: " in pokerstars.one(hand)
                assert re.search(
                    rf"^Seat {event.seat}: \S+ folded on the {word} Street",
                    pokerstars.one(hand),
                    re.MULTILINE,
                )


@pytest.mark.parametrize(
    ("game", "cards", "said"),
    [
        (Game.HOLDEM, "Jc 7c 2d 9s Jh Kd 3c", "a pair of Jacks"),
        (Game.HOLDEM, "Jc 7c 2d 9s 4h Kd 3c", "high card King"),
        (Game.HOLDEM, "Jc 7c 7d 9s Jh Kd 3c", "two pair, Jacks and Sevens"),
        (Game.HOLDEM, "Jc 7c 7d 9s 2h 7h 3c", "three of a kind, Sevens"),
        (Game.HOLDEM, "Ac 2c 3d 4s 5h Kd Kc", "a straight, Ace to Five"),
        (Game.HOLDEM, "7c 8c 9d Ts Jh 2d 2c", "a straight, Seven to Jack"),
        (Game.HOLDEM, "Ac 2c 8c 4c 5c Kd Kh", "a flush, Ace high"),
        (Game.HOLDEM, "Jc Jd 7d 7s Jh Kd 3c", "a full house, Jacks full of Sevens"),
        (Game.HOLDEM, "Jc Jd 7d Js Jh Kd 3c", "four of a kind, Jacks"),
        (Game.HOLDEM, "7d 8d 9d Td Jd 2d 2c", "a straight flush, Seven to Jack"),
        (Game.HOLDEM, "Td Jd Qd Kd Ad 2d 2c", "a Royal Flush"),
        (Game.STUD_HI_LO, "Ac 2d 3h 5s 7c Kd Kc", "HI: a pair of Kings; LO: 7,5,3,2,A"),
        (Game.STUD_HI_LO, "Ac Ad 9h Ts 7c Kd Kc", "HI: two pair, Aces and Kings"),
        (Game.DRAW_DECLARE, "Ac 2d 3h 4s 6c", "HI: high card Ace; LO: 6,4,3,2,A"),
        (Game.STUD, "Ac 2d 3h 5s 7c Kd Kc", "a pair of Kings"),
        (Game.RAZZ, "Ac 2d 3h 5s 7c Kd Kc", "Lo: 7,5,3,2,A"),
        (Game.RAZZ, "Ac Ad 2h 2s 3c 3d Kc", "Lo: a pair of Aces"),
    ],
)
def test_a_shown_hand_is_described_as_pokerstars_describes_it(
    game: Game, cards: str, said: str
) -> None:
    table = rules(game, Structure.NO_LIMIT if game is Game.HOLDEM else Structure.FIXED_LIMIT)
    assert pokerstars.describe(table, parse_cards(cards.split()), ()) == said


@pytest.mark.parametrize(
    ("game", "hole", "said"),
    [
        # One heart in the hand cannot use the board's four: no flush.
        (Game.OMAHA, "Ah Kc 7d 2s", "high card Ace"),
        # Two hearts can; the board's two cards of eight or under make no low.
        (Game.OMAHA_HI_LO, "Ah 2h 7d Kc", "HI: a flush, Ace high"),
        (Game.HOLDEM, "Ah Kc", "a flush, Ace high"),
    ],
)
def test_a_shown_hand_is_worded_as_its_game_plays_the_board(
    game: Game, hole: str, said: str
) -> None:
    """A shown Omaha hand is worded by two of its cards and three of the
    board (the writer once valued all nine together, and failed)."""
    board = tuple(parse_cards("Qh Jh 9h 4h 3c"))
    rules = Rules.house(game)
    assert pokerstars.describe(rules, tuple(parse_cards(hole)), board) == said
