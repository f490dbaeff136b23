"""``TournamentService``: an admin creates and cancels tournaments,
players register and unregister themselves, anyone reads them.

Each request goes to the Room, which decides it at the tournament's stream
and carries out what its director decides in the same transaction (docs/
store.md, "Tournaments"); a refusal there stores nothing, and reaches the
caller as the status :mod:`feltline.api.errors` gives it. The tables the
director opens are put on the clock as they are stored, which deals them.

What a tournament message shows is public at any table: the set-up (the
seat draws' seed only by its commitment), the entries, the tables open and
every player's chips as of the last hand ended at their table, places and
prizes.
"""

from __future__ import annotations

from dataclasses import replace
from uuid import UUID

import grpc

from feltline.api import convert, views
from feltline.api.auth import require_role
from feltline.api.errors import ApiError
from feltline.api.logging import log_action
from feltline.api.tables import ANYONE
from feltline.api.tokens import Caller
from feltline.cardroom.clock import Clock
from feltline.cardroom.room import CreateTournament, Room
from feltline.domain.ids import tournament_table_id
from feltline.domain.tournament import TournamentStream
from feltline.engine.rules import Structure
from feltline.engine.tournament import Band, Level, Start, Tournament
from feltline_protos.v1 import auth_pb2, errors_pb2, tournaments_pb2, tournaments_pb2_grpc

R = errors_pb2.ErrorReason
T = tournaments_pb2
PAGE = 50  # tournaments in a page when the request names no size

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
        prize_pool=state.pool,
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


class TournamentServicer(tournaments_pb2_grpc.TournamentServiceServicer):
    def __init__(self, room: Room, clock: Clock) -> None:
        self.room = room
        self.clock = clock

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
        """Newest first; the page token is the id of the last one sent.
        (A tournament is read from the store at each request, so no read
        here lags another process's writes.)"""
        require_role(*ANYONE)
        keys = self.room.tournaments()[::-1]
        if request.page_token:
            try:
                keys = keys[keys.index(UUID(request.page_token)) + 1 :]
            except ValueError:
                raise ApiError(
                    R.ERROR_REASON_INVALID_CURSOR,
                    "page_token is not one this server sent: list again from the first page",
                    violations=[("page_token", "a next_page_token from ListTournaments")],
                ) from None
        size = request.page_size or PAGE
        page: list[tournaments_pb2.Tournament] = []
        last = None
        for key in keys:
            if len(page) == size:
                break
            last = key
            message = tournament_message(self.room.tournament(key))
            if request.state in (T.TOURNAMENT_STATE_UNSPECIFIED, message.state):
                page.append(message)
        more = last is not None and last != keys[-1]
        return T.ListTournamentsResponse(
            tournaments=page, next_page_token=str(last) if more else ""
        )

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


def _admin(caller: Caller) -> str:
    return caller.player_id or f"admin token {caller.token_id}"
