"""Engine events as ``feltline.v1`` Event messages, one oneof case each.

Conversion is mechanical and knows no rules of visibility: it is given an
event already as the viewer may see it (:mod:`feltline.api.redaction`) and
a flag saying whether anything was withheld. What the engine withholds as
``None`` becomes an absent field, so a client can tell "withheld" from
"none"; a deck's seed and order are withheld as empty values, which no
real shuffle has, and become absent too.

Engine enums map to the contract's by name (``Action.BRING_IN`` is
``ACTION_KIND_BRING_IN``); times, whole seconds in the engine, become
Timestamps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import singledispatch
from typing import Any

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from feltline.engine.cards.card import Card
from feltline.engine.hand import events as hand
from feltline.engine.hand import rules as engine_rules
from feltline.engine.hand.rules import Structure
from feltline.engine.table import events as table_events
from feltline.engine.table import house
from feltline_protos.v1 import common_pb2, events_pb2


@dataclass(frozen=True, slots=True)
class Where:
    """Where an event sits. ``hand_number`` and ``hand_id`` name the hand of
    a hand event; table events carry neither, except that a ``HandDealt``
    carries, in its own message, the id of the hand it deals (``hand_id``)."""

    table_id: str
    sequence: int
    hand_number: int = 0
    hand_id: str = ""
    time: datetime | None = None


def to_proto(event: hand.Event, where: Where, *, redacted: bool = False) -> events_pb2.Event:
    """``event``, as given, in the contract's form."""
    table_event = isinstance(event, table_events.TableEvent)
    message = events_pb2.Event(
        table_id=where.table_id,
        hand_number=0 if table_event else where.hand_number,
        hand_id="" if table_event else where.hand_id,
        sequence=where.sequence,
        redacted=redacted,
    )
    if where.time is not None:
        message.time.FromDatetime(where.time)
    case, body = _body(event, where)
    getattr(message, case).CopyFrom(body)
    return message


# ---- hand events


@singledispatch
def _body(event: hand.Event, where: Where) -> tuple[str, Message]:
    raise TypeError(f"no Event case for {type(event).__name__}")


@_body.register
def _hand_started(e: hand.HandStarted, where: Where) -> tuple[str, Message]:
    return "hand_started", events_pb2.HandStarted(
        rules=rules(e.rules), commitment=e.commitment, algorithm=e.algorithm, **_deal(e.deal)
    )


@_body.register
def _deck_shuffled(e: hand.DeckShuffled, where: Where) -> tuple[str, Message]:
    return "deck_shuffled", events_pb2.DeckShuffled(
        seed=e.seed or None,
        cards=_card_list(e.cards or None),
        purpose=e.purpose,
    )


@_body.register
def _seed_drawn(e: hand.SeedDrawn, where: Where) -> tuple[str, Message]:
    return "seed_drawn", events_pb2.SeedDrawn(seed=e.seed or None)


@_body.register
def _contributions_opened(e: hand.ContributionsOpened, where: Where) -> tuple[str, Message]:
    return "contributions_opened", events_pb2.ContributionsOpened(
        seats=e.seats, required=e.required
    )


@_body.register
def _contribution_committed(e: hand.ContributionCommitted, where: Where) -> tuple[str, Message]:
    return "contribution_committed", events_pb2.ContributionCommitted(
        seat=e.seat, commitment=e.commitment
    )


@_body.register
def _reveals_opened(e: hand.RevealsOpened, where: Where) -> tuple[str, Message]:
    return "reveals_opened", events_pb2.RevealsOpened(seats=e.seats)


@_body.register
def _contribution_revealed(e: hand.ContributionRevealed, where: Where) -> tuple[str, Message]:
    return "contribution_revealed", events_pb2.ContributionRevealed(
        seat=e.seat, contribution=e.contribution
    )


@_body.register
def _street_began(e: hand.StreetBegan, where: Where) -> tuple[str, Message]:
    return "street_began", events_pb2.StreetBegan(step=e.step, name=e.name, order=e.order)


