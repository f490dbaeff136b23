"""``PlayService.Act``: a player's decision at its own seat, refused when
the hand has moved on since the state the player saw, answered as the
first time when its request id comes again.

Declarations are simultaneous and hidden, so another player's declaration
moving the hand on does not make one stale: a declaration counts when the
player saw the declaring step begin and it has not ended."""

from __future__ import annotations

from uuid import UUID

import grpc

from feltline.api import views
from feltline.api.auth import require_role
from feltline.api.convert import Where
from feltline.api.errors import ApiError
from feltline.api.feed import Stored
from feltline.api.hub import Hub
from feltline.api.logging import log_action
from feltline.api.redaction import Viewer, view
from feltline.domain.hand import HandStream
from feltline.domain.ids import hand_id
from feltline.engine.cards import Card, CardError
from feltline.engine.commands import Act, Command, Declare, Draw
from feltline.engine.errors import IllegalDraw
from feltline.engine.events import Action, Choice, HandEnded
from feltline.engine.state import Phase
from feltline.store.room import Outcome
from feltline_protos.v1 import auth_pb2, common_pb2, errors_pb2, events_pb2, play_pb2, play_pb2_grpc

R = errors_pb2.ErrorReason
ACTIONS = {
    "check": Action.CHECK,
    "call": Action.CALL,
    "bet": Action.BET,
    "raise_bet": Action.RAISE,
    "fold": Action.FOLD,
    "complete": Action.COMPLETE,
    "bring_in": Action.BRING_IN,
}
CHOICES = {
    common_pb2.DECLARATION_LOW: Choice.LOW,
    common_pb2.DECLARATION_HIGH: Choice.HIGH,
    common_pb2.DECLARATION_BOTH: Choice.BOTH,
}


def command(request: play_pb2.ActRequest, seat: int) -> Command:
    """The engine command a request stands for."""
    case = request.WhichOneof("action")
    if case == "draw":
        try:
            discards = tuple(Card.parse(c) for c in request.draw.discards)
        except CardError as e:
            raise IllegalDraw(str(e)) from None
        return Draw(seat, discards)
    if case == "declare":
        return Declare(seat, CHOICES[request.declare.declaration])
    assert case is not None
    amount = getattr(request, case).to if case in ("bet", "raise_bet", "complete") else 0
    return Act(seat, ACTIONS[case], amount)


def declaring_since(hand: HandStream, move: Command, seen: int) -> bool:
    """``move`` declares for a seat yet to declare, in the declaring step the
    player saw begin at or before ``seen`` (``seen`` no later than now)."""
    h = hand.hand
    if not isinstance(move, Declare) or h.phase is not Phase.DECLARING:
        return False
    if not hand.step_began <= seen <= hand.version or move.seat not in h.seats:
        return False
    p = h.player(move.seat)
    return p.live and p.choice is None


class PlayServicer(play_pb2_grpc.PlayServiceServicer):
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.room = hub.room

    def Act(
        self, request: play_pb2.ActRequest, context: grpc.ServicerContext
    ) -> play_pb2.ActResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.table_id)
        number = request.hand_number
        with self.hub.lock(key):
            self.hub.catch_up(key)
            stream = self.room.table(key)
            table = stream.table
            seat = views.player_seat(table, caller, key)
            move = command(request, seat)
            current = table.hands if table.dealt is not None else 0
            hand = self.room.hand(key, number) if number <= table.hands else None
            repeated = hand is not None and hand.repeat(request.request_id, move) is not None
            if not repeated:
                now = hand.version if hand is not None and number == current else 0
                if number != current or not (
                    request.sequence == now
                    or (hand is not None and declaring_since(hand, move, request.sequence))
                ):
                    raise ApiError(
                        R.ERROR_REASON_STALE_STATE,
                        f"the table is at hand {current}, sequence {now}, not at hand {number}, "
                        f"sequence {request.sequence}: look again and decide anew",
                        metadata={"hand_number": str(current), "sequence": str(now)},
                    )
            at = self.hub.clock()
            table_before = stream.version
            hand_before = hand.version if hand is not None else 0
            outcome = self._apply(key, number, request.request_id, move, at)
            log_action(
                "act",
                table_id=str(key),
                hand_number=number,
                seat=seat,
                action=request.WhichOneof("action"),
                request_id=request.request_id,
                repeated=repeated,
            )
            self.hub.changed(key)
        if repeated:
            hand_made = [
                s
                for s in self.hub.hand_records(key, number)
                if s is not None and s.command_id == request.request_id
            ]
            table_key = f"hand/{number}/{request.request_id}"
            table_made = [s for s in self.hub.table_records(key) if s.command_id == table_key]
        else:
            hand_made = [
                Stored(hand_before + i, e, request.request_id, at)
                for i, e in enumerate(outcome.hand, 1)
            ]
            table_made = [Stored(table_before + i, e, "") for i, e in enumerate(outcome.table, 1)]
        who = Viewer(caller.role, seat)
        events: list[events_pb2.Event] = []
        ended = False
        the_hand = str(hand_id(key, number))
        for s in hand_made:
            ended = ended or isinstance(s.event, HandEnded)
            where = Where(str(key), s.position, number, the_hand, views.when(s.at))
            events.append(view(who, s.event, where, ended=ended))
        for s in table_made:
            events.append(view(who, s.event, Where(str(key), s.position), ended=True))
        last = hand_made[-1].position if hand_made else request.sequence
        return play_pb2.ActResponse(hand_number=number, sequence=last, events=events)

    def _apply(self, key: UUID, number: int, request_id: str, move: Command, at: int) -> Outcome:
        match move:
            case Act(seat=seat, action=action, amount=amount):
                return self.room.act(key, number, request_id, seat, action, amount=amount, at=at)
            case Draw(seat=seat, discards=discards):
                return self.room.draw(key, number, request_id, seat, discards, at=at)
            case Declare(seat=seat, choice=choice):
                return self.room.declare(key, number, request_id, seat, choice, at=at)
        raise AssertionError(f"no such move {move}")
