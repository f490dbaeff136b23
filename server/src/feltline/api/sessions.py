"""``SessionService``: a link's invite token exchanged, once, for a
session's token that the page keeps.

``feltline invite`` puts a short-lived token in a link, sent by chat or
mail, where it may be read later: such a token is an invite's, and does
nothing but come here (:mod:`feltline.api.auth` refuses it anywhere
else). Exchanged, it is remembered until it expires, so the link is worth
nothing after its first use. The memory is this process's: on a cluster
of several processes a link not yet expired could be exchanged once at
each, which its short life (``feltline invite --ttl``) bounds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta

import grpc

from feltline.api import tokens
from feltline.api.auth import current_caller, utc_now
from feltline.api.errors import ApiError
from feltline.audit.keys import Signer
from feltline_protos.v1 import auth_pb2, auth_pb2_grpc, errors_pb2

SESSION_TTL = timedelta(hours=12)  # a session's token: an evening's play


class SessionServicer(auth_pb2_grpc.SessionServiceServicer):
    def __init__(self, signer: Signer, clock: Callable[[], datetime] = utc_now) -> None:
        self._signer = signer
        self._clock = clock
        self._lock = threading.Lock()
        self._exchanged: dict[str, datetime] = {}  # invite's token id -> its expiry

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
        with self._lock:
            self._exchanged = {key: at for key, at in self._exchanged.items() if at > now}
            if caller.token_id in self._exchanged:
                raise ApiError(
                    errors_pb2.ERROR_REASON_TOKEN_INVALID,
                    "this invite link was used already: ask for a new one",
                )
            self._exchanged[caller.token_id] = caller.expires
        token = tokens.mint(
            self._signer, caller.role, now=now, ttl=SESSION_TTL, player_id=caller.player_id
        )
        response = auth_pb2.CreateSessionResponse(token=token)
        response.expire_time.FromDatetime(now + SESSION_TTL)
        return response
