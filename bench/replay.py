"""Benchmark feltline-replay: hands verified per second, beside PokerKit
replaying PHH exports of the same hands, and the time and memory to export
and verify a large store.

    uv run python bench/replay.py                  # --big 20000: about 7 minutes
    uv run python bench/replay.py --big 100000     # docs/performance.md's size: about 20
    uv run python bench/replay.py --big 0          # no large store: about 2

Random players play ``--hands`` real hands of every game through a Room
(tests/replay/conftest.py). Verification is ``feltline_replay.verify``:
chain, each stream's last signature (the seal) and every other's form and
key, commitment, deck and every card, and the engine re-running each hand;
from the exported log (parsed too) and from the store (read too), each
process reading its own shares as the command does, with one process and
with two, and from the log with ``--all-signatures``; then each part of a
verification alone. PokerKit replays the same run's seven-card stud
high-low hands from their PHH export (``feltline_replay.histories.phh``,
as ``feltline-replay convert``), beside Feltline verifying exactly those
hands with one process and with two: each timed by the wall clock and by
the CPU time of every process, which moves less with the machine's load. The
large store clones the played tables under new ids (every link recomputed
and every signed record signed again with the store's key), so it holds
``--big`` hands that verify;
``feltline-replay export`` and ``verify`` then run on it as commands, each
timed and its peak memory read from the kernel (``ru_maxrss``).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from uuid import UUID, uuid5

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' players
sys.path.insert(0, str(ROOT / "bench"))

from feltline.audit import chain, keys  # noqa: E402
from feltline.audit.codec import decode_event  # noqa: E402
from feltline.audit.keys import Signer  # noqa: E402
from feltline.audit.rerun import difference  # noqa: E402
from feltline.engine.cards.deck import shuffle  # noqa: E402
from feltline.engine.hand.dealing import fresh_deck  # noqa: E402
from feltline.engine.hand.events import Event, HandStarted  # noqa: E402
from feltline.engine.hand.rules import Game  # noqa: E402
from feltline_replay import log  # noqa: E402
from feltline_replay.canonical import canonical  # noqa: E402
from feltline_replay.export import Selection, export, hand_id, plan  # noqa: E402
from feltline_replay.store import open_rows  # noqa: E402
from feltline_replay.verify import (  # noqa: E402
    Folded,
    Verifier,
    _streams,
    check_hand,
    check_records,
    fold_table,
    log_shares,
    store_shares,
    verify_shares,
)

TABLE_TOPIC = "feltline.domain.table:TableRecord"


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def cpu(work: Callable[[], object]) -> float:
    """CPU seconds of this process (not of its children)."""
    start = time.process_time()
    work()
    return time.process_time() - start


def cpu_all(work: Callable[[], object]) -> float:
    """CPU seconds of this process and of the children it waited for
    (the verifying processes, joined when their pool closes)."""
    before = os.times()
    work()
    after = os.times()
    return sum(after[:4]) - sum(before[:4])


def start_of(path: Path) -> int:
    """Where a log's records begin, after its header."""
    with path.open("rb") as file:
        log.head(file.readline())
        return file.tell()


def hands_of(path: Path) -> dict[str, list[log.Record]]:
    with path.open() as file:
        _, lines = log.read(file)
        hands: dict[str, list[log.Record]] = {}
        for record in lines:
            if record["kind"] != "table":
                hands.setdefault(record["id"], []).append(record)
    return hands


def events_of(records: list[log.Record]) -> list[Event]:
    return [
        decode_event(r["type"], r["version"], r["data"]) for r in records if r["kind"] == "hand"
    ]


