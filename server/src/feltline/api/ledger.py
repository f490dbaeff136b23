"""``LedgerService``: the projector's views as the caller may read them.
Pots and the projector's lag are public; a player reads its own account,
results and the hands it was dealt into; auditors and admins everything.

Every answer comes from the views, which follow the log a little behind
it, never from replaying streams. The store is asked only whether a named
table or account exists, so that a name the views have not reached yet is
told apart from one that never was. A server given no views (the
embedded use; ``feltline serve`` always reads them, kept by its own
projector or, with ``--no-projector``, by a ``feltline project`` beside it)
answers ``FAILED_PRECONDITION`` (``VIEWS_UNAVAILABLE``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from feltline.api import pages, views
from feltline.api.auth import require_role
from feltline.api.errors import ApiError
from feltline.api.tokens import Caller
from feltline.cardroom.room import Room
from feltline.domain.ids import account_id, hand_id
from feltline.engine.hand.rules import Game, Structure
from feltline.projections import books, reports
from feltline.projections.ledger import account_book
from feltline.projections.pots import TablePots, table_pots
from feltline.projections.projector import Projector
from feltline.projections.view import View
from feltline_protos.v1 import auth_pb2, common_pb2, errors_pb2, ledger_pb2, ledger_pb2_grpc

R = errors_pb2.ErrorReason
ANYONE = (auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR, auth_pb2.ROLE_AUDITOR, auth_pb2.ROLE_ADMIN)
READERS = (auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_AUDITOR, auth_pb2.ROLE_ADMIN)
HOUSE = (auth_pb2.ROLE_AUDITOR, auth_pb2.ROLE_ADMIN)
PERIODS = {ledger_pb2.REPORT_PERIOD_HOUR: 3600, ledger_pb2.REPORT_PERIOD_DAY: 86400}
KINDS = {
    "mint": ledger_pb2.ENTRY_KIND_MINT,
    "buy-in": ledger_pb2.ENTRY_KIND_BUY_IN,
    "forced-bet": ledger_pb2.ENTRY_KIND_FORCED_BET,
    "bet": ledger_pb2.ENTRY_KIND_BET,
    "uncalled-bet": ledger_pb2.ENTRY_KIND_UNCALLED_BET,
    "pot-award": ledger_pb2.ENTRY_KIND_POT_AWARD,
    "rake": ledger_pb2.ENTRY_KIND_RAKE,
    "time-charge": ledger_pb2.ENTRY_KIND_TIME_CHARGE,
    "carried-pot": ledger_pb2.ENTRY_KIND_CARRIED_POT,
    "cancelled": ledger_pb2.ENTRY_KIND_CANCELLED,
    "cash-out": ledger_pb2.ENTRY_KIND_CASH_OUT,
}
BOOKS = {
    "mint": ledger_pb2.BOOK_KIND_MINT,
    "account": ledger_pb2.BOOK_KIND_ACCOUNT,
    "seat": ledger_pb2.BOOK_KIND_SEAT,
    "pot": ledger_pb2.BOOK_KIND_POT,
    "carried": ledger_pb2.BOOK_KIND_CARRIED_POT,
    "house": ledger_pb2.BOOK_KIND_HOUSE,
    "cashier": ledger_pb2.BOOK_KIND_CASHIER,
}
TALLY_RETRY = 0.1  # seconds: the projector settles between batches


class LedgerServicer(ledger_pb2_grpc.LedgerServiceServicer):
    def __init__(self, room: Room, projector: Projector | None) -> None:
        self.room = room
        self.projector = projector

    # ---- what every call needs

    def _views(self) -> Projector:
        if self.projector is None:
            raise ApiError(
                R.ERROR_REASON_VIEWS_UNAVAILABLE,
                "this server reads no ledger views: it was started without them (feltline "
                "serve always reads them, kept by its own projector or by a feltline project "
                "beside it); send LedgerService calls to such a server",
            )
        return self.projector

    def _view(self, name: str) -> View:
        projector = self._views()
        if name not in projector.views:
            raise ApiError(
                R.ERROR_REASON_VIEWS_UNAVAILABLE,
                f"this server's projector does not keep the {name} view",
            )
        return projector.view(name)

    def _table(self, table_id: str) -> UUID:
        """The table, which the store must hold (``TABLE_NOT_FOUND`` if not)."""
        key = views.parse_id(table_id)
        self.room.table(key, fresh=True)
        return key

    def _account(self, caller: Caller, player_id: str, *, everyone: bool = False) -> str:
        """Whose account or results: a player's own only; for an auditor or
        admin the one named (or, with ``everyone``, "" for all)."""
        if caller.role == auth_pb2.ROLE_PLAYER:
            if player_id and player_id != caller.player_id:
                raise ApiError(
                    R.ERROR_REASON_NOT_YOUR_SEAT,
                    "a player reads its own account and results only: "
                    "leave player_id empty or your own",
                )
            return caller.player_id
        if not player_id:
            if everyone:
                return ""
            raise ApiError(
                R.ERROR_REASON_INVALID_REQUEST,
                "say whose account: player_id is required for this token's role",
                violations=[("player_id", "required for admin and auditor tokens")],
            )
        if not self.room.has_account(player_id):
            raise ApiError(
                R.ERROR_REASON_ACCOUNT_NOT_FOUND,
                f"there is no account for {player_id}",
                metadata={"player_id": player_id},
            )
        return player_id

    # ---- pots

    def GetTablePots(
        self, request: ledger_pb2.GetTablePotsRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.GetTablePotsResponse:
        require_role(*ANYONE)
        view = self._view("pots")
        key = self._table(request.table_id)
        found = table_pots(view, str(key))
        if found is None:
            return ledger_pb2.GetTablePotsResponse(table_id=str(key))
        return ledger_pb2.GetTablePotsResponse(
            table_id=str(key),
            hand_number=found.hand,
            seats=[
                ledger_pb2.SeatInPot(
                    seat=s.seat,
                    player_id=s.player,
                    put_in=s.put_in,
                    bet=s.bet,
                    folded=s.folded,
                    all_in=s.all_in,
                )
                for s in found.seats
            ],
            pots=[
                ledger_pb2.Pot(amount=p.amount, eligible_seats=p.eligible, contributor_seats=c)
                for p, c in zip(found.pots, contributors(found), strict=True)
            ],
            amount_to_call=found.to_call,
            total=found.total,
        )

    # ---- accounts

    def GetAccountLedger(
        self, request: ledger_pb2.GetAccountLedgerRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.GetAccountLedgerResponse:
        caller = require_role(*READERS)
        view = self._view("ledger")
        player = self._account(caller, request.player_id)
        account = account_id(player)
        totals = books.account_totals(view, account_book(account), player)
        return ledger_pb2.GetAccountLedgerResponse(
            player_id=player,
            account_id=str(account),
            balance=totals.balance,
            at_tables=totals.at_tables,
            minted=totals.minted,
            bought_in=totals.bought_in,
            returned=totals.returned,
            cashed_out=totals.cashed_out,
        )

    def ListAccountEntries(
        self, request: ledger_pb2.ListAccountEntriesRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.ListAccountEntriesResponse:
        caller = require_role(*READERS)
        view = self._view("ledger")
        player = self._account(caller, request.player_id)
        asked = pages.query("ListAccountEntries", player)
        after = pages.after(asked, request.page_token, (int, int))
        size = pages.size(request.page_size)
        found = books.book_entries(
            view, account_book(account_id(player)), after=_pair(after), limit=size + 1
        )
        return ledger_pb2.ListAccountEntriesResponse(
            entries=[entry(e) for e in found[:size]], next_page_token=_next(asked, found, size)
        )

    # ---- hands

    def ListHandEntries(
        self, request: ledger_pb2.ListHandEntriesRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.ListHandEntriesResponse:
        caller = require_role(*READERS)
        view = self._view("ledger")
        key = self._table(request.table_id)
        dealt = self.room.table(key).table.hands
        number = request.hand_number
        if number > dealt:
            raise ApiError(
                R.ERROR_REASON_HAND_NOT_FOUND,
                f"table {key} has dealt hands 1 to {dealt}, not {number}",
                metadata={"table_id": str(key), "hand_number": str(number)},
            )
        if caller.role == auth_pb2.ROLE_PLAYER:
            self._dealt_in(caller, key, number)
        asked = pages.query("ListHandEntries", key, number)
        after = pages.after(asked, request.page_token, (int, int))
        size = pages.size(request.page_size)
        found = books.hand_entries(view, str(key), number, after=_pair(after), limit=size + 1)
        return ledger_pb2.ListHandEntriesResponse(
            entries=[entry(e) for e in found[:size]], next_page_token=_next(asked, found, size)
        )

    def _dealt_in(self, caller: Caller, key: UUID, number: int) -> None:
        index = self._view("hand_index")
        if not reports.dealt_in(index, str(hand_id(key, number)), caller.player_id):
            raise ApiError(
                R.ERROR_REASON_NOT_YOUR_SEAT,
                f"{caller.player_id} was not dealt into hand {number} of table {key} (as far "
                "as the hand index has reached: GetProjectorStatus says how far): a player "
                "reads the ledger of its own hands only",
            )

    def SearchHands(
        self, request: ledger_pb2.SearchHandsRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.SearchHandsResponse:
        caller = require_role(*READERS)
        index = self._view("hand_index")
        player = self._account(caller, request.player_id, everyone=True)
        table = str(self._table(request.table_id)) if request.table_id else ""
        game = "" if not request.game else _game(request.game).value
        since, until = views.time_range(request)
        asked = pages.query("SearchHands", table, player, game, since, until)
        after = pages.after(asked, request.page_token, (int, str))
        size = pages.size(request.page_size)
        found = reports.indexed_hands(
            index,
            table_id=table,
            player=player,
            game=game,
            since=since,
            until=until,
            after=None if after is None else (int(after[0]), str(after[1])),
            limit=size + 1,
        )
        more = len(found) > size
        last = found[size - 1] if more else None
        return ledger_pb2.SearchHandsResponse(
            hands=[indexed(h) for h in found[:size]],
            next_page_token="" if last is None else pages.token(asked, (last.at, last.hand_id)),
        )

    # ---- the house and the players

    def GetRakeReport(
        self, request: ledger_pb2.GetRakeReportRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.GetRakeReportResponse:
        require_role(*HOUSE)
        index = self._view("hand_index")
        table = str(self._table(request.table_id)) if request.table_id else ""
        since = request.start_time.seconds if request.HasField("start_time") else None
        until = request.end_time.seconds if request.HasField("end_time") else None
        takes = [
            t
            for t in reports.house_take(index, PERIODS[request.period], table)
            if (since is None or t.start >= since) and (until is None or t.start < until)
        ]
        return ledger_pb2.GetRakeReportResponse(
            periods=[
                ledger_pb2.RakePeriod(
                    table_id=t.table_id,
                    start_time=Timestamp(seconds=t.start),
                    hands=t.hands,
                    rake=t.rake,
                    time_charges=t.time_charges,
                )
                for t in takes
            ],
            hands=sum(t.hands for t in takes),
            rake=sum(t.rake for t in takes),
            time_charges=sum(t.time_charges for t in takes),
        )

    def ListPlayerResults(
        self, request: ledger_pb2.ListPlayerResultsRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.ListPlayerResultsResponse:
        caller = require_role(*READERS)
        index = self._view("hand_index")
        player = self._account(caller, request.player_id, everyone=True)
        table = str(self._table(request.table_id)) if request.table_id else ""
        asked = pages.query("ListPlayerResults", player, table)
        after = pages.after(asked, request.page_token, (str, str))
        size = pages.size(request.page_size)
        found = [
            r
            for r in reports.results(index, player)
            if (not table or r.table_id == table)
            and (after is None or (r.player, r.table_id) > (str(after[0]), str(after[1])))
        ]
        page = found[:size]
        return ledger_pb2.ListPlayerResultsResponse(
            results=[
                ledger_pb2.PlayerResult(
                    player_id=r.player,
                    table_id=r.table_id,
                    hands=r.hands,
                    net=r.net,
                    time_charges=r.time_charges,
                    rake_paid=r.rake,
                )
                for r in page
            ],
            next_page_token=pages.token(asked, (page[-1].player, page[-1].table_id))
            if len(found) > size
            else "",
        )

    def GetLedgerSummary(
        self, request: ledger_pb2.GetLedgerSummaryRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.GetLedgerSummaryResponse:
        require_role(*HOUSE)
        view = self._view("ledger")
        try:
            t = books.tally(view, self._views().follower.names())
        except books.Moving:
            raise ApiError(
                R.ERROR_REASON_TRY_AGAIN,
                "the ledger kept moving while it was read: ask again",
                retry_after=TALLY_RETRY,
            ) from None
        return ledger_pb2.GetLedgerSummaryResponse(
            position=t.position,
            minted=t.minted,
            in_accounts=t.accounts,
            on_tables=t.seats,
            in_pots=t.pots,
            carried=t.carried,
            raked=t.raked,
            time_charges=t.time_charges,
            cashed_out=t.cashed_out,
            forfeited=t.forfeited,
            balanced=t.balanced,
            problems=t.problems,
        )

    def GetProjectorStatus(
        self, request: ledger_pb2.GetProjectorStatusRequest, context: grpc.ServicerContext
    ) -> ledger_pb2.GetProjectorStatusResponse:
        require_role(*ANYONE)
        lags = []
        for lag in self._views().lags():
            made = ledger_pb2.ProjectionLag(
                projection=lag.name,
                position=lag.position,
                head=lag.head,
                events_behind=lag.events,
            )
            made.time_behind.FromNanoseconds(round(lag.seconds * 1e9))
            lags.append(made)
        return ledger_pb2.GetProjectorStatusResponse(projections=lags)


def contributors(pots: TablePots) -> list[list[int]]:
    """For each pot, the seats whose chips are in it. Pots are cut at the
    live seats' levels, and a pot's level is the least any seat eligible for
    it put in: the seats above the level below it have chips in it."""
    put_in = {s.seat: s.put_in for s in pots.seats}
    made, floor = [], 0
    for pot in pots.pots:
        made.append([seat for seat, amount in sorted(put_in.items()) if amount > floor])
        floor = min((put_in[s] for s in pot.eligible), default=floor)
    return made


def entry(e: books.Entry) -> ledger_pb2.LedgerEntry:
    return ledger_pb2.LedgerEntry(
        position=e.position,
        line=e.line,
        kind=KINDS.get(e.kind, ledger_pb2.ENTRY_KIND_UNSPECIFIED),
        debit=book(e.debit),
        credit=book(e.credit),
        amount=e.amount,
        table_id=e.table_id,
        hand_number=e.hand,
        seat=e.seat or 0,
        player_id=e.player,
        event_type=e.event,
    )


def book(name: str) -> ledger_pb2.Book:
    """A book's name in the ledger (``seat:<table>:<n>``...) as a message."""
    kind, _, rest = name.partition(":")
    made = ledger_pb2.Book(kind=BOOKS.get(kind, ledger_pb2.BOOK_KIND_UNSPECIFIED))
    if kind == "account":
        made.account_id = rest
    elif kind == "seat":
        table, _, seat = rest.rpartition(":")
        made.table_id, made.seat = table, int(seat)
    elif rest:
        made.table_id = rest
    return made


