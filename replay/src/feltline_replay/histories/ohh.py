"""Open Hand History (https://hh-specs.handhistory.org), JSON, spec 1.4.6.

Every game is written. A hand is one JSON object ``{"ohh": {...}}``; a set
is those objects one a line, each followed by a blank line. Chips are
integers and the currency ``XXX`` (ISO 4217's "no currency"). A player's
``id`` is their seat number. How Feltline's hands map onto the spec's
words (docs/replay.md has the table):

- ``game_type`` is ``Holdem``, ``Omaha``, ``OmahaHiLo``, ``Stud`` (stud
  and razz), ``StudHiLo`` or ``Draw`` (draw-declare and jackpots), and
  ``feltline_game`` the game's own name; ``bet_limit.bet_type`` ``NL``,
  ``PL`` or ``FL``.
- One round per betting round, holding the cards dealt and the draw before
  it. The spec names five streets, so a round's ``street`` is ``Preflop``
  for the first betting round, ``River`` for the last, ``Flop`` for the
  second and ``Turn`` for any between (stud's fifth and sixth streets;
  draw has only ``Preflop`` and ``River``); ``feltline_street`` names it
  exactly. A last round, ``Showdown``, holds the hands shown.
- Actions: antes, blinds and a newcomer's big blind are ``Post Ante``,
  ``Post SB``, ``Post BB``, ``Post Extra Blind``; chips carried into a
  jackpots pot from earlier deals are ``Add to Pot`` without a player (its
  seat in ``feltline_player_id``), as is dead money: they come from no
  stack of this hand, so a reader that takes every player's ``Add to Pot``
  from their stack still gets the stacks right. The bring-in is a ``Bet`` and a completion a
  ``Raise`` (a ``Bet`` when it opens), each with ``feltline_action``. A
  draw is ``Mucks Cards`` with the discards (none when standing pat) and
  ``feltline_action`` ``draw``, then ``Dealt Cards`` with the new ones.
  ``amount`` is always the chips the action puts in.
- Fields the spec lacks start ``feltline_``: an uncalled bet handed back
  (a round's ``feltline_returned``; a cancelled hand, ``feltline_cancelled``,
  hands back there all that was put in), the declarations of draw-declare (the
  showdown's ``feltline_declarations``), the openers' set-aside cards
  (``feltline_set_aside``), the pot a passed jackpots deal carries to the
  next (``feltline_carried_over``), and how many dealt cards the viewer may
  not see (``feltline_hidden``). The joker, a card the spec's list does
  not have, is left out of an action's ``cards``, which the spec's
  readers validate, and the action's ``feltline_cards`` has the whole
  list, ``Jk`` in it.

A tournament's hand (when the log carries its tournament) has
``tournament`` true and ``tournament_info``: the tournament's id, name,
start, buy-in and fee (in account chips, ``PPC``, the spec's play chips),
starting stack, ``STT`` or ``MTT`` as it began on one table or more, and
the level's minutes as ``speed.round_time``; the hand's level is
``feltline_level``, its blinds the hand's own.

So the chips add up: the actions' amounts, less what came back, are the
pots (rake included) plus what a passed deal carries over; each pot's wins
are its amount less its rake.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from feltline.engine.cards.card import JOKER_TOKEN, Card
from feltline.engine.hand.events import (
    Acted,
    Action,
    BetsCollected,
    BoardDealt,
    CardDealt,
    DeclarationsRevealed,
    Drew,
    Forced,
    PassedOut,
    Posted,
    PotAwarded,
    Shown,
    StreetBegan,
)
from feltline.engine.hand.rules import Game, Structure
from feltline.engine.hand.script import Kind
from feltline_replay.histories.format import Format
from feltline_replay.histories.hands import LoggedHand, Stage

SPEC_VERSION = "1.4.6"
GAME_TYPES = {
    Game.HOLDEM: "Holdem",
    Game.STUD_HI_LO: "StudHiLo",
    Game.OMAHA: "Omaha",
    Game.OMAHA_HI_LO: "OmahaHiLo",
    Game.STUD: "Stud",
    Game.RAZZ: "Stud",
}
"""The spec's ``game_type``; the two draw games are ``Draw``, and razz,
which the spec lacks, ``Stud``: ``feltline_game`` names every game."""
BET_TYPES = {Structure.NO_LIMIT: "NL", Structure.POT_LIMIT: "PL", Structure.FIXED_LIMIT: "FL"}
POSTS = {Forced.ANTE: "Post Ante", Forced.SMALL_BLIND: "Post SB", Forced.BIG_BLIND: "Post BB"}
ACTS = {
    Action.FOLD: "Fold",
    Action.CHECK: "Check",
    Action.CALL: "Call",
    Action.BET: "Bet",
    Action.RAISE: "Raise",
    Action.BRING_IN: "Bet",
}


@dataclass
class _Round:
    street: str
    name: str
    cards: list[str] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def history(hand: LoggedHand) -> dict[str, Any]:
    """The hand as the spec's ``ohh`` object."""
    started = hand.started
    deal = started.deal
    rules = started.rules
    stakes = rules.stakes
    script = rules.variant.steps
    bets = [n for n, step in enumerate(script) if step.kind is Kind.BET]
    streets = {n: _street(i, len(bets)) for i, n in enumerate(bets)}
    rounds = [_Round("Preflop", script[bets[0]].name)]
    pots: list[dict[str, Any]] = []
    number = 0
    level = 0  # the bet to match in this betting round

    def act(seat: int | None, what: str, **more: Any) -> None:
        nonlocal number
        number += 1
        action: dict[str, Any] = {"action_number": number}
        if seat is not None:
            action["player_id"] = seat
        action["action"] = what
        action.update(more)
        rounds[-1].actions.append(action)

    for s in deal.seats:
        if s.carried:  # in the pot before this deal: from no stack of this hand
            act(
                None,
                "Add to Pot",
                amount=s.carried,
                feltline_action="carried",
                feltline_player_id=s.seat,
            )
    if deal.dead:
        act(None, "Add to Pot", amount=deal.dead, feltline_action="dead")
    betting = False
    dealing: dict[int, list[Card | None]] = {}
    for event in hand.events:
        if dealing and not isinstance(event, CardDealt):
            for to, dealt in dealing.items():
                _dealt(to, dealt, act)
            dealing.clear()
        match event:
            case StreetBegan(step=step):
                kind = script[step].kind
                if kind is Kind.BET:
                    rounds[-1].street, rounds[-1].name = streets[step], script[step].name
                    betting, level = True, 0
                elif betting:
                    street = "Showdown" if kind is Kind.SHOWDOWN else "River"
                    rounds.append(_Round(street, script[step].name))
                    betting = False
                if kind is Kind.SHOWDOWN:
                    rounds[-1].street = "Showdown"
            case Posted(seat=seat, forced=forced, amount=amount, all_in=all_in):
                what = POSTS[forced]
                if forced is Forced.BIG_BLIND and seat in deal.extra_big_blinds:
                    what = "Post Extra Blind"
                act(seat, what, amount=amount, is_allin=all_in)
                if forced is not Forced.ANTE:
                    level = max(level, amount)
            case CardDealt(seat=seat, card=card):
                dealing.setdefault(seat, []).append(card)
            case BoardDealt(cards=cards):
                rounds[-1].cards += [str(c) for c in cards]  # hold'em's: never the joker
            case Drew(seat=seat, discards=discards, count=count):
                more: dict[str, Any] = {**_cards(discards or ()), "feltline_action": "draw"}
                if discards is None and count:
                    more["feltline_hidden"] = count
                act(seat, "Mucks Cards", **more)
            case Acted(seat=seat, action=action, amount=amount, total=total, all_in=all_in):
                what = ("Raise" if level else "Bet") if action is Action.COMPLETE else ACTS[action]
                more = {"amount": amount, "is_allin": all_in}
                if action in (Action.BRING_IN, Action.COMPLETE):
                    more["feltline_action"] = action.value
                act(seat, what, **more)
                level = max(level, total)
            case BetsCollected(returned_to=back_to, returned=returned) if back_to is not None:
                back = rounds[-1].extra.setdefault("feltline_returned", [])
                back.append({"player_id": back_to, "amount": returned})
            case DeclarationsRevealed(choices=choices):
                rounds[-1].extra["feltline_declarations"] = [
                    {"player_id": s, "choice": c.value} for s, c in choices
                ]
            case Shown(seat=seat, cards=cards, set_aside=aside):
                more = _cards(cards)
                if aside:
                    more["feltline_set_aside"] = [str(c) for c in aside]
                act(seat, "Shows Cards", **more)
            case PotAwarded():
                pots.append(_pot(event))
            case PassedOut(carried=carried, dead=dead):
                rounds[-1].extra["feltline_carried_over"] = sum(c for _, c in carried) + dead
    refunds = hand.refunds()
    if refunds:
        back = rounds[-1].extra.setdefault("feltline_returned", [])
        back += [{"player_id": s, "amount": a} for s, a in refunds.items()]
    ohh: dict[str, Any] = {
        "spec_version": SPEC_VERSION,
        "site_name": "Feltline",
        "network_name": "Feltline",
        "internal_version": "feltline-log 1",
        "tournament": False,
        "game_number": hand.id,
        "start_date_utc": _when(hand.at),
        "table_name": (hand.table.name or hand.table.id) if hand.table else "",
        "game_type": GAME_TYPES.get(rules.game, "Draw"),
        "feltline_game": rules.game.value,
        "bet_limit": {"bet_type": BET_TYPES[stakes.structure]},
        "table_size": hand.table.seats if hand.table else len(deal.seats),
        "currency": "XXX",
        "dealer_seat": deal.button,
        "small_blind_amount": stakes.small_blind,
        "big_blind_amount": stakes.big_blind,
        "ante_amount": stakes.ante,
    }
    if hand.stage is not None:
        ohh["tournament"] = True
        ohh["tournament_info"] = _tournament(hand.stage)
        ohh["feltline_level"] = hand.stage.level
    if hand.ended.cancelled:
        ohh["feltline_cancelled"] = True
    if hand.table is not None:
        ohh["table_handle"] = hand.table.id
    if hand.viewer.seat is not None:
        ohh["hero_player_id"] = hand.viewer.seat
    if hand.viewer.role == "spectator":
        ohh["flags"] = ["Observed"]
    ohh["players"] = [
        {"id": s.seat, "seat": s.seat, "name": s.player, "starting_stack": s.stack}
        for s in deal.seats
    ]
    ohh["rounds"] = [
        {
            "id": n,
            "street": r.street,
            **({"cards": r.cards} if r.cards else {}),
            "actions": r.actions,
            "feltline_street": r.name,
            **r.extra,
        }
        for n, r in enumerate(rounds)
    ]
    ohh["pots"] = pots
    return {"ohh": ohh}


