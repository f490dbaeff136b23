"""A typed, synchronous client for Feltline's gRPC API.

It hides three things every caller would otherwise repeat: the bearer token
in each call's metadata, a fresh idempotency id for each change (reused when
a call is retried, so a retry is never applied twice), and reconnecting a
table's watch from the last cursor received.

Retries are bounded by time, not by count: a server that restarts is gone
for seconds, and a player that gave up after a second would stand up for
nothing. By default a call or a watch keeps trying for a minute.
"""

from __future__ import annotations

import base64
import hashlib
import os
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, NamedTuple, TypeVar

import grpc

from feltline_client.errors import FeltlineError, from_rpc_error
from feltline_client.ledger import Ledger
from feltline_protos.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    auth_pb2,
    common_pb2,
    matches_pb2,
    matches_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
    tables_pb2,
    tables_pb2_grpc,
    tournaments_pb2,
    tournaments_pb2_grpc,
    watch_pb2,
    watch_pb2_grpc,
)

T = TypeVar("T")

# Codes after which the same request, with the same request id, may be sent
# again: nothing was applied, or it was and the server answers as before.
# CANCELLED is among them because this client never cancels a unary call of
# its own (a watch it cancels ends without a retry): it comes from a server
# stopping, whose gRPC drops the calls that arrived as it began to stop, or
# from one with more calls waiting for it than its gRPC keeps (10,000 for a
# Feltline server), which drops some before they reach it.
RETRYABLE = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED, grpc.StatusCode.CANCELLED}
)
# Retried only after the delay the server gives (RetryInfo): a server
# refusing work it has no room for says when to come back, and anything
# else refusing it without a hint (a quota, a proxy) is not retried blindly.
RETRYABLE_AFTER_HINT = frozenset({grpc.StatusCode.RESOURCE_EXHAUSTED})
KEEPALIVE_MS = 10_000  # a ping after this long without one
KEEPALIVE_TIMEOUT_MS = 10_000  # the connection is dead if a ping is not answered by then
# The channel's own reconnection backoff (gRPC's grows to two minutes): a
# restarted server is found within a second of listening again.
CHANNEL_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
    # A server that stops answering without closing its connection (frozen,
    # a stalled VM, a cut network) is found dead by a ping unanswered within
    # KEEPALIVE_TIMEOUT_MS, instead of a call waiting out its deadline and a
    # watch forever: the call fails UNAVAILABLE, is tried again, and with a
    # target naming several servers it goes to another. The server allows
    # these pings (feltline.api.server.OPTIONS).
    ("grpc.keepalive_time_ms", KEEPALIVE_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.http2.ping_timeout_ms", KEEPALIVE_TIMEOUT_MS),  # what gRPC 1.6x+ waits on
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
)
DECLARATIONS = {
    "low": common_pb2.DECLARATION_LOW,
    "high": common_pb2.DECLARATION_HIGH,
    "both": common_pb2.DECLARATION_BOTH,
}


def _cancel_when_set(stop: threading.Event, call: grpc.RpcContext) -> None:
    """Cancel ``call`` once ``stop`` is set; give up watching when it ends."""

    def wait() -> None:
        while not stop.wait(0.2):
            if not call.is_active():
                return
        call.cancel()

    threading.Thread(target=wait, name="feltline-watch-stop", daemon=True).start()


class Seen(NamedTuple):
    """The hand and the sequence of its latest event a player decided on:
    the server refuses an action when the hand has moved on since."""

    hand_number: int
    sequence: int

    @classmethod
    def of(cls, hand: tables_pb2.HandView) -> Seen:
        return cls(hand.hand_number, hand.sequence)


def token_claims(token: str) -> auth_pb2.TokenClaims:
    """What a token says (role, player, expiry), read without verifying its
    signature: only the server can vouch for it. Layout: ``v1.<claims>.<sig>``,
    both parts unpadded base64url."""
    parts = token.split(".")
    if len(parts) != 3 or parts[0] != "v1":
        raise ValueError("not a Feltline v1 token: expected v1.<claims>.<signature>")
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    return auth_pb2.TokenClaims.FromString(base64.urlsafe_b64decode(payload))


