"""A fake Feltline server that deals real (if simplified) hands over gRPC.

The clients are tested against it until the real servicers land. It follows
the contract (docs/api.md) where a client can tell: bearer tokens in the v1
layout (claims read, signature not checked), protovalidate on every request,
errors as google.rpc.Status with ErrorInfo, idempotent request ids,
STALE_STATE, per-viewer redaction, Turn messages with LegalActions for the
seat's own player only, resumable cursors. It simplifies the game: antes
only (a blind game antes its small blind), no-limit amounts, everyone acts
in seat order, and the pot goes to the first live HIGH declarer
(draw-declare) or the first live seat, unevaluated.

    python tests/client/fake_server.py      # prints {"target", "admin", "players"}

runs it alone (for the Node client's test) until its stdin closes.
"""

from __future__ import annotations

import base64
import json
import random
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
import protovalidate
from google.protobuf import any_pb2, timestamp_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from feltline_client import token_claims
from feltline_protos.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    auth_pb2,
    common_pb2,
    events_pb2,
    play_pb2,
    play_pb2_grpc,
    tables_pb2,
    tables_pb2_grpc,
    watch_pb2,
    watch_pb2_grpc,
)

RANKS = "23456789TJQKA"
SUITS = "cdhs"
K = common_pb2.ActionKind
# Each game's steps: deal face-down cards, deal the board, bet, draw, declare.
SCRIPTS: dict[int, list[tuple[str, int]]] = {
    common_pb2.GAME_DRAW_DECLARE: [
        ("deal", 5),
        ("bet", 0),
        ("draw", 0),
        ("bet", 0),
        ("declare", 0),
    ],
    common_pb2.GAME_JACKPOTS: [("deal", 5), ("bet", 0), ("draw", 0), ("bet", 0)],
    common_pb2.GAME_HOLDEM: [
        ("deal", 2),
        ("bet", 0),
        ("board", 3),
        ("bet", 0),
        ("board", 1),
        ("bet", 0),
        ("board", 1),
        ("bet", 0),
    ],
}
STREETS = {"deal": "deal", "board": "board", "bet": "betting", "draw": "draw", "declare": "declare"}


def make_token(role: int, player_id: str = "") -> str:
    """A token in the v1 layout; the fake reads the claims and trusts them."""
    claims = auth_pb2.TokenClaims(role=role, player_id=player_id, token_id=str(uuid.uuid4()))  # type: ignore[arg-type]
    payload = base64.urlsafe_b64encode(claims.SerializeToString()).rstrip(b"=").decode()
    return f"v1.{payload}.c2lnbmF0dXJl"


class Refused(Exception):
    """A refusal with the contract's code and reason."""

    def __init__(self, code: int, reason: str, message: str, **metadata: str) -> None:
        super().__init__(message)
        self.code, self.reason, self.metadata = code, reason, metadata


def _abort(context: grpc.ServicerContext, code: int, message: str, *details: Any) -> None:
    packed = []
    for detail in details:
        wrapper = any_pb2.Any()
        wrapper.Pack(detail)
        packed.append(wrapper)
    context.abort_with_status(
        rpc_status.to_status(status_pb2.Status(code=code, message=message, details=packed))
    )


@dataclass
class Hand:
    number: int
    hand_id: str
    seats: list[int]
    deck: list[str]
    step: int = -1
    sequence: int = 0
    events: list[events_pb2.Event] = field(default_factory=list)
    cards: dict[int, list[str]] = field(default_factory=dict)
    stacks: dict[int, int] = field(default_factory=dict)
    bets: dict[int, int] = field(default_factory=dict)
    folded: set[int] = field(default_factory=set)
    declared: dict[int, int] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    pot: int = 0
    pending: list[int] = field(default_factory=list)
    last_raise: int = 0
    phase: int = tables_pb2.HAND_PHASE_DEALING
    street: str = "deal"

    def live(self) -> list[int]:
        return [s for s in self.seats if s not in self.folded]

    def high(self) -> int:
        return max(self.bets.values(), default=0)


