"""``TournamentService``: an admin creates and cancels tournaments,
players register and unregister themselves, anyone reads them.

Each request goes to the Room, which decides it at the tournament's stream
and carries out what its director decides in the same transaction (docs/
store.md, "Tournaments"); a refusal there stores nothing, and reaches the
caller as the status :mod:`feltline.api.errors` gives it. The tables the
director opens are put on the clock as they are stored, which deals them.

``WatchTournament`` sends the tournament's stored events in order, read
from the store (through the rail's shared :class:`~feltline.api.board.Board`),
so a watch resumes from its cursor after a dropped connection or a
restart. A cursor is the position of the last event sent in the
tournament's stream, as a decimal string; the server sends what comes
after it.

What a tournament message shows is public at any table: the set-up (the
seat draws' seed only by its commitment), the entries, the tables open and
every player's chips as of the last hand ended at their table, places and
prizes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any
from uuid import UUID

import grpc

from feltline.api import convert, pages, views
from feltline.api.auth import require_role
from feltline.api.board import Posted
from feltline.api.bulletins import bulletin
from feltline.api.errors import ApiError
from feltline.api.logging import log_action
from feltline.api.rail import POLL, Rail
from feltline.api.tables import ANYONE
from feltline.api.tokens import Caller
from feltline.cardroom.clock import Clock
from feltline.cardroom.room import CreateTournament, Room
from feltline.domain.ids import tournament_table_id
from feltline.domain.tournament import TournamentStream
from feltline.engine.hand.rules import Structure
from feltline.engine.tournament import Band, Level, SeedRevealed, Start, Tournament
from feltline_protos.v1 import auth_pb2, errors_pb2, tournaments_pb2, tournaments_pb2_grpc

R = errors_pb2.ErrorReason
T = tournaments_pb2

STARTS = {
    Start.SIT_AND_GO: T.TOURNAMENT_START_SIT_AND_GO,
    Start.SCHEDULED: T.TOURNAMENT_START_SCHEDULED,
}


def state_of(tournament: Tournament) -> tournaments_pb2.TournamentState.ValueType:
    if tournament.cancelled is not None:
        return T.TOURNAMENT_STATE_CANCELLED
    if tournament.finished is not None:
        return T.TOURNAMENT_STATE_FINISHED
    if tournament.started_at is not None:
        return T.TOURNAMENT_STATE_RUNNING
    return T.TOURNAMENT_STATE_REGISTERING


def tournament_message(stream: TournamentStream) -> tournaments_pb2.Tournament:
    state = stream.tournament
    setup = state.setup
    rules = setup.config.rules
    fixed = rules.stakes.structure is Structure.FIXED_LIMIT
    levels = [
        T.TournamentLevel(
            stakes=None
            if level.stakes is None
            else convert.stakes(
                level.stakes, replace(rules, stakes=level.stakes).raise_cap if fixed else None
            ),
            minutes=level.minutes,
            hands=level.hands,
        )
        for level in setup.levels
    ]
    # Once over, the director's last view of the final table stays in its
    # state, though the table has closed: the places tell who finished where.
    tables = {} if state.over else state.tables
    message = T.Tournament(
        tournament_id=str(stream.id),
        display_name=setup.name,
        config=convert.table_config(setup.config),
        levels=levels,
        buy_in=setup.buy_in,
        fee=setup.fee,
        stack=setup.stack,
        payouts=[T.PayoutBand(entrants=b.entrants, shares=b.shares) for b in setup.payouts],
        start=STARTS[setup.start],
        start_time=views.timestamp(setup.starts_at) if setup.start is Start.SCHEDULED else None,
        entrants=setup.entrants,
        minimum=setup.minimum,
        late_until=setup.late_until,
        seed_commitment=setup.commitment,
        state=state_of(state),
        player_ids=state.registered,
        level=state.level,
        prize_pool=state.prize_pool,
        tables=[
            T.TournamentTable(
                number=n,
                table_id=str(tournament_table_id(stream.id, n)),
                players=felt.players,
            )
            for n, felt in sorted(tables.items())
        ],
        cancel_reason=state.cancelled.reason if state.cancelled is not None else "",
        create_time=views.timestamp(setup.at),
    )
    playing = sorted(
        (
            T.TournamentStanding(player_id=seated.player, chips=seated.stack, table=n, seat=seat)
            for n, felt in tables.items()
            for seat, seated in felt.seats.items()
        ),
        key=lambda s: (-s.chips, s.table, s.seat),
    )
    out = sorted(
        (
            T.TournamentStanding(player_id=p, place=place, prize=state.paid.get(p, 0))
            for p, place in state.placed.items()
        ),
        key=lambda s: (s.place, s.player_id),
    )
    message.standings.extend([*playing, *out])
    return message


def _bad_cursor() -> ApiError:
    return ApiError(
        R.ERROR_REASON_INVALID_CURSOR,
        "after is not a cursor of this tournament: send the last cursor received, or none",
        violations=[("after", "not a cursor this server gave out for this tournament")],
    )


class TournamentServicer(tournaments_pb2_grpc.TournamentServiceServicer):
    def __init__(self, room: Room, clock: Clock, rail: Rail, *, poll: float = POLL) -> None:
        self.room = room
        self.clock = clock
        self.rail = rail
        self.poll = poll

    def CreateTournament(
        self, request: tournaments_pb2.CreateTournamentRequest, context: grpc.ServicerContext
    ) -> tournaments_pb2.CreateTournamentResponse:
        caller = require_role(auth_pb2.ROLE_ADMIN)
        scheduled = request.start == T.TOURNAMENT_START_SCHEDULED
        if scheduled != request.HasField("start_time"):
            raise ApiError(
                R.ERROR_REASON_INVALID_REQUEST,
                "a scheduled tournament has a start_time and a sit-and-go has none",
                violations=[("start_time", "set for a scheduled tournament only")],
            )
        setup = CreateTournament(
            request.display_name,
            views.table_config(request.config),
            tuple(
                Level(
                    views.stakes(level.stakes) if level.HasField("stakes") else None,
                    minutes=level.minutes,
                    hands=level.hands,
                )
                for level in request.levels
            ),
            buy_in=request.buy_in,
            fee=request.fee,
            stack=request.stack,
            payouts=tuple(Band(b.entrants, tuple(b.shares)) for b in request.payouts),
            start=Start.SCHEDULED if scheduled else Start.SIT_AND_GO,
            entrants=request.entrants,
            by=_admin(caller),
            minimum=request.minimum,
            starts_at=request.start_time.seconds if scheduled else 0,
            late_until=request.late_until,
        )
        key = self.room.create_tournament(request.request_id, setup, at=self.clock.seconds())
        log_action(
            "create_tournament", table_id="", tournament_id=str(key), request_id=request.request_id
        )
        return T.CreateTournamentResponse(tournament=tournament_message(self.room.tournament(key)))

    def RegisterForTournament(
        self, request: tournaments_pb2.RegisterForTournamentRequest, context: grpc.ServicerContext
    ) -> tournaments_pb2.RegisterForTournamentResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.tournament_id)
        self.room.tournament(key)  # an unknown tournament before an unknown account
        if not self.room.has_account(caller.player_id):
            raise ApiError(
                R.ERROR_REASON_ACCOUNT_NOT_FOUND,
                f"{caller.player_id} has no account: an admin mints chips to a player first",
            )
        self.room.register_tournament(
            key, request.request_id, caller.player_id, at=self.clock.seconds()
        )
        log_action(
            "register_tournament",
            table_id="",
            tournament_id=str(key),
            request_id=request.request_id,
        )
        return T.RegisterForTournamentResponse(
            tournament=tournament_message(self.room.tournament(key))
        )

    def UnregisterFromTournament(
        self,
        request: tournaments_pb2.UnregisterFromTournamentRequest,
        context: grpc.ServicerContext,
    ) -> tournaments_pb2.UnregisterFromTournamentResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.tournament_id)
        self.room.unregister_tournament(
            key, request.request_id, caller.player_id, at=self.clock.seconds()
        )
        log_action(
            "unregister_tournament",
            table_id="",
            tournament_id=str(key),
            request_id=request.request_id,
        )
        return T.UnregisterFromTournamentResponse(
            tournament=tournament_message(self.room.tournament(key))
        )

    def GetTournament(
        self, request: tournaments_pb2.GetTournamentRequest, context: grpc.ServicerContext
    ) -> tournaments_pb2.GetTournamentResponse:
        require_role(*ANYONE)
        stream = self.room.tournament(views.parse_id(request.tournament_id))
        return T.GetTournamentResponse(tournament=tournament_message(stream))

    def ListTournaments(
        self, request: tournaments_pb2.ListTournamentsRequest, context: grpc.ServicerContext
    ) -> tournaments_pb2.ListTournamentsResponse:
        """Newest first; the page token is the id of the last one sent, tied
        to the state asked for. (A tournament is read from the store at
        each request, so no read here lags another process's writes.)"""
        require_role(*ANYONE)
        asked = pages.query("ListTournaments", request.state)
        after = pages.after(asked, request.page_token, (str,))
        size = pages.size(request.page_size)
        keys = [str(k) for k in self.room.tournaments()[::-1]]
        if after is not None:
            if after[0] not in keys:
                raise pages.not_ours()
            keys = keys[keys.index(str(after[0])) + 1 :]
        page: list[tuple[str, tournaments_pb2.Tournament]] = []
        for key in keys:
            message = tournament_message(self.room.tournament(UUID(key)))
            if request.state in (T.TOURNAMENT_STATE_UNSPECIFIED, message.state):
                if len(page) == size:  # one more: there is a next page
                    return T.ListTournamentsResponse(
                        tournaments=[m for _, m in page],
                        next_page_token=pages.token(asked, (page[-1][0],)),
                    )
                page.append((key, message))
        return T.ListTournamentsResponse(tournaments=[m for _, m in page])

    def CancelTournament(
        self, request: tournaments_pb2.CancelTournamentRequest, context: grpc.ServicerContext
    ) -> tournaments_pb2.CancelTournamentResponse:
        caller = require_role(auth_pb2.ROLE_ADMIN)
        key = views.parse_id(request.tournament_id)
        self.room.cancel_tournament(
            key,
            request.request_id,
            reason=request.reason,
            by=_admin(caller),
            at=self.clock.seconds(),
        )
        log_action(
            "cancel_tournament", table_id="", tournament_id=str(key), request_id=request.request_id
        )
        return T.CancelTournamentResponse(tournament=tournament_message(self.room.tournament(key)))

    def GetTournamentResults(
        self, request: tournaments_pb2.GetTournamentResultsRequest, context: grpc.ServicerContext
    ) -> tournaments_pb2.GetTournamentResultsResponse:
        require_role(*ANYONE)
        stream = self.room.tournament(views.parse_id(request.tournament_id))
        state = stream.tournament
        if state.finished is None:
            where = "was cancelled" if state.cancelled is not None else "has not finished"
            raise ApiError(
                R.ERROR_REASON_WRONG_PHASE,
                f"the tournament {where}: results come when it finishes; "
                "GetTournament shows the standings so far",
            )
        return T.GetTournamentResultsResponse(tournament=tournament_message(stream))

    async def WatchTournament(
        self,
        request: tournaments_pb2.WatchTournamentRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[tournaments_pb2.WatchTournamentResponse]:
        require_role(*ANYONE)
        key = views.parse_id(request.tournament_id)
        if request.after:
            at, over = await asyncio.to_thread(self._resume, key, request.after)
        else:
            stream = await asyncio.to_thread(self.room.tournament, key)
            at, over = stream.version, bool(stream.tournament.revealed)
            yield T.WatchTournamentResponse(cursor=str(at), snapshot=tournament_message(stream))
        if over:
            return  # nothing comes after its last event
        board = self.rail.board(key)
        while not self.rail.stopping.is_set():
            seen = self.rail.version(key)
            if board.stale():
                await asyncio.to_thread(board.refresh_if_stale)
            for posted in board.after(at):
                at = posted.position
                sent = _sent(key, posted)
                if sent is not None:
                    yield sent
                if isinstance(posted.event, SeedRevealed):
                    return  # the tournament's last event
            await self.rail.wait(key, seen, self.poll)
        raise ApiError(  # not a clean end: the tournament goes on
            R.ERROR_REASON_TRY_AGAIN,
            "the server is stopping: resume the watch from the last cursor",
            retry_after=0.5,
        )

    def _resume(self, key: UUID, after: str) -> tuple[int, bool]:
        """The position ``after`` names, which the tournament must have
        reached, and whether it is its last."""
        stream = self.room.tournament(key)  # an unknown tournament before a bad cursor
        if not (after.isascii() and after.isdigit()) or int(after) > stream.version:
            raise _bad_cursor()
        at = int(after)
        return at, at == stream.version and bool(stream.tournament.revealed)


def _sent(key: UUID, posted: Posted) -> tournaments_pb2.WatchTournamentResponse | None:
    """The message sent of ``posted``, built once for every watcher (None
    for an event never sent: its cursor is passed over)."""
    if not posted.sent:
        event = bulletin(key, posted.position, posted.event)
        posted.sent.append(
            None
            if event is None
            else T.WatchTournamentResponse(cursor=str(posted.position), event=event)
        )
    sent = posted.sent[0]
    assert sent is None or isinstance(sent, T.WatchTournamentResponse)
    return sent


def _admin(caller: Caller) -> str:
    return caller.player_id or f"admin token {caller.token_id}"