def parts(hands: dict[str, list[log.Record]], path: Path, key: str) -> dict[str, float]:
    """CPU seconds per hand for each check alone, as the verifier makes it,
    over already parsed records (parsing is timed over their lines), and
    for the rest of a verification: reading the log and grouping its lines
    into streams, folding the tables, a hand's own checks in all, and the
    first process tying each hand to its table."""
    records = list(hands.values())
    decoded = [events_of(r) for r in records]
    lines = [json.dumps(r) for recs in records for r in recs]
    shares = list(log_shares(str(path), start_of(path)))
    tables = [g for s in shares for g in _streams(s.records()) if g[0]["kind"] == "table"]
    found = [check_records(s.records()) for s in shares]

    def links() -> None:
        for recs in records:
            previous = chain.GENESIS
            for r in recs:
                if r["kind"] == "hand":
                    previous = chain.link(
                        previous,
                        kind="hand",
                        stream=r["id"],
                        position=r["position"],
                        name=r["type"],
                        version=r["version"],
                        data=r["data"],
                        encode=canonical,
                        at=r["at"] if r.get("timed") else None,
                    )

    def seals() -> None:
        for recs in records:
            seal = recs[-1]
            keys.verify(seal["public_key"], bytes.fromhex(seal["link"]), seal["signature"])

    def signatures() -> None:
        for recs in records:
            for r in recs:
                if r.get("signature"):
                    key = r.get("signed_by") or r.get("public_key")
                    keys.verify(key, bytes.fromhex(r["link"]), r["signature"])

    def parsing() -> None:
        for line in lines:
            log.parse(line)

    def decks() -> None:
        for events in decoded:
            started, ended = events[0], events[-1]
            assert isinstance(started, HandStarted)
            shuffle(ended.seed, fresh_deck(started.rules))  # type: ignore[attr-defined]

    def decoding() -> None:
        for recs in records:
            events_of(recs)

    def reruns() -> None:
        for events in decoded:
            assert difference(events) is None

    def reading() -> None:
        for share in shares:
            for _ in _streams(share.records()):
                pass

    def folding() -> None:
        for table in tables:
            fold_table(table)

    def checking() -> None:
        for recs in records:
            check_hand(recs)

    def tying() -> None:
        verifier = Verifier(key)
        for share in found:
            for stream in share:
                if isinstance(stream, Folded):
                    verifier.table(stream)
                else:
                    verifier.hand(stream)
        assert verifier.finish().ok

    n = len(records)
    return {
        name: min(cpu(work) for _ in range(2)) / n
        for name, work in (
            ("parsing the log's lines", parsing),
            ("decoding the records", decoding),
            ("the chain", links),
            ("the seal's signature", seals),
            ("every signature (--all-signatures)", signatures),
            ("the deck", decks),
            ("the engine's re-run", reruns),
            ("reading the log, parsing and grouping its lines into streams", reading),
            ("folding the tables (their chains, keys and rules)", folding),
            ("a hand's own checks in all (check_hand)", checking),
            ("the first process: tying each hand to its table", tying),
        )
    }


def pokerkit_rate(
    hands: dict[str, list[log.Record]],
    key: str,
    clock: Callable[[Callable[[], object]], float],
    tmp: Path,
) -> tuple[int, dict[str, float]]:
    """PokerKit replaying the stud hands' PHH, and Feltline verifying them
    with one process and with two, in hands per second of ``clock``. Feltline
    reads a log of the hands as the command does, ``AGAIN`` times over in one
    run, so that starting two processes (some 20-50 ms) does not count as a
    hand's work: PokerKit's rate is a hand's too."""
    from pokerkit import HandHistory

    from feltline_replay.histories import LoggedHand, phh
    from feltline_replay.show import Viewer

    stud = {
        k: recs
        for k, recs in hands.items()
        if recs[0]["data"]["rules"]["game"] == Game.STUD_HI_LO.value
    }
    texts = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, recs in stud.items():
            events = tuple(events_of(recs))
            text = phh.one(LoggedHand(k, events, events, Viewer("auditor")))
            try:  # PokerKit cannot replay some (a player standing up mid-hand)
                list(HandHistory.loads(text))
            except (ValueError, KeyError):
                continue
            texts[k] = text
    stud = {k: stud[k] for k in texts}

    def pokerkit() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for text in texts.values():
                for _ in HandHistory.loads(text):
                    pass

    path = tmp / "stud.log"
    head = log.header(public_key=key, exported_at="", source="", selection={}, complete=False)
    again = [r for recs in stud.values() for r in recs] * AGAIN
    with path.open("w") as file:
        log.write(file, [head, *again])
    start = start_of(path)

    def feltline(workers: int) -> Callable[[], object]:
        def run() -> None:  # the hands have no tables here: each fails "no such deal"
            verify_shares(log_shares(str(path), start), key, complete=False, workers=workers)

        return run

    n = len(texts)
    return n, {
        "PokerKit replaying their PHH": n / min(clock(pokerkit) for _ in range(3)),
        "Feltline verifying them, 1 process": n * AGAIN / min(clock(feltline(1)) for _ in range(2)),
        "Feltline verifying them, 2 processes": n
        * AGAIN
        / min(clock(feltline(2)) for _ in range(2)),
    }


