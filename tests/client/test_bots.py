"""The bots: their evaluator, that each only ever chooses a legal move, and
whole hands played by them through the SDK against a server."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from feltline_client import Client, FeltlineError
from feltline_client.bots import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TWO_PAIR,
    CallingStation,
    Casual,
    HandStrength,
    Player,
    RandomBot,
    Strategy,
    best_high,
    keepers,
    rank_five,
)
from feltline_client.table import Move, Spot, Tracker
from feltline_protos.v1 import common_pb2, events_pb2, play_pb2, tables_pb2, watch_pb2

from .conftest import Room

K = common_pb2.ActionKind


def test_categories_and_their_order() -> None:
    assert rank_five(["As", "Ks", "Qs", "Js", "Ts"])[0] == STRAIGHT_FLUSH
    assert rank_five(["Ah", "2c", "3d", "4s", "5h"]) == (STRAIGHT, 5)
    assert rank_five(["Kh", "Kc", "Kd", "4s", "4h"]) == (FULL_HOUSE, 13, 4)
    assert rank_five(["2h", "9h", "Jh", "4h", "Kh"])[0] == FLUSH
    assert rank_five(["9h", "9c", "4d", "4s", "Ah"]) == (TWO_PAIR, 9, 4, 14)
    assert rank_five(["9h", "9c", "4d", "3s", "Ah"]) == (PAIR, 9, 14, 4, 3)
    assert rank_five(["Qh", "9c", "4d", "3s", "Ah"])[0] == HIGH_CARD
    assert rank_five(["Ah", "2c", "3d", "4s", "5h"]) < rank_five(["2h", "3c", "4d", "5s", "6h"])


def test_the_best_five_of_seven() -> None:
    assert best_high(["As", "Ad", "Kh", "Kd", "2c", "Ks", "7h"]) == (FULL_HOUSE, 13, 14)
    with pytest.raises(ValueError, match="five"):
        best_high(["As", "Jk", "2c", "3c", "4c"])


def test_a_draw_keeps_what_it_made() -> None:
    assert keepers(["9h", "9c", "4d", "3s", "Ah"], 5) == ("3s", "4d", "Ah")
    assert keepers(["9h", "Th", "Jh", "Qh", "Kh"], 5) == ()
    assert keepers(["2h", "7h", "Jh", "Qh", "4c"], 5) == ("4c",)
    assert keepers(["2h", "7c", "Jd", "Qh", "4c"], 2) == ("2h", "4c")


def _spots(rng: random.Random) -> list[Spot]:
    """Spots of every kind, with random cards and amounts."""
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    spots = []
    for _ in range(200):
        cards = tuple(rng.sample(deck, 5))
        low = rng.randint(1, 50)
        menus = [
            tables_pb2.LegalActions(
                actions=[K.ACTION_KIND_CHECK, K.ACTION_KIND_BET, K.ACTION_KIND_FOLD],
                min_to=low,
                max_to=low * 4,
            ),
            tables_pb2.LegalActions(
                actions=[K.ACTION_KIND_CALL, K.ACTION_KIND_RAISE, K.ACTION_KIND_FOLD],
                call_amount=low,
                min_to=low * 2,
                max_to=low * 9,
            ),
            tables_pb2.LegalActions(actions=[K.ACTION_KIND_CALL, K.ACTION_KIND_FOLD]),
            tables_pb2.LegalActions(
                actions=[K.ACTION_KIND_BRING_IN, K.ACTION_KIND_COMPLETE, K.ACTION_KIND_FOLD],
                min_to=low,
                max_to=low,
            ),
            tables_pb2.LegalActions(draw=True, max_discards=rng.randint(1, 5)),
            tables_pb2.LegalActions(declare=True),
        ]
        spots.append(Spot(1, rng.choice(menus), cards, (), 0, "", common_pb2.GAME_DRAW_DECLARE))
    return spots


@pytest.mark.parametrize(
    "bot", [RandomBot(random.Random(1)), CallingStation(), HandStrength(), Casual(random.Random(2))]
)
def test_every_bot_only_chooses_legal_moves(bot: Strategy) -> None:
    for spot in _spots(random.Random(7)):
        move = bot.decide(spot)
        options = spot.options
        assert move.kind in spot.allowed()
        if move.kind in ("bet", "raise", "complete"):
            assert options.min_to <= move.to <= options.max_to
        if move.kind == "draw":
            assert len(move.discards) <= options.max_discards
            assert set(move.discards) <= set(spot.cards)
        if move.kind == "declare":
            assert move.declaration in ("low", "high", "both")


def test_the_station_calls_and_the_strength_bot_raises_a_full_house() -> None:
    facing = tables_pb2.LegalActions(
        actions=[K.ACTION_KIND_CALL, K.ACTION_KIND_RAISE, K.ACTION_KIND_FOLD],
        call_amount=10,
        min_to=20,
        max_to=100,
    )
    boat = ("Kh", "Kc", "Kd", "4s", "4h")
    junk = ("2h", "7c", "9d", "Jh", "4c")
    spot = Spot(2, facing, boat, (), 0, "", common_pb2.GAME_DRAW_DECLARE)
    assert CallingStation().decide(spot) == Move("call")
    assert HandStrength().decide(spot) == Move("raise", to=20)
    assert HandStrength().decide(Spot(2, facing, junk, (), 0, "", 1)) == Move("fold")


@pytest.mark.parametrize(
    ("game", "hands", "structure"),
    [
        (common_pb2.GAME_DRAW_DECLARE, 6, common_pb2.STRUCTURE_NO_LIMIT),
        (common_pb2.GAME_HOLDEM, 4, common_pb2.STRUCTURE_NO_LIMIT),
        (common_pb2.GAME_HOLDEM, 4, common_pb2.STRUCTURE_FIXED_LIMIT),
    ],
)
def test_three_bots_play_whole_hands_and_no_chip_is_lost(
    room: Room, game: int, hands: int, structure: int
) -> None:
    table = room.open_table(game, structure=structure)
    names = ["alice", "bob", "carol"]
    with room.client("admin") as admin:
        before = {p: admin.get_account(p) for p in names}
    bots = [RandomBot(random.Random(3)), CallingStation(), HandStrength()]
    clients = [room.client(p) for p in names]
    players = [
        Player(c, table, bot, seat=n, buy_in=400, hands=hands)
        for n, (c, bot) in enumerate(zip(clients, bots, strict=True), start=1)
    ]
    failures = _play_all(players)
    room.close_table(table)
    for c in clients:
        c.close()
    assert not failures
    # No limit can bust all but one player; the server then deals no more.
    assert all(p.tracker.hands_ended >= hands or not p.tracker.dealable for p in players)
    assert all(p.moves > 0 for p in players)
    with room.client("admin") as admin:
        after = {p: admin.get_account(p) for p in names}
    total = sum(a.balance + a.at_tables for a in before.values())
    assert sum(a.balance + a.at_tables for a in after.values()) == total


def _play_all(players: list[Player]) -> list[BaseException]:
    """Run every player in a thread of its own until all stop; what they
    raised, and a TimeoutError if any did not stop."""
    failures: list[BaseException] = []

    def play(player: Player) -> None:
        try:
            player.play()
        except BaseException as e:  # reported by the caller, in the test's thread
            failures.append(e)

    threads = [threading.Thread(target=play, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    if any(t.is_alive() for t in threads):
        failures.append(TimeoutError("a player was still playing after 60 s"))
    return failures


def _heads_up(room: Room, alice: Client, strategy: Strategy, hands: int = 3) -> list[Player]:
    """Alice (with ``alice`` and ``strategy``) against Bob, a calling
    station, until ``hands`` hands are over; both must have ended."""
    table = room.open_table()
    bob = room.client("bob")
    players = [
        Player(alice, table, strategy, seat=1, buy_in=400, hands=hands),
        Player(bob, table, CallingStation(), seat=2, buy_in=400, hands=hands),
    ]
    failures = _play_all(players)
    room.close_table(table)
    for c in (alice, bob):
        c.close()
    assert not failures
    assert all(p.tracker.hands_ended >= hands for p in players)
    return players


class Lagging(Client):
    """Sends its first action as if decided an event ago, as a player whose
    stream lags would: the server refuses it as STALE_STATE."""

    lagged = False

    def act(self, request: play_pb2.ActRequest) -> play_pb2.ActResponse:
        if not self.lagged and request.sequence > 1:
            self.lagged = True
            request.sequence -= 1
        return super().act(request)


def test_a_stale_action_is_decided_anew_on_a_fresh_look(room: Room) -> None:
    alice = Lagging(room.target, room.players["alice"], timeout=10, backoff=0.05)
    player = _heads_up(room, alice, CallingStation())[0]
    assert [e.reason for e in player.refused][:1] == ["STALE_STATE"]
    assert player.moves > 0


class Oversized:
    """Bets and raises one chip more than the most allowed: always refused."""

    def decide(self, spot: Spot) -> Move:
        for kind in ("bet", "raise"):
            if kind in spot.allowed():
                return Move(kind, to=spot.options.max_to + 1)
        return CallingStation().decide(spot)


def test_a_refused_move_is_replaced_by_one_always_allowed(room: Room) -> None:
    """Without the fallback no hand would end: the bet would wait on the clock."""
    player = _heads_up(room, room.client("alice"), Oversized(), hands=2)[0]
    assert "ILLEGAL_AMOUNT" in {e.reason for e in player.refused}
    assert player.moves > 0


class Dropped(grpc.RpcError):
    """The error a lost connection ends a watch with."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "dropped by the test"

    def trailing_metadata(self) -> tuple[()]:
        return ()