def _tournament(stage: Stage) -> dict[str, Any]:
    """The spec's tournament_info: buy-in and fee in account chips, which
    the spec's currencies name as play chips (``PPC``); a tournament that
    began on one table is its ``STT``, on more its ``MTT``. The spec's
    speed is the level's minutes (0 for a level of so many hands)."""
    return {
        "tournament_number": stage.tournament,
        "name": stage.name,
        "start_date_utc": _when(stage.started_at),
        "currency": "PPC",
        "buyin_amount": stage.buy_in,
        "fee_amount": stage.fee,
        "initial_stack": stage.stack,
        "type": "STT" if stage.tables == 1 else "MTT",
        "speed": {"type": "Normal", "round_time": stage.minutes},
    }


def _street(index: int, rounds: int) -> str:
    if index == 0:
        return "Preflop"
    if index == rounds - 1:
        return "River"
    return "Flop" if index == 1 else "Turn"


def _dealt(seat: int, cards: list[Card | None], act: Callable[..., None]) -> None:
    """A seat's cards of one deal, as far as the viewer may see them."""
    more = _cards([c for c in cards if c is not None])
    hidden = sum(c is None for c in cards)
    if hidden:
        more["feltline_hidden"] = hidden
    act(seat, "Dealt Cards", **more)


