"""PokerStars-style text, the shape hand-tracking programs import: hold'em,
seven-card stud hi/lo and five-card draw, laid out as PokerStars lays out
each game (docs/replay.md has the mapping).

A set of hands is one ``.txt`` file, the hands apart by blank lines, as
PokerStars writes them. The hand number is the first 15 hex digits of the
hand's id, in decimal (PokerStars numbers fit 63 bits). Times are UTC, and
US Eastern in the brackets as PokerStars has them. Amounts are chips.

A PokerStars file has one hero, the account it was written for: the only
seat whose face-down cards have a ``Dealt to`` line (in stud every seat has
one, with its face-up cards). Trackers take every seat with such a line as
a hero, so exactly one seat is given one: a seat's own view names that
seat; an auditor's names the first seat dealt to and writes every other
seat's unshown cards after the summary (``X was dealt [...] (auditor's
view)``); a spectator's names none, as PokerStars writes a hand its
account was not dealt into. Shown hands carry PokerStars' descriptions
(``(a pair of Jacks)``, ``(HI: ...; LO: 7,5,4,3,A)``), and the summary
says where each seat folded (``folded before Flop (didn't bet)``).

What PokerStars has no line for is written in its manner: chips carried
into a jackpots pot from earlier deals (``X: has N in the pot from earlier
deals``), the declarations (``*** DECLARATIONS ***``, ``X: declares
high``), a passed deal (``The pot of N carries to the next deal``), the
openers shown, with the cards set aside at the draw (``X: shows [...]
(openers: set aside [...])``) and a cancelled hand handing back what was
put in (``Hand cancelled: N returned to X``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from uuid import UUID

from feltline.engine.cards.card import RANK_NAMES, RANK_PLURALS, Card
from feltline.engine.cards.values import Category, HandValue, System
from feltline.engine.games.variant import Variant
from feltline.engine.hand.events import (
    Acted,
    Action,
    BetsCollected,
    BoardDealt,
    CardDealt,
    DeclarationsRevealed,
    Declared,
    Drew,
    Forced,
    PassedOut,
    Posted,
    PotAwarded,
    Shown,
    StreetBegan,
)
from feltline.engine.hand.rules import Game, Rules, Structure
from feltline.engine.hand.script import Kind
from feltline_replay.histories.format import Format
from feltline_replay.histories.hands import LoggedHand

GAMES = {
    Game.HOLDEM: "Hold'em",
    Game.STUD_HI_LO: "7 Card Stud Hi/Lo",
    Game.DRAW_DECLARE: "5 Card Draw Hi/Lo",
    Game.JACKPOTS: "5 Card Draw Jackpots",
    Game.OMAHA: "Omaha",
    Game.OMAHA_HI_LO: "Omaha Hi/Lo",
    Game.STUD: "7 Card Stud",
    Game.RAZZ: "Razz",
}
"""PokerStars' names, and for the draw games, names in its manner: the
split game ``Hi/Lo`` as ``7 Card Stud Hi/Lo`` and ``Omaha Hi/Lo`` are."""
LIMITS = {Structure.NO_LIMIT: "No Limit", Structure.POT_LIMIT: "Pot Limit"}
HEADINGS = {
    "hole cards": "HOLE CARDS",
    "third street": "3rd STREET",
    "fourth street": "4th STREET",
    "fifth street": "5th STREET",
    "sixth street": "6th STREET",
    "seventh street": "RIVER",
    "the deal": "DEALING HANDS",
    "the draw": "FIRST DRAW",
    "flop": "FLOP",
    "turn": "TURN",
    "river": "RIVER",
    "showdown": "SHOW DOWN",
}
FOLDED = {
    "hole cards": "before Flop",
    "flop": "on the Flop",
    "turn": "on the Turn",
    "river": "on the River",
    "third street": "on the 3rd Street",
    "fourth street": "on the 4th Street",
    "fifth street": "on the 5th Street",
    "sixth street": "on the 6th Street",
    "seventh street": "on the 7th Street",
    "the deal": "before the Draw",
    "the draw": "after the Draw",
}
"""Where a fold happened, as the summary says it, by the step dealt last."""
POSTS = {Forced.ANTE: "the ante", Forced.SMALL_BLIND: "small blind", Forced.BIG_BLIND: "big blind"}


def number(hand: LoggedHand) -> int:
    """The hand's number in the text: from its id, below 2**60."""
    return _digits(hand.id)


def _digits(uuid: str) -> int:
    """A UUID as the text's numbers are, digits below 2**60."""
    return int(UUID(uuid).hex[:15], 16)