@dataclass(frozen=True)
class Tls:
    """How a client checks a server over TLS, and proves who it is: ``ca``,
    the certificate authorities (PEM) that signed the server's certificate
    (None: the system's), and for a server that requires client
    certificates, the client's ``cert`` chain and its ``key`` (PEM)."""

    ca: bytes | None = None
    cert: bytes | None = None
    key: bytes | None = None

    def __post_init__(self) -> None:
        if (self.cert is None) != (self.key is None):
            raise ValueError("a client certificate needs its key, and a key its certificate")

    @classmethod
    def from_files(
        cls,
        ca: str | os.PathLike[str] | None = None,
        cert: str | os.PathLike[str] | None = None,
        key: str | os.PathLike[str] | None = None,
    ) -> Tls:
        """The same, read from PEM files."""

        def read(path: str | os.PathLike[str] | None) -> bytes | None:
            return None if path is None else Path(path).read_bytes()

        return cls(read(ca), read(cert), read(key))

    def credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(
            root_certificates=self.ca, private_key=self.key, certificate_chain=self.cert
        )


class Client:
    """One connection to a Feltline server, acting with one token.

    ``token`` is the bearer token, or a function returning the current one
    (called before every call, so a refreshed token is picked up). With
    ``tls`` the channel to ``target`` is encrypted and the server's
    certificate checked (``Tls()``: against the system's authorities);
    without, it is plain text, fit only for local use; either way with
    :data:`CHANNEL_OPTIONS`. Pass ``channel`` to use a channel of your own
    (options) instead.

    A call that fails with UNAVAILABLE, ABORTED or CANCELLED, and a watch that drops,
    are tried again after ``backoff`` seconds, doubling up to
    ``max_backoff`` (with jitter, so that a room of bots does not come back
    in step), or after the server's RetryInfo delay, for up to ``patience``
    seconds from the first failure in a row; ``retries``, if given, also caps the
    attempts in a row (0: never retry). A call refused RESOURCE_EXHAUSTED
    (the server is overloaded) is tried again the same way, but only after
    its RetryInfo delay, never without one.
    """

    def __init__(
        self,
        target: str = "",
        token: str | Callable[[], str] = "",
        *,
        channel: grpc.Channel | None = None,
        tls: Tls | None = None,
        timeout: float | None = 10.0,
        retries: int | None = None,
        backoff: float = 0.2,
        max_backoff: float = 2.0,
        patience: float = 60.0,
    ) -> None:
        if channel is None and not target:
            raise ValueError("give a target such as 'localhost:50051', or a channel")
        if channel is not None and tls is not None:
            raise ValueError("give tls or a channel of your own, not both")
        self._owned = channel is None
        if channel is not None:
            self.channel = channel
        elif tls is not None:
            self.channel = grpc.secure_channel(target, tls.credentials(), options=CHANNEL_OPTIONS)
        else:
            self.channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
        self._token = token if callable(token) else (lambda: token)
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.patience = patience
        self.tables = tables_pb2_grpc.TableServiceStub(self.channel)
        self.play = play_pb2_grpc.PlayServiceStub(self.channel)
        self.watcher = watch_pb2_grpc.WatchServiceStub(self.channel)
        self.accounts = accounts_pb2_grpc.AccountServiceStub(self.channel)
        self.replay = replay_pb2_grpc.ReplayServiceStub(self.channel)
        self.ledger = Ledger(self)
        self.matches = matches_pb2_grpc.MatchServiceStub(self.channel)
        self.tournaments = tournaments_pb2_grpc.TournamentServiceStub(self.channel)

    def close(self) -> None:
        """Close the channel, if this client opened it."""
        if self._owned:
            self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ---- plumbing

    @property
    def player_id(self) -> str:
        """The player this client's token names ("" for none), read from the
        token as it stands, without verifying it: the server does."""
        return token_claims(self._token()).player_id

    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The call metadata: the bearer token."""
        token = self._token()
        return (("authorization", f"Bearer {token}"),) if token else ()

    def _call(self, call: Callable[[], T], *, retry: bool) -> T:
        """Run ``call``; on a retryable failure run it again (the request,
        request id included, is the same) with a growing pause."""
        attempt = 0
        since = time.monotonic()
        while True:
            try:
                return call()
            except grpc.RpcError as e:
                error = from_rpc_error(e)
                pause = self._pause(error, attempt, since) if retry else None
                if pause is None:
                    raise error from None
                time.sleep(pause)
                attempt += 1

    def _pause(self, error: FeltlineError, attempt: int, since: float) -> float | None:
        """How long to wait before trying again after ``error``, the
        ``attempt``-th failure in a row since ``since`` (monotonic); None to
        give up: not retryable, out of attempts, or out of patience. The last
        pause is cut short so that one more try falls within the patience."""
        if error.code not in RETRYABLE and (
            error.code not in RETRYABLE_AFTER_HINT or error.retry_after is None
        ):
            return None
        if self.retries is not None and attempt >= self.retries:
            return None
        left = since + self.patience - time.monotonic()
        if left <= 0:
            return None
        pause = error.retry_after
        if pause is None:
            ceiling = min(self.max_backoff, self.backoff * 2**attempt)
            pause = random.uniform(ceiling / 2, ceiling)  # jitter, not a secret
        return min(pause, left)

    @staticmethod
    def _request_id(request_id: str | None) -> str:
        return request_id if request_id is not None else str(uuid.uuid4())

    # ---- tables

    def create_table(
        self, config: common_pb2.TableConfig, display_name: str, *, request_id: str | None = None
    ) -> tables_pb2.Table:
        """Open a table (admin)."""
        request = tables_pb2.CreateTableRequest(
            config=config, display_name=display_name, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.tables.CreateTable(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).table

    def close_table(
        self, table_id: str, reason: str = "", *, request_id: str | None = None
    ) -> tables_pb2.Table:
        """Close a table (admin): a hand in progress is cancelled."""
        request = tables_pb2.CloseTableRequest(
            table_id=table_id, reason=reason, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.tables.CloseTable(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        ).table

    def list_tables_page(
        self,
        *,
        page_size: int = 0,
        page_token: str = "",
        state: tables_pb2.TableState.ValueType = tables_pb2.TABLE_STATE_UNSPECIFIED,
        game: common_pb2.Game.ValueType = common_pb2.GAME_UNSPECIFIED,
    ) -> tables_pb2.ListTablesResponse:
        """One page of tables, as the server returns it."""
        request = tables_pb2.ListTablesRequest(
            page_size=page_size, page_token=page_token, state=state, game=game
        )
        return self._call(
            lambda: self.tables.ListTables(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        )

    def list_tables(
        self,
        *,
        page_size: int = 0,
        state: tables_pb2.TableState.ValueType = tables_pb2.TABLE_STATE_UNSPECIFIED,
        game: common_pb2.Game.ValueType = common_pb2.GAME_UNSPECIFIED,
    ) -> Iterator[tables_pb2.Table]:
        """Every table, fetching pages as the iteration needs them."""
        token = ""
        while True:
            page = self.list_tables_page(
                page_size=page_size, page_token=token, state=state, game=game
            )
            yield from page.tables
            token = page.next_page_token
            if not token:
                return

    def get_table(self, table_id: str) -> tables_pb2.Table:
        """A table as this client's token may see it."""
        request = tables_pb2.GetTableRequest(table_id=table_id)
        return self._call(
            lambda: self.tables.GetTable(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        ).table

    def sit_down(
        self,
        table_id: str,
        seat: int,
        buy_in: int,
        *,
        post_now: bool = False,
        join_pot: bool = False,
        request_id: str | None = None,
    ) -> tables_pb2.Table:
        """Take an empty seat, buying in from the player's account; also while
        others play a hand, which the newcomer is not dealt into."""
        request = tables_pb2.SitDownRequest(
            table_id=table_id,
            seat=seat,
            buy_in=buy_in,
            post_now=post_now,
            join_pot=join_pot,
            request_id=self._request_id(request_id),
        )
        return self._call(
            lambda: self.tables.SitDown(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        ).table

    def stand_up(
        self, table_id: str, *, request_id: str | None = None
    ) -> tables_pb2.StandUpResponse:
        """Leave the table (at the end of the hand, if one is being played)."""
        request = tables_pb2.StandUpRequest(
            table_id=table_id, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.tables.StandUp(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        )

    def sit_out(self, table_id: str, *, request_id: str | None = None) -> tables_pb2.Table:
        """Be dealt no hand from the next one on, keeping the seat: the next
        hand is dealt as the current one ends, so to leave without paying
        for it, sit out during this one and stand up after it."""
        request = tables_pb2.SitOutRequest(
            table_id=table_id, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.tables.SitOut(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        ).table

    def sit_in(
        self, table_id: str, *, post_now: bool = False, request_id: str | None = None
    ) -> tables_pb2.Table:
        """Be dealt in again from the next hand; in hold'em after a missed
        deal, at the big blind, or at once with ``post_now``."""
        request = tables_pb2.SitInRequest(
            table_id=table_id, post_now=post_now, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.tables.SitIn(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        ).table

    # ---- play

    def act(self, request: play_pb2.ActRequest) -> play_pb2.ActResponse:
        """Send an action as built; a missing request id is filled in."""
        if not request.request_id:
            request.request_id = self._request_id(None)
        return self._call(
            lambda: self.play.Act(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        )

    def _act(
        self, table_id: str, seen: Seen, request_id: str | None, **action: object
    ) -> play_pb2.ActResponse:
        request = play_pb2.ActRequest(
            table_id=table_id,
            request_id=self._request_id(request_id),
            hand_number=seen.hand_number,
            sequence=seen.sequence,
            **action,  # type: ignore[arg-type]
        )
        return self.act(request)

    def check(
        self, table_id: str, seen: Seen, *, request_id: str | None = None
    ) -> play_pb2.ActResponse:
        """Check."""
        return self._act(table_id, seen, request_id, check=play_pb2.Check())

    def call(
        self, table_id: str, seen: Seen, *, request_id: str | None = None
    ) -> play_pb2.ActResponse:
        """Call the bet."""
        return self._act(table_id, seen, request_id, call=play_pb2.Call())

    def bet(
        self, table_id: str, seen: Seen, to: int, *, request_id: str | None = None
    ) -> play_pb2.ActResponse:
        """Bet, making the seat's bet this round ``to``."""
        return self._act(table_id, seen, request_id, bet=play_pb2.Bet(to=to))

    def raise_to(
        self, table_id: str, seen: Seen, to: int, *, request_id: str | None = None
    ) -> play_pb2.ActResponse:
        """Raise, making the seat's bet this round ``to``."""
        return self._act(table_id, seen, request_id, raise_bet=play_pb2.Raise(to=to))

    def fold(
        self, table_id: str, seen: Seen, *, request_id: str | None = None
    ) -> play_pb2.ActResponse:
        """Fold."""
        return self._act(table_id, seen, request_id, fold=play_pb2.Fold())

    def complete(
        self, table_id: str, seen: Seen, to: int, *, request_id: str | None = None
    ) -> play_pb2.ActResponse:
        """Stud: complete, making the seat's bet this round ``to``."""
        return self._act(table_id, seen, request_id, complete=play_pb2.Complete(to=to))

    def bring_in(
        self, table_id: str, seen: Seen, *, request_id: str | None = None
    ) -> play_pb2.ActResponse:
        """Stud: post the bring-in."""
        return self._act(table_id, seen, request_id, bring_in=play_pb2.BringIn())

    def draw(
        self, table_id: str, seen: Seen, discards: Sequence[str], *, request_id: str | None = None
    ) -> play_pb2.ActResponse:
        """Draw games: throw away ``discards`` (cards like ``"As"``); none to stand pat."""
        return self._act(table_id, seen, request_id, draw=play_pb2.Draw(discards=discards))

    def declare(
        self,
        table_id: str,
        seen: Seen,
        declaration: Literal["low", "high", "both"],
        *,
        request_id: str | None = None,
    ) -> play_pb2.ActResponse:
        """Draw-declare: declare low, high or both."""
        choice = play_pb2.Declare(declaration=DECLARATIONS[declaration])
        return self._act(table_id, seen, request_id, declare=choice)

    # ---- contributing to the deck (feltline-deck-v2, docs/deck.md)

    def commit(
        self, table_id: str, hand_number: int, contribution: bytes, *, request_id: str | None = None
    ) -> play_pb2.ContributionReceipt:
        """Commit the seat to ``contribution`` (32 random bytes the caller
        keeps, to reveal next) by its SHA-256: the server's signed receipt."""
        digest = hashlib.sha256(contribution).hexdigest()
        return self._contribute(table_id, hand_number, request_id, commitment=digest)

    def reveal(
        self, table_id: str, hand_number: int, contribution: bytes, *, request_id: str | None = None
    ) -> play_pb2.ContributionReceipt:
        """Reveal the 32 bytes the seat committed to: the signed receipt."""
        return self._contribute(table_id, hand_number, request_id, contribution=contribution)

    def _contribute(
        self, table_id: str, hand_number: int, request_id: str | None, **step: object
    ) -> play_pb2.ContributionReceipt:
        request = play_pb2.ContributeRequest(
            table_id=table_id,
            request_id=self._request_id(request_id),
            hand_number=hand_number,
            **step,  # type: ignore[arg-type]
        )
        answer = self._call(
            lambda: self.play.Contribute(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        )
        return answer.receipt

    # ---- watch

    def watch(
        self,
        table_id: str,
        *,
        after: str = "",
        reconnect: bool = True,
        stop: threading.Event | None = None,
    ) -> Iterator[watch_pb2.WatchTableResponse]:
        """A table's stream: a snapshot first (unless resuming ``after`` a
        cursor), then every event, until the table closes. If the connection
        drops, or the server ends the stream before the table closed (a
        server stopping does), it resumes from the last cursor received, so
        nothing is missed or repeated, trying as long as the client's
        patience allows (see :class:`Client`). Setting ``stop`` (from any
        thread) cancels the stream and ends the iteration quietly, even while
        it waits on a quiet table; so does closing the iterator. It reads
        ``WatchTableBatches``, a message per change rather than per event,
        which is cheaper for both ends, and hands out the messages one by
        one."""
        cursor = after
        failures = 0
        since = 0.0  # when the failures in a row began
        while stop is None or not stop.is_set():
            request = watch_pb2.WatchTableBatchesRequest(table_id=table_id, after=cursor)
            call = self.watcher.WatchTableBatches(request, metadata=self.metadata())
            if stop is not None:
                _cancel_when_set(stop, call)
            try:
                for batch in call:
                    failures = 0
                    for item in batch.messages:
                        cursor = item.cursor
                        yield item
                        if item.event.WhichOneof("kind") == "table_closed":
                            return
                if not reconnect:
                    return
                ended = "the server ended the watch before the table closed"
                error = FeltlineError(grpc.StatusCode.UNAVAILABLE, ended)
            except GeneratorExit:  # the caller stopped reading: end the stream too
                call.cancel()
                raise
            except grpc.RpcError as e:
                error = from_rpc_error(e)
            if stop is not None and stop.is_set():
                return
            if not failures:  # patience counts from the drop: a table may be quiet for long
                since = time.monotonic()
            pause = self._pause(error, failures, since) if reconnect else None
            if pause is None:
                raise error from None
            time.sleep(pause)
            failures += 1

    # ---- accounts

    def get_account(self, player_id: str = "") -> accounts_pb2.Account:
        """An account; by default the caller's own."""
        request = accounts_pb2.GetAccountRequest(player_id=player_id)
        return self._call(
            lambda: self.accounts.GetAccount(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).account

    def mint_chips(
        self, player_id: str, amount: int, note: str = "", *, request_id: str | None = None
    ) -> accounts_pb2.Account:
        """Add chips to a player's account (admin)."""
        request = accounts_pb2.MintChipsRequest(
            player_id=player_id, amount=amount, note=note, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.accounts.MintChips(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).account

    # ---- replay

    def list_hands_page(
        self,
        *,
        page_size: int = 0,
        page_token: str = "",
        table_id: str = "",
        player_id: str = "",
        start_time: int | None = None,
        end_time: int | None = None,
    ) -> replay_pb2.ListHandsResponse:
        """One page of finished hands, oldest first; times are UNIX seconds
        (dealt at or after ``start_time``, before ``end_time``)."""
        request = replay_pb2.ListHandsRequest(
            page_size=page_size, page_token=page_token, table_id=table_id, player_id=player_id
        )
        if start_time is not None:
            request.start_time.seconds = start_time
        if end_time is not None:
            request.end_time.seconds = end_time
        return self._call(
            lambda: self.replay.ListHands(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        )

    def list_hands(
        self,
        *,
        page_size: int = 0,
        table_id: str = "",
        player_id: str = "",
        start_time: int | None = None,
        end_time: int | None = None,
    ) -> Iterator[replay_pb2.HandSummary]:
        """Every finished hand the filters pick, fetching pages as needed."""
        token = ""
        while True:
            page = self.list_hands_page(
                page_size=page_size,
                page_token=token,
                table_id=table_id,
                player_id=player_id,
                start_time=start_time,
                end_time=end_time,
            )
            yield from page.hands
            token = page.next_page_token
            if not token:
                return

    def get_hand(self, hand_id: str) -> replay_pb2.GetHandResponse:
        """A finished hand and its events, as this client's token may see them."""
        request = replay_pb2.GetHandRequest(hand_id=hand_id)
        return self._call(
            lambda: self.replay.GetHand(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        )

    def hand_steps(self, hand_id: str) -> Iterator[replay_pb2.StreamHandStepsResponse]:
        """A finished hand step by step: each event and the state after it."""
        request = replay_pb2.StreamHandStepsRequest(hand_id=hand_id)
        call = self.replay.StreamHandSteps(request, metadata=self.metadata(), timeout=self.timeout)
        try:
            yield from call
        except grpc.RpcError as e:
            raise from_rpc_error(e) from None

    def verify_hand(self, hand_id: str) -> replay_pb2.VerifyHandResponse:
        """The server's verifier's report on a finished hand (auditor, admin)."""
        request = replay_pb2.VerifyHandRequest(hand_id=hand_id)
        return self._call(
            lambda: self.replay.VerifyHand(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        )

    def export_hands(
        self,
        *,
        table_ids: Sequence[str] = (),
        hand_ids: Sequence[str] = (),
        player_ids: Sequence[str] = (),
        start_time: int | None = None,
        end_time: int | None = None,
        last: int = 0,
    ) -> Iterator[str]:
        """The portable log of the chosen hands, line by line (without line
        ends), header first (auditor, admin). No deadline: a log of many
        hands takes as long as it takes."""
        request = _export_request(
            replay_pb2.EXPORT_FORMAT_FELTLINE_LOG,
            table_ids=table_ids,
            hand_ids=hand_ids,
            player_ids=player_ids,
            start_time=start_time,
            end_time=end_time,
            last=last,
        )
        try:
            for part in self.replay.ExportHands(request, metadata=self.metadata()):
                yield from part.lines
        except grpc.RpcError as e:
            raise from_rpc_error(e) from None

    def export_history(
        self,
        export_format: replay_pb2.ExportFormat.ValueType,
        out: IO[str],
        *,
        table_ids: Sequence[str] = (),
        hand_ids: Sequence[str] = (),
        player_ids: Sequence[str] = (),
        start_time: int | None = None,
        end_time: int | None = None,
        last: int = 0,
    ) -> list[replay_pb2.LeftOutHand]:
        """Write the chosen hands to ``out`` as one hand-history file of
        ``export_format`` (PHH, OHH, PokerStars text or an HTML replayer
        page), as the caller may see them: a player its own hands. Returns
        the hands the format cannot hold, left out."""
        request = _export_request(
            export_format,
            table_ids=table_ids,
            hand_ids=hand_ids,
            player_ids=player_ids,
            start_time=start_time,
            end_time=end_time,
            last=last,
        )
        left_out: list[replay_pb2.LeftOutHand] = []
        try:
            for part in self.replay.ExportHands(request, metadata=self.metadata()):
                out.write(part.text)
                left_out.extend(part.left_out)
        except grpc.RpcError as e:
            raise from_rpc_error(e) from None
        return left_out

    def recall_hands(self, player_id: str = "") -> list[replay_pb2.RecalledHand]:
        """A player's last ten finished hands, oldest first (GLI-19 game
        recall); by default the caller's own."""
        request = replay_pb2.RecallHandsRequest(player_id=player_id)
        return list(
            self._call(
                lambda: self.replay.RecallHands(
                    request, metadata=self.metadata(), timeout=self.timeout
                ),
                retry=True,
            ).hands
        )

    # ---- the transparency log (docs/transparency.md)

    def get_checkpoint(self) -> replay_pb2.Checkpoint:
        """The log's newest signed checkpoint (one signed now if hands were
        sealed since the last)."""
        request = replay_pb2.GetCheckpointRequest()
        return self._call(
            lambda: self.replay.GetCheckpoint(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).checkpoint

    def watch_checkpoints(self) -> Iterator[replay_pb2.Checkpoint]:
        """The newest checkpoint, then each new one as it is signed."""
        call = self.replay.WatchCheckpoints(
            replay_pb2.WatchCheckpointsRequest(), metadata=self.metadata()
        )
        try:
            for part in call:
                yield part.checkpoint
        except grpc.RpcError as e:
            raise from_rpc_error(e) from None

    def consistency_proof(
        self, first_size: int, second_size: int = 0
    ) -> replay_pb2.GetConsistencyProofResponse:
        """The proof that the log's tree of ``second_size`` leaves (0: the
        newest checkpoint's) extends its tree of ``first_size``."""
        request = replay_pb2.GetConsistencyProofRequest(
            first_size=first_size, second_size=second_size
        )
        return self._call(
            lambda: self.replay.GetConsistencyProof(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        )

    def add_cosignature(self, note: str, witness_key: str) -> replay_pb2.Checkpoint:
        """Hand back a witness's cosignature of one of the log's checkpoints;
        that checkpoint with every cosignature the server has collected."""
        request = replay_pb2.AddCosignatureRequest(note=note, witness_key=witness_key)
        return self._call(
            lambda: self.replay.AddCosignature(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).checkpoint

    # ---- duplicate matches

    def create_match(
        self,
        config: common_pb2.TableConfig,
        display_name: str,
        *,
        tables: int,
        deals: int,
        stack: int,
        ahead: int = 0,
        request_id: str | None = None,
    ) -> matches_pb2.Match:
        """Create a duplicate match and its tables (admin)."""
        request = matches_pb2.CreateMatchRequest(
            config=config,
            display_name=display_name,
            tables=tables,
            deals=deals,
            stack=stack,
            ahead=ahead,
            request_id=self._request_id(request_id),
        )
        return self._call(
            lambda: self.matches.CreateMatch(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).match

    def join_match(
        self, match_id: str, table: int, seat: int, *, request_id: str | None = None
    ) -> matches_pb2.Match:
        """Take a seat at one of a match's tables for the whole match (player)."""
        request = matches_pb2.JoinMatchRequest(
            match_id=match_id, table=table, seat=seat, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.matches.JoinMatch(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        ).match

    def get_match(self, match_id: str) -> matches_pb2.Match:
        request = matches_pb2.GetMatchRequest(match_id=match_id)
        return self._call(
            lambda: self.matches.GetMatch(request, metadata=self.metadata(), timeout=self.timeout),
            retry=True,
        ).match

    def match_results(self, match_id: str) -> matches_pb2.Match:
        """An ended match's every deal and the final standings."""
        request = matches_pb2.GetMatchResultsRequest(match_id=match_id)
        return self._call(
            lambda: self.matches.GetMatchResults(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).match

    def watch_match(self, match_id: str) -> Iterator[matches_pb2.Match]:
        """The match now and after each change, until it ends; each message
        is the whole match, so a dropped stream is simply watched again."""
        request = matches_pb2.WatchMatchRequest(match_id=match_id)
        try:
            for response in self.matches.WatchMatch(request, metadata=self.metadata()):
                yield response.match
        except grpc.RpcError as e:
            raise from_rpc_error(e) from None

    # ---- tournaments

    def create_tournament(
        self,
        config: common_pb2.TableConfig,
        display_name: str,
        *,
        levels: Sequence[tournaments_pb2.TournamentLevel],
        buy_in: int,
        fee: int,
        stack: int,
        payouts: Sequence[tournaments_pb2.PayoutBand],
        entrants: int,
        start_time: int | None = None,
        minimum: int = 0,
        late_until: int = 0,
        request_id: str | None = None,
    ) -> tournaments_pb2.Tournament:
        """Create a tournament (admin): a sit-and-go of ``entrants`` players,
        or, given ``start_time`` (Unix seconds), a scheduled one that starts
        then with at least ``minimum`` entries."""
        scheduled = start_time is not None
        request = tournaments_pb2.CreateTournamentRequest(
            display_name=display_name,
            config=config,
            levels=levels,
            buy_in=buy_in,
            fee=fee,
            stack=stack,
            payouts=payouts,
            start=tournaments_pb2.TOURNAMENT_START_SCHEDULED
            if scheduled
            else tournaments_pb2.TOURNAMENT_START_SIT_AND_GO,
            entrants=entrants,
            minimum=minimum,
            late_until=late_until,
            request_id=self._request_id(request_id),
        )
        if start_time is not None:
            request.start_time.seconds = start_time
        return self._call(
            lambda: self.tournaments.CreateTournament(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).tournament

    def register_tournament(
        self, tournament_id: str, *, request_id: str | None = None
    ) -> tournaments_pb2.Tournament:
        """Enter this client's player (the buy-in and fee leave their account)."""
        request = tournaments_pb2.RegisterForTournamentRequest(
            tournament_id=tournament_id, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.tournaments.RegisterForTournament(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).tournament

    def unregister_tournament(
        self, tournament_id: str, *, request_id: str | None = None
    ) -> tournaments_pb2.Tournament:
        """Withdraw this client's entry before the start (the buy-in and fee back)."""
        request = tournaments_pb2.UnregisterFromTournamentRequest(
            tournament_id=tournament_id, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.tournaments.UnregisterFromTournament(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).tournament

    def get_tournament(self, tournament_id: str) -> tournaments_pb2.Tournament:
        request = tournaments_pb2.GetTournamentRequest(tournament_id=tournament_id)
        return self._call(
            lambda: self.tournaments.GetTournament(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).tournament

    def list_tournaments_page(
        self,
        *,
        page_size: int = 0,
        page_token: str = "",
        state: tournaments_pb2.TournamentState.ValueType = (
            tournaments_pb2.TOURNAMENT_STATE_UNSPECIFIED
        ),
    ) -> tournaments_pb2.ListTournamentsResponse:
        """One page of tournaments, newest first, as the server returns it."""
        request = tournaments_pb2.ListTournamentsRequest(
            page_size=page_size, page_token=page_token, state=state
        )
        return self._call(
            lambda: self.tournaments.ListTournaments(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        )

    def list_tournaments(
        self,
        *,
        page_size: int = 0,
        state: tournaments_pb2.TournamentState.ValueType = (
            tournaments_pb2.TOURNAMENT_STATE_UNSPECIFIED
        ),
    ) -> Iterator[tournaments_pb2.Tournament]:
        """Every tournament, newest first, fetching pages as the iteration needs them."""
        token = ""
        while True:
            page = self.list_tournaments_page(page_size=page_size, page_token=token, state=state)
            yield from page.tournaments
            token = page.next_page_token
            if not token:
                return

    def cancel_tournament(
        self, tournament_id: str, reason: str, *, request_id: str | None = None
    ) -> tournaments_pb2.Tournament:
        """Cancel a tournament between hands, with its refunds (admin)."""
        request = tournaments_pb2.CancelTournamentRequest(
            tournament_id=tournament_id, reason=reason, request_id=self._request_id(request_id)
        )
        return self._call(
            lambda: self.tournaments.CancelTournament(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).tournament

    def watch_tournament(
        self,
        tournament_id: str,
        *,
        after: str = "",
        reconnect: bool = True,
        stop: threading.Event | None = None,
    ) -> Iterator[tournaments_pb2.WatchTournamentResponse]:
        """A tournament's stream: a snapshot first (unless resuming ``after``
        a cursor; "0" replays it from its creation), then every event, until
        its last (``seed_revealed``, after it finishes or is cancelled). As
        :meth:`watch`: a dropped connection (or a server stopping) is
        resumed from the last cursor received, so nothing is missed or
        repeated; setting ``stop`` ends it quietly."""
        cursor = after
        failures = 0
        since = 0.0  # when the failures in a row began
        while stop is None or not stop.is_set():
            request = tournaments_pb2.WatchTournamentRequest(
                tournament_id=tournament_id, after=cursor
            )
            call = self.tournaments.WatchTournament(request, metadata=self.metadata())
            if stop is not None:
                _cancel_when_set(stop, call)
            try:
                for item in call:
                    failures = 0
                    cursor = item.cursor
                    yield item
                return  # the server ends it cleanly only after the last event
            except GeneratorExit:  # the caller stopped reading: end the stream too
                call.cancel()
                raise
            except grpc.RpcError as e:
                error = from_rpc_error(e)
            if stop is not None and stop.is_set():
                return
            if not failures:
                since = time.monotonic()
            pause = self._pause(error, failures, since) if reconnect else None
            if pause is None:
                raise error from None
            time.sleep(pause)
            failures += 1

    def tournament_results(self, tournament_id: str) -> tournaments_pb2.Tournament:
        """A finished tournament's every place and prize."""
        request = tournaments_pb2.GetTournamentResultsRequest(tournament_id=tournament_id)
        return self._call(
            lambda: self.tournaments.GetTournamentResults(
                request, metadata=self.metadata(), timeout=self.timeout
            ),
            retry=True,
        ).tournament


__all__ = ["Client", "FeltlineError", "Seen", "token_claims"]


def _export_request(
    export_format: replay_pb2.ExportFormat.ValueType,
    *,
    table_ids: Sequence[str],
    hand_ids: Sequence[str],
    player_ids: Sequence[str],
    start_time: int | None,
    end_time: int | None,
    last: int,
) -> replay_pb2.ExportHandsRequest:
    request = replay_pb2.ExportHandsRequest(
        format=export_format,
        table_ids=table_ids,
        hand_ids=hand_ids,
        player_ids=player_ids,
        last=last,
    )
    if start_time is not None:
        request.start_time.seconds = start_time
    if end_time is not None:
        request.end_time.seconds = end_time
    return request