AGAIN = 10
"""How many times over Feltline verifies the stud hands in one run."""


def clone(source: Path, target: Path, signer: Signer, hands: int) -> int:
    """A store of at least ``hands`` hands: the source's tables again and
    again under new ids, every link recomputed and every signature made
    again with the same key, so it verifies like the source."""
    src = sqlite3.connect(source)
    tables = [
        UUID(t)
        for (t,) in src.execute(
            "SELECT originator_id FROM stored_events WHERE topic = ? AND originator_version = 1",
            (TABLE_TOPIC,),
        )
    ]
    streams: list[tuple[UUID, int, list[tuple[int, str, bytes]]]] = []
    per_copy = 0
    for table in tables:
        rows = src.execute(
            "SELECT originator_version, topic, state FROM stored_events WHERE originator_id = ?"
            " ORDER BY originator_version",
            (table.hex,),
        ).fetchall()
        streams.append((table, 0, rows))
        number = 1
        while True:
            hand_rows = src.execute(
                "SELECT originator_version, topic, state FROM stored_events"
                " WHERE originator_id = ? ORDER BY originator_version",
                (hand_id(table, number).hex,),
            ).fetchall()
            if not hand_rows:
                break
            streams.append((table, number, hand_rows))
            per_copy += hand_rows[-1][1].endswith(":Sealed")
            number += 1
    src.close()
    dst = sqlite3.connect(target)
    dst.execute(
        "CREATE TABLE stored_events (originator_id TEXT, originator_version INTEGER, "
        "topic TEXT, state BLOB, PRIMARY KEY (originator_id, originator_version))"
    )
    copies = -(-hands // per_copy)
    for copy in range(copies):
        batch = []
        for table, number, rows in streams:
            new_table = uuid5(table, f"copy/{copy}")
            stream = new_table if number == 0 else hand_id(new_table, number)
            kind = "table" if number == 0 else "hand"
            previous = chain.GENESIS
            for version, topic, raw in rows:
                state = json.loads(raw)
                if "type" in state:
                    previous = chain.link(
                        previous,
                        kind=kind,
                        stream=str(stream),
                        position=version,
                        name=state["type"],
                        version=state["version"],
                        data=state["data"],
                        at=state["at"] if state.get("timed") else None,
                    )
                state["link"] = previous.hex()
                if state.get("signature"):
                    state["signature"] = signer.sign(previous).hex()
                batch.append((stream.hex, version, topic, json.dumps(state).encode()))
        dst.executemany("INSERT INTO stored_events VALUES (?, ?, ?, ?)", batch)
        dst.commit()
    dst.close()
    return copies * per_copy


def command(*args: str) -> tuple[float, int]:
    """Seconds and peak memory (MB, GNU time's maximum resident set) of one
    feltline-replay run in a process of its own."""
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "feltline_replay", *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - start
    return seconds, int(done.stderr.strip().splitlines()[-1]) // 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=600, help="real hands to play (600)")
    parser.add_argument("--big", type=int, default=20000, help="hands in the large store (0: none)")
    args = parser.parse_args()
    from tests.replay.conftest import play

    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        store = tmp / "feltline.db"
        began = time.perf_counter()
        signer = play(store, args.hands, seed=3)
        key = signer.public_hex
        print(f"played {args.hands}+ hands in {time.perf_counter() - began:.0f} s")
        path = tmp / "hands.log"
        rows = open_rows(str(store))
        with path.open("w") as file:
            count = log.write(file, export(rows, Selection(), public_key=key))
        rows.close()
        hands = hands_of(path)
        print(f"\n{count} hands, {path.stat().st_size / count / 1000:.1f} kB of log each")

        def from_log(workers: int, every: bool = False) -> Callable[[], object]:
            def run() -> None:  # as the command: each process reads its shares
                shares = log_shares(str(path), start_of(path))
                assert verify_shares(shares, key, workers=workers, all_signatures=every).ok

            return run

        def from_store(workers: int) -> Callable[[], object]:
            def run() -> None:  # as the command: each process reads the store
                rows = open_rows(str(store))
                chosen = plan(rows, Selection())
                rows.close()
                shares = store_shares(str(store), chosen.tables, chosen.hands)
                assert verify_shares(shares, key, workers=workers).ok

            return run

        print("\nhands verified per second (chain, seal, deck, cards, re-run)")
        for name, make in (("from the log", from_log), ("from the store", from_store)):
            for workers in (1, 2):
                seconds = min(timed(make(workers)) for _ in range(3))
                print(f"  {name}, {workers} process{'es' * (workers > 1)}: {count / seconds:,.0f}")
        seconds = min(timed(from_log(1, every=True)) for _ in range(2))
        print(f"  from the log, every signature verified, 1 process: {count / seconds:,.0f}")
        seconds = min(cpu(from_log(1)) for _ in range(3))
        print(f"  from the log, 1 process, CPU time: {count / seconds:,.0f}")
        first = min(cpu(from_log(2)) for _ in range(3))
        every = min(cpu_all(from_log(2)) for _ in range(3))
        print(
            f"  from the log, 2 processes, CPU time of all: {count / every:,.0f}; "
            f"the first process's CPU a hand: {first / count * 1e6:,.0f} us"
        )
        print("\neach part alone, CPU microseconds per hand (one process)")
        for name, seconds in parts(hands, path, key).items():
            print(f"  {name}: {seconds * 1e6:,.0f}")
        for clock, name in ((timed, "wall clock"), (cpu_all, "CPU time (of every process)")):
            n, rates = pokerkit_rate(hands, key, clock, tmp)
            print(f"\nthe {n} stud high-low hands, hands per second of {name}")
            pokerkit = rates["PokerKit replaying their PHH"]
            for what, rate in rates.items():
                print(f"  {what}: {rate:,.0f} ({rate / pokerkit:.2f}x)")

        if args.big > 0:
            large(store, tmp, signer, args.big)


def large(store: Path, tmp: Path, signer: Signer, hands: int) -> None:
    """Export and verify a store of ``hands`` hands, each a command of its own."""
    key = signer.public_hex
    big = tmp / "big.db"
    began = time.perf_counter()
    made = clone(store, big, signer, hands)
    print(
        f"\nlarge store: {made:,} hands, {big.stat().st_size / 1e9:.2f} GB "
        f"(made in {time.perf_counter() - began:.0f} s)"
    )
    out = tmp / "big.log"
    seconds, peak = command("export", "--store", str(big), "--output", str(out))
    print(f"  export: {seconds:.0f} s, peak {peak} MB, log {out.stat().st_size / 1e9:.2f} GB")
    for workers in (1, 2):
        seconds, peak = command("verify", str(out), "--public-key", key, "--workers", str(workers))
        print(
            f"  verify the log, {workers} process{'es' * (workers > 1)}: {seconds:.0f} s "
            f"({made / seconds:,.0f} hands/s), peak {peak} MB"
        )
    os.remove(out)


if __name__ == "__main__":
    main()