class DroppingCall:
    """A watch call that is cut after ``every`` batches, noting the messages
    they hold."""

    def __init__(self, call: Any, every: int, seen: list[watch_pb2.WatchTableResponse]) -> None:
        self.call, self.every, self.seen = call, every, seen

    def __iter__(self) -> Iterator[watch_pb2.WatchTableBatchesResponse]:
        for n, batch in enumerate(self.call, start=1):
            self.seen.extend(batch.messages)
            yield batch
            if n == self.every:
                self.call.cancel()
                raise Dropped()

    def is_active(self) -> bool:
        return bool(self.call.is_active())

    def cancel(self) -> bool:
        return bool(self.call.cancel())


class Dropping(Client):
    """A client whose every watch is cut after a few items."""

    def __init__(self, target: str, token: str, every: int) -> None:
        super().__init__(target, token, timeout=10, backoff=0.01)
        self.seen: list[watch_pb2.WatchTableResponse] = []
        real = self.watcher.WatchTableBatches
        self.watcher.WatchTableBatches = (  # type: ignore[method-assign]
            lambda request, **kw: DroppingCall(real(request, **kw), every, self.seen)
        )


def test_a_dropped_watch_resumes_with_nothing_missed_or_repeated(room: Room) -> None:
    alice = Dropping(room.target, room.players["alice"], every=5)
    _heads_up(room, alice, HandStrength())
    assert sum(i.HasField("snapshot") for i in alice.seen) == 1  # resumed, never restarted
    events = [i.event for i in alice.seen if i.HasField("event")]
    keys = [(e.hand_number, e.sequence) for e in events]
    assert len(keys) == len(set(keys)) > 20
    for number in {n for n, _ in keys}:
        got = [s for n, s in keys if n == number]
        assert got == list(range(got[0], got[0] + len(got))), (number, got)


