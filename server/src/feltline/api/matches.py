"""``MatchService``: duplicate matches. An admin creates one with its
tables, players take seats, anyone reads and watches the standings.

What a match message shows is what the match's stream has made public:
its setup and seed commitments, the seats, how many deals each table has
ended, and for the deals every table has ended (revealed) their seeds,
every seat's results and scores. A deal some table still plays shows
nothing but that count: its results would tell the players still playing
it about the same cards.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import grpc

from feltline.api import convert, views
from feltline.api.auth import require_role
from feltline.api.errors import ApiError
from feltline.api.logging import log_action
from feltline.api.rail import POLL, Rail
from feltline.api.tables import ANYONE
from feltline.cardroom.clock import Clock
from feltline.cardroom.room import Room
from feltline.domain.match import Match, MatchStream
from feltline.engine.duplicate import matchpoints, scores
from feltline_protos.v1 import auth_pb2, errors_pb2, matches_pb2, matches_pb2_grpc

R = errors_pb2.ErrorReason


def match_message(stream: MatchStream) -> matches_pb2.Match:
    match = stream.match
    setup = match.setup
    count = len(setup.tables)
    state = (
        matches_pb2.MATCH_STATE_ENDED
        if match.finished
        else matches_pb2.MATCH_STATE_PLAYING
        if match.full
        else matches_pb2.MATCH_STATE_SEATING
    )
    message = matches_pb2.Match(
        match_id=str(stream.id),
        display_name=setup.name,
        config=convert.table_config(setup.config),
        table_ids=list(setup.tables),
        deals=setup.deals,
        stack=setup.stack,
        ahead=setup.ahead,
        seed_commitments=list(setup.commitments),
        seats=[
            matches_pb2.MatchSeat(table=t, seat=s, player_id=p)
            for (t, s), p in sorted(match.players.items())
        ],
        deals_ended=[match.dealt_to(t) for t in range(count)],
        state=state,
        create_time=views.timestamp(setup.at),
    )
    for deal, seed in enumerate(match.revealed, 1):
        message.revealed.append(_revealed(match, deal, seed))
    rank, last = 0, None
    for n, standing in enumerate(match.standings(), 1):
        if (standing.score, standing.matchpoints) != last:
            rank, last = n, (standing.score, standing.matchpoints)
        message.standings.append(
            matches_pb2.Standing(
                rank=rank,
                table=standing.table,
                seat=standing.seat,
                player_id=standing.player,
                score=standing.score,
                matchpoints=standing.matchpoints,
                chips=standing.chips,
            )
        )
    return message


def _revealed(match: Match, deal: int, seed: bytes) -> matches_pb2.RevealedDeal:
    results = match.results(deal)
    revealed = matches_pb2.RevealedDeal(deal=deal, seed=seed)
    for t, (chips, score, points) in enumerate(
        zip(results, scores(results), matchpoints(results), strict=True)
    ):
        for seat in sorted(chips):
            revealed.results.append(
                matches_pb2.DealResult(
                    table=t,
                    seat=seat,
                    chips=chips[seat],
                    score=score[seat],
                    matchpoints=points[seat],
                )
            )
    return revealed


class MatchServicer(matches_pb2_grpc.MatchServiceServicer):
    def __init__(self, room: Room, clock: Clock, rail: Rail, *, poll: float = POLL) -> None:
        self.room = room
        self.clock = clock
        self.rail = rail
        self.poll = poll

    def CreateMatch(
        self, request: matches_pb2.CreateMatchRequest, context: grpc.ServicerContext
    ) -> matches_pb2.CreateMatchResponse:
        caller = require_role(auth_pb2.ROLE_ADMIN)
        if request.ahead >= request.deals:
            raise ApiError(
                R.ERROR_REASON_INVALID_REQUEST,
                f"ahead must be less than deals ({request.deals}), not {request.ahead}",
                violations=[("ahead", "must be less than deals")],
            )
        config = views.table_config(request.config)
        key = self.room.create_match(
            request.request_id,
            request.display_name,
            config,
            tables=request.tables,
            deals=request.deals,
            stack=request.stack,
            ahead=request.ahead,
            by=caller.player_id or f"admin token {caller.token_id}",
            at=self.clock.seconds(),
        )
        stream = self.room.match(key)
        for table in stream.match.tables:
            self.clock.opened(table)
        self.rail.notify(key)
        log_action("create_match", table_id="", match_id=str(key), request_id=request.request_id)
        return matches_pb2.CreateMatchResponse(match=match_message(stream))

    def JoinMatch(
        self, request: matches_pb2.JoinMatchRequest, context: grpc.ServicerContext
    ) -> matches_pb2.JoinMatchResponse:
        caller = require_role(auth_pb2.ROLE_PLAYER)
        key = views.parse_id(request.match_id)
        self.room.join_match(key, request.request_id, request.table, request.seat, caller.player_id)
        stream = self.room.match(key)
        self.rail.notify(key)
        if stream.match.full:  # the first deal need not wait for the clock
            for table in stream.match.tables:
                with self.room.lock(table):
                    self.clock.changed(table)
        log_action(
            "join_match",
            table_id=stream.match.setup.tables[request.table],
            match_id=str(key),
            seat=request.seat,
            request_id=request.request_id,
        )
        return matches_pb2.JoinMatchResponse(match=match_message(stream))

    def GetMatch(
        self, request: matches_pb2.GetMatchRequest, context: grpc.ServicerContext
    ) -> matches_pb2.GetMatchResponse:
        require_role(*ANYONE)
        stream = self.room.match(views.parse_id(request.match_id))
        return matches_pb2.GetMatchResponse(match=match_message(stream))

    def GetMatchResults(
        self, request: matches_pb2.GetMatchResultsRequest, context: grpc.ServicerContext
    ) -> matches_pb2.GetMatchResultsResponse:
        require_role(*ANYONE)
        stream = self.room.match(views.parse_id(request.match_id))
        if not stream.match.finished:
            done = len(stream.match.revealed)
            raise ApiError(
                R.ERROR_REASON_WRONG_PHASE,
                f"the match has ended {done} of its {stream.match.setup.deals} deals: "
                "results come when it ends; GetMatch shows the standings so far",
            )
        return matches_pb2.GetMatchResultsResponse(match=match_message(stream))

    async def WatchMatch(
        self, request: matches_pb2.WatchMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[matches_pb2.WatchMatchResponse]:
        require_role(*ANYONE)
        key = views.parse_id(request.match_id)
        sent = -1
        while not self.rail.stopping.is_set():
            seen = self.rail.version(key)
            stream = await asyncio.to_thread(self._current, key)
            if stream.version != sent:
                sent = stream.version
                yield matches_pb2.WatchMatchResponse(match=match_message(stream))
            if stream.match.finished:
                return
            await self.rail.wait(key, seen, self.poll)
        raise ApiError(
            R.ERROR_REASON_TRY_AGAIN, "the server is stopping: watch again", retry_after=0.5
        )

    def _current(self, key: UUID) -> MatchStream:
        return self.room.match(key, fresh=True)
