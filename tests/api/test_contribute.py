"""``PlayService.Contribute`` over gRPC: a seat commits and reveals its
contribution to the deck with the Python SDK and keeps the server's signed
receipt; bad input gets a precise status and changes nothing."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from uuid import UUID

import grpc
import pytest

from feltline.api import convert
from feltline.audit import keys
from feltline.engine.cards.deck import deck_seed
from feltline.engine.hand.events import Entropy
from feltline.engine.hand.rules import Game
from feltline.engine.hand.script import Phase
from feltline.engine.table.house import TableConfig
from feltline_client import Client, FeltlineError
from feltline_client.bots import Player
from feltline_protos.v1 import auth_pb2, errors_pb2, events_pb2
from tests.tables import TABLES

from .conftest import Live

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
R = errors_pb2.ErrorReason
BYTES = {1: bytes([0x11]) * 32, 2: bytes([0x44]) * 32}


def _dealt(live: Live, entropy: Entropy) -> tuple[str, dict[int, Client]]:
    """A table whose seats contribute, its window a minute, and its first
    hand dealt: waiting on the commitments."""
    admin = live.client(ADMIN)
    config = TableConfig(
        TABLES[Game.HOLDEM], 6, seat_entropy=entropy, contribution_window_ms=60_000
    )
    table = admin.create_table(convert.table_config(config), "contributing").table_id
    players = {}
    for seat in (1, 2):
        admin.mint_chips(f"p{seat}", 1000)
        players[seat] = live.client(PLAYER, f"p{seat}")
        players[seat].sit_down(table, seat, 500)
    deadline = time.monotonic() + 10
    while live.room.table(UUID(table)).table.dealt is None:
        assert time.monotonic() < deadline, "the dealer never dealt"
        time.sleep(0.05)
    return table, players


def _refused(call: object, code: grpc.StatusCode, reason: int, message: str) -> None:
    with pytest.raises(FeltlineError) as caught:
        call()  # type: ignore[operator]
    assert caught.value.code == code
    assert caught.value.reason == errors_pb2.ErrorReason.Name(reason).removeprefix("ERROR_REASON_")
    assert message in caught.value.message


def test_seats_commit_and_reveal_with_signed_receipts_and_the_deck_uses_them(
    live: Live,
) -> None:
    table, players = _dealt(live, Entropy.REQUIRED)
    key = UUID(table)
    receipts = [players[seat].commit(table, 1, BYTES[seat]) for seat in (1, 2)]
    receipts += [players[seat].reveal(table, 1, BYTES[seat]) for seat in (1, 2)]
    hand = live.room.hand(key, 1)
    assert hand.hand.phase is Phase.BETTING
    assert hand.hand.deck_seed == deck_seed(hand.hand.seed, BYTES)
    for receipt in receipts:
        assert receipt.public_key == live.room.public_key
        assert keys.verify(receipt.public_key, bytes.fromhex(receipt.link), receipt.signature)
    # Each receipt is at or after the record it answers (3 and 4: the
    # commitments, after HandStarted, SeedDrawn and ContributionsOpened).
    assert [r.position for r in receipts][:1] == [4]
    assert [r.position for r in receipts] == sorted(r.position for r in receipts)


def test_bad_contributions_get_precise_statuses_and_change_nothing(live: Live) -> None:
    table, players = _dealt(live, Entropy.OPTIONAL)
    key = UUID(table)
    before = live.room.hand(key, 1).version
    _refused(
        lambda: players[1].reveal(table, 1, BYTES[1]),
        grpc.StatusCode.FAILED_PRECONDITION,
        R.ERROR_REASON_WRONG_PHASE,
        "cannot reveal: it is time for committing",
    )
    _refused(
        lambda: players[1].reveal(table, 1, b"short"),
        grpc.StatusCode.INVALID_ARGUMENT,
        R.ERROR_REASON_INVALID_REQUEST,
        "contribution",
    )
    live.client(ADMIN).mint_chips("p3", 1000)
    late = live.client(PLAYER, "p3")
    late.sit_down(table, 3, 500)  # after the deal: not in hand 1
    _refused(
        lambda: late.commit(table, 1, BYTES[1]),
        grpc.StatusCode.PERMISSION_DENIED,
        R.ERROR_REASON_NOT_YOUR_SEAT,
        "seat 3 is not dealt in to contribute",
    )
    assert live.room.hand(key, 1).version == before
    players[1].commit(table, 1, BYTES[1])
    players[2].commit(table, 1, BYTES[2])
    _refused(
        lambda: players[1].reveal(table, 1, BYTES[2]),
        grpc.StatusCode.INVALID_ARGUMENT,
        R.ERROR_REASON_ILLEGAL_CONTRIBUTION,
        "seat 1's contribution does not hash to its commitment",
    )
    _refused(
        lambda: players[1].commit(table, 1, BYTES[1]),
        grpc.StatusCode.FAILED_PRECONDITION,
        R.ERROR_REASON_WRONG_PHASE,
        "seat 1 cannot commit: it is time for revealing",
    )
    assert live.room.hand(key, 1).version == before + 3


def test_every_phase_of_a_hand_has_its_place_in_the_contract() -> None:
    """A table's view names the hand's phase: the contributing ones too
    (seating a player during them once failed with a KeyError)."""
    from feltline.api.views import PHASES

    assert set(PHASES) == set(Phase)
    assert len(set(PHASES.values())) == len(Phase) - 1  # not started reads as dealing


def test_bots_contribute_by_themselves_and_every_hand_uses_their_bytes(live: Live) -> None:
    """At a table that requires every seat's bytes, hands are dealt (not
    cancelled) only because the SDK's bots commit and reveal on their own."""
    import threading

    from feltline.engine.hand.events import ContributionRevealed, HandEnded
    from feltline_client.bots import CallingStation

    admin = live.client(ADMIN)
    config = TableConfig(
        TABLES[Game.HOLDEM], 6, seat_entropy=Entropy.REQUIRED, contribution_window_ms=10_000
    )
    table = admin.create_table(convert.table_config(config), "bots").table_id
    bots = []
    for seat in (1, 2):
        admin.mint_chips(f"b{seat}", 1000)
        bots.append(
            Player(
                live.client(PLAYER, f"b{seat}"),
                table,
                CallingStation(),
                seat=seat,
                buy_in=400,
                hands=2,
            )
        )
    threads = [threading.Thread(target=bot.play) for bot in bots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    key = UUID(table)
    for number in (1, 2):
        stream = live.room.hand(key, number)
        events = [e for _, made in stream.commands.values() for e in made]
        revealed = {e.seat: e.contribution for e in events if isinstance(e, ContributionRevealed)}
        assert revealed == {bot.seat: bot.contribution.contributions[number] for bot in bots}
        ended = [e for e in events if isinstance(e, HandEnded)]
        assert len(ended) == 1
        assert not ended[0].cancelled
        assert stream.hand.deck_seed == deck_seed(stream.hand.seed, revealed)
    assert all(len(bot.contribution.receipts) >= 4 for bot in bots)
    for bot in bots:
        recalled = bot.client.recall_hands()
        assert [r.hand.hand_number for r in recalled] == [1, 2]
        for hand in recalled:
            assert bot.contribution.check(bot.seat, hand.events) == []
    _a_hand_that_left_a_seat_out_is_caught(bots[0], list(recalled[0].events))


def _a_hand_that_left_a_seat_out_is_caught(bot: Player, events: list[events_pb2.Event]) -> None:
    """The seat's check against the hand as a server that dropped, altered
    or came too late with its bytes would show it."""
    from feltline_client.contribution import check

    mine = bot.contribution.contributions[1]
    receipts = bot.contribution.receipts

    def kind(event: events_pb2.Event) -> str | None:
        return event.WhichOneof("kind")

    def revealed_mine(event: events_pb2.Event) -> bool:
        return (
            kind(event) == "contribution_revealed" and event.contribution_revealed.seat == bot.seat
        )

    dropped = [e for e in events if not revealed_mine(e)]
    found = check(mine, bot.seat, dropped, receipts)
    assert found[0] == f"hand 1: seat {bot.seat}'s reveal is not in the hand: its deck left it out"
    assert len(found) == 1 + sum(r.hand_id == events[0].hand_id for r in receipts) >= 3
    assert "evidence for an auditor" in found[-1]
    other = bytes(32)
    assert check(other, bot.seat, events) == [
        f"hand 1: seat {bot.seat}'s commitment is {hashlib.sha256(mine).hexdigest()}, "
        f"not {hashlib.sha256(other).hexdigest()}, its bytes' SHA-256",
        f"hand 1: seat {bot.seat}'s reveal is not the bytes it committed to",
    ]
    reveal = next(e.sequence for e in events if revealed_mine(e))

    def changed(case: str, change: Callable[[events_pb2.Event], None]) -> list[events_pb2.Event]:
        """The events, ``change`` made to each of kind ``case`` (this seat's, if it names one)."""
        copies = []
        for event in events:
            copy = events_pb2.Event()
            copy.CopyFrom(event)
            if kind(copy) == case and getattr(getattr(copy, case), "seat", bot.seat) == bot.seat:
                change(copy)
            copies.append(copy)
        return copies

    def earlier(to: int) -> Callable[[events_pb2.Event], None]:
        return lambda event: setattr(event, "sequence", to)

    def v1(event: events_pb2.Event) -> None:
        event.hand_started.algorithm = "feltline-deck-v1"

    assert check(mine, bot.seat, changed("deck_shuffled", earlier(reveal - 1))) == [
        f"hand 1: the deck was shuffled before seat {bot.seat}'s reveal"
    ]
    assert check(mine, bot.seat, changed("contribution_committed", earlier(reveal + 1))) == [
        f"hand 1: seat {bot.seat}'s reveal comes before its commitment"
    ]
    assert check(mine, bot.seat, changed("contributions_opened", earlier(0))) == [
        "hand 1: the seats were not invited after the server's commitment"
    ]
    assert check(mine, bot.seat, changed("hand_started", v1)) == [
        "hand 1: dealt by feltline-deck-v1, which takes no seat's bytes"
    ]


def test_feltline_play_contributes_for_the_person_at_the_keyboard(live: Live) -> None:
    """A person playing with ``feltline-play`` at a table that requires
    every seat's bytes is dealt in: the terminal commits and reveals for
    them, says so, and their bytes are the deck's."""
    import io
    import threading
    from datetime import UTC, datetime, timedelta

    from feltline.api import tokens
    from feltline.engine.hand.events import ContributionRevealed, HandEnded
    from feltline_client.bots import CallingStation
    from feltline_client.terminal import main

    admin = live.client(ADMIN)
    config = TableConfig(
        TABLES[Game.HOLDEM], 6, seat_entropy=Entropy.REQUIRED, contribution_window_ms=10_000
    )
    table = admin.create_table(convert.table_config(config), "by hand").table_id
    for player in ("alice", "bob"):
        admin.mint_chips(player, 1000)
    token = tokens.mint(
        live.signer, PLAYER, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id="alice"
    )
    bob = Player(live.client(PLAYER, "bob"), table, CallingStation(), seat=2, buy_in=400, hands=1)
    thread = threading.Thread(target=bob.play)
    thread.start()
    out = io.StringIO()
    typed = io.StringIO("call\n" + "check\n" * 8)  # a calling station across: check it down
    argv = ["--target", live.server.target, "--token", token, "--table", table]
    argv += ["--seat", "1", "--buy-in", "400", "--hands", "1"]
    assert main(argv, stdin=typed, stdout=out) == 0
    thread.join(30)
    text = out.getvalue()
    assert "you committed to your 32 bytes of the deck (receipt kept)" in text
    assert "you revealed your 32 bytes of the deck (receipt kept)" in text
    assert "your 32 bytes went into this hand's deck (checked)" in text
    stream = live.room.hand(UUID(table), 1)
    events = [e for _, made in stream.commands.values() for e in made]
    revealed = {e.seat: e.contribution for e in events if isinstance(e, ContributionRevealed)}
    assert set(revealed) == {1, 2}  # the person's bytes and the bot's
    assert revealed[2] == bob.contribution.contributions[1]
    assert not next(e for e in events if isinstance(e, HandEnded)).cancelled
