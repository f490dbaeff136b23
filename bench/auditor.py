"""Benchmark the auditor's calls of ``ReplayService``: ``ListHands`` paging
through every hand of a store and ``VerifyHand`` one hand at a time, each
beside an anchor timed in the same run, so that the ratio holds however
loaded the machine is.

    uv run python bench/auditor.py                  # 560 hands: about a minute
    uv run python bench/auditor.py --hands 2000     # pages further from the start

Random players (tests/store/players.py) play ``--hands`` hands of every game
at four tables straight into a SQLite store; a real server with its
projector, caught up, then serves it on a loopback port. Anchors:
``LedgerService.SearchHands`` paging through the same hands (the hand index
alone) for ``ListHands``, and ``GetHand`` (one hand's records read and
shown) for ``VerifyHand``; since both ``GetHand`` and ``VerifyHand`` find
their hand the same way, ``VerifyHand`` is also given per the time
``SearchHands`` takes a hand, which neither touches. The rounds alternate the calls and the best of
each is printed. A script, never a test: it prints figures and ratios and
never fails.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' players

from feltline.api import tokens  # noqa: E402
from feltline.api.app import Feltline  # noqa: E402
from feltline.audit.keys import Signer  # noqa: E402
from feltline.cardroom.room import Room  # noqa: E402
from feltline.projections.projector import Projector  # noqa: E402
from feltline.store.config import StoreConfig  # noqa: E402
from feltline.store.streams import Streams  # noqa: E402
from feltline_client import Client  # noqa: E402
from feltline_protos.v1 import auth_pb2  # noqa: E402
from tests.store.players import Players, finished, open_tables  # noqa: E402

TABLES = 4
PAGE = 50  # ListHands' and SearchHands' default page


def play(room: Room, hands: int, seed: int) -> None:
    """``hands`` hands at ``TABLES`` tables, one table's request at a time."""
    ids = open_tables(room, TABLES)
    rng = random.Random(seed)
    seated = [Players(room, t, rng) for t in ids]
    while finished(room, ids) < hands:
        for players in seated:
            players.step()


def best(runs: list[float]) -> float:
    return min(runs)


def timed(call: Callable[[], int]) -> tuple[float, int]:
    began = time.perf_counter()
    count = call()
    return time.perf_counter() - began, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=560, help="hands to play (default 560)")
    parser.add_argument("--verify", type=int, default=40, help="hands to verify a round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the best kept")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {"SQLITE_DBNAME": str(Path(folder) / "auditor.db")}
        signer = Signer.generate()
        room = Room(Streams(signer, env=StoreConfig.from_env(env).env))
        began = time.perf_counter()
        play(room, args.hands, args.seed)
        print(f"played {args.hands} hands in {time.perf_counter() - began:.1f} s")
        projector = Projector(room.streams, StoreConfig.from_env(env).env)
        projector.follower.catch_up()
        server = Feltline(room, signer.public_key, clock=lambda: 0, tick=3600, projector=projector)
        server.start()
        token = tokens.mint(
            signer, auth_pb2.ROLE_AUDITOR, now=datetime.now(UTC), ttl=timedelta(hours=1)
        )
        try:
            with Client(server.target, token, timeout=600) as auditor:
                measure(auditor, args.verify, args.rounds)
        finally:
            server.stop()
            room.close()


def measure(auditor: Client, verify: int, rounds: int) -> None:
    def list_hands() -> int:
        return sum(1 for _ in auditor.list_hands(page_size=PAGE))

    def search_hands() -> int:
        return sum(1 for _ in auditor.ledger.search_hands(page_size=PAGE))

    hands = [h.hand_id for h in auditor.list_hands(page_size=200)]
    chosen = hands[:: max(1, len(hands) // verify)][:verify]

    def verify_hands() -> int:
        for hand in chosen:
            assert auditor.verify_hand(hand).ok
        return len(chosen)

    def get_hands() -> int:
        for hand in chosen:
            auditor.get_hand(hand)
        return len(chosen)

    calls = {
        "ListHands": list_hands,
        "SearchHands": search_hands,
        "VerifyHand": verify_hands,
        "GetHand": get_hands,
    }
    times: dict[str, list[float]] = {name: [] for name in calls}
    counts: dict[str, int] = {}
    for _ in range(rounds):
        for name, call in calls.items():
            took, counts[name] = timed(call)
            times[name].append(took)
    rate = {name: counts[name] / best(times[name]) for name in calls}
    print(f"{len(hands)} finished hands, pages of {PAGE}, best of {rounds} rounds")
    for name in ("ListHands", "SearchHands"):
        print(
            f"  {name:<11} {counts[name]:>6} hands in {best(times[name]):7.3f} s: "
            f"{rate[name]:9.0f} hands/s"
        )
    for name in ("VerifyHand", "GetHand"):
        print(
            f"  {name:<11} {counts[name]:>6} calls in {best(times[name]):7.3f} s: "
            f"{1000 / rate[name]:7.2f} ms a call"
        )
    print(
        f"ListHands / SearchHands (anchor): {rate['ListHands'] / rate['SearchHands']:.2f}x; "
        f"VerifyHand / GetHand (anchor): {rate['VerifyHand'] / rate['GetHand']:.2f}x; "
        f"VerifyHand calls per 1,000 SearchHands hands: "
        f"{1000 * rate['VerifyHand'] / rate['SearchHands']:.2f}"
    )


if __name__ == "__main__":
    main()
