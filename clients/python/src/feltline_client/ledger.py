"""The ``LedgerService`` calls of a :class:`~feltline_client.Client`, as
``client.ledger``: pots, accounts' books, a hand's entries, the house's
take, the hand index, players' results, the ledger's summary and how far
the server's views are behind its log.

The views follow the log a little behind it: :meth:`Ledger.caught_up`
waits until they have applied everything stored, for a reader that must
see its own last action counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from feltline_protos.v1 import common_pb2, ledger_pb2, ledger_pb2_grpc

if TYPE_CHECKING:
    from feltline_client.client import Client

Request = TypeVar("Request", bound=Message)
Response = TypeVar("Response", bound=Message)
PERIODS = {"hour": ledger_pb2.REPORT_PERIOD_HOUR, "day": ledger_pb2.REPORT_PERIOD_DAY}


def _time(at: datetime | None) -> Timestamp | None:
    if at is None:
        return None
    made = Timestamp()
    made.FromDatetime(at)
    return made


class Ledger:
    """The calls, over the client's channel and with its token and retries."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self.stub = ledger_pb2_grpc.LedgerServiceStub(client.channel)

    def _ask(self, method: Callable[..., Response], request: Message) -> Response:
        """One call, with the client's token, timeout and retries (reads
        are always safe to send again)."""
        client = self._client
        return client._call(  # the client's own plumbing, shared within the package
            lambda: method(request, metadata=client.metadata(), timeout=client.timeout),
            retry=True,
        )

    # ---- pots and the projector

    def table_pots(self, table_id: str) -> ledger_pb2.GetTablePotsResponse:
        """The pots of the hand being played at a table (empty between hands)."""
        return self._ask(self.stub.GetTablePots, ledger_pb2.GetTablePotsRequest(table_id=table_id))

    def projector_status(self) -> ledger_pb2.GetProjectorStatusResponse:
        """How far each of the server's views is behind its log."""
        return self._ask(self.stub.GetProjectorStatus, ledger_pb2.GetProjectorStatusRequest())

    def caught_up(
        self, timeout: float = 30.0, poll: float = 0.05
    ) -> ledger_pb2.GetProjectorStatusResponse:
        """Wait until every view has applied the whole log as it stood when
        asked; TimeoutError after ``timeout`` seconds."""
        give_up = time.monotonic() + timeout
        while True:
            status = self.projector_status()
            if all(p.events_behind == 0 for p in status.projections):
                return status
            if time.monotonic() > give_up:
                behind = ", ".join(f"{p.projection} {p.events_behind}" for p in status.projections)
                raise TimeoutError(f"the views are still behind the log: {behind}")
            time.sleep(poll)

    # ---- accounts

    def account(self, player_id: str = "") -> ledger_pb2.GetAccountLedgerResponse:
        """An account's balance and totals; by default the caller's own."""
        request = ledger_pb2.GetAccountLedgerRequest(player_id=player_id)
        return self._ask(self.stub.GetAccountLedger, request)

    def account_entries_page(
        self, player_id: str = "", *, page_size: int = 0, page_token: str = ""
    ) -> ledger_pb2.ListAccountEntriesResponse:
        """One page of an account's entries, oldest first."""
        request = ledger_pb2.ListAccountEntriesRequest(
            player_id=player_id, page_size=page_size, page_token=page_token
        )
        return self._ask(self.stub.ListAccountEntries, request)

    def account_entries(
        self, player_id: str = "", *, page_size: int = 0
    ) -> Iterator[ledger_pb2.LedgerEntry]:
        """Every entry of an account, fetching pages as needed."""
        token = ""
        while True:
            page = self.account_entries_page(player_id, page_size=page_size, page_token=token)
            yield from page.entries
            token = page.next_page_token
            if not token:
                return

    # ---- hands

    def hand_entries_page(
        self, table_id: str, hand_number: int, *, page_size: int = 0, page_token: str = ""
    ) -> ledger_pb2.ListHandEntriesResponse:
        """One page of a hand's entries, in order."""
        request = ledger_pb2.ListHandEntriesRequest(
            table_id=table_id, hand_number=hand_number, page_size=page_size, page_token=page_token
        )
        return self._ask(self.stub.ListHandEntries, request)

    def hand_entries(
        self, table_id: str, hand_number: int, *, page_size: int = 0
    ) -> Iterator[ledger_pb2.LedgerEntry]:
        """Every entry of a hand, fetching pages as needed."""
        token = ""
        while True:
            page = self.hand_entries_page(
                table_id, hand_number, page_size=page_size, page_token=token
            )
            yield from page.entries
            token = page.next_page_token
            if not token:
                return

    def search_hands_page(
        self,
        *,
        table_id: str = "",
        player_id: str = "",
        game: common_pb2.Game.ValueType = common_pb2.GAME_UNSPECIFIED,
        start: datetime | None = None,
        end: datetime | None = None,
        page_size: int = 0,
        page_token: str = "",
    ) -> ledger_pb2.SearchHandsResponse:
        """One page of the hand index, oldest deal first; every filter given
        must match (``start`` inclusive, ``end`` exclusive)."""
        request = ledger_pb2.SearchHandsRequest(
            table_id=table_id,
            player_id=player_id,
            game=game,
            start_time=_time(start),
            end_time=_time(end),
            page_size=page_size,
            page_token=page_token,
        )
        return self._ask(self.stub.SearchHands, request)

    def search_hands(
        self,
        *,
        table_id: str = "",
        player_id: str = "",
        game: common_pb2.Game.ValueType = common_pb2.GAME_UNSPECIFIED,
        start: datetime | None = None,
        end: datetime | None = None,
        page_size: int = 0,
    ) -> Iterator[ledger_pb2.IndexedHand]:
        """Every hand matching the filters, fetching pages as needed."""
        token = ""
        while True:
            page = self.search_hands_page(
                table_id=table_id,
                player_id=player_id,
                game=game,
                start=start,
                end=end,
                page_size=page_size,
                page_token=token,
            )
            yield from page.hands
            token = page.next_page_token
            if not token:
                return

    # ---- the house and the players

    def rake_report(
        self,
        period: str = "hour",
        *,
        table_id: str = "",
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> ledger_pb2.GetRakeReportResponse:
        """Rake and time charges per table per ``period`` ("hour" or "day")."""
        request = ledger_pb2.GetRakeReportRequest(
            table_id=table_id, period=PERIODS[period], start_time=_time(start), end_time=_time(end)
        )
        return self._ask(self.stub.GetRakeReport, request)

    def player_results_page(
        self, player_id: str = "", *, table_id: str = "", page_size: int = 0, page_token: str = ""
    ) -> ledger_pb2.ListPlayerResultsResponse:
        """One page of results, by player then table."""
        request = ledger_pb2.ListPlayerResultsRequest(
            player_id=player_id, table_id=table_id, page_size=page_size, page_token=page_token
        )
        return self._ask(self.stub.ListPlayerResults, request)

    def player_results(
        self, player_id: str = "", *, table_id: str = "", page_size: int = 0
    ) -> Iterator[ledger_pb2.PlayerResult]:
        """Every result matching, fetching pages as needed."""
        token = ""
        while True:
            page = self.player_results_page(
                player_id, table_id=table_id, page_size=page_size, page_token=token
            )
            yield from page.results
            token = page.next_page_token
            if not token:
                return

    def summary(self) -> ledger_pb2.GetLedgerSummaryResponse:
        """Where every chip minted is, and whether they all add up (auditor, admin)."""
        return self._ask(self.stub.GetLedgerSummary, ledger_pb2.GetLedgerSummaryRequest())
