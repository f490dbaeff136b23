"""Refusals carry the code, ErrorInfo and details the contract promises,
and never a card in their text."""

import random
import re
from datetime import UTC, datetime
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from feltline.api.errors import CODES, DOMAIN, INTERNAL_MESSAGE, ApiError, from_exception
from feltline.api.tokens import Caller, ExpiredToken
from feltline.domain.hand import CommandIdReused
from feltline.engine import errors as engine
from feltline.engine.errors import IllegalDraw, Kind, RuleError
from feltline.engine.hand.commands import Draw, StartHand
from feltline.engine.hand.decide import NEW_HAND, decide, replay
from feltline.engine.hand.events import Deal, SeatAtStart
from feltline.engine.hand.rules import Game
from feltline.engine.hand.script import Phase
from feltline.engine.table import errors as table_errors
from feltline.store.streams import Conflict
from feltline_protos.v1 import auth_pb2, errors_pb2
from tests.engine.players import choose
from tests.tables import TABLES

DOCS = Path(__file__).parents[2] / "docs" / "api.md"
KIND_CODES = {
    Kind.INVALID: grpc.StatusCode.INVALID_ARGUMENT,
    Kind.PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    Kind.DENIED: grpc.StatusCode.PERMISSION_DENIED,
}


def _details(status: grpc.Status) -> tuple[status_pb2.Status, dict[str, object]]:
    (key, raw), *rest = status.trailing_metadata
    assert key == "grpc-status-details-bin"
    assert isinstance(raw, bytes)
    assert not rest
    rich = status_pb2.Status.FromString(raw)
    found: dict[str, object] = {}
    kinds = (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest, error_details_pb2.RetryInfo)
    for detail in rich.details:
        for kind in kinds:
            message = kind()
            if detail.Unpack(message):
                found[kind.__name__] = message
    return rich, found


def test_each_reason_has_the_code_the_docs_give_it() -> None:
    documented = {}
    for code, reasons in re.findall(r"^\| `([A-Z_]+)` \| ([^|]*) \|", DOCS.read_text(), re.M):
        for reason in re.findall(r"`([A-Z_]+)`", reasons):
            documented[errors_pb2.ErrorReason.Value(f"ERROR_REASON_{reason}")] = code
    assert set(CODES) == set(errors_pb2.ErrorReason.values())
    assert {reason: CODES[reason].name for reason in documented} == documented
    assert CODES[errors_pb2.ERROR_REASON_UNSPECIFIED] is grpc.StatusCode.INTERNAL


def test_the_status_carries_error_info_bad_request_and_retry_info() -> None:
    error = ApiError(
        errors_pb2.ERROR_REASON_STALE_STATE,
        "the hand has moved on",
        metadata={"hand_number": "3", "sequence": "41"},
        violations=[("sequence", "must be the latest")],
        retry_after=1.5,
    )
    status = error.status()
    assert status.code is grpc.StatusCode.FAILED_PRECONDITION
    assert status.details == "the hand has moved on"
    rich, found = _details(status)
    assert (rich.code, rich.message) == (
        grpc.StatusCode.FAILED_PRECONDITION.value[0],
        status.details,
    )
    info = found["ErrorInfo"]
    assert isinstance(info, error_details_pb2.ErrorInfo)
    assert (info.domain, info.reason) == (DOMAIN, "STALE_STATE")
    assert dict(info.metadata) == {"hand_number": "3", "sequence": "41"}
    bad = found["BadRequest"]
    assert isinstance(bad, error_details_pb2.BadRequest)
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("sequence", "must be the latest")
    ]
    retry = found["RetryInfo"]
    assert isinstance(retry, error_details_pb2.RetryInfo)
    assert retry.retry_delay.ToNanoseconds() == 1_500_000_000


