"""``AccountService``: an admin mints chips; a player reads its own
account, an admin or auditor anyone's."""

from __future__ import annotations

import grpc

from feltline.api.auth import require_role
from feltline.api.errors import ApiError
from feltline.api.logging import log_action
from feltline.cardroom.room import Room
from feltline_protos.v1 import accounts_pb2, accounts_pb2_grpc, auth_pb2, errors_pb2

R = errors_pb2.ErrorReason


class AccountServicer(accounts_pb2_grpc.AccountServiceServicer):
    def __init__(self, room: Room) -> None:
        self.room = room

    def account(self, player: str) -> accounts_pb2.Account:
        balance, at_tables = self.room.holdings(player)
        return accounts_pb2.Account(player_id=player, balance=balance, at_tables=at_tables)

    def GetAccount(
        self, request: accounts_pb2.GetAccountRequest, context: grpc.ServicerContext
    ) -> accounts_pb2.GetAccountResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_AUDITOR, auth_pb2.ROLE_ADMIN)
        player = request.player_id
        if caller.role == auth_pb2.ROLE_PLAYER:
            if player and player != caller.player_id:
                raise ApiError(
                    R.ERROR_REASON_ROLE_FORBIDDEN,
                    "a player reads its own account only: leave player_id empty or your own",
                )
            return accounts_pb2.GetAccountResponse(account=self.account(caller.player_id))
        if not player:
            raise ApiError(
                R.ERROR_REASON_INVALID_REQUEST,
                "say whose account: player_id is required for this token's role",
                violations=[("player_id", "required for admin and auditor tokens")],
            )
        if not self.room.has_account(player):
            raise ApiError(R.ERROR_REASON_ACCOUNT_NOT_FOUND, f"there is no account for {player}")
        return accounts_pb2.GetAccountResponse(account=self.account(player))

    def MintChips(
        self, request: accounts_pb2.MintChipsRequest, context: grpc.ServicerContext
    ) -> accounts_pb2.MintChipsResponse:
        caller = require_role(auth_pb2.ROLE_ADMIN)
        by = caller.player_id or f"admin token {caller.token_id}"
        self.room.mint(request.request_id, request.player_id, request.amount, by=by)
        log_action(
            "mint_chips",
            table_id="",
            player=request.player_id,
            amount=request.amount,
            request_id=request.request_id,
        )
        return accounts_pb2.MintChipsResponse(account=self.account(request.player_id))