@_body.register
def _posted(e: hand.Posted, where: Where) -> tuple[str, Message]:
    return "posted", events_pb2.Posted(
        seat=e.seat,
        forced=common_pb2.ForcedBet.Value("FORCED_BET_" + e.forced.name),
        amount=e.amount,
        all_in=e.all_in,
    )


@_body.register
def _card_dealt(e: hand.CardDealt, where: Where) -> tuple[str, Message]:
    return "card_dealt", events_pb2.CardDealt(
        seat=e.seat,
        card=None if e.card is None else str(e.card),
        face_up=e.face_up,
        position=e.position,
        stub=e.stub,
    )


@_body.register
def _board_dealt(e: hand.BoardDealt, where: Where) -> tuple[str, Message]:
    return "board_dealt", events_pb2.BoardDealt(
        cards=_cards(e.cards), positions=e.positions, stub=e.stub
    )


@_body.register
def _acted(e: hand.Acted, where: Where) -> tuple[str, Message]:
    return "acted", events_pb2.Acted(
        seat=e.seat,
        action=common_pb2.ActionKind.Value("ACTION_KIND_" + e.action.name),
        amount=e.amount,
        total=e.total,
        all_in=e.all_in,
        timed_out=e.timed_out,
    )


@_body.register
def _bets_collected(e: hand.BetsCollected, where: Where) -> tuple[str, Message]:
    return "bets_collected", events_pb2.BetsCollected(
        returned_to=e.returned_to, returned=e.returned, pot=e.pot
    )


@_body.register
def _drew(e: hand.Drew, where: Where) -> tuple[str, Message]:
    return "drew", events_pb2.Drew(
        seat=e.seat,
        discards=_card_list(e.discards),
        count=e.count,
        set_aside=e.set_aside,
        timed_out=e.timed_out,
    )


@_body.register
def _stub_reshuffled(e: hand.StubReshuffled, where: Where) -> tuple[str, Message]:
    return "stub_reshuffled", events_pb2.StubReshuffled(
        cards=_card_list(e.cards), count=e.count, purpose=e.purpose
    )


@_body.register
def _declared(e: hand.Declared, where: Where) -> tuple[str, Message]:
    return "declared", events_pb2.Declared(
        seat=e.seat,
        choice=None
        if e.choice is None
        else common_pb2.Declaration.Value("DECLARATION_" + e.choice.name),
        timed_out=e.timed_out,
    )


@_body.register
def _declarations_revealed(e: hand.DeclarationsRevealed, where: Where) -> tuple[str, Message]:
    return "declarations_revealed", events_pb2.DeclarationsRevealed(
        choices=[
            events_pb2.SeatDeclaration(
                seat=seat, choice=common_pb2.Declaration.Value("DECLARATION_" + choice.name)
            )
            for seat, choice in e.choices
        ]
    )


@_body.register
def _shown(e: hand.Shown, where: Where) -> tuple[str, Message]:
    return "shown", events_pb2.Shown(
        seat=e.seat, cards=_cards(e.cards), set_aside=_cards(e.set_aside)
    )


@_body.register
def _pot_awarded(e: hand.PotAwarded, where: Where) -> tuple[str, Message]:
    return "pot_awarded", events_pb2.PotAwarded(
        index=e.index,
        amount=e.amount,
        eligible=e.eligible,
        rake=e.rake,
        shares=[
            events_pb2.Share(
                seat=s.seat,
                amount=s.amount,
                part=events_pb2.PotPart.Value(f"POT_PART_{s.half.upper()}"),
                hand=s.hand,
            )
            for s in e.shares
        ],
    )


@_body.register
def _passed_out(e: hand.PassedOut, where: Where) -> tuple[str, Message]:
    return "passed_out", events_pb2.PassedOut(carried=_amounts(e.carried), dead=e.dead)


@_body.register
def _hand_ended(e: hand.HandEnded, where: Where) -> tuple[str, Message]:
    return "hand_ended", events_pb2.HandEnded(
        stacks=_amounts(e.stacks), seed=e.seed or None, rake=e.rake, cancelled=e.cancelled
    )


# ---- table events


