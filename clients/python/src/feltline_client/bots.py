"""Bots that play through the SDK: strategies, and the ``Player`` that
sits one at a table.

A strategy only decides: given the ``Spot`` (what the seat may see, and the
options the server sent in ``Turn``, its ``LegalActions``) it picks a
``Move``. So strategies need no rules of their own and cannot drift from the
server's. The hand-strength strategy ranks hands with the small evaluator
below; the client must not import the server's engine.

A ``Player`` does everything else: sits down, follows the table's stream
(the client resumes it from its cursor when the connection drops),
contributes to each deck at a table whose seats do (``feltline-deck-v2``),
acts on its turns, looks again when an action was stale, buys in again when broke
if asked to, and stands up when done.

    with Client(target, token) as client:
        Player(client, table_id, HandStrength(), seat=3, buy_in=400, hands=100).play()

A ``TournamentPlayer`` enters a tournament and follows the tournament's
stream: a ``Player`` plays at whichever table and seat the director
draws or moves it to, until it is out or has won.

    TournamentPlayer(client, tournament_id, Casual()).play()
"""

from __future__ import annotations

import logging
import random
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Protocol

import grpc

from feltline_client.client import Client, Seen
from feltline_client.contribution import Contribution
from feltline_client.errors import FeltlineError
from feltline_client.table import Move, Spot, Tracker, send
from feltline_protos.v1 import common_pb2, events_pb2, tournaments_pb2

log = logging.getLogger(__name__)

RANK_VALUES = {r: v for v, r in enumerate("23456789TJQKA", start=2)}
# Hand categories, worst to best.
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


class Strategy(Protocol):
    """How a bot plays: given the spot, a legal move."""

    def decide(self, spot: Spot) -> Move: ...


# ---- a small evaluator


