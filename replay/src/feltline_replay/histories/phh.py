"""PHH, the poker hand history PokerKit reads (https://github.com/uoftcprg/phh-std):
a hand is a TOML file, a set of hands a ``.phhs`` file of numbered tables.

Every game is written. A variant code is a letter for the structure (``F``
fixed limit, ``N`` no limit, ``P`` pot limit) and the game's: ``T``
hold'em, ``7S/8`` seven-card stud high-low (``7S/8B`` with the joker, the
bug), ``5D/D`` five-card draw high-low by declaration, ``5DJ`` jackpots.
``NT``, ``FT`` and ``F7S/8`` are PHH's own, and PokerKit replays them; the
others are Feltline's (the specification lets a writer add codes), which
PokerKit reads but cannot replay. What PHH has no field for is in user
fields (``_`` prefix): ``_low`` (draw-declare's low), ``_draw_limit`` (the
cards a seat may draw), ``_carried`` (each player's chips in a jackpots pot
from earlier deals), ``_dead`` (dead money), ``_opener`` and ``_set_aside``
(jackpots' opener and the discards kept to prove the openers),
``_declarations`` (each player's, ``""`` for none), ``_carried_over`` (the
pot a passed deal carries to the next), ``_won`` (each player's winnings,
after the rake), ``_rake`` and ``_hand_id``. A draw is ``pN sd CARDS`` (the
discards; ``pN sd`` stands pat), the new cards a ``d dh`` line after it;
the joker is ``Jk``. Refused: a hand in which a newcomer posted a big blind
out of position (PHH posts blinds by position) and a cancelled hand (it
has no result).

Players are numbered from the seat after the button (``p1``) round to the
button, as PHH numbers them. Where PokerKit, replaying a hold'em or stud
file, expects a line that Feltline's events do not hold, it is put where
PokerKit looks for it:

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
rake). Cards the viewer may not see are ``??``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime

from feltline.engine.cards.card import Card
from feltline.engine.hand.decide import NEW_HAND
from feltline.engine.hand.events import (
    Acted,
    Action,
    BetsCollected,
    BoardDealt,
    CardDealt,
    DeclarationsRevealed,
    Drew,
    PassedOut,
    PotAwarded,
    Shown,
    StreetBegan,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game, Rules, Structure
from feltline.engine.hand.script import Kind
from feltline.engine.hand.state import Hand
from feltline.engine.hand.turn import first_to_act
from feltline_replay.histories.format import Format, Unwritable
from feltline_replay.histories.hands import LoggedHand

STRUCTURES = {Structure.FIXED_LIMIT: "F", Structure.NO_LIMIT: "N", Structure.POT_LIMIT: "P"}
GAMES = {
    Game.HOLDEM: "T",
    Game.STUD_HI_LO: "7S/8",
    Game.DRAW_DECLARE: "5D/D",
    Game.JACKPOTS: "5DJ",
    Game.OMAHA: "O",
    Game.OMAHA_HI_LO: "O/8",
    Game.STUD: "7S",
    Game.RAZZ: "R",
}
REPLAYED = frozenset({"NT", "FT", "F7S/8", "F7S", "FR"})
"""PHH's own codes among Feltline's games, the ones PokerKit replays."""


def code(rules: Rules) -> str:
    """The hand's variant code: PHH's where it has one, Feltline's otherwise."""
    joker = "B" if rules.joker else ""
    return STRUCTURES[rules.stakes.structure] + GAMES[rules.game] + joker


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
    variant = code(rules)
    order = _from_button(deal.button, [s.seat for s in deal.seats])
    index = {seat: n for n, seat in enumerate(order)}
    at = {s.seat: s for s in deal.seats}
    players = len(order)
    ante = stakes.ante if deal.antes else 0
    fields = [
        f"variant = {_text(variant)}",
        "ante_trimming_status = true",
        f"antes = {[ante] * players}",
    ]
    if rules.variant.blinds:
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
    elif rules.variant.bring_in:
        fields.append(f"bring_in = {stakes.bring_in}")
    if stakes.structure is not Structure.FIXED_LIMIT:
        fields.append(f"min_bet = {stakes.big_blind or stakes.small_bet}")
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
    if hand.stage is not None:  # a tournament's hand: PHH's event and level
        fields += [f"event = {_text(hand.stage.name)}", f"level = {hand.stage.level}"]
    if hand.at is not None:
        when = datetime.fromtimestamp(hand.at, UTC)
        fields += [
            f"year = {when.year}",
            f"month = {when.month}",
            f"day = {when.day}",
            f"time = {_text(when.strftime('%H:%M:%S'))}",
            f"time_zone = {_text('UTC')}",
        ]
    fields += _user_fields(hand, order, index)
    fields.append(f"_rake = {hand.ended.rake}")
    fields.append(f"_hand_id = {_text(hand.id)}")
    return fields