@_body.register
def _table_opened(e: table_events.TableOpened, where: Where) -> tuple[str, Message]:
    return "table_opened", events_pb2.TableOpened(
        config=table_config(e.config), open_time=_time(e.at), display_name=e.name
    )


@_body.register
def _sat_down(e: table_events.SatDown, where: Where) -> tuple[str, Message]:
    sat = events_pb2.SatDown(
        seat=e.seat,
        player_id=e.player,
        buy_in=e.buy_in,
        time=_time(e.at),
        status=common_pb2.SeatStatus.Value("SEAT_STATUS_" + e.entry.name),
    )
    if e.bank is not None:
        sat.time_bank.FromSeconds(e.bank)
    return "sat_down", sat


@_body.register
def _joined_pot(e: table_events.JoinedPot, where: Where) -> tuple[str, Message]:
    return "joined_pot", events_pb2.JoinedPot(seat=e.seat, amount=e.amount)


@_body.register
def _chips_added(e: table_events.ChipsAdded, where: Where) -> tuple[str, Message]:
    return "chips_added", events_pb2.ChipsAdded(seat=e.seat, amount=e.amount)


@_body.register
def _leaving_after_hand(e: table_events.LeavingAfterHand, where: Where) -> tuple[str, Message]:
    return "leaving_after_hand", events_pb2.LeavingAfterHand(seat=e.seat)


@_body.register
def _sat_out(e: table_events.SatOut, where: Where) -> tuple[str, Message]:
    return "sat_out", events_pb2.SatOut(seat=e.seat)


@_body.register
def _sat_in(e: table_events.SatIn, where: Where) -> tuple[str, Message]:
    status = common_pb2.SeatStatus.Value("SEAT_STATUS_" + e.entry.name)
    return "sat_in", events_pb2.SatIn(seat=e.seat, status=status)


@_body.register
def _stood_up(e: table_events.StoodUp, where: Where) -> tuple[str, Message]:
    return "stood_up", events_pb2.StoodUp(
        seat=e.seat, player_id=e.player, stack=e.stack, forfeited=e.forfeited
    )


@_body.register
def _time_charged(e: table_events.TimeCharged, where: Where) -> tuple[str, Message]:
    return "time_charged", events_pb2.TimeCharged(seat=e.seat, amount=e.amount, window=e.window)


@_body.register
def _time_bank_used(e: table_events.TimeBankUsed, where: Where) -> tuple[str, Message]:
    return "time_bank_used", events_pb2.TimeBankUsed(seat=e.seat, seconds=e.seconds, turn=e.turn)


@_body.register
def _hand_dealt(e: table_events.HandDealt, where: Where) -> tuple[str, Message]:
    return "hand_dealt", events_pb2.HandDealt(
        hand_number=e.hand,
        time=_time(e.at),
        commitment=e.commitment,
        hand_id=where.hand_id,
        turn=None if e.turn is None else rotation_turn(e.turn),
        **_deal(e.deal),
    )


@_body.register
def _hand_finished(e: table_events.HandFinished, where: Where) -> tuple[str, Message]:
    return "hand_finished", events_pb2.HandFinished(
        stacks=_amounts(e.stacks),
        rake=e.rake,
        passed_out=e.passed_out,
        carried=_amounts(e.carried),
        dead=e.dead,
    )


@_body.register
def _carried_pot_won(e: table_events.CarriedPotWon, where: Where) -> tuple[str, Message]:
    return "carried_pot_won", events_pb2.CarriedPotWon(seat=e.seat, amount=e.amount)


@_body.register
def _table_closed(e: table_events.TableClosed, where: Where) -> tuple[str, Message]:
    # The contract carries no house field: dead money nobody seated could
    # take back shows in the table's house total.
    return "table_closed", events_pb2.TableClosed(close_time=_time(e.at), reason=e.reason)


@_body.register
def _stakes_changed(e: table_events.StakesChanged, where: Where) -> tuple[str, Message]:
    return "stakes_changed", events_pb2.StakesChanged(stakes=stakes(e.stakes, e.stakes.raise_cap))


# ---- settings