def rank_five(cards: Sequence[str]) -> tuple[int, ...]:
    """A sortable value of a five-card high hand: category, then the ranks
    that break ties. Suits never break ties; A-2-3-4-5 is a 5-high straight."""
    values = sorted((RANK_VALUES[c[0]] for c in cards), reverse=True)
    counts = Counter(values)
    # Ranks by how many of each, then by rank: the order ties are broken in.
    grouped = sorted(counts, key=lambda v: (counts[v], v), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    top = 0
    if len(counts) == 5:
        if values[0] - values[4] == 4:
            top = values[0]
        elif values == [14, 5, 4, 3, 2]:
            top = 5
    if top and flush:
        return (STRAIGHT_FLUSH, top)
    if shape[0] == 4:
        return (QUADS, *grouped)
    if shape == [3, 2]:
        return (FULL_HOUSE, *grouped)
    if flush:
        return (FLUSH, *values)
    if top:
        return (STRAIGHT, top)
    if shape[0] == 3:
        return (TRIPS, *grouped)
    if shape == [2, 2, 1]:
        return (TWO_PAIR, *grouped)
    if shape[0] == 2:
        return (PAIR, *grouped)
    return (HIGH_CARD, *values)


def best_high(cards: Sequence[str]) -> tuple[int, ...]:
    """The best five-card value among ``cards`` (five to seven of them). The
    joker is left out: only stud deals it, and this is a bot's estimate."""
    real = [c for c in cards if c != "Jk"]
    if len(real) < 5:
        raise ValueError("need five cards")
    return max(rank_five(five) for five in combinations(real, 5))


def strength(cards: Sequence[str]) -> float:
    """A rough 0..1 worth of a high hand, from fewer than five cards too."""
    real = [c for c in cards if c != "Jk"]
    if len(real) >= 5:
        value = best_high(real)
        return min(1.0, 0.12 * value[0] + 0.1 + value[1] / 140)
    values = sorted((RANK_VALUES[c[0]] for c in real), reverse=True)
    if not values:
        return 0.0
    counts = Counter(values)
    paired = max(counts.values())
    if paired >= 2:
        return min(1.0, 0.25 * paired + max(v for v in counts if counts[v] == paired) / 40)
    suited = len(real) > 1 and len({c[1] for c in real}) == 1
    return sum(values[:2]) / 60 + (0.05 if suited else 0.0)


def ace_low_ranks(cards: Sequence[str]) -> list[int]:
    """Ranks counting the ace as one, highest first: a low hand's order."""
    return sorted((1 if c[0] == "A" else RANK_VALUES[c[0]] for c in cards), reverse=True)


def keepers(cards: Sequence[str], max_discards: int) -> tuple[str, ...]:
    """Which cards a draw throws away: keep a made straight or better, else
    pairs and better, else four to a flush, else the two highest."""
    hand = list(cards)
    if len(hand) == 5 and rank_five(hand)[0] >= STRAIGHT:
        return ()
    counts = Counter(c[0] for c in hand)
    suits = Counter(c[1] for c in hand)
    suit, most = suits.most_common(1)[0] if suits else ("", 0)
    if any(n >= 2 for n in counts.values()):
        keep = [c for c in hand if counts[c[0]] >= 2]
    elif most >= 4:
        keep = [c for c in hand if c[1] == suit]
    else:
        keep = sorted(hand, key=lambda c: RANK_VALUES.get(c[0], 15), reverse=True)[:2]
    throw = sorted((c for c in hand if c not in keep), key=lambda c: RANK_VALUES.get(c[0], 15))
    return tuple(throw[:max_discards])


# ---- bots


class RandomBot:
    """Any legal move, uniformly; sized actions anywhere in the allowed range.
    Good for shaking out servers: it tries what people rarely do."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def decide(self, spot: Spot) -> Move:
        options = spot.options
        if options.draw:
            count = self.rng.randint(0, min(options.max_discards, len(spot.cards)))
            return Move("draw", discards=tuple(self.rng.sample(list(spot.cards), count)))
        if options.declare:
            return Move("declare", declaration=self.rng.choice(["low", "high", "both"]))
        kind = self.rng.choice(spot.allowed())
        if kind in ("bet", "raise", "complete"):
            return Move(kind, to=self.rng.randint(options.min_to, options.max_to))
        return Move(kind)


class CallingStation:
    """Never folds when it can stay, never raises: calls or checks, stands
    pat, declares high. The most predictable opponent there is."""

    def decide(self, spot: Spot) -> Move:
        if spot.options.draw:
            return Move("draw")
        if spot.options.declare:
            return Move("declare", declaration="high")
        allowed = spot.allowed()
        for kind in ("check", "call", "bring_in"):
            if kind in allowed:
                return Move(kind)
        return Move("fold")


class Casual:
    """Mostly checks and calls; bets or raises a little ``aggression`` of
    the time, folds to a bet now and then; draws a few cards and declares at
    random. It busts slowly and keeps hands going: the demo's and the
    benchmark's player."""

    def __init__(self, rng: random.Random | None = None, aggression: float = 0.2) -> None:
        self.rng = rng or random.Random()
        self.aggression = aggression

    def decide(self, spot: Spot) -> Move:
        options, rng = spot.options, self.rng
        if options.draw:
            most = min(options.max_discards, len(spot.cards), 3)
            return Move("draw", discards=tuple(rng.sample(list(spot.cards), rng.randint(0, most))))
        if options.declare:
            return Move("declare", declaration=rng.choice(["low", "high", "both"]))
        allowed = spot.allowed()
        if "bring_in" in allowed:
            return Move("bring_in")
        roll = rng.random()
        sized = next((k for k in ("bet", "raise", "complete") if k in allowed), None)
        if sized is not None and roll < self.aggression:
            top = max(options.min_to, min(options.max_to, 3 * options.min_to))
            return Move(sized, to=rng.randint(options.min_to, top))
        if "call" in allowed:
            return Move("fold") if roll > 0.9 else Move("call")
        return Move("check") if "check" in allowed else Move("fold")


class HandStrength:
    """Bets its strong hands, calls with middling ones, folds weak ones when
    it must pay; draws to keep what it made; declares by its best side."""

    def __init__(self, raise_at: float = 0.55, call_at: float = 0.3) -> None:
        self.raise_at, self.call_at = raise_at, call_at

    def decide(self, spot: Spot) -> Move:
        options = spot.options
        cards = [*spot.cards, *spot.board]
        if options.draw:
            return Move("draw", discards=keepers(spot.cards, options.max_discards))
        if options.declare:
            return Move("declare", declaration=self.declaration(spot))
        worth = strength(cards)
        allowed = spot.allowed()
        if worth >= self.raise_at:
            for kind in ("raise", "bet", "complete"):
                if kind in allowed:
                    return Move(kind, to=options.min_to)
        if "check" in allowed:
            return Move("check")
        if worth >= self.call_at and "call" in allowed:
            return Move("call")
        if "bring_in" in allowed:
            return Move("bring_in")
        return Move("fold")

    @staticmethod
    def declaration(spot: Spot) -> str:
        cards = [c for c in spot.cards if c != "Jk"]
        if len(cards) < 5:
            return "high"
        high = best_high(cards)
        low = ace_low_ranks(cards)
        unpaired_low = len(set(low)) == len(low) and low[0] <= 8
        if high[0] >= STRAIGHT and unpaired_low:
            return "both"
        if high[0] >= TWO_PAIR or not unpaired_low:
            return "high"
        return "low"


# ---- the player

# The move made when the strategy's was refused as illegal: it is always allowed.
FALLBACK = CallingStation()
# How many times a turn is looked at again after STALE_STATE refusals.
LOOKS = 3


class Player:
    """One seat at one table, played by ``strategy`` until ``stop()``, the
    table closes, ``hands`` hands have finished, or (unless it rebuys) a
    hand finished leaving fewer than two players with chips: the server
    deals no more hands to them.

    Each action names the hand and sequence it was decided on and has a
    request id of its own (the client reuses it on a retry), so it is never
    applied twice, nor to a position the player has not seen. A refused
    action (or buy-in) is kept in ``refused``; for an action, then:

    - STALE_STATE: the table moved on; look again (GetTable) and, if it is
      still this seat's turn, decide anew;
    - illegal (INVALID_ARGUMENT, ILLEGAL_ACTION): the strategy erred; make
      the ``FALLBACK`` move instead, so the hand does not wait on the clock;
    - any other FAILED_PRECONDITION: the moment passed (the clock acted,
      the hand or the table ended); the next turn comes on the stream.

    A server that goes away (a restart) is waited for as the client's
    patience allows, a minute by default: the client retries the action
    with its request id and resumes the watch from its cursor. Any other
    error ends play with it. Leaving stands up: play ends at once
    between hands, else after the seat played the hand out and the server
    stood it up, so no hand is left to the clock. With ``hands``, the seat
    sits out of the next hand as the last one is dealt: the next is dealt as
    that one ends, and a seat in it would pay its ante or blind to leave.

    ``directed``: a tournament's director seats the player and stands it
    up (when it is out or moves); the player never sits or stands itself,
    and play ends when the director stands it up, the table closes, or
    ``stop()``.
    """

    def __init__(
        self,
        client: Client,
        table_id: str,
        strategy: Strategy,
        *,
        seat: int,
        buy_in: int,
        hands: int | None = None,
        rebuy: bool = False,
        directed: bool = False,
    ) -> None:
        self.client, self.table_id, self.strategy = client, table_id, strategy
        self.seat, self.buy_in, self.hands, self.rebuy = seat, buy_in, hands, rebuy
        self.directed = directed
        self.tracker = Tracker()
        self.moves = 0
        self.refused: list[FeltlineError] = []
        # feltline-deck-v2: the bytes this seat contributed to each hand's
        # deck, and the server's receipt for every commitment and reveal.
        self.contribution = Contribution(client, table_id)
        self.seated = directed
        self._acted = Seen(0, 0)  # the last position acted on: never act on it twice
        self._leaving = False
        self._sitting_out = False
        self._rejoining = False  # stood up to rebuy, waiting for the hand to end
        self._seating = threading.Lock()  # sitting and standing, from play() and stop()
        self._out = threading.Event()  # play is over; setting it cancels the watch

    def sit(self) -> None:
        """Take the seat; ``play`` does it first if this was not called."""
        self.client.sit_down(self.table_id, self.seat, self.buy_in)
        self.seated = True

    def stop(self) -> None:
        """Stand up and end play, even on a quiet table; safe from any thread."""
        self._leave()

    def play(self, on_hand: Callable[[int], None] | None = None) -> Tracker:
        """Play until done; return what was seen. ``on_hand`` hears the
        number of each hand finished at the table."""
        if not self.seated:
            self.sit()
        try:
            for item in self.client.watch(self.table_id, stop=self._out):
                if self.tracker.feed(item):
                    spot = self.tracker.spot()
                    if spot is not None:
                        self._turn(spot, self.tracker.seen)
                if item.HasField("event"):
                    self._after(item.event, on_hand)
                if self.tracker.closed or self._out.is_set():
                    break
        finally:
            self._out.set()
            if not self._leaving and not self.tracker.closed:  # an error ended play
                self._leave()
        return self.tracker

    def _after(self, event: events_pb2.Event, on_hand: Callable[[int], None] | None) -> None:
        kind = event.WhichOneof("kind")
        if kind == "hand_finished":
            if on_hand is not None:
                on_hand(self.tracker.hand_number)
            if self.hands is not None and self.tracker.hands_ended >= self.hands:
                self._leave()
            elif self.rebuy:
                self._rebuy(event.hand_finished.stacks)
            elif not self.tracker.dealable and not self.directed:
                self._leave()
        elif kind in ("contributions_opened", "reveals_opened"):
            self.contribution.heard(event, self.seat)
        elif kind == "hand_dealt" and self.hands is not None:
            if self.tracker.hands_ended + 1 >= self.hands:
                self._sit_out()
        elif kind == "stood_up" and event.stood_up.seat == self.seat:
            if self._leaving or self.directed:
                self._out.set()
            elif self._rejoining:
                with self._seating:
                    self._rejoining = False
                    if not self._leaving:
                        self._sit_again()

    def _turn(self, spot: Spot, seen: Seen) -> None:
        move = self.strategy.decide(spot)
        for _ in range(LOOKS):
            if seen <= self._acted:
                return  # already acted here, after looking again
            try:
                send(self.client, self.table_id, seen, move)
                self._acted = seen
                self.moves += 1
                return
            except FeltlineError as e:
                self.refused.append(e)
                log.info("refused %s: %s", move, e)
                if e.reason == "STALE_STATE":
                    looked = Tracker.of(self.client.get_table(self.table_id))
                    fresh = looked.spot()
                    if fresh is None:
                        return  # no longer this seat's turn
                    spot, seen, move = fresh, looked.seen, self.strategy.decide(fresh)
                elif e.code is grpc.StatusCode.INVALID_ARGUMENT or e.reason == "ILLEGAL_ACTION":
                    fallback = FALLBACK.decide(spot)
                    if move == fallback:
                        return
                    move = fallback
                elif e.code is grpc.StatusCode.FAILED_PRECONDITION:
                    return
                else:
                    raise

    def _rebuy(self, stacks: Sequence[common_pb2.SeatAmount]) -> None:
        """Broke after a hand: stand up and buy in again. A broke seat can
        still be dealt into the next hand (all in for a carried jackpots
        pot); it is then stood up only when that hand ends, and sits down
        again when the stream says so."""
        if next((s.amount for s in stacks if s.seat == self.seat), None) != 0:
            return
        with self._seating:
            if self._leaving or self._rejoining:
                return
            try:
                if self.client.stand_up(self.table_id).leaving_after_hand:
                    self._rejoining = True
                    return
            except FeltlineError as e:
                if e.code is not grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                self.refused.append(e)
                return
            self._sit_again()

    def _sit_again(self) -> None:
        """Buy in again at the same seat (the seating lock held)."""
        try:
            self.client.sit_down(self.table_id, self.seat, self.buy_in)
        except FeltlineError as e:
            if e.code is not grpc.StatusCode.FAILED_PRECONDITION:
                raise
            self.refused.append(e)

    def _sit_out(self) -> None:
        """The last hand is dealt: sit out of the next, which is dealt as
        this one ends, so that leaving after this one costs no ante or
        blind. A server without SitOut (UNIMPLEMENTED) or a refusal leaves
        it to standing up, as before."""
        with self._seating:
            if self._leaving or self._sitting_out:
                return
            self._sitting_out = True  # asked once, whatever the answer
            try:
                self.client.sit_out(self.table_id)
            except FeltlineError as e:
                if e.code not in (
                    grpc.StatusCode.UNIMPLEMENTED,
                    grpc.StatusCode.FAILED_PRECONDITION,
                ):
                    raise
                self.refused.append(e)

    def _leave(self) -> None:
        """Stand up, once. Between hands play ends now; during one the
        server stands the seat up when the hand ends, and play ends then."""
        with self._seating:
            if self._leaving:
                return
            self._leaving = True
            if self.directed:  # the director stands it up
                self._out.set()
                return
            later = False
            try:
                later = self.client.stand_up(self.table_id).leaving_after_hand
            except FeltlineError as e:
                if e.code is not grpc.StatusCode.FAILED_PRECONDITION:
                    raise  # else not seated, or the table closed: out already
            finally:
                if not later:
                    self._out.set()


@dataclass(frozen=True)
class Chair:
    """Where the director seats a tournament's player."""

    table_id: str
    seat: int


class TournamentPlayer:
    """One entrant of a tournament, played by ``strategy`` from its entry
    (unless ``register`` is false: entered already) until it is out or has
    won, or ``stop()``.

    It follows the tournament's stream (resumed from its cursor when the
    connection drops): where the seat draw puts it, a ``Player`` plays; when
    the director moves it (balancing, or its table breaking), that
    ``Player`` stops and another plays at the new table. Once placed, it
    has its ``place`` and ``prize``; ``tables`` lists every table it
    played at, in order, and ``moves`` counts its actions at all of them.
    """

    def __init__(
        self, client: Client, tournament_id: str, strategy: Strategy, *, register: bool = True
    ) -> None:
        self.client, self.tournament_id, self.strategy = client, tournament_id, strategy
        self.register = register
        self.me = client.player_id
        self.place = 0
        self.prize = 0
        self.tables: list[str] = []
        self.errors: list[BaseException] = []
        self._players: list[Player] = []
        self._playing: tuple[Player, threading.Thread] | None = None
        self._out = threading.Event()

    @property
    def moves(self) -> int:
        return sum(p.moves for p in self._players)

    def stop(self) -> None:
        """End play and the watch, from any thread."""
        self._out.set()

    def play(self) -> None:
        """Enter, then play wherever seated until placed or the tournament
        is over (or ``stop()``)."""
        if self.register:
            self.client.register_tournament(self.tournament_id)
        try:
            for item in self.client.watch_tournament(self.tournament_id, stop=self._out):
                chair = self._chair(item)
                if chair is not None:
                    self._sit(chair)
                if self.place or self._over(item):
                    break
        finally:
            self._out.set()
            self._sit(None)
        if self.place:
            standings = self.client.get_tournament(self.tournament_id).standings
            self.prize = next(s.prize for s in standings if s.player_id == self.me)
        if self.errors:
            raise self.errors[0]

    def _chair(self, item: tournaments_pb2.WatchTournamentResponse) -> Chair | None:
        """Where ``item`` seats this player, if it does; notes its place."""
        if item.HasField("snapshot"):
            tournament = item.snapshot
            tables = {t.number: t.table_id for t in tournament.tables}
            for s in tournament.standings:
                if s.player_id == self.me:
                    self.place = s.place
                    if s.table in tables:
                        return Chair(tables[s.table], s.seat)
            return None
        event = item.event
        kind = event.WhichOneof("kind")
        if kind == "seats_drawn":
            for c in event.seats_drawn.chairs:
                if c.player_id == self.me:
                    return Chair(c.table_id, c.seat)
        elif kind == "player_moved" and event.player_moved.player_id == self.me:
            to = event.player_moved.to_chair
            return Chair(to.table_id, to.seat)
        elif kind == "placed" and self.me in event.placed.player_ids:
            self.place = event.placed.place
        return None

    @staticmethod
    def _over(item: tournaments_pb2.WatchTournamentResponse) -> bool:
        return item.event.WhichOneof("kind") in ("finished", "cancelled")

    def _sit(self, chair: Chair | None) -> None:
        """Stop playing where it was, and play at ``chair`` (if any)."""
        if self._playing is not None:
            player, thread = self._playing
            player.stop()
            thread.join()
            self._playing = None
        if chair is None or self._out.is_set():
            return
        player = Player(
            self.client, chair.table_id, self.strategy, seat=chair.seat, buy_in=0, directed=True
        )
        thread = threading.Thread(
            target=self._run, args=(player,), name=f"feltline-{self.me}", daemon=True
        )
        self._players.append(player)
        self.tables.append(chair.table_id)
        self._playing = player, thread
        thread.start()

    def _run(self, player: Player) -> None:
        try:
            player.play()
        except BaseException as e:  # handed to play(), which raises it
            self.errors.append(e)
            self._out.set()


BOTS: dict[str, Callable[[], Strategy]] = {
    "casual": Casual,
    "random": RandomBot,
    "station": CallingStation,
    "strength": HandStrength,
}

__all__ = [
    "BOTS",
    "FALLBACK",
    "CallingStation",
    "Casual",
    "HandStrength",
    "Player",
    "RandomBot",
    "Strategy",
    "TournamentPlayer",
    "best_high",
    "keepers",
    "rank_five",
    "strength",
]
