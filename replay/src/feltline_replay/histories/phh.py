"""PHH, the poker hand history PokerKit reads (https://github.com/uoftcprg/phh-std):
a hand is a TOML file, a set of hands a ``.phhs`` file of numbered tables.

Only games with a PHH variant code are written: no-limit hold'em ``NT``,
fixed-limit hold'em ``FT`` and fixed-limit seven-card stud high-low
``F7S/8`` without the joker; pot-limit hold'em, the joker, draw-declare and
jackpots are refused with the reason. Players are numbered from the seat
after the button (``p1``) round to the button, as PHH numbers them. Where a
reader replaying the file expects a line that Feltline's events do not
hold, it is put where that reader looks for it:

- in an all-in runout (a betting round ends with at most one live player
  holding chips), every live hand is shown as soon as the betting is over,
  before the cards still to come; in stud they are shown again, all seven
  cards, after the seventh-street card, which is dealt face down;
- the showdown lines come in PHH's order: from the last player to bet or
  raise in the last betting round (or the first to act in it, if nobody
  did) round the table, live players only; a live hand Feltline did not
  show is mucked (``pN sm``);
- a live seat with chips that Feltline no longer asks, once nobody is
  left to bet against, checks (``pN cc``, with a comment saying so) where
  PHH still asks it: every seat that could lose more than it has bet is
  asked when a round begins, every seat with chips after a bet or raise;
- antes are written with ``ante_trimming_status = true``, so a stack
  shorter than its ante posts what it has.

The optional ``finishing_stacks`` are Feltline's final stacks, after the
rake: a reader checks its own replay against them (give it the table's
rake). ``_rake`` and ``_hand_id`` are user fields (PHH's ``_`` prefix):
the hand's rake and its Feltline id. Cards the viewer may not see are
``??``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime

from feltline.engine.cards import Card
from feltline.engine.events import (
    Acted,
    Action,
    BetsCollected,
    BoardDealt,
    CardDealt,
    Shown,
    StreetBegan,
)
from feltline.engine.evolve import evolve
from feltline.engine.hand import NEW_HAND
from feltline.engine.rules import Game, Structure
from feltline.engine.script import SCRIPTS, Kind
from feltline.engine.state import Hand
from feltline.engine.turn import first_to_act
from feltline_replay.histories.format import Format, Unwritable
from feltline_replay.histories.hands import LoggedHand

CODES = {
    (Game.HOLDEM, Structure.NO_LIMIT): "NT",
    (Game.HOLDEM, Structure.FIXED_LIMIT): "FT",
    (Game.STUD_HI_LO, Structure.FIXED_LIMIT): "F7S/8",
}
"""The games PHH has a variant code for."""

MOVES = {
    Action.FOLD: "f",
    Action.CHECK: "cc",
    Action.CALL: "cc",
    Action.BRING_IN: "pb",
}
"""Actions with no amount; a bet, raise or completion is ``cbr`` to its total."""


def refuses(hand: LoggedHand) -> str | None:
    """Why PHH cannot hold the hand, or None."""
    started = hand.started
    rules = started.rules
    structure = rules.stakes.structure
    if (rules.game, structure) not in CODES:
        return f"PHH has no variant code for {structure} {rules.game}"
    if rules.joker:
        return "PHH has no variant code for stud with the joker"
    if started.deal.extra_big_blinds:
        return "PHH cannot post a newcomer's big blind out of position"
    if hand.ended.cancelled:
        return "the hand was cancelled: it has no result to replay"
    return None


def one(hand: LoggedHand) -> str:
    """The hand as a ``.phh`` file."""
    reason = refuses(hand)
    if reason is not None:
        raise Unwritable(reason)
    return "\n".join(_fields(hand)) + "\n"


def many(hands: Iterable[LoggedHand]) -> Iterator[str]:
    """The hands as one ``.phhs`` file: each a table numbered from 1."""
    for number, hand in enumerate(hands, 1):
        yield ("\n" if number > 1 else "") + f"[{number}]\n{one(hand)}"


def _fields(hand: LoggedHand) -> list[str]:
    started = hand.started
    deal = started.deal
    rules = started.rules
    stakes = rules.stakes
    code = CODES[rules.game, stakes.structure]
    order = _from_button(deal.button, [s.seat for s in deal.seats])
    index = {seat: n for n, seat in enumerate(order)}
    at = {s.seat: s for s in deal.seats}
    players = len(order)
    ante = stakes.ante if deal.antes else 0
    fields = [
        f"variant = {_text(code)}",
        "ante_trimming_status = true",
        f"antes = {[ante] * players}",
    ]
    if rules.game is Game.HOLDEM:
        blinds = [0] * players
        for seat, amount in (
            (deal.small_blind, stakes.small_blind),
            (deal.big_blind, stakes.big_blind),
        ):
            if seat is not None:
                # PokerKit reverses the blinds heads up, where the button posts the small one.
                at_index = index[seat] if players > 2 else 1 - index[seat]
                blinds[at_index] = amount
        fields.append(f"blinds_or_straddles = {blinds}")
    else:
        fields.append(f"bring_in = {stakes.bring_in}")
    if code == "NT":
        fields.append(f"min_bet = {stakes.big_blind}")
    else:
        fields += [f"small_bet = {stakes.small_bet}", f"big_bet = {stakes.big_bet}"]
    fields.append(f"starting_stacks = {[at[s].stack for s in order]}")
    fields.append("actions = [")
    fields += [f"  {_text(a)}," for a in _actions(hand, order, index)]
    fields.append("]")
    fields.append("players = [" + ", ".join(_text(at[s].player) for s in order) + "]")
    final = dict(hand.ended.stacks)
    fields.append(f"finishing_stacks = {[final[s] for s in order]}")
    fields.append(f"seats = {order}")
    if hand.table is not None:
        fields.append(f"seat_count = {hand.table.seats}")
        fields.append(f"table = {_text(hand.table.name or hand.table.id)}")
    if hand.number is not None:
        fields.append(f"hand = {hand.number}")
    if hand.at is not None:
        when = datetime.fromtimestamp(hand.at, UTC)
        fields += [
            f"year = {when.year}",
            f"month = {when.month}",
            f"day = {when.day}",
            f"time = {_text(when.strftime('%H:%M:%S'))}",
            f"time_zone = {_text('UTC')}",
        ]
    fields.append(f"_rake = {hand.ended.rake}")
    fields.append(f"_hand_id = {_text(hand.id)}")
    return fields


def _actions(hand: LoggedHand, order: list[int], index: dict[int, int]) -> list[str]:
    """The action lines, with the showdown where PHH expects it."""
    script = SCRIPTS[hand.started.rules.game]
    last_bet = max(n for n, step in enumerate(script) if step.kind is Kind.BET)
    shown = {e.seat: e.cards for e in hand.events if isinstance(e, Shown)}
    name = {seat: f"p{index[seat] + 1}" for seat in order}
    state: Hand = NEW_HAND
    lines: list[str] = []
    dealing: dict[int, list[Card | None]] = {}
    seen: dict[int, list[Card | None]] = {seat: [] for seat in order}
    opener: int | None = None
    asks: set[int] = set()  # whom PHH asks to act in this round and has not yet
    last: int | None = None
    runout = False
    step = 0

    def deal() -> None:
        lines.extend(f"d dh {name[s]} {_cards(cards)}" for s, cards in dealing.items())
        dealing.clear()

    def show_down() -> None:
        """Every live hand, in PHH's order from the opener."""
        start = index[opener] if opener is not None else 0
        for seat in order[start:] + order[:start]:
            if state.player(seat).folded:
                continue
            if seat in shown:
                cards = _known(seen[seat], shown[seat])
                lines.append(f"{name[seat]} sm {_cards(cards)}")
            else:
                lines.append(f"{name[seat]} sm")

    def checks() -> None:
        """A seat PHH still asks, whom Feltline no longer does, checks."""
        if last is None or sum(not p.folded for p in state.players) < 2:
            return
        start = index[last] + 1
        for seat in order[start:] + order[:start]:
            p = state.player(seat)
            if seat in asks and not p.folded and p.stack > 0:
                lines.append(f"{name[seat]} cc # not asked by Feltline: nobody left to bet against")

    for event, played in zip(hand.events, hand.played, strict=True):
        if isinstance(event, BetsCollected):
            checks()  # from the stacks before an uncalled bet comes back
        state = evolve(state, played)
        if not isinstance(event, CardDealt) and dealing:
            deal()
            if runout and step == last_bet - 1 and hand.started.rules.game is Game.STUD_HI_LO:
                show_down()  # the seventh-street card came face down
        match event:
            case CardDealt(seat=seat, card=card):
                dealing.setdefault(seat, []).append(card)
                seen[seat].append(card)
            case BoardDealt(cards=cards):
                lines.append(f"d db {_cards(cards)}")
            case StreetBegan(step=step):
                if script[step].kind is Kind.BET:
                    opener, asks, last = first_to_act(state), _asked(state), None
                elif script[step].kind is Kind.SHOWDOWN and not runout:
                    show_down()
            case Acted(seat=seat, action=action, total=total):
                lines.append(f"{name[seat]} " + MOVES.get(action, f"cbr {total}"))
                asks.discard(seat)
                if action in (Action.BET, Action.RAISE, Action.COMPLETE):
                    opener = seat
                    asks = {p.seat for p in state.players if p.active and p.seat != seat}
                last = seat
            case BetsCollected():
                live = [p for p in state.players if not p.folded]
                alone = sum(p.stack > 0 for p in live) <= 1
                if not runout and step < last_bet and len(live) > 1 and alone:
                    runout = True
                    show_down()
    if dealing:
        deal()
    return lines