def _cards(cards: Iterable[Card]) -> dict[str, Any]:
    """An action's ``cards``, the spec's 52; with the joker, which the spec
    has no card for, left out there and the whole list, ``Jk`` in its
    place, in ``feltline_cards``."""
    named = [str(c) for c in cards]
    if JOKER_TOKEN not in named:
        return {"cards": named}
    return {"cards": [c for c in named if c != JOKER_TOKEN], "feltline_cards": named}


def _pot(event: PotAwarded) -> dict[str, Any]:
    wins: dict[int, int] = {}
    for share in event.shares:
        wins[share.seat] = wins.get(share.seat, 0) + share.amount
    return {
        "number": event.index,
        "amount": event.amount,
        "rake": event.rake,
        "player_wins": [{"player_id": s, "win_amount": a} for s, a in wins.items()],
    }


def _when(at: int | None) -> str:
    moment = datetime.fromtimestamp(at or 0, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def one(hand: LoggedHand) -> str:
    """The hand as a ``.ohh`` file."""
    return json.dumps(history(hand), separators=(",", ":")) + "\n"


def many(hands: Iterable[LoggedHand]) -> Iterator[str]:
    """The hands as one file: each object on a line, then a blank line."""
    for hand in hands:
        yield one(hand) + "\n"


FORMAT = Format("ohh", "Open Hand History JSON 1.4", ".ohh", one, many, ".ohh")
