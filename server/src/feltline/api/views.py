"""What the servicers send and take that is not one event: a table as a
caller may see it, the hand in progress, whose turn it is with the legal
options, a table's settings from a request, and seats by player."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime
from uuid import UUID

from google.protobuf.timestamp_pb2 import Timestamp

from feltline.api import convert
from feltline.api.errors import ApiError
from feltline.api.redaction import Viewer, sees_down_cards
from feltline.api.tokens import Caller
from feltline.domain.hand import HandStream
from feltline.domain.table import TableStream
from feltline.engine.cards.values import System
from feltline.engine.hand.events import Action, Entropy, Event, StreetBegan
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.hand.script import Phase
from feltline.engine.hand.state import Hand
from feltline.engine.hand.turn import Choices, choices, waiting_on
from feltline.engine.table.house import (
    DEFAULT_ACTION_CLOCK,
    DEFAULT_ANTE_CAP,
    DEFAULT_CONTRIBUTION_WINDOW_MS,
    Rotation,
    TableConfig,
    TimeBank,
    TimeCharge,
)
from feltline.engine.table.state import Table
from feltline_protos.v1 import auth_pb2, common_pb2, errors_pb2, ledger_pb2, replay_pb2, tables_pb2

R = errors_pb2.ErrorReason
PHASES = {
    Phase.NOT_STARTED: tables_pb2.HAND_PHASE_DEALING,
    Phase.DEALING: tables_pb2.HAND_PHASE_DEALING,
    Phase.BETTING: tables_pb2.HAND_PHASE_BETTING,
    Phase.DRAWING: tables_pb2.HAND_PHASE_DRAWING,
    Phase.DECLARING: tables_pb2.HAND_PHASE_DECLARING,
    Phase.ENDED: tables_pb2.HAND_PHASE_ENDED,
    Phase.COMMITTING: tables_pb2.HAND_PHASE_COMMITTING,
    Phase.REVEALING: tables_pb2.HAND_PHASE_REVEALING,
}


def parse_id(text: str) -> UUID:
    """A table id the validator has passed as a UUID."""
    return UUID(text)


def seat_of(table: Table, player: str) -> int | None:
    return next((s.number for s in table.seats if s.player == player), None)


def player_seat(table: Table, caller: Caller, table_id: UUID) -> int:
    seat = seat_of(table, caller.player_id)
    if seat is None:
        raise ApiError(
            R.ERROR_REASON_NOT_SEATED, f"{caller.player_id} has no seat at table {table_id}"
        )
    return seat


def viewer(caller: Caller, table: Table) -> Viewer:
    if caller.role != auth_pb2.ROLE_PLAYER:
        return Viewer(caller.role)
    return Viewer(caller.role, seat_of(table, caller.player_id))


def timestamp(seconds: int) -> Timestamp:
    return Timestamp(seconds=seconds)


def when(seconds: int | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


Timed = replay_pb2.ListHandsRequest | replay_pb2.ExportHandsRequest | ledger_pb2.SearchHandsRequest


def time_range(request: Timed, *, inclusive: bool = False) -> tuple[int | None, int | None]:
    """The request's ``start_time`` and ``end_time`` as whole seconds, each
    None if not given; refused, naming ``end_time``, if no time could be in
    the range: an end at or before the start, or with ``inclusive`` (an end
    that is itself in the range) before it."""
    since = request.start_time.seconds if request.HasField("start_time") else None
    until = request.end_time.seconds if request.HasField("end_time") else None
    if since is None or until is None or until > since or (until == since and inclusive):
        return since, until
    rule, said = (
        ("must not be before start_time", "is before")
        if inclusive
        else ("must be after start_time", "is not after")
    )
    raise ApiError(
        R.ERROR_REASON_INVALID_REQUEST,
        f"end_time {said} start_time: no hand could be in that range",
        violations=[("end_time", rule)],
    )


def action_kind(action: Action) -> common_pb2.ActionKind.ValueType:
    return common_pb2.ActionKind.Value("ACTION_KIND_" + action.name)


# ---- tables


def table_message(stream: TableStream, hand: HandStream | None, caller: Caller) -> tables_pb2.Table:
    """The table as ``caller`` may see it; ``hand`` its hand in progress. A
    table opened before names were stored is called after its game."""
    t = stream.table
    assert t.config is not None
    message = tables_pb2.Table(
        table_id=str(stream.id),
        display_name=t.name or f"{t.config.rules.game} table",
        config=convert.table_config(t.config),
        state=tables_pb2.TABLE_STATE_CLOSED if t.closed else tables_pb2.TABLE_STATE_OPEN,
        create_time=timestamp(t.opened_at),
        hands_dealt=t.hands,
    )
    for s in t.seats:
        status = "LEAVING" if s.leaving else "SITTING_OUT" if s.sitting_out else s.entry.name
        seat = tables_pb2.Seat(
            seat=s.number,
            player_id=s.player,
            stack=s.stack,
            status=common_pb2.SeatStatus.Value("SEAT_STATUS_" + status),
        )
        if t.config.time_bank is not None:
            seat.time_bank.FromSeconds(s.bank)
        message.seats.append(seat)
    if t.button is not None:
        message.button = t.button
    if t.config.rotation is not None:
        turn = t.turn if t.dealt is not None else t.config.next_turn(t.turn, 0)
        assert turn is not None
        message.turn.CopyFrom(convert.rotation_turn(turn))
    if t.pot.total:
        message.carried_pot.CopyFrom(
            tables_pb2.CarriedPot(
                shares=[common_pb2.SeatAmount(seat=a, amount=b) for a, b in t.pot.shares],
                dead=t.pot.dead,
                deals=t.pot.deals,
            )
        )
    who = viewer(caller, t)
    if who.seat is not None:
        message.viewer_seat = who.seat
    if hand is not None and t.dealt is not None:
        message.current_hand.CopyFrom(hand_view(stream, hand, who))
    return message


def hand_view(stream: TableStream, hand: HandStream, who: Viewer) -> tables_pb2.HandView:
    h = hand.hand
    config = stream.table.config
    assert config is not None
    ended = h.phase is Phase.ENDED
    street = ""
    for event in _events(hand):
        if isinstance(event, StreetBegan):
            street = event.name
    view = tables_pb2.HandView(
        hand_number=stream.table.hands,
        hand_id=str(hand.id),
        sequence=hand.version if hand.seal is None else hand.version - 1,
        phase=PHASES[h.phase],
        street=street,
        button=h.button,
        board=[str(c) for c in h.board],
        pot=h.pot,
    )
    for p in h.players:
        up = set(p.up)
        down = [c for c in p.cards if c not in up]
        sees = sees_down_cards(who, p.seat, ended=ended)
        view.seats.append(
            tables_pb2.HandSeat(
                seat=p.seat,
                player_id=p.player,
                stack=p.stack,
                bet=p.bet,
                folded=p.folded,
                all_in=not p.folded and p.stack == 0,
                up_cards=[str(c) for c in p.up],
                down_cards=[str(c) for c in down] if sees else [],
                hidden_cards=0 if sees else len(down),
            )
        )
    clock = stream.table.clock_at(hand.version)
    turn = turn_of(h, hand.since + clock, who, banked=clock > config.action_clock)
    if turn is not None:
        view.turn.CopyFrom(turn)
    return view


def _events(hand: HandStream) -> Iterable[Event]:
    for _, made in hand.commands.values():
        yield from made


def turn_of(
    hand: Hand, deadline: int, who: Viewer, *, banked: bool = False
) -> tables_pb2.Turn | None:
    """Whose turn it is, until when (``banked``: with a time bank on the
    clock), with the legal options for that seat's own player."""
    waiting = waiting_on(hand)
    if not waiting:
        return None
    seat = who.seat if who.seat in waiting else waiting[0]
    turn = tables_pb2.Turn(seat=seat, deadline=timestamp(deadline), time_bank=banked)
    own = who.role == auth_pb2.ROLE_PLAYER and who.seat == seat
    options = choices(hand, seat) if own else None
    if options is not None:
        turn.options.CopyFrom(legal(options))
    return turn