def _asked(state: Hand) -> set[int]:
    """Whom PHH asks to act when a betting round begins: live seats with
    chips that could still lose more than they have bet (the second biggest
    live total is above their bet); none when that is one seat already
    covering the biggest bet."""
    live = [p for p in state.players if not p.folded]
    totals = sorted(p.bet + p.stack for p in live)
    if len(totals) < 2:
        return set()
    asked = {p.seat for p in live if p.stack > 0 and totals[-2] > p.bet}
    top = max(p.bet for p in live)
    if len(asked) == 1 and state.player(next(iter(asked))).bet >= top:
        return set()
    return asked


def _from_button(button: int, seats: Sequence[int]) -> list[int]:
    """The seats from the first after the button round to the button."""
    ordered = sorted(seats)
    after = [s for s in ordered if s > button]
    return after + [s for s in ordered if s <= button]


def _known(dealt: Sequence[Card | None], shown: Sequence[Card]) -> list[Card | None]:
    """The cards dealt so far, in order, filled in from those shown."""
    if all(c is not None for c in dealt):
        return list(dealt)
    return list(shown[: len(dealt)])


def _cards(cards: Iterable[Card | None]) -> str:
    return "".join("??" if c is None else str(c) for c in cards)


def _text(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


FORMAT = Format("phh", "Poker Hand History (PokerKit)", ".phh", one, many, ".phhs", refuses)
