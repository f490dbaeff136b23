"""A seat's share of each hand's deck (feltline-deck-v2, docs/deck.md).

At a table whose seats contribute, each hand opens with an invitation to
commit (``contributions_opened``) and then to reveal (``reveals_opened``).
:class:`Contribution` answers both for one seat, as every client of this
package does by itself (the bots, ``feltline-play``): 32 bytes from the
operating system's CSPRNG, committed to when invited and revealed when the
reveals open, every receipt kept, so that after the hand the seat can find
its own bytes among the revealed and hold the server to its receipts
(:meth:`Contribution.check`, or :func:`check` for bytes a caller chose).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Iterable, Sequence

import grpc

from feltline_client.client import Client
from feltline_client.errors import FeltlineError
from feltline_protos.v1 import events_pb2, play_pb2

log = logging.getLogger(__name__)

ALGORITHM = "feltline-deck-v2"  # the derivation that takes the seats' bytes (docs/deck.md)


class Contribution:
    """One seat's contributions at one table."""

    def __init__(self, client: Client, table_id: str) -> None:
        self.client, self.table_id = client, table_id
        self.contributions: dict[int, bytes] = {}  # by hand number
        self.receipts: list[play_pb2.ContributionReceipt] = []
        self.refused: list[FeltlineError] = []

    def heard(self, event: events_pb2.Event, seat: int) -> bool:
        """Commit or reveal if ``event`` invites ``seat`` to; whether it did.
        A window that closed first is no error: the hand goes on without
        this seat's bytes."""
        kind = event.WhichOneof("kind")
        hand = event.hand_number
        try:
            if kind == "contributions_opened" and seat in event.contributions_opened.seats:
                self.contributions[hand] = secrets.token_bytes(32)
                self.receipts.append(
                    self.client.commit(self.table_id, hand, self.contributions[hand])
                )
                return True
            if (
                kind == "reveals_opened"
                and seat in event.reveals_opened.seats
                and hand in self.contributions
            ):
                self.receipts.append(
                    self.client.reveal(self.table_id, hand, self.contributions[hand])
                )
                return True
        except FeltlineError as e:
            if e.code is not grpc.StatusCode.FAILED_PRECONDITION:
                raise
            self.refused.append(e)
            log.info("contribution refused: %s", e)
        return False

    def check(self, seat: int, events: Sequence[events_pb2.Event]) -> list[str]:
        """What in a finished hand's ``events`` (``GetHand``'s or a
        ``RecalledHand``'s, as this seat sees them) says this seat's bytes
        did not go into its deck; empty when nothing does. See :func:`check`."""
        hand = events[0].hand_number if events else 0
        contribution = self.contributions.get(hand)
        if contribution is None:
            return [f"hand {hand}: this seat made no contribution to it"]
        return check(contribution, seat, events, self.receipts)


def check(
    contribution: bytes,
    seat: int,
    events: Sequence[events_pb2.Event],
    receipts: Iterable[play_pb2.ContributionReceipt] = (),
) -> list[str]:
    """What in a finished hand's ``events`` says ``seat``'s ``contribution``
    did not go into the deck; empty when nothing does.

    A player never sees the server's seed, so it cannot re-derive the deck
    itself; what it can check alone is everything the derivation takes from
    it, in the order that keeps anyone from choosing the deck (docs/deck.md):
    the hand dealt by ``feltline-deck-v2``, the server's commitment first,
    this seat's commitment to exactly these bytes, then its reveal of them,
    before the deck was shuffled. The verifiers re-derive the deck from
    every revealed contribution, so bytes found revealed in the hand's
    signed stream are bytes the deck must be derived from. A hand that
    lacks this seat's commitment or reveal while the seat holds the
    server's signed receipts for it (``receipts``: each one the server's
    answer to a step it took) is one the server's own key contradicts: the
    failure names each receipt, to hand an auditor.
    """
    hand_id = events[0].hand_id if events else ""
    hand = events[0].hand_number if events else 0
    where = f"hand {hand}"
    first: dict[str, events_pb2.Event] = {}
    committed = revealed = None
    for event in events:
        kind = event.WhichOneof("kind")
        if kind is not None:
            first.setdefault(kind, event)
        if kind == "contribution_committed" and event.contribution_committed.seat == seat:
            committed = event
        elif kind == "contribution_revealed" and event.contribution_revealed.seat == seat:
            revealed = event
    started = first.get("hand_started")
    if started is None:
        return [f"{where}: no HandStarted among its events: not a whole hand"]
    if started.hand_started.algorithm != ALGORITHM:
        return [f"{where}: dealt by {started.hand_started.algorithm}, which takes no seat's bytes"]
    failures = []
    opened = first.get("contributions_opened")
    if opened is None or opened.sequence < started.sequence:
        failures.append(f"{where}: the seats were not invited after the server's commitment")
    digest = hashlib.sha256(contribution).hexdigest()
    if committed is None:
        failures.append(f"{where}: seat {seat}'s commitment is not in the hand")
    elif committed.contribution_committed.commitment != digest:
        failures.append(
            f"{where}: seat {seat}'s commitment is "
            f"{committed.contribution_committed.commitment}, not {digest}, its bytes' SHA-256"
        )
    if revealed is None:
        failures.append(f"{where}: seat {seat}'s reveal is not in the hand: its deck left it out")
    elif revealed.contribution_revealed.contribution != contribution:
        failures.append(f"{where}: seat {seat}'s reveal is not the bytes it committed to")
    elif committed is not None and revealed.sequence < committed.sequence:
        failures.append(f"{where}: seat {seat}'s reveal comes before its commitment")
    else:
        shuffled = first.get("deck_shuffled")
        if shuffled is None or shuffled.sequence < revealed.sequence:
            failures.append(f"{where}: the deck was shuffled before seat {seat}'s reveal")
    if revealed is None or committed is None:
        for receipt in receipts:
            if receipt.hand_id == hand_id:
                failures.append(
                    f"{where}: the server signed the chain at position {receipt.position} "
                    f"(link {receipt.link}, signature {receipt.signature}, key "
                    f"{receipt.public_key}) on taking a step of seat {seat}'s: "
                    "evidence for an auditor"
                )
    return failures
