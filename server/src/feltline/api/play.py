"""``PlayService.Act``: a player's decision at its own seat, refused when
the hand has moved on since the state the player saw (the Room checks that
against the stored hand, :func:`feltline.cardroom.room.current_to`), answered
as the first time when its request id comes again. ``PlayService.Contribute``:
its seat's commitment or reveal to the hand's deck (``feltline-deck-v2``),
answered with the server's signature over the hand's chain once it is
stored, which the seat keeps."""

from __future__ import annotations

import grpc

from feltline.api import views
from feltline.api.auth import require_role
from feltline.api.convert import Where
from feltline.api.feed import Stored
from feltline.api.logging import log_action
from feltline.api.rail import Rail
from feltline.api.redaction import Viewer, view
from feltline.cardroom.clock import Clock
from feltline.cardroom.room import Room
from feltline.domain.ids import hand_id
from feltline.engine.cards.card import Card, CardError
from feltline.engine.errors import IllegalDraw
from feltline.engine.hand.commands import Act, Commit, Declare, Draw, Reveal
from feltline.engine.hand.events import Action, Choice, HandEnded
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


def command(request: play_pb2.ActRequest, seat: int) -> Act | Draw | Declare:
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


class PlayServicer(play_pb2_grpc.PlayServiceServicer):
    def __init__(self, room: Room, clock: Clock, rail: Rail) -> None:
        self.room = room
        self.clock = clock
        self.rail = rail

    def Contribute(
        self, request: play_pb2.ContributeRequest, context: grpc.ServicerContext
    ) -> play_pb2.ContributeResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.table_id)
        number = request.hand_number
        step = request.WhichOneof("step")
        with self.room.lock(key):
            seat = views.seat_of(self.room.table(key).table, caller.player_id)
            if seat is None:  # perhaps seated through another server since the last look
                seat = views.player_seat(self.room.table(key, fresh=True).table, caller, key)
            move = (
                Commit(seat, request.commitment)
                if step == "commitment"
                else Reveal(seat, request.contribution)
            )
            outcome = self.room.play(key, number, request.request_id, move, at=self.clock.seconds())
            # The chain as it stands now covers the seat's record, stored
            # now or (a repeated request) before: its signature is the receipt.
            stream = self.room.hand(key, number)
            log_action(
                "contribute",
                table_id=str(key),
                hand_number=number,
                seat=seat,
                step=step,
                request_id=request.request_id,
                repeated=outcome.repeated,
            )
            self.clock.changed(key)
        receipt = play_pb2.ContributionReceipt(
            hand_id=str(hand_id(key, number)),
            position=stream.version,
            link=stream.link.hex(),
            signature=self.room.vouch(stream.link),
            public_key=self.room.public_key,
        )
        return play_pb2.ContributeResponse(receipt=receipt)

    def Act(
        self, request: play_pb2.ActRequest, context: grpc.ServicerContext
    ) -> play_pb2.ActResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.table_id)
        number = request.hand_number
        with self.room.lock(key):
            stream = self.room.table(key)
            seat = views.seat_of(stream.table, caller.player_id)
            if seat is None:  # perhaps seated through another server since the last look
                seat = views.player_seat(self.room.table(key, fresh=True).table, caller, key)
            move = command(request, seat)
            at = self.clock.seconds()
            outcome = self.room.play(
                key, number, request.request_id, move, at=at, seen=request.sequence
            )
            log_action(
                "act",
                table_id=str(key),
                hand_number=number,
                seat=seat,
                action=request.WhichOneof("action"),
                request_id=request.request_id,
                repeated=outcome.repeated,
            )
            self.clock.changed(key)
        if outcome.repeated:
            hand_made = [
                s
                for s in self.rail.hand_records(key, number)
                if s is not None and s.command_id == request.request_id
            ]
            table_key = f"hand/{number}/{request.request_id}"
            table_made = [s for s in self.rail.table_records(key) if s.command_id == table_key]
        else:
            hand_made = [
                Stored(outcome.hand_at + i, e, request.request_id, at)
                for i, e in enumerate(outcome.hand, 1)
            ]
            table_made = [
                Stored(outcome.table_at + i, e, "") for i, e in enumerate(outcome.table, 1)
            ]
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