def rules(r: engine_rules.Rules) -> common_pb2.Rules:
    """A hand's rules, every default filled in (the raise cap included)."""
    fixed = r.stakes.structure is Structure.FIXED_LIMIT
    return common_pb2.Rules(
        game=game(r.game),
        stakes=stakes(r.stakes, r.raise_cap if fixed else None),
        low=common_pb2.LowSystem.Value("LOW_SYSTEM_" + r.low.name),
        joker=r.joker,
        draw_limit_small=r.draw_limit_small,
        draw_limit_large=r.draw_limit_large,
        rake=None
        if r.rake is None
        else common_pb2.Rake(basis_points=r.rake.basis_points, cap=r.rake.cap),
        fixed_seats=r.fixed_seats,
    )


def stakes(s: engine_rules.Stakes, raise_cap: int | None) -> common_pb2.Stakes:
    """Stakes, with the raise cap the game gives them (None but in fixed limit)."""
    return common_pb2.Stakes(
        structure=common_pb2.Structure.Value("STRUCTURE_" + s.structure.name),
        small_bet=s.small_bet,
        big_bet=s.big_bet,
        ante=s.ante,
        small_blind=s.small_blind,
        big_blind=s.big_blind,
        bring_in=s.bring_in,
        raise_cap=raise_cap,
        uncapped_heads_up=s.uncapped_heads_up,
    )


def table_config(c: house.TableConfig) -> common_pb2.TableConfig:
    """A table's settings as recorded when it opened."""
    config = common_pb2.TableConfig(
        rules=rules(c.rules),
        seats=c.seats,
        min_buy_in=c.min_buy_in,
        max_buy_in=c.max_buy_in,
        ante_cap=c.ante_cap,
    )
    config.action_clock.FromSeconds(c.action_clock)
    config.seat_entropy = common_pb2.SeatEntropy.Value("SEAT_ENTROPY_" + c.seat_entropy.name)
    config.contribution_window.FromMilliseconds(c.contribution_window_ms)
    if c.time_charge is not None:
        config.time_charge.amount = c.time_charge.amount
        config.time_charge.window.FromSeconds(c.time_charge.window)
    if c.rotation is not None:
        config.rotation.games.extend(game(g) for g in c.rotation.games)
        config.rotation.hands_per_game = c.rotation.hands
    if c.time_bank is not None:
        config.time_bank.time.FromSeconds(c.time_bank.seconds)
        config.time_bank.refill_per_hand.FromSeconds(c.time_bank.refill)
    return config


def rotation_turn(turn: house.Turn) -> common_pb2.RotationTurn:
    """A mixed table's hand: its game, its place in the game's turn, the game after."""
    return common_pb2.RotationTurn(
        game=game(turn.game), hand=turn.hand, hands=turn.hands, next_game=game(turn.next)
    )


def game(g: engine_rules.Game) -> common_pb2.Game.ValueType:
    return common_pb2.Game.Value("GAME_" + g.name)


# ---- pieces


def _cards(cards: Iterable[Card]) -> list[str]:
    return [str(card) for card in cards]


def _card_list(cards: Iterable[Card] | None) -> common_pb2.CardList | None:
    return None if cards is None else common_pb2.CardList(cards=_cards(cards))


def _deal(deal: hand.Deal) -> dict[str, Any]:
    """The deal's fields, which ``HandStarted`` and ``HandDealt`` messages
    both spell out under the same names."""
    return {
        "button": deal.button,
        "seats": _seats(deal.seats),
        "antes": deal.antes,
        "small_blind": deal.small_blind,
        "big_blind": deal.big_blind,
        "extra_big_blinds": deal.extra_big_blinds,
        "dead": deal.dead,
    }


def _seats(seats: Iterable[hand.SeatAtStart]) -> list[events_pb2.SeatAtStart]:
    return [
        events_pb2.SeatAtStart(seat=s.seat, player_id=s.player, stack=s.stack, carried=s.carried)
        for s in seats
    ]


def _amounts(pairs: Iterable[tuple[int, int]]) -> list[common_pb2.SeatAmount]:
    return [common_pb2.SeatAmount(seat=seat, amount=amount) for seat, amount in pairs]


def _time(seconds: int) -> Timestamp:
    return Timestamp(seconds=seconds)
