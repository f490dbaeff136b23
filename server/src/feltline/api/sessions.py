"""``SessionService``: a link's invite token exchanged, once, for a
session's token that the page keeps.

``feltline invite`` puts a short-lived token in a link, sent by chat or
mail, where it may be read later: such a token is an invite's, and does
nothing but come here (:mod:`feltline.api.auth` refuses it anywhere
else). Exchanged, it is recorded as used in the store
(:meth:`feltline.cardroom.room.Room.use_invite`), so the link is worth
nothing after its first use at any server on the store, restarted or not.
A session lasts what the operator chose (``feltline serve --session-hours``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import grpc

from feltline.api import tokens
from feltline.api.auth import current_caller, utc_now
from feltline.api.errors import ApiError
from feltline.cardroom.room import Room
from feltline_protos.v1 import auth_pb2, auth_pb2_grpc, errors_pb2

SESSION_HOURS = 12  # a session's token, by default: an evening's play


class SessionServicer(auth_pb2_grpc.SessionServiceServicer):
    def __init__(
        self,
        room: Room,
        session: timedelta = timedelta(hours=SESSION_HOURS),
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self._room = room
        self._session = session
        self._clock = clock

    def CreateSession(
        self, request: auth_pb2.CreateSessionRequest, context: grpc.ServicerContext
    ) -> auth_pb2.CreateSessionResponse:
        caller = current_caller()
        if not caller.invite:
            raise ApiError(
                errors_pb2.ERROR_REASON_TOKEN_INVALID,
                "this token is a session's already, not an invite's: use it as it is",
            )
        now = self._clock()
        role = auth_pb2.Role.Name(caller.role).removeprefix("ROLE_").lower()
        if not self._room.use_invite(
            caller.token_id, role, caller.player_id, at=int(now.timestamp())
        ):
            raise ApiError(
                errors_pb2.ERROR_REASON_TOKEN_INVALID,
                "this invite link was used already: ask for a new one",
            )
        token = tokens.mint(
            self._room.signer,
            caller.role,
            now=now,
            ttl=self._session,
            player_id=caller.player_id,
        )
        response = auth_pb2.CreateSessionResponse(token=token)
        response.expire_time.FromDatetime(now + self._session)
        return response