NUMERALS: tuple[tuple[int, str], ...] = (
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


def roman(n: int) -> str:
    """A tournament level as the text numbers it: I, II, ..., C."""
    out = ""
    for value, letters in NUMERALS:
        count, n = divmod(n, value)
        out += letters * count
    return out


def hero(hand: LoggedHand) -> int | None:
    """The one seat the text gives a ``Dealt to`` line with face-down
    cards: the viewer's own, an auditor's first seat dealt to, or none."""
    viewer = hand.viewer
    if viewer.role == "seat":
        return viewer.seat
    if viewer.role == "auditor":
        return next((e.seat for e in hand.events if isinstance(e, CardDealt)), None)
    return None


def one(hand: LoggedHand) -> str:
    """The hand as PokerStars writes one."""
    started = hand.started
    deal = started.deal
    rules = started.rules
    stakes = rules.stakes
    script = rules.variant.steps
    name = {s.seat: s.player for s in deal.seats}
    limit = LIMITS.get(stakes.structure, "Limit")
    if rules.variant.blinds and stakes.structure is not Structure.FIXED_LIMIT:
        blinds = f"{stakes.small_blind}/{stakes.big_blind}"
    else:
        blinds = f"{stakes.small_bet}/{stakes.big_bet}"
    moment = datetime.fromtimestamp(hand.at or 0, UTC)
    local = eastern(moment)
    game = f"{GAMES[rules.game]} {limit} ({blinds})"
    stage = hand.stage
    if stage is not None:  # buy-in and fee in account chips, so without a currency
        entry = f"Tournament #{_digits(stage.tournament)}, {stage.buy_in}+{stage.fee}"
        game = f"{entry} {GAMES[rules.game]} {limit} - Level {roman(stage.level)} ({blinds})"
    lines = [
        f"PokerStars Hand #{number(hand)}: {game} - "
        f"{moment:%Y/%m/%d %H:%M:%S} UTC [{local:%Y/%m/%d %H:%M:%S} ET]",
    ]
    size = hand.table.seats if hand.table else max(name)
    table = (hand.table.name or hand.table.id) if hand.table else hand.id
    button = f" Seat #{deal.button} is the button" if rules.variant.button_shown else ""
    lines.append(f"Table '{table}' {size}-max{button}")
    lines += [f"Seat {s.seat}: {s.player} ({s.stack} in chips)" for s in deal.seats]
    lines += [
        f"{name[s.seat]}: has {s.carried} in the pot from earlier deals"
        for s in deal.seats
        if s.carried
    ]
    if deal.dead:
        lines.append(f"Dead money in the pot: {deal.dead}")
    me = hero(hand)
    held: dict[int, list[Card]] = {s.seat: [] for s in deal.seats}  # in its Dealt to lines
    every: dict[int, list[Card]] = {s.seat: [] for s in deal.seats}  # all the viewer sees
    dealing: dict[int, list[Card]] = {}
    board: list[Card] = []
    level = 0
    pots: list[PotAwarded] = []
    carried = 0
    result: dict[int, str] = {}
    bet: set[int] = set()  # put chips in by choice or by a blind, antes aside
    where = ""
    showed: dict[int, set[Card]] = {}
    showdown = False
    wins: dict[int, str] = {}  # a shown hand's description

    def dealt() -> None:
        for seat, new in dealing.items():
            old = [str(c) for c in held[seat]]
            cards = f"[{' '.join(old)}] " if old else ""
            if new:
                lines.append(f"Dealt to {name[seat]} {cards}[{' '.join(map(str, new))}]")
            held[seat] += new
        dealing.clear()

    for event in hand.events:
        if dealing and not isinstance(event, CardDealt):
            dealt()
        match event:
            case StreetBegan(step=step):
                kind, label = script[step].kind, script[step].name
                if kind in (Kind.DEAL, Kind.DRAW, Kind.SHOWDOWN):
                    lines.append(f"*** {HEADINGS[label]} ***")
                where = FOLDED.get(label, where)
                showdown = kind is Kind.SHOWDOWN
            case Posted(seat=seat, forced=forced, amount=amount, all_in=all_in):
                text = f"{name[seat]}: posts {POSTS[forced]} {amount}"
                lines.append(text + (" and is all-in" if all_in else ""))
                if forced is not Forced.ANTE:
                    level = max(level, amount)
                    bet.add(seat)
            case CardDealt(seat=seat, card=card, face_up=face_up):
                new = dealing.setdefault(seat, [])
                if card is not None:
                    every[seat].append(card)
                    if face_up or seat == me:
                        new.append(card)
            case BoardDealt(cards=cards):
                heading = {3: "FLOP", 4: "TURN", 5: "RIVER"}[len(board) + len(cards)]
                old = f"[{' '.join(map(str, board))}] " if board else ""
                lines.append(f"*** {heading} *** {old}[{' '.join(map(str, cards))}]")
                board += cards
            case Acted(seat=seat, action=action, amount=amount, total=total, all_in=all_in):
                lines.append(f"{name[seat]}: {_act(action, amount, total, level, rules.variant)}")
                lines[-1] += " and is all-in" if all_in else ""
                level = max(level, total)
                if action is Action.FOLD:
                    result[seat] = f"folded {where}"
                elif action is not Action.CHECK:
                    bet.add(seat)
            case BetsCollected(returned_to=back_to, returned=returned):
                if back_to is not None:
                    lines.append(f"Uncalled bet ({returned}) returned to {name[back_to]}")
                level = 0
            case Drew(seat=seat, discards=discards, count=count):
                if not count:
                    lines.append(f"{name[seat]}: stands pat")
                else:
                    word = "card" if count == 1 else "cards"
                    thrown = f" [{' '.join(map(str, discards))}]" if discards else ""
                    lines.append(f"{name[seat]}: discards {count} {word}{thrown}")
                    held[seat] = [c for c in held[seat] if c not in (discards or ())]
                    if discards is None:
                        held[seat] = []
            case Declared(seat=seat, timed_out=True):
                result[seat] = f"folded {where}"
            case DeclarationsRevealed(choices=choices):
                lines.append("*** DECLARATIONS ***")
                lines += [f"{name[s]}: declares {c.value}" for s, c in choices]
            case Shown(seat=seat, cards=cards, set_aside=aside):
                shown = " ".join(map(str, cards))
                whole = (*cards, *board)
                what = describe(rules, cards, board) if len(whole) >= 5 else "openers"
                if aside:
                    what += f"{';' if len(whole) >= 5 else ':'} set aside [{_cards(aside)}]"
                lines.append(f"{name[seat]}: shows [{shown}] ({what})")
                showed[seat] = {*cards, *aside}
                if showdown:  # not an opener proving the openers
                    result[seat] = f"showed [{shown}]"
                    wins[seat] = what
            case PotAwarded(index=index, shares=shares):
                pots.append(event)
                where_from = "pot" if index == 0 else f"side pot-{index}"
                if index == 0 and _has_side_pots(hand):
                    where_from = "main pot"
                lines += [f"{name[s.seat]} collected {s.amount} from {where_from}" for s in shares]
            case PassedOut(carried=shares, dead=dead):
                carried = sum(c for _, c in shares) + dead
                lines.append(f"The pot of {carried} carries to the next deal")
    for seat, amount in hand.refunds().items():
        lines.append(f"Hand cancelled: {amount} returned to {name[seat]}")
    lines.append("*** SUMMARY ***")
    lines.append(_total(pots, carried))
    if board:
        lines.append(f"Board [{' '.join(map(str, board))}]")
    won: dict[int, int] = {}
    for pot in pots:
        for share in pot.shares:
            won[share.seat] = won.get(share.seat, 0) + share.amount
    for s in deal.seats:
        marks = ""
        if rules.variant.button_shown:
            if s.seat == deal.button:
                marks += " (button)"
            if s.seat == deal.small_blind:
                marks += " (small blind)"
            if s.seat == deal.big_blind:
                marks += " (big blind)"
        how = result.get(s.seat, "")
        if how.startswith("folded") and s.seat not in bet:
            how += " (didn't bet)"
        if s.seat in won:
            with_ = f" with {wins[s.seat]}" if s.seat in wins else ""
            how = f"{how} and won ({won[s.seat]}){with_}" if how else f"collected ({won[s.seat]})"
        elif s.seat in wins:
            how += f" and lost with {wins[s.seat]}"
        lines.append(f"Seat {s.seat}: {s.player}{marks} {how or 'mucked'}")
    lines += [
        f"{name[seat]} was dealt [{' '.join(map(str, cards))}] (auditor's view)"
        for seat, cards in every.items()
        if hand.viewer.role == "auditor" and seat != me and set(cards) - showed.get(seat, set())
    ]
    return "\n".join(lines) + "\n"


_RANK_WORDS = {w: r for r, w in enumerate(RANK_NAMES)} | {w: r for r, w in enumerate(RANK_PLURALS)}


def describe(rules: Rules, cards: Sequence[Card], board: Sequence[Card]) -> str:
    """A shown hand as PokerStars describes it: the high hand, razz's
    ``Lo: 8,7,5,4,3``, and in the split games ``HI: ...; LO: ...`` (no
    ``LO`` without a low). The game values the player's ``cards`` with the
    ``board`` as it plays them: Omaha's two and three apart."""
    value, under = rules.variant.values(cards, board, rules.low)
    if value.system is not System.HIGH:
        return f"Lo: {_low_words(value)}"
    best = _words(value)
    if not rules.variant.high_low:
        return best
    return f"HI: {best}" + (f"; LO: {_low_words(under)}" if under else "")


def _words(value: HandValue) -> str:
    """``a pair of Jacks``, ``a straight, Seven to Jack``: PokerStars'
    wording, from the ranks Feltline's description names."""
    text = value.description
    category = value.category
    if category in (Category.THREE_OF_A_KIND, Category.FOUR_OF_A_KIND, Category.FIVE_OF_A_KIND):
        text = text.split(" ", 1)[1]  # "three jacks": the count is not a rank
    ranks = [_RANK_WORDS[w] for w in re.findall(r"[a-z]+", text) if w in _RANK_WORDS]
    names = [RANK_NAMES[r].capitalize() for r in ranks]
    plurals = [RANK_PLURALS[r].capitalize() for r in ranks]
    match category:
        case Category.HIGH_CARD:
            return f"high card {names[0]}"
        case Category.PAIR:
            return f"a pair of {plurals[0]}"
        case Category.TWO_PAIR:
            return f"two pair, {plurals[0]} and {plurals[1]}"
        case Category.THREE_OF_A_KIND:
            return f"three of a kind, {plurals[0]}"
        case Category.STRAIGHT | Category.STRAIGHT_FLUSH if text == "royal flush":
            return "a Royal Flush"
        case Category.STRAIGHT | Category.STRAIGHT_FLUSH:
            bottom = RANK_NAMES[(ranks[0] - 4) % 13].capitalize()  # the wheel: Ace to Five
            kind = "a straight" if category is Category.STRAIGHT else "a straight flush"
            return f"{kind}, {bottom} to {names[0]}"
        case Category.FLUSH:
            return f"a flush, {names[0]} high"
        case Category.FULL_HOUSE:
            return f"a full house, {plurals[0]} full of {plurals[1]}"
        case Category.FOUR_OF_A_KIND:
            return f"four of a kind, {plurals[0]}"
    return f"five of a kind, {plurals[0]}"


def _low_words(value: HandValue) -> str:
    """A low as PokerStars writes one, its cards high to low (``7,5,4,3,A``);
    a deuce-to-seven low that pairs or runs, as a high hand is worded."""
    if value.category is Category.HIGH_CARD:
        return value.description.removesuffix(" low").replace("-", ",")
    return _words(value)


def eastern(moment: datetime) -> datetime:
    """US Eastern time, as PokerStars stamps hands, by the rule in force
    since 2007 (daylight time from 2:00 on March's second Sunday to 2:00 on
    November's first): no time-zone database needed, which not every
    auditor's machine has."""
    year = moment.year
    march = datetime(year, 3, 8, 7, tzinfo=UTC)  # 2:00 EST is 7:00 UTC
    begins = march + timedelta(days=(6 - march.weekday()) % 7)
    november = datetime(year, 11, 1, 6, tzinfo=UTC)  # 2:00 EDT is 6:00 UTC
    ends = november + timedelta(days=(6 - november.weekday()) % 7)
    hours = -4 if begins <= moment < ends else -5
    return (moment + timedelta(hours=hours)).replace(tzinfo=None)


def _act(action: Action, amount: int, total: int, level: int, game: Variant) -> str:
    """A completion is stud's; in hold'em (completing a short all-in bet)
    PokerStars has it as a raise."""
    match action:
        case Action.FOLD:
            return "folds"
        case Action.CHECK:
            return "checks"
        case Action.CALL:
            return f"calls {amount}"
        case Action.BET:
            return f"bets {amount}"
        case Action.BRING_IN:
            return f"brings in for {amount}"
        case Action.COMPLETE if game.bring_in:
            return f"completes it to {total}"
    return f"raises {total - level} to {total}"


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(map(str, cards))


def _has_side_pots(hand: LoggedHand) -> bool:
    return any(isinstance(e, PotAwarded) and e.index > 0 for e in hand.events)


def _total(pots: list[PotAwarded], carried: int) -> str:
    total = sum(p.amount for p in pots) + carried
    rake = sum(p.rake for p in pots)
    parts = ""
    if len(pots) > 1:
        parts = f" Main pot {pots[0].amount}." + "".join(
            f" Side pot-{p.index} {p.amount}." for p in pots[1:]
        )
    return f"Total pot {total}{parts} | Rake {rake}"


def many(hands: Iterable[LoggedHand]) -> Iterator[str]:
    """The hands as one file, apart by blank lines."""
    for n, hand in enumerate(hands):
        yield ("\n\n" if n else "") + one(hand)


FORMAT = Format("pokerstars", "PokerStars-style text", ".txt", one, many, ".txt")