def test_stop_ends_a_run_waiting_on_a_quiet_table(room: Room) -> None:
    table = room.open_table()
    with room.client("alice") as client:
        player = Player(client, table, CallingStation(), seat=1, buy_in=400)
        thread = threading.Thread(target=player.play)
        thread.start()
        threading.Event().wait(0.3)
        player.stop()
        thread.join(5)
        assert not thread.is_alive()
        assert player.tracker.seat == 1
        assert not client.get_table(table).HasField("viewer_seat")  # stood up
    room.close_table(table)


class StillDealtIn(Client):
    """A scripted server where the broke seat 1 is still dealt into the hand
    being played (a carried jackpots pot it is all in for): standing up
    waits for the hand to end, and the seat is taken until then."""

    def __init__(self) -> None:
        super().__init__("127.0.0.1:1", "token")
        self.calls: list[str] = []
        self.leaving = False

    def sit_down(self, table_id: str, seat: int, buy_in: int, **_: Any) -> tables_pb2.Table:
        self.calls.append("sit_down")
        if self.leaving:
            raise FeltlineError(
                grpc.StatusCode.FAILED_PRECONDITION, "seat 1 is taken", "SEAT_UNAVAILABLE"
            )
        return tables_pb2.Table()

    def stand_up(self, table_id: str, **_: Any) -> tables_pb2.StandUpResponse:
        self.calls.append("stand_up")
        self.leaving = True
        return tables_pb2.StandUpResponse(leaving_after_hand=True)

    def watch(self, table_id: str, **_: Any) -> Iterator[watch_pb2.WatchTableResponse]:
        table = tables_pb2.Table(viewer_seat=1)
        yield watch_pb2.WatchTableResponse(snapshot=watch_pb2.TableSnapshot(table=table))
        finished = events_pb2.HandFinished(stacks=[common_pb2.SeatAmount(seat=1, amount=0)])
        yield watch_pb2.WatchTableResponse(event=events_pb2.Event(hand_finished=finished))
        self.leaving = False  # the next hand ends: the server stands seat 1 up
        stood = events_pb2.StoodUp(seat=1, player_id="alice", stack=5)
        yield watch_pb2.WatchTableResponse(event=events_pb2.Event(stood_up=stood))
        closed = events_pb2.Event(table_closed=events_pb2.TableClosed())
        yield watch_pb2.WatchTableResponse(event=closed)