def _user_fields(hand: LoggedHand, order: list[int], index: dict[int, int]) -> list[str]:
    """What PHH has no field for, in user fields, each player's in PHH's order."""
    deal = hand.started.deal
    rules = hand.started.rules
    at = {s.seat: s for s in deal.seats}
    fields = []
    if rules.variant.chooses_low:
        fields.append(f"_low = {_text(rules.low.value)}")
    if rules.variant.draws:
        fields.append(f"_draw_limit = {rules.draw_limit(rules.fixed_seats or len(order))}")
    if any(s.carried for s in deal.seats):
        fields.append(f"_carried = {[at[s].carried for s in order]}")
    if deal.dead:
        fields.append(f"_dead = {deal.dead}")
    won = dict.fromkeys(order, 0)
    for event in hand.events:
        match event:
            case Drew(seat=seat, set_aside=True, discards=discards):
                fields.append(f"_opener = {_text(f'p{index[seat] + 1}')}")
                fields.append(f"_set_aside = {_text(_cards(discards or ()))}")
            case DeclarationsRevealed(choices=choices):
                said = dict(choices)
                fields.append(
                    "_declarations = ["
                    + ", ".join(_text(said[s].value if s in said else "") for s in order)
                    + "]"
                )
            case PassedOut(carried=carried, dead=dead):
                fields.append(f"_carried_over = {sum(c for _, c in carried) + dead}")
            case PotAwarded(shares=shares):
                for share in shares:
                    won[share.seat] += share.amount
    fields.append(f"_won = {[won[s] for s in order]}")
    return fields


def _actions(hand: LoggedHand, order: list[int], index: dict[int, int]) -> list[str]:
    """The action lines, with the showdown where PHH expects it."""
    rules = hand.started.rules
    script = rules.variant.steps
    drawn = rules.variant.draws  # no cards to come after the betting
    last_bet = max(n for n, step in enumerate(script) if step.kind is Kind.BET)
    last_deal = script[last_bet - 1]
    down_last = last_deal.kind is Kind.DEAL and not any(last_deal.faces)
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
            if runout and step == last_bet - 1 and down_last:
                show_down()  # the seventh-street card came face down
        match event:
            case CardDealt(seat=seat, card=card):
                dealing.setdefault(seat, []).append(card)
                seen[seat].append(card)
            case BoardDealt(cards=cards):
                lines.append(f"d db {_cards(cards)}")
            case Drew(seat=seat, discards=discards, count=count):
                thrown = [None] * count if discards is None else list(discards)
                lines.append(f"{name[seat]} sd {_cards(thrown)}".rstrip())
                seen[seat] = [c for c in seen[seat] if c is None or c not in thrown]
                del seen[seat][: count if discards is None else 0]
            case StreetBegan(step=step):
                if script[step].kind is Kind.BET:
                    opener, asks, last = first_to_act(state, script[step]), _asked(state), None
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
                if not runout and not drawn and step < last_bet and len(live) > 1 and alone:
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