class FakeServer(
    tables_pb2_grpc.TableServiceServicer,
    play_pb2_grpc.PlayServiceServicer,
    watch_pb2_grpc.WatchServiceServicer,
    accounts_pb2_grpc.AccountServiceServicer,
):
    """One process-wide cardroom holding any number of tables."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.tables: dict[str, _Table] = {}
        self.balances: dict[str, int] = {}
        self.answers: dict[str, Any] = {}

    # ---- plumbing

    def _claims(self, context: grpc.ServicerContext) -> auth_pb2.TokenClaims:
        auth = dict(context.invocation_metadata()).get("authorization", "")  # type: ignore[arg-type]
        if not isinstance(auth, str) or not auth.startswith("Bearer "):
            raise Refused(code_pb2.UNAUTHENTICATED, "TOKEN_MISSING", "no bearer token")
        try:
            return token_claims(auth.removeprefix("Bearer "))
        except ValueError:
            raise Refused(code_pb2.UNAUTHENTICATED, "TOKEN_INVALID", "bad token") from None

    def _run(self, request: Any, context: grpc.ServicerContext, handler: Any, *roles: int) -> Any:
        try:
            claims = self._claims(context)
            if roles and claims.role not in roles:
                raise Refused(code_pb2.PERMISSION_DENIED, "ROLE_FORBIDDEN", "not for your role")
            violations = protovalidate.collect_violations(request)
            if violations:
                bad = error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field=".".join(e.field_name for e in v.proto.field.elements),
                            description=v.proto.message,
                        )
                        for v in violations
                    ]
                )
                info = error_details_pb2.ErrorInfo(reason="INVALID_REQUEST", domain="feltline.v1")
                _abort(context, code_pb2.INVALID_ARGUMENT, "the request is not valid", info, bad)
            key = getattr(request, "request_id", "")
            with self.cond:
                if key and key in self.answers:
                    return self.answers[key]
                answer = handler(request, claims)
                for table in self.tables.values():  # cash-outs go back to accounts
                    for player, chips in table.left:
                        self.balances[player] = self.balances.get(player, 0) + chips
                    table.left.clear()
                if key:
                    self.answers[key] = answer
                self.cond.notify_all()
                return answer
        except Refused as e:
            info = error_details_pb2.ErrorInfo(
                reason=e.reason, domain="feltline.v1", metadata=e.metadata
            )
            _abort(context, e.code, str(e), info)

    def _table(self, table_id: str) -> _Table:
        if table_id not in self.tables:
            raise Refused(code_pb2.NOT_FOUND, "TABLE_NOT_FOUND", "no such table")
        return self.tables[table_id]

    # ---- accounts

    def MintChips(self, request: Any, context: grpc.ServicerContext) -> Any:
        def mint(r: Any, _: Any) -> Any:
            self.balances[r.player_id] = self.balances.get(r.player_id, 0) + r.amount
            return accounts_pb2.MintChipsResponse(account=self._account(r.player_id))

        return self._run(request, context, mint, auth_pb2.ROLE_ADMIN)

    def GetAccount(self, request: Any, context: grpc.ServicerContext) -> Any:
        def get(r: Any, claims: Any) -> Any:
            player = r.player_id or claims.player_id
            return accounts_pb2.GetAccountResponse(account=self._account(player))

        return self._run(request, context, get)

    def _account(self, player: str) -> accounts_pb2.Account:
        at_tables = sum(
            s.stack for t in self.tables.values() for s in t.seats.values() if s.player == player
        )
        return accounts_pb2.Account(
            player_id=player, balance=self.balances.get(player, 0), at_tables=at_tables
        )

    # ---- tables

    def CreateTable(self, request: Any, context: grpc.ServicerContext) -> Any:
        def create(r: Any, _: Any) -> Any:
            table = _Table(str(uuid.uuid4()), r.display_name, r.config)
            self.tables[table.table_id] = table
            return tables_pb2.CreateTableResponse(table=table.view(0))

        return self._run(request, context, create, auth_pb2.ROLE_ADMIN)

    def CloseTable(self, request: Any, context: grpc.ServicerContext) -> Any:
        def close(r: Any, _: Any) -> Any:
            self._table(r.table_id).close(r.reason)
            table = self._table(r.table_id)
            return tables_pb2.CloseTableResponse(table=table.view(0))

        return self._run(request, context, close, auth_pb2.ROLE_ADMIN)

    def GetTable(self, request: Any, context: grpc.ServicerContext) -> Any:
        def get(r: Any, claims: Any) -> Any:
            table = self._table(r.table_id)
            return tables_pb2.GetTableResponse(table=table.view(table.seat_of(claims)))

        return self._run(request, context, get)

    def ListTables(self, request: Any, context: grpc.ServicerContext) -> Any:
        def list_(_: Any, claims: Any) -> Any:
            return tables_pb2.ListTablesResponse(
                tables=[t.view(0, summary=True) for t in self.tables.values()]
            )

        return self._run(request, context, list_)

    def SitDown(self, request: Any, context: grpc.ServicerContext) -> Any:
        def sit(r: Any, claims: Any) -> Any:
            table = self._table(r.table_id)
            if self.balances.get(claims.player_id, 0) < r.buy_in:
                raise Refused(code_pb2.FAILED_PRECONDITION, "INSUFFICIENT_BALANCE", "no chips")
            table.sit(r.seat, claims.player_id, r.buy_in)
            self.balances[claims.player_id] -= r.buy_in
            return tables_pb2.SitDownResponse(table=table.view(r.seat))

        return self._run(request, context, sit, auth_pb2.ROLE_PLAYER)

    def StandUp(self, request: Any, context: grpc.ServicerContext) -> Any:
        def stand(r: Any, claims: Any) -> Any:
            table = self._table(r.table_id)
            seat = table.seat_of(claims)
            if not seat:
                raise Refused(code_pb2.FAILED_PRECONDITION, "NOT_SEATED", "not seated")
            later = table.stand(seat)
            return tables_pb2.StandUpResponse(table=table.view(0), leaving_after_hand=later)

        return self._run(request, context, stand, auth_pb2.ROLE_PLAYER)

    def SitOut(self, request: Any, context: grpc.ServicerContext) -> Any:
        def sit_out(r: Any, claims: Any) -> Any:
            table = self._table(r.table_id)
            seat = table.seat_of(claims)
            if not seat:
                raise Refused(code_pb2.FAILED_PRECONDITION, "NOT_SEATED", "not seated")
            table.sit_out(seat, out=True)
            return tables_pb2.SitOutResponse(table=table.view(seat))

        return self._run(request, context, sit_out, auth_pb2.ROLE_PLAYER)

    def SitIn(self, request: Any, context: grpc.ServicerContext) -> Any:
        def sit_in(r: Any, claims: Any) -> Any:
            table = self._table(r.table_id)
            seat = table.seat_of(claims)
            if not seat:
                raise Refused(code_pb2.FAILED_PRECONDITION, "NOT_SEATED", "not seated")
            table.sit_out(seat, out=False)
            return tables_pb2.SitInResponse(table=table.view(seat))

        return self._run(request, context, sit_in, auth_pb2.ROLE_PLAYER)

    # ---- play

    def Act(self, request: Any, context: grpc.ServicerContext) -> Any:
        def act(r: Any, claims: Any) -> Any:
            table = self._table(r.table_id)
            seat = table.seat_of(claims)
            first = table.log_length()
            table.act(seat, r)
            hand = table.hand
            caused = [
                table.redact(item, seat).event
                for item in table.log[first:]
                if item.HasField("event") and item.event.hand_number
            ]
            number, sequence = (hand.number, hand.sequence) if hand else (r.hand_number, 0)
            return play_pb2.ActResponse(hand_number=number, sequence=sequence, events=caused)

        return self._run(request, context, act, auth_pb2.ROLE_PLAYER)

    # ---- watch

    def WatchTableBatches(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        for item in self.WatchTable(request, context):
            yield watch_pb2.WatchTableBatchesResponse(messages=[item])

    def WatchTable(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        start = self._run(request, context, lambda r, c: (self._table(r.table_id), c))
        table, claims = start
        seat = table.seat_of(claims)
        with self.cond:
            if request.after:
                if not request.after.isdigit() or int(request.after) > table.log_length():
                    info = error_details_pb2.ErrorInfo(
                        reason="INVALID_CURSOR", domain="feltline.v1"
                    )
                    _abort(context, code_pb2.INVALID_ARGUMENT, "unknown cursor", info)
                index = int(request.after)
            else:
                index = table.log_length()
                hand_events = [
                    table.redact(watch_pb2.WatchTableResponse(event=e), seat).event
                    for e in (table.hand.events if table.hand else [])
                ]
                snapshot = watch_pb2.WatchTableResponse(
                    cursor=str(index),
                    snapshot=watch_pb2.TableSnapshot(
                        table=table.view(seat), hand_events=hand_events
                    ),
                )
        if not request.after:
            yield snapshot
        while context.is_active():
            with self.cond:
                while index >= table.log_length() and not table.closed and context.is_active():
                    self.cond.wait(0.1)
                items = table.log[index:]
                done = table.closed
                seat = table.seat_of(claims)  # who may see what changes as players sit
            for item in items:
                index += 1
                out = table.redact(item, seat)
                out.cursor = str(index)
                yield out
            if done and index >= table.log_length():
                return


@dataclass
class _Seat:
    player: str
    stack: int
    leaving: bool = False
    sitting_out: bool = False


class _Table:
    """A table's state and its stream. Callers hold the server's lock."""

    def __init__(self, table_id: str, name: str, config: common_pb2.TableConfig) -> None:
        self.table_id, self.name, self.config = table_id, name, config
        self.seats: dict[int, _Seat] = {}
        self.left: list[tuple[str, int]] = []  # cash-outs not yet credited
        self.log: list[watch_pb2.WatchTableResponse] = []
        self.table_sequence = 0
        self.hand: Hand | None = None
        self.hands_dealt = 0
        self.closed = False
        self.rng = random.Random(table_id)
        self._table_event(table_opened=events_pb2.TableOpened(config=config))

    # ---- the stream

    def log_length(self) -> int:
        return len(self.log)

    def _table_event(self, **kind: Any) -> None:
        self.table_sequence += 1
        event = events_pb2.Event(table_id=self.table_id, sequence=self.table_sequence, **kind)
        event.time.GetCurrentTime()
        self.log.append(watch_pb2.WatchTableResponse(event=event))

    def _event(self, **kind: Any) -> None:
        hand = self.hand
        assert hand is not None
        hand.sequence += 1
        event = events_pb2.Event(
            table_id=self.table_id,
            hand_number=hand.number,
            hand_id=hand.hand_id,
            sequence=hand.sequence,
            **kind,
        )
        event.time.GetCurrentTime()
        hand.events.append(event)
        self.log.append(watch_pb2.WatchTableResponse(event=event))

    def redact(
        self, item: watch_pb2.WatchTableResponse, viewer: int
    ) -> watch_pb2.WatchTableResponse:
        """The item as ``viewer`` (a seat, 0 for nobody) may see it."""
        out = watch_pb2.WatchTableResponse()
        out.CopyFrom(item)
        if out.HasField("turn"):
            if out.turn.seat != viewer:
                out.turn.ClearField("options")
            return out
        event = out.event
        kind = event.WhichOneof("kind")
        if kind == "card_dealt" and not event.card_dealt.face_up:
            if event.card_dealt.seat != viewer:
                event.card_dealt.ClearField("card")
                event.redacted = True
        elif kind == "drew" and event.drew.seat != viewer:
            event.drew.ClearField("discards")
            event.redacted = True
        elif kind == "declared" and event.declared.seat != viewer:
            event.declared.ClearField("choice")
            event.redacted = True
        return out

    # ---- views

    def seat_of(self, claims: auth_pb2.TokenClaims) -> int:
        if claims.role != auth_pb2.ROLE_PLAYER:
            return 0
        return next((n for n, s in self.seats.items() if s.player == claims.player_id), 0)

    def view(self, viewer: int, *, summary: bool = False) -> tables_pb2.Table:
        table = tables_pb2.Table(
            table_id=self.table_id,
            display_name=self.name,
            config=self.config,
            state=tables_pb2.TABLE_STATE_CLOSED if self.closed else tables_pb2.TABLE_STATE_OPEN,
            seats=[
                tables_pb2.Seat(
                    seat=n,
                    player_id=s.player,
                    stack=s.stack,
                    status=common_pb2.SEAT_STATUS_LEAVING
                    if s.leaving
                    else common_pb2.SEAT_STATUS_SITTING_OUT
                    if s.sitting_out
                    else common_pb2.SEAT_STATUS_PLAYING,
                )
                for n, s in sorted(self.seats.items())
            ],
            hands_dealt=self.hands_dealt,
        )
        if viewer:
            table.viewer_seat = viewer
        if self.hand and not summary:
            table.button = self.hand.seats[-1]
            table.current_hand.CopyFrom(self.hand_view(viewer))
        return table

    def hand_view(self, viewer: int) -> tables_pb2.HandView:
        hand = self.hand
        assert hand is not None
        view = tables_pb2.HandView(
            hand_number=hand.number,
            hand_id=hand.hand_id,
            sequence=hand.sequence,
            phase=hand.phase,  # type: ignore[arg-type]
            street=hand.street,
            button=hand.seats[-1],
            board=hand.board,
            pot=hand.pot,
        )
        for n in hand.seats:
            mine = n == viewer
            view.seats.add(
                seat=n,
                player_id=self.seats[n].player,
                stack=hand.stacks[n],
                bet=hand.bets.get(n, 0),
                folded=n in hand.folded,
                all_in=hand.stacks[n] == 0 and n not in hand.folded,
                down_cards=hand.cards[n] if mine else [],
                hidden_cards=0 if mine else len(hand.cards[n]),
            )
        turn = self.turn(viewer)
        if turn is not None:
            view.turn.CopyFrom(turn)
        return view

    def turn(self, viewer: int) -> tables_pb2.Turn | None:
        hand = self.hand
        if hand is None or not hand.pending:
            return None
        seat = hand.pending[0]
        deadline = timestamp_pb2.Timestamp(seconds=int(time.time()) + 30)
        turn = tables_pb2.Turn(seat=seat, deadline=deadline)
        if seat == viewer:
            turn.options.CopyFrom(self.options(seat))
        return turn

    def options(self, seat: int) -> tables_pb2.LegalActions:
        hand = self.hand
        assert hand is not None
        if hand.phase == tables_pb2.HAND_PHASE_DRAWING:
            return tables_pb2.LegalActions(draw=True, max_discards=5)
        if hand.phase == tables_pb2.HAND_PHASE_DECLARING:
            return tables_pb2.LegalActions(declare=True)
        stack, bet, high = hand.stacks[seat], hand.bets.get(seat, 0), hand.high()
        small = self.config.rules.stakes.small_bet
        options = tables_pb2.LegalActions(call_amount=min(high - bet, stack))
        most = bet + stack
        if high == bet:
            options.actions.extend([K.ACTION_KIND_CHECK, K.ACTION_KIND_FOLD])
            if stack:
                options.actions.append(K.ACTION_KIND_BET)
                options.min_to, options.max_to = min(small, most), most
        else:
            options.actions.extend([K.ACTION_KIND_CALL, K.ACTION_KIND_FOLD])
            if most > high:
                options.actions.append(K.ACTION_KIND_RAISE)
                options.min_to = min(high + max(hand.last_raise, small), most)
                options.max_to = most
        return options

    # ---- seating

    def sit(self, seat: int, player: str, buy_in: int) -> None:
        if self.closed:
            raise Refused(code_pb2.FAILED_PRECONDITION, "TABLE_CLOSED", "the table is closed")
        if seat > self.config.seats or seat in self.seats:
            raise Refused(code_pb2.FAILED_PRECONDITION, "SEAT_UNAVAILABLE", "seat taken")
        if any(s.player == player for s in self.seats.values()):
            raise Refused(code_pb2.FAILED_PRECONDITION, "SEAT_UNAVAILABLE", "already seated")
        self.seats[seat] = _Seat(player, buy_in)
        self._table_event(
            sat_down=events_pb2.SatDown(
                seat=seat, player_id=player, buy_in=buy_in, status=common_pb2.SEAT_STATUS_PLAYING
            )
        )
        self._maybe_deal()

    def stand(self, seat: int) -> bool:
        """Whether the player leaves only after the current hand."""
        if self.hand and seat in self.hand.seats:
            self.seats[seat].leaving = True
            self._table_event(leaving_after_hand=events_pb2.LeavingAfterHand(seat=seat))
            if self.hand.pending and self.hand.pending[0] == seat:
                self._apply(seat, "fold", None)
            return True
        gone = self.seats.pop(seat)
        self.left.append((gone.player, gone.stack))
        self._table_event(
            stood_up=events_pb2.StoodUp(seat=seat, player_id=gone.player, stack=gone.stack)
        )
        return False

    def sit_out(self, seat: int, *, out: bool) -> None:
        """Sit out of the hands dealt from now on, or back in."""
        if self.seats[seat].sitting_out == out:
            said = "sitting out already" if out else "not sitting out"
            raise Refused(
                code_pb2.FAILED_PRECONDITION, "SEAT_UNAVAILABLE", f"seat {seat} is {said}"
            )
        self.seats[seat].sitting_out = out
        if out:
            self._table_event(sat_out=events_pb2.SatOut(seat=seat))
        else:
            status = common_pb2.SEAT_STATUS_PLAYING
            self._table_event(sat_in=events_pb2.SatIn(seat=seat, status=status))
            self._maybe_deal()

    def close(self, reason: str) -> None:
        if self.closed:
            return
        if self.hand:  # cancelled: every stack goes back to its start
            self._event(hand_ended=events_pb2.HandEnded(cancelled=True))
            self.hand = None
        for n in sorted(self.seats):
            self.seats[n].leaving = False
            self.stand(n)
        self.closed = True
        self._table_event(table_closed=events_pb2.TableClosed(reason=reason))

    # ---- dealing

    def _maybe_deal(self) -> None:
        ready = sorted(
            n for n, s in self.seats.items() if s.stack > 0 and not (s.leaving or s.sitting_out)
        )
        if self.closed or self.hand or len(ready) < 2:
            return
        self.hands_dealt += 1
        deck = [r + s for r in RANKS for s in SUITS]
        self.rng.shuffle(deck)
        hand = Hand(self.hands_dealt, str(uuid.uuid4()), ready, deck)
        hand.stacks = {n: self.seats[n].stack for n in ready}
        hand.cards = {n: [] for n in ready}
        self.hand = hand
        stakes = self.config.rules.stakes
        self._table_event(
            hand_dealt=events_pb2.HandDealt(
                hand_number=hand.number, button=ready[-1], hand_id=hand.hand_id
            )
        )
        self._event(
            hand_started=events_pb2.HandStarted(
                rules=self.config.rules,
                button=ready[-1],
                seats=[
                    events_pb2.SeatAtStart(seat=n, player_id=self.seats[n].player, stack=s)
                    for n, s in hand.stacks.items()
                ],
                antes=True,
            )
        )
        ante = stakes.ante or stakes.small_blind  # blinds: the small one, as an ante
        for n in ready:
            paid = min(ante, hand.stacks[n])
            hand.stacks[n] -= paid
            hand.pot += paid
            self._event(
                posted=events_pb2.Posted(
                    seat=n,
                    forced=common_pb2.FORCED_BET_ANTE,
                    amount=paid,
                    all_in=not hand.stacks[n],
                )
            )
        self._advance()

    def _advance(self) -> None:
        """Run steps that need nobody until one waits on a player, then tell
        whose turn it is; or finish the hand."""
        hand = self.hand
        assert hand is not None
        script = SCRIPTS[self.config.rules.game]
        while not hand.pending:
            if len(hand.live()) == 1 or hand.step + 1 >= len(script):
                self._finish()
                return
            hand.step += 1
            what, count = script[hand.step]
            hand.street = STREETS[what] + (f"-{hand.step}" if what == "bet" else "")
            self._event(street_began=events_pb2.StreetBegan(step=hand.step, name=hand.street))
            active = [n for n in hand.live() if hand.stacks[n] > 0]
            if what == "deal":
                hand.phase = tables_pb2.HAND_PHASE_DEALING
                for _ in range(count):
                    for n in hand.seats:
                        self._deal(n)
            elif what == "board":
                hand.phase = tables_pb2.HAND_PHASE_DEALING
                cards = [hand.deck.pop() for _ in range(count)]
                hand.board.extend(cards)
                self._event(board_dealt=events_pb2.BoardDealt(cards=cards))
            elif what == "bet":
                hand.phase = tables_pb2.HAND_PHASE_BETTING
                hand.last_raise = 0
                hand.bets = dict.fromkeys(hand.seats, 0)
                hand.pending = active if len(active) > 1 else []
            elif what == "draw":
                hand.phase = tables_pb2.HAND_PHASE_DRAWING
                hand.pending = hand.live()
            else:
                hand.phase = tables_pb2.HAND_PHASE_DECLARING
                hand.pending = hand.live()
        self._turn()

    def _turn(self) -> None:
        hand = self.hand
        if hand and hand.pending and self.seats[hand.pending[0]].leaving:
            self._apply(hand.pending[0], "fold", None)  # gone: folded at its turn
            return
        turn = self.turn(hand.pending[0] if hand and hand.pending else 0)
        if turn is not None:
            self.log.append(watch_pb2.WatchTableResponse(turn=turn))

    def _deal(self, seat: int) -> None:
        hand = self.hand
        assert hand is not None
        card = hand.deck.pop()
        hand.cards[seat].append(card)
        self._event(
            card_dealt=events_pb2.CardDealt(
                seat=seat, card=card, face_up=False, position=51 - len(hand.deck)
            )
        )

    def _collect(self) -> None:
        hand = self.hand
        assert hand is not None
        hand.pot += sum(hand.bets.values())
        hand.bets = dict.fromkeys(hand.seats, 0)
        self._event(bets_collected=events_pb2.BetsCollected(pot=hand.pot))

    def _finish(self) -> None:
        hand = self.hand
        assert hand is not None
        if any(hand.bets.values()):
            self._collect()
        live = hand.live()
        hand.phase = tables_pb2.HAND_PHASE_ENDED
        if len(live) > 1:
            for n in live:
                self._event(shown=events_pb2.Shown(seat=n, cards=hand.cards[n]))
        highs = [n for n in live if hand.declared.get(n) == common_pb2.DECLARATION_HIGH]
        winner = (highs or live)[0]
        hand.stacks[winner] += hand.pot
        self._event(
            pot_awarded=events_pb2.PotAwarded(
                amount=hand.pot,
                eligible=live,
                shares=[
                    events_pb2.Share(seat=winner, amount=hand.pot, part=events_pb2.POT_PART_ALL)
                ],
            )
        )
        stacks = [common_pb2.SeatAmount(seat=n, amount=hand.stacks[n]) for n in hand.seats]
        self._event(hand_ended=events_pb2.HandEnded(stacks=stacks))
        self._table_event(hand_finished=events_pb2.HandFinished(stacks=stacks))
        for n in hand.seats:
            self.seats[n].stack = hand.stacks[n]
        self.hand = None
        for n in [n for n, s in self.seats.items() if s.leaving]:
            self.seats[n].leaving = False
            self.stand(n)
        self._maybe_deal()

    # ---- acting

    def act(self, seat: int, request: play_pb2.ActRequest) -> None:
        hand = self.hand
        if self.closed:
            raise Refused(code_pb2.FAILED_PRECONDITION, "TABLE_CLOSED", "the table is closed")
        if not seat:
            raise Refused(code_pb2.FAILED_PRECONDITION, "NOT_SEATED", "you are not seated")
        if hand is None or (request.hand_number, request.sequence) != (hand.number, hand.sequence):
            number, sequence = (hand.number, hand.sequence) if hand else (self.hands_dealt, 0)
            raise Refused(
                code_pb2.FAILED_PRECONDITION,
                "STALE_STATE",
                "the hand has moved on",
                hand_number=str(number),
                sequence=str(sequence),
            )
        if not hand.pending or hand.pending[0] != seat:
            raise Refused(code_pb2.FAILED_PRECONDITION, "NOT_YOUR_TURN", "not your turn")
        kind = request.WhichOneof("action")
        assert kind is not None
        self._apply(seat, kind, getattr(request, kind))

    def _apply(self, seat: int, kind: str, action: Any) -> None:
        hand = self.hand
        assert hand is not None
        options = self.options(seat)
        if hand.phase == tables_pb2.HAND_PHASE_DRAWING and kind in ("draw", "fold"):
            if kind == "draw":
                self._draw(seat, list(action.discards))
            else:
                hand.folded.add(seat)
                self._event(acted=events_pb2.Acted(seat=seat, action=K.ACTION_KIND_FOLD))
        elif hand.phase == tables_pb2.HAND_PHASE_DECLARING and kind in ("declare", "fold"):
            if kind == "declare":
                hand.declared[seat] = action.declaration
                self._event(declared=events_pb2.Declared(seat=seat, choice=action.declaration))
            else:
                hand.folded.add(seat)
                self._event(declared=events_pb2.Declared(seat=seat))
        elif hand.phase == tables_pb2.HAND_PHASE_BETTING:
            self._bet(seat, kind, action, options)
            return
        else:
            raise Refused(code_pb2.FAILED_PRECONDITION, "WRONG_PHASE", f"no {kind} now")
        hand.pending.pop(0)
        if hand.phase == tables_pb2.HAND_PHASE_DECLARING and not hand.pending:
            self._event(
                declarations_revealed=events_pb2.DeclarationsRevealed(
                    choices=[
                        events_pb2.SeatDeclaration(seat=n, choice=c)  # type: ignore[arg-type]
                        for n, c in sorted(hand.declared.items())
                    ]
                )
            )
        self._advance()

    def _draw(self, seat: int, discards: list[str]) -> None:
        hand = self.hand
        assert hand is not None
        if not set(discards) <= set(hand.cards[seat]):
            raise Refused(code_pb2.INVALID_ARGUMENT, "ILLEGAL_DRAW", "not your cards")
        hand.cards[seat] = [c for c in hand.cards[seat] if c not in discards]
        self._event(
            drew=events_pb2.Drew(
                seat=seat, discards=common_pb2.CardList(cards=discards), count=len(discards)
            )
        )
        for _ in discards:
            self._deal(seat)

    def _bet(self, seat: int, kind: str, action: Any, options: tables_pb2.LegalActions) -> None:
        hand = self.hand
        assert hand is not None
        names = {"check": K.ACTION_KIND_CHECK, "call": K.ACTION_KIND_CALL, "bet": K.ACTION_KIND_BET}
        names |= {"raise_bet": K.ACTION_KIND_RAISE, "fold": K.ACTION_KIND_FOLD}
        code = names.get(kind)
        if code not in options.actions:
            raise Refused(code_pb2.FAILED_PRECONDITION, "ILLEGAL_ACTION", f"you may not {kind}")
        before = hand.bets[seat]
        total = before
        if code == K.ACTION_KIND_CALL:
            total = before + options.call_amount
        elif code in (K.ACTION_KIND_BET, K.ACTION_KIND_RAISE):
            if not options.min_to <= action.to <= options.max_to:
                raise Refused(code_pb2.INVALID_ARGUMENT, "ILLEGAL_AMOUNT", "out of range")
            hand.last_raise = max(hand.last_raise, action.to - hand.high())
            total = action.to
        hand.bets[seat] = total
        hand.stacks[seat] -= total - before
        hand.pending.pop(0)
        if code == K.ACTION_KIND_FOLD:
            hand.folded.add(seat)
        if code in (K.ACTION_KIND_BET, K.ACTION_KIND_RAISE):
            after = [n for n in hand.seats if n > seat] + [n for n in hand.seats if n < seat]
            hand.pending = [n for n in after if n not in hand.folded and hand.stacks[n] > 0]
        self._event(
            acted=events_pb2.Acted(
                seat=seat,
                action=code,  # type: ignore[arg-type]
                amount=total - before,
                total=total,
                all_in=hand.stacks[seat] == 0,
            )
        )
        if len(hand.live()) == 1:
            hand.pending = []
        if not hand.pending:
            self._collect()
        self._advance()


def serve(server: FakeServer | None = None) -> tuple[grpc.Server, int, FakeServer]:
    """Start a fake on a free loopback port: (server, port, the fake)."""
    fake = server or FakeServer()
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    tables_pb2_grpc.add_TableServiceServicer_to_server(fake, grpc_server)
    play_pb2_grpc.add_PlayServiceServicer_to_server(fake, grpc_server)
    watch_pb2_grpc.add_WatchServiceServicer_to_server(fake, grpc_server)
    accounts_pb2_grpc.add_AccountServiceServicer_to_server(fake, grpc_server)
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    grpc_server.start()
    return grpc_server, port, fake


def main() -> None:
    """Serve until stdin closes; first print where and with which tokens."""
    grpc_server, port, _ = serve()
    players = {name: make_token(auth_pb2.ROLE_PLAYER, name) for name in ("alice", "bob", "carol")}
    config = {
        "target": f"127.0.0.1:{port}",
        "admin": make_token(auth_pb2.ROLE_ADMIN),
        "players": players,
    }
    print(json.dumps(config), flush=True)
    sys.stdin.read()
    grpc_server.stop(grace=None)


if __name__ == "__main__":
    main()