def indexed(h: reports.IndexedHand) -> ledger_pb2.IndexedHand:
    return ledger_pb2.IndexedHand(
        hand_id=h.hand_id,
        table_id=h.table_id,
        hand_number=h.number,
        deal_time=Timestamp(seconds=h.at),
        game=common_pb2.Game.Value("GAME_" + Game(h.game).name),
        stakes=stakes(h.stakes),
        button=h.button,
        seats=[
            ledger_pb2.IndexedSeat(
                seat=s.seat, player_id=s.player, start_stack=s.start, final_stack=s.final, won=s.won
            )
            for s in h.seats
        ],
        pot=h.pot,
        rake=h.rake,
        ended=h.ended,
        cancelled=h.cancelled,
        passed_out=h.passed_out,
        winner_ids=h.winners,
    )


def stakes(fields: dict[str, Any]) -> common_pb2.Stakes:
    """The index's stakes (the table's, as JSON) as the contract has them."""
    structure = Structure(fields["structure"])
    return common_pb2.Stakes(
        structure=common_pb2.Structure.Value("STRUCTURE_" + structure.name),
        small_bet=int(fields.get("small_bet") or 0),
        big_bet=int(fields.get("big_bet") or 0),
        ante=int(fields.get("ante") or 0),
        small_blind=int(fields.get("small_blind") or 0),
        big_blind=int(fields.get("big_blind") or 0),
        bring_in=int(fields.get("bring_in") or 0),
        raise_cap=fields.get("raise_cap"),
        uncapped_heads_up=fields.get("uncapped_heads_up"),
    )


def _game(value: common_pb2.Game.ValueType) -> Game:
    return Game[common_pb2.Game.Name(value).removeprefix("GAME_")]


def _pair(key: pages.Key | None) -> tuple[int, int] | None:
    return None if key is None else (int(key[0]), int(key[1]))


def _next(asked: str, found: Sequence[books.Entry], size: int) -> str:
    """The next page's token: there is one when more than a page was found."""
    if len(found) <= size:
        return ""
    last = found[size - 1]
    return pages.token(asked, (last.position, last.line))