def test_a_broke_seat_still_dealt_in_buys_in_again_once_it_is_stood_up() -> None:
    client = StillDealtIn()
    player = Player(client, "t", CallingStation(), seat=1, buy_in=400, rebuy=True)
    player.play()
    assert client.calls == ["sit_down", "stand_up", "sit_down"]
    assert player.refused == []


def test_a_newcomer_seated_during_a_hand_keeps_the_table_dealable() -> None:
    """Seat 1 goes broke in a hand that seat 2 sat down during: seats 2 and
    3 can still be dealt in, so neither of them leaves."""
    tracker = Tracker()
    seats = [tables_pb2.Seat(seat=1, stack=400), tables_pb2.Seat(seat=3, stack=400)]
    snapshot = watch_pb2.TableSnapshot(table=tables_pb2.Table(viewer_seat=3, seats=seats))
    tracker.feed(watch_pb2.WatchTableResponse(snapshot=snapshot))
    events = [
        events_pb2.Event(sat_down=events_pb2.SatDown(seat=2, player_id="bob", buy_in=400)),
        events_pb2.Event(
            hand_finished=events_pb2.HandFinished(
                stacks=[
                    common_pb2.SeatAmount(seat=1, amount=0),
                    common_pb2.SeatAmount(seat=3, amount=800),
                ]
            )
        ),
    ]
    for event in events:
        tracker.feed(watch_pb2.WatchTableResponse(event=event))
    assert tracker.dealable
    left = events_pb2.Event(stood_up=events_pb2.StoodUp(seat=2, player_id="bob", stack=400))
    tracker.feed(watch_pb2.WatchTableResponse(event=left))
    assert not tracker.dealable


def test_players_done_after_their_hands_sit_out_and_no_later_hand_is_dealt(room: Room) -> None:
    table = room.open_table()
    clients = [room.client("alice"), room.client("bob")]
    players = [
        Player(c, table, CallingStation(), seat=n, buy_in=400, hands=2)
        for n, c in enumerate(clients, start=1)
    ]
    failures = _play_all(players)
    with room.client("admin") as admin:
        seen = admin.get_table(table)
    room.close_table(table)
    for c in clients:
        c.close()
    assert not failures
    assert seen.hands_dealt == 2  # both sat out of hand 3 as hand 2 was dealt
    assert not seen.seats  # and left without it
    assert not [e for p in players for e in p.refused if e.reason != "STALE_STATE"]


def test_sitting_out_and_in_shows_in_the_seat_status(room: Room) -> None:
    table = room.open_table()
    with room.client("alice") as alice:
        alice.sit_down(table, 1, 400)
        out = alice.sit_out(table)
        assert [s.status for s in out.seats] == [common_pb2.SEAT_STATUS_SITTING_OUT]
        with pytest.raises(FeltlineError) as caught:
            alice.sit_out(table)
        assert caught.value.reason == "SEAT_UNAVAILABLE"
        back = alice.sit_in(table)
        assert [s.status for s in back.seats] == [common_pb2.SEAT_STATUS_PLAYING]
        alice.stand_up(table)
    room.close_table(table)
