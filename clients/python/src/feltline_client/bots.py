"""Bots that play through the SDK, and a runner that seats one at a table.

They choose only among the options the server sends in ``Turn`` (its
``LegalActions``), so they need no rules of their own and cannot drift from
the server's. The hand-strength player ranks hands with the small evaluator
below; the client must not import the server's engine.

    with Client(target, token) as client:
        Runner(client, table_id, HandStrength(), seat=3, buy_in=400).run()
"""

from __future__ import annotations

import logging
import random
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Protocol

import grpc

from feltline_client.client import Client
from feltline_client.errors import FeltlineError
from feltline_client.table import Move, Spot, Tracker, send

log = logging.getLogger(__name__)

RANK_VALUES = {r: v for v, r in enumerate("23456789TJQKA", start=2)}
# Hand categories, worst to best.
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


class Bot(Protocol):
    """A player: given the spot, a legal move."""

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


# ---- the runner


class Runner:
    """Sits a bot at a table and plays until ``stop()``, the table closes,
    ``hands`` hands have ended, or a hand finished leaving fewer than two
    players with chips (the server deals no more hands to them).

    A refused action that only says the moment passed (FAILED_PRECONDITION:
    the clock ran out, the hand moved on) is logged and play goes on with
    the next turn; anything else ends the run with the error."""

    def __init__(
        self,
        client: Client,
        table_id: str,
        bot: Bot,
        *,
        seat: int = 0,
        buy_in: int = 0,
        hands: int | None = None,
        leave: bool = True,
        on_move: Callable[[Spot, Move], None] | None = None,
    ) -> None:
        self.client, self.table_id, self.bot = client, table_id, bot
        self.seat, self.buy_in, self.hands, self.leave = seat, buy_in, hands, leave
        self.on_move = on_move
        self.tracker = Tracker()
        self.moves = 0
        self.refused: list[FeltlineError] = []
        self._stop = threading.Event()

    def stop(self) -> None:
        """Ask the run to end; safe from any thread."""
        self._stop.set()

    def run(self) -> Tracker:
        """Play; return what was seen."""
        if self.seat:
            self.client.sit_down(self.table_id, self.seat, self.buy_in)
        try:
            for item in self.client.watch(self.table_id, stop=self._stop):
                if self.tracker.feed(item):
                    self._act()
                if self.hands is not None and self.tracker.hands_ended >= self.hands:
                    break
                if not self.tracker.dealable:
                    break
        finally:
            if self.seat and self.leave and not self.tracker.closed:
                self.client.stand_up(self.table_id)
        return self.tracker

    def _act(self) -> None:
        spot = self.tracker.spot()
        if spot is None:
            return
        move = self.bot.decide(spot)
        if self.on_move is not None:
            self.on_move(spot, move)
        try:
            send(self.client, self.table_id, self.tracker.seen, move)
            self.moves += 1
        except FeltlineError as e:
            if e.code is not grpc.StatusCode.FAILED_PRECONDITION:
                raise
            log.info("refused %s: %s", move, e)
            self.refused.append(e)


BOTS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "station": CallingStation,
    "strength": HandStrength,
}

__all__ = [
    "BOTS",
    "Bot",
    "CallingStation",
    "HandStrength",
    "RandomBot",
    "Runner",
    "best_high",
    "keepers",
    "rank_five",
    "strength",
]