def legal(options: Choices) -> tables_pb2.LegalActions:
    return tables_pb2.LegalActions(
        actions=[action_kind(a) for a in options.actions],
        call_amount=options.call_amount,
        min_to=options.min_to,
        max_to=options.max_to,
        draw=options.draw,
        max_discards=options.max_discards,
        declare=options.declare,
    )


# ---- settings from a request


def table_config(c: common_pb2.TableConfig) -> TableConfig:
    """A request's table settings (already validated field by field); the
    game's own checks come when the table opens."""
    r = c.rules
    rules = Rules(
        Game[common_pb2.Game.Name(r.game).removeprefix("GAME_")],
        stakes(r.stakes),
        joker=r.joker,
        fixed_seats=r.fixed_seats,
        rake=Rake(r.rake.basis_points, r.rake.cap) if r.HasField("rake") else None,
    )
    if r.low != common_pb2.LOW_SYSTEM_UNSPECIFIED:
        low = System[common_pb2.LowSystem.Name(r.low).removeprefix("LOW_SYSTEM_")]
        rules = _with(rules, low=low)
    if r.HasField("draw_limit_small"):
        rules = _with(rules, draw_limit_small=r.draw_limit_small)
    if r.HasField("draw_limit_large"):
        rules = _with(rules, draw_limit_large=r.draw_limit_large)
    charge = None
    if c.HasField("time_charge"):
        charge = TimeCharge(c.time_charge.amount)
        if c.time_charge.HasField("window"):
            charge = TimeCharge(c.time_charge.amount, c.time_charge.window.seconds)
    rotation = None
    if c.HasField("rotation"):
        games = (Game[common_pb2.Game.Name(g).removeprefix("GAME_")] for g in c.rotation.games)
        rotation = Rotation(tuple(games), c.rotation.hands_per_game)
    return TableConfig(
        rules,
        c.seats,
        rotation=rotation,
        time_bank=time_bank(c.time_bank) if c.HasField("time_bank") else None,
        min_buy_in=c.min_buy_in if c.HasField("min_buy_in") else None,
        max_buy_in=c.max_buy_in if c.HasField("max_buy_in") else None,
        time_charge=charge,
        ante_cap=c.ante_cap if c.HasField("ante_cap") else DEFAULT_ANTE_CAP,
        action_clock=c.action_clock.seconds if c.HasField("action_clock") else DEFAULT_ACTION_CLOCK,
        seat_entropy=Entropy.OFF
        if c.seat_entropy == common_pb2.SEAT_ENTROPY_UNSPECIFIED
        else Entropy[common_pb2.SeatEntropy.Name(c.seat_entropy).removeprefix("SEAT_ENTROPY_")],
        contribution_window_ms=c.contribution_window.ToMilliseconds()
        if c.HasField("contribution_window")
        else DEFAULT_CONTRIBUTION_WINDOW_MS,
    )


