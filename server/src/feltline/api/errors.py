"""Refusals as the contract spells them: a status code, a message a person
can act on, and a ``google.rpc.Status`` with an ``ErrorInfo`` (domain
``feltline.v1``, reason an ``ErrorReason`` name without its prefix) and,
where they help, ``BadRequest`` field violations or ``RetryInfo``.

Each reason has one status code, the one docs/api.md gives it, so a client
may rely on either. :func:`from_exception` maps what the engine, the domain
and the store raise; anything else is a server fault, answered ``INTERNAL``
with no text of its own, which could hold anything. Every message and
metadata value is scrubbed of card text (:mod:`feltline.api.secrecy`); field
violations describe the protos' rules, never a field's value, and keep their
wording (a card pattern names the joker, "Jk").
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Any, TypeAlias

import grpc
import structlog
from eventsourcing.persistence import OperationalError
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc.aio import AbortError
from grpc_status import rpc_status

from feltline import metrics
from feltline.api import intercept
from feltline.api.secrecy import scrub
from feltline.api.tokens import TokenError
from feltline.cardroom.errors import (
    AccountUnreadable,
    Conflict,
    MatchNotFound,
    MatchTable,
    OwnedElsewhere,
    Stale,
    StoreAway,
    StoreFull,
    TournamentNotFound,
    TournamentTable,
    Unreadable,
)
from feltline.domain.account import InsufficientChips
from feltline.domain.hand import CommandIdReused
from feltline.domain.match import SeatError, WaitingForTables
from feltline.engine import errors as engine
from feltline.engine import tournament
from feltline.engine.table import errors as table_errors
from feltline_protos.v1 import errors_pb2

log = structlog.get_logger("feltline.api")

DOMAIN = "feltline.v1"
Reason: TypeAlias = errors_pb2.ErrorReason.ValueType
Code = grpc.StatusCode
R = errors_pb2.ErrorReason

CODES: Mapping[Reason, Code] = {
    R.ERROR_REASON_UNSPECIFIED: Code.INTERNAL,  # no reason: a server fault
    R.ERROR_REASON_TOKEN_MISSING: Code.UNAUTHENTICATED,
    R.ERROR_REASON_TOKEN_INVALID: Code.UNAUTHENTICATED,
    R.ERROR_REASON_TOKEN_EXPIRED: Code.UNAUTHENTICATED,
    R.ERROR_REASON_ROLE_FORBIDDEN: Code.PERMISSION_DENIED,
    R.ERROR_REASON_NOT_YOUR_SEAT: Code.PERMISSION_DENIED,
    R.ERROR_REASON_INVALID_REQUEST: Code.INVALID_ARGUMENT,
    R.ERROR_REASON_INVALID_CONFIG: Code.INVALID_ARGUMENT,
    R.ERROR_REASON_ILLEGAL_AMOUNT: Code.INVALID_ARGUMENT,
    R.ERROR_REASON_ILLEGAL_DRAW: Code.INVALID_ARGUMENT,
    R.ERROR_REASON_ILLEGAL_CONTRIBUTION: Code.INVALID_ARGUMENT,
    R.ERROR_REASON_INVALID_CURSOR: Code.INVALID_ARGUMENT,
    R.ERROR_REASON_TABLE_NOT_FOUND: Code.NOT_FOUND,
    R.ERROR_REASON_ACCOUNT_NOT_FOUND: Code.NOT_FOUND,
    R.ERROR_REASON_HAND_NOT_FOUND: Code.NOT_FOUND,
    R.ERROR_REASON_STALE_STATE: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_NOT_YOUR_TURN: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_ILLEGAL_ACTION: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_WRONG_PHASE: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_SEAT_UNAVAILABLE: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_NOT_SEATED: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_TABLE_CLOSED: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_INSUFFICIENT_BALANCE: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_GAME_OPTION: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_HAND_IN_PROGRESS: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_VIEWS_UNAVAILABLE: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_REQUEST_ID_REUSED: Code.ALREADY_EXISTS,
    R.ERROR_REASON_CONFLICT: Code.ABORTED,
    R.ERROR_REASON_TRY_AGAIN: Code.UNAVAILABLE,
    R.ERROR_REASON_TABLE_UNREADABLE: Code.DATA_LOSS,
    R.ERROR_REASON_MATCH_NOT_FOUND: Code.NOT_FOUND,
    R.ERROR_REASON_MATCH_TABLE: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_OVERLOADED: Code.RESOURCE_EXHAUSTED,
    R.ERROR_REASON_ACCOUNT_UNREADABLE: Code.DATA_LOSS,
    R.ERROR_REASON_TOURNAMENT_NOT_FOUND: Code.NOT_FOUND,
    R.ERROR_REASON_TOURNAMENT_TABLE: Code.FAILED_PRECONDITION,
    R.ERROR_REASON_REGISTRATION_REFUSED: Code.FAILED_PRECONDITION,
}

# The reason for each rule error the engine raises; a subclass not listed
# takes its nearest listed ancestor's, else its kind's (below).
RULE_REASONS: Mapping[type[engine.RuleError], Reason] = {
    engine.ConfigError: R.ERROR_REASON_INVALID_CONFIG,
    engine.IllegalAmount: R.ERROR_REASON_ILLEGAL_AMOUNT,
    engine.IllegalDraw: R.ERROR_REASON_ILLEGAL_DRAW,
    engine.IllegalContribution: R.ERROR_REASON_ILLEGAL_CONTRIBUTION,
    engine.NotYourTurn: R.ERROR_REASON_NOT_YOUR_TURN,
    engine.IllegalAction: R.ERROR_REASON_ILLEGAL_ACTION,
    engine.WrongPhase: R.ERROR_REASON_WRONG_PHASE,
    engine.NotInHand: R.ERROR_REASON_NOT_YOUR_SEAT,
    table_errors.TableClosedError: R.ERROR_REASON_TABLE_CLOSED,
    table_errors.SeatUnavailableError: R.ERROR_REASON_SEAT_UNAVAILABLE,
    table_errors.GameOptionError: R.ERROR_REASON_GAME_OPTION,
    InsufficientChips: R.ERROR_REASON_INSUFFICIENT_BALANCE,
    table_errors.NoSuchSeatError: R.ERROR_REASON_INVALID_REQUEST,
    MatchNotFound: R.ERROR_REASON_MATCH_NOT_FOUND,
    MatchTable: R.ERROR_REASON_MATCH_TABLE,
    SeatError: R.ERROR_REASON_SEAT_UNAVAILABLE,
    WaitingForTables: R.ERROR_REASON_WRONG_PHASE,
    TournamentNotFound: R.ERROR_REASON_TOURNAMENT_NOT_FOUND,
    TournamentTable: R.ERROR_REASON_TOURNAMENT_TABLE,
    tournament.RegistrationError: R.ERROR_REASON_REGISTRATION_REFUSED,
    tournament.NotRunning: R.ERROR_REASON_WRONG_PHASE,
    tournament.WaitingToDeal: R.ERROR_REASON_WRONG_PHASE,
    # The server, not the caller, makes seeds and hand results: a refusal
    # of one is the server's fault.
    table_errors.SeedError: R.ERROR_REASON_UNSPECIFIED,
    table_errors.HandResultError: R.ERROR_REASON_UNSPECIFIED,
}
# By kind, for rule errors with no reason of their own. Keyed by the kind's
# value, so a kind added below (a store's "not-found") needs no change here.
KIND_REASONS: Mapping[str, Reason] = {
    "invalid": R.ERROR_REASON_INVALID_REQUEST,
    "precondition": R.ERROR_REASON_ILLEGAL_ACTION,
    "denied": R.ERROR_REASON_NOT_YOUR_SEAT,
    "not-found": R.ERROR_REASON_TABLE_NOT_FOUND,
}
INTERNAL_MESSAGE = "internal error: the server logged it; retrying with the same request_id is safe"
STORE_AWAY_RETRY = 1.0  # seconds: a database restarting or failing over
STORE_FULL_RETRY = 2.0  # seconds: freeing a disk takes a person, so no hurry, but resume soon after


class ApiError(Exception):
    """A refusal to send back: raise it from a servicer, or let
    :func:`from_exception` make one. The code follows from the reason."""

    def __init__(
        self,
        reason: Reason,
        message: str,
        *,
        metadata: Mapping[str, str] | None = None,
        violations: Iterable[tuple[str, str]] = (),
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.code = CODES[reason]
        self.message = message
        self.metadata = dict(metadata or {})
        self.violations = tuple(violations)
        self.retry_after = retry_after

    @property
    def reason_name(self) -> str:
        """The reason as ErrorInfo carries it, e.g. ``STALE_STATE``."""
        return R.Name(self.reason).removeprefix("ERROR_REASON_")

    def status(self) -> grpc.Status:
        """The grpc status with its ``google.rpc.Status`` details trailer."""
        message = scrub(self.message)
        details: list[Message] = []
        if self.reason != R.ERROR_REASON_UNSPECIFIED:
            details.append(
                error_details_pb2.ErrorInfo(
                    reason=self.reason_name,
                    domain=DOMAIN,
                    metadata={key: scrub(value) for key, value in self.metadata.items()},
                )
            )
        if self.violations:
            details.append(
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field=field, description=description
                        )
                        for field, description in self.violations
                    ]
                )
            )
        if self.retry_after is not None:
            delay = duration_pb2.Duration()
            delay.FromNanoseconds(round(self.retry_after * 1e9))
            details.append(error_details_pb2.RetryInfo(retry_delay=delay))
        status = status_pb2.Status(code=self.code.value[0], message=message)
        for detail in details:
            packed = any_pb2.Any()
            packed.Pack(detail)
            status.details.append(packed)
        return rpc_status.to_status(status)


def internal() -> ApiError:
    """A server fault, told without details that could hold anything."""
    return ApiError(R.ERROR_REASON_UNSPECIFIED, INTERNAL_MESSAGE)


def from_exception(error: Exception) -> ApiError:
    """The refusal ``error`` stands for; :func:`internal` for a fault."""
    if isinstance(error, ApiError):
        return error
    if isinstance(error, TokenError):
        return ApiError(error.reason, str(error))
    if isinstance(error, Stale):
        return ApiError(
            R.ERROR_REASON_STALE_STATE,
            str(error),
            metadata={"hand_number": str(error.hand), "sequence": str(error.sequence)},
        )
    if isinstance(error, engine.RuleError):
        reason = _rule_reason(error)
        if reason == R.ERROR_REASON_UNSPECIFIED:
            return internal()
        return ApiError(reason, str(error))
    if isinstance(error, CommandIdReused):
        return ApiError(
            R.ERROR_REASON_REQUEST_ID_REUSED,
            "this request_id was used for another request; make a new one",
        )
    if isinstance(error, Conflict):
        return ApiError(
            R.ERROR_REASON_CONFLICT,
            "another request changed the table first; send the same request again",
        )
    if isinstance(error, OperationalError | StoreAway):  # the database does not answer, for now
        return ApiError(
            R.ERROR_REASON_TRY_AGAIN,
            "the store did not answer (it may be restarting): send the same request "
            "(same request_id) again shortly; it is never applied twice",
            retry_after=STORE_AWAY_RETRY,
        )
    if isinstance(error, StoreFull):
        return ApiError(
            R.ERROR_REASON_TRY_AGAIN,
            "the store cannot write: its disk is full, and nothing was stored; "
            "send the same request (same request_id) again later",
            retry_after=STORE_FULL_RETRY,
        )
    if isinstance(error, Unreadable):  # its detail stays in the log: it could hold anything
        return ApiError(
            R.ERROR_REASON_TABLE_UNREADABLE,
            f"table {error.table_id}'s stored history does not verify, so this server will "
            "not serve it (the other tables are not affected): tell the operator, whose "
            "log says what is wrong",
            metadata={"table_id": str(error.table_id)},
        )
    if isinstance(error, AccountUnreadable):
        return ApiError(
            R.ERROR_REASON_ACCOUNT_UNREADABLE,
            f"account {error.account_id}'s stored history does not verify, so this server will "
            "not serve it nor move its chips (the other accounts are not affected): tell the "
            "operator, whose log says what is wrong",
            metadata={"account_id": str(error.account_id)},
        )
    return internal()


def _rule_reason(error: engine.RuleError) -> Reason:
    for cls in type(error).__mro__:
        if cls in RULE_REASONS:
            return RULE_REASONS[cls]
    return KIND_REASONS.get(str(error.kind), R.ERROR_REASON_INVALID_REQUEST)


class ErrorInterceptor(intercept.Interceptor):
    """Ends every call that raises with the status its exception stands for,
    so servicers just raise, and no exception's text reaches a client
    unmapped (grpc itself would send it as ``UNKNOWN``). Faults are logged."""

    def enter(self, call: grpc.HandlerCallDetails, request: Any, context: Any) -> intercept.Scope:
        return _Guard(call.method, context)


class _Guard(AbstractContextManager[None]):
    def __init__(self, method: str, context: Any) -> None:
        self.method = method
        self.context = context

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: object
    ) -> bool:
        if not isinstance(error, Exception) or isinstance(
            error, intercept.Refused | AbortError | OwnedElsewhere
        ):
            return False  # no error, a cancelled call, one ended already, or one to forward
        refusal = from_exception(error)
        metrics.REFUSALS.labels(*self.method.split("/")[1:], refusal.reason_name).inc()
        if refusal.code is Code.INTERNAL:
            # Scrubbed here, not only by the configured processors:
            # it must hold even where logging was never configured.
            trace = scrub("".join(traceback.format_exception(error)))
            log.error("internal_error", method=self.method, exception=trace)
        intercept.refuse(
            self.context, refusal.status(), method=self.method, reason=refusal.reason_name
        )
        return True