def _rule_errors() -> list[type[RuleError]]:
    found, todo = [], [RuleError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return [cls for cls in found if cls.__module__ in (engine.__name__, table_errors.__name__)]


# Where the code is not the one the kind suggests, and why: the contract
# lists GAME_OPTION under FAILED_PRECONDITION, and seeds and hand results
# come from the server, so refusing one is the server's fault.
NOT_BY_KIND = {
    table_errors.GameOptionError: grpc.StatusCode.FAILED_PRECONDITION,
    table_errors.SeedError: grpc.StatusCode.INTERNAL,
    table_errors.HandResultError: grpc.StatusCode.INTERNAL,
}


@pytest.mark.parametrize("cls", _rule_errors(), ids=lambda cls: cls.__name__)
def test_every_rule_error_maps_by_its_kind(cls: type[RuleError]) -> None:
    error = from_exception(cls("seat 3 cannot do that"))
    assert error.code is NOT_BY_KIND.get(cls, KIND_CODES[cls.kind])
    if error.code is grpc.StatusCode.INTERNAL:
        assert error.message == INTERNAL_MESSAGE
    else:
        assert error.message == "seat 3 cannot do that"
        assert error.reason != errors_pb2.ERROR_REASON_UNSPECIFIED


@pytest.mark.parametrize(
    ("error", "code", "reason"),
    [
        (engine.IllegalAmount("x"), "INVALID_ARGUMENT", "ILLEGAL_AMOUNT"),
        (table_errors.BuyInError("x"), "INVALID_ARGUMENT", "ILLEGAL_AMOUNT"),
        (engine.IllegalDraw("x"), "INVALID_ARGUMENT", "ILLEGAL_DRAW"),
        (engine.ConfigError("x"), "INVALID_ARGUMENT", "INVALID_CONFIG"),
        (table_errors.NoSuchSeatError("x"), "INVALID_ARGUMENT", "INVALID_REQUEST"),
        (engine.NotYourTurn("x"), "FAILED_PRECONDITION", "NOT_YOUR_TURN"),
        (engine.IllegalAction("x"), "FAILED_PRECONDITION", "ILLEGAL_ACTION"),
        (engine.WrongPhase("x"), "FAILED_PRECONDITION", "WRONG_PHASE"),
        (table_errors.HandInProgressError("x"), "FAILED_PRECONDITION", "WRONG_PHASE"),
        (table_errors.TableClosedError("x"), "FAILED_PRECONDITION", "TABLE_CLOSED"),
        (table_errors.SeatUnavailableError("x"), "FAILED_PRECONDITION", "SEAT_UNAVAILABLE"),
        (table_errors.GameOptionError("x"), "FAILED_PRECONDITION", "GAME_OPTION"),
        (engine.NotInHand("x"), "PERMISSION_DENIED", "NOT_YOUR_SEAT"),
        (Conflict("x"), "ABORTED", "CONFLICT"),
        (CommandIdReused("x"), "ALREADY_EXISTS", "REQUEST_ID_REUSED"),
        (
            ExpiredToken("x", Caller(auth_pb2.ROLE_ADMIN, "", "t", datetime.now(UTC))),
            "UNAUTHENTICATED",
            "TOKEN_EXPIRED",
        ),
    ],
)
def test_domain_errors_map_to_their_reasons(error: Exception, code: str, reason: str) -> None:
    mapped = from_exception(error)
    assert (mapped.code.name, mapped.reason_name) == (code, reason)


def test_a_store_that_finds_nothing_says_not_found() -> None:
    class NotFound(RuleError):
        kind = "not-found"  # type: ignore[assignment]  # the store's kind, by value

    mapped = from_exception(NotFound("there is no table 42"))
    assert (mapped.code, mapped.reason_name) == (grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")


def test_anything_else_is_internal_and_says_nothing_of_itself() -> None:
    status = from_exception(KeyError("seat 2 holds As Kd")).status()
    assert status.code is grpc.StatusCode.INTERNAL
    assert status.details == INTERNAL_MESSAGE
    rich, found = _details(status)
    assert rich.message == INTERNAL_MESSAGE
    assert found == {}  # no reason to give


def _refused_draw() -> tuple[IllegalDraw, str]:
    """Ask to discard a card another seat holds face down."""
    rng = random.Random(5)
    seats = tuple(SeatAtStart(s, f"p{s}", 500) for s in (1, 2, 3))
    events = decide(NEW_HAND, StartHand(TABLES[Game.DRAW_DECLARE], Deal(3, seats), bytes(32)))
    hand = replay(events)
    while hand.phase is not Phase.DRAWING:
        try:
            events += decide(hand, choose(hand, rng))
        except RuleError:
            continue
        hand = replay(events)
    seat = hand.round.pending[0]
    other = next(p for p in hand.players if p.seat != seat)
    card = other.cards[0]
    with pytest.raises(IllegalDraw) as caught:
        decide(hand, Draw(seat, (card,)))
    return caught.value, str(card)


def test_no_card_appears_in_a_refusal() -> None:
    error, card = _refused_draw()
    assert card in str(error)  # the engine names it to the seat that named it...
    status = from_exception(error).status()
    assert card not in status.details  # ...the api names no card at all
    assert "[card]" in status.details
    rich, _ = _details(status)
    assert card not in rich.message
    with_metadata = ApiError(
        errors_pb2.ERROR_REASON_ILLEGAL_DRAW, f"no {card}", metadata={"card": card}
    ).status()
    assert card not in str(with_metadata.trailing_metadata)


def test_a_store_that_does_not_answer_is_a_reason_to_try_again() -> None:
    """PostgreSQL restarting, failing over, or a connection cut under a
    transaction: the request is refused UNAVAILABLE with a delay, never
    INTERNAL (the same request id is never applied twice)."""
    from eventsourcing.persistence import OperationalError

    refusal = from_exception(OperationalError("pipeline aborted"))
    assert (refusal.code, refusal.reason_name) == (grpc.StatusCode.UNAVAILABLE, "TRY_AGAIN")
    assert refusal.retry_after == 1.0