def time_bank(b: common_pb2.TimeBank) -> TimeBank:
    """A request's time bank, in whole seconds, refilling no more than it holds."""
    field = "config.time_bank"
    for name in ("time", "refill_per_hand"):
        if getattr(b, name).nanos:
            raise ApiError(
                R.ERROR_REASON_INVALID_CONFIG,
                f"{field}.{name} is whole seconds",
                violations=[(f"{field}.{name}", "must be whole seconds")],
            )
    bank = TimeBank(b.time.seconds, b.refill_per_hand.seconds)
    if bank.refill > bank.seconds:
        raise ApiError(
            R.ERROR_REASON_INVALID_CONFIG,
            f"{field}.refill_per_hand ({bank.refill} s) is more than the bank holds,"
            f" {field}.time ({bank.seconds} s)",
            violations=[(f"{field}.refill_per_hand", "must be no more than time")],
        )
    return bank


def stakes(s: common_pb2.Stakes) -> Stakes:
    """A request's stakes (a table's, or a tournament level's)."""
    return Stakes(
        Structure[common_pb2.Structure.Name(s.structure).removeprefix("STRUCTURE_")],
        small_bet=s.small_bet,
        big_bet=s.big_bet,
        ante=s.ante,
        small_blind=s.small_blind,
        big_blind=s.big_blind,
        bring_in=s.bring_in,
        raise_cap=s.raise_cap if s.HasField("raise_cap") else None,
        uncapped_heads_up=s.uncapped_heads_up if s.HasField("uncapped_heads_up") else True,
    )


def _with(rules: Rules, **changes: object) -> Rules:
    return replace(rules, **changes)  # type: ignore[arg-type]
