"""Where a server's CPU goes, from a py-spy recording of it.

    uvx py-spy record --pid PID --format raw --nonblocking --gil -o stacks.txt --duration 20
    uv run python bench/spent.py stacks.txt [--calls 8520] [--rate 100] [--under Room.act]

``bench/api.py --py-spy FILE`` records its Feltline server over the
measured window and prints this summary itself, with the calls made in
it. Each sample stands for 1/``--rate`` s of CPU, so with ``--calls``
each part is also shown in microseconds per call. With ``--gil`` py-spy
samples only the thread holding the GIL, so the shares are of the time
Python runs (without it, threads blocked in C count as running too); what
runs with the GIL released (gRPC's C core, SQLite's and libpq's I/O) is the
rest of the ``/proc`` CPU.

Each sample goes to the innermost frame of its stack that a part below
claims (time in C, as in ``orjson`` or ``sqlite3``, lands in the Python
frame that called it), and, separately, to every part with a frame
anywhere in the stack (inclusive: the Room's share holds its JSON and its
rows).

A script, never a test: it prints figures and never fails.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

# (part, pattern on "function (file:line)"), most specific first. py-spy
# names a file from its package: "store/room.py", "grpc/aio/_server.py".
PARTS = [
    # The wrapper's line awaiting context.write: gRPC's Cython, which has no frames.
    ("gRPC writing to watch streams", r"around\.<locals>\.body \(api/intercept\.py"),
    ("JSON encoding and decoding", r"[(/]json/|audit/codec\.py|[Tt]ranscod"),
    ("signing and hashing", r"keys\.py|cryptography|domain/ids\.py|[(/]hashlib|[(/]hmac"),
    ("eventsourcing's mapper and application", r"eventsourcing/(?!sqlite|postgres)"),
    ("SQLite / PostgreSQL rows", r"eventsourcing/(sqlite|postgres)\.py|psycopg|sqlite3"),
    ("the Room and the engine", r"[(/](cardroom|store|domain|engine|audit)/"),
    ("watchers (feed, watch, redaction)", r"[(/]api/(feed|watch|redaction|secrecy)\.py"),
    ("API handlers (play, views, convert, auth, logs)", r"[(/]api/|structlog"),
    ("thread-pool hop", r"concurrent/futures"),
    ("asyncio loop running gRPC aio callbacks", r"[(/]asyncio/"),
    ("gRPC (Python and Cython)", r"grpc"),
]
COMPILED = [(part, re.compile(pattern)) for part, pattern in PARTS]
OTHER = "other (stdlib, protobuf, C below a bare thread)"


def read(path: Path) -> Iterable[tuple[list[str], int]]:
    """Each distinct stack, root first, and how many samples it had."""
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            yield stack.split(";"), int(count)


def part_of(frame: str) -> str | None:
    return next((part for part, pattern in COMPILED if pattern.search(frame)), None)


def summarise(path: Path) -> tuple[Counter[str], Counter[str], int]:
    """Samples by innermost part, by inclusive part, and in all."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for stack, count in read(path):
        total += count
        parts = [part_of(frame) for frame in stack]
        own[next((p for p in reversed(parts) if p is not None), OTHER)] += count
        for part in {p for p in parts if p is not None}:
            inclusive[part] += count
    return own, inclusive, total


def report(path: Path, calls: int | None = None, rate: float = 100.0) -> str:
    """The table of shares, and of microseconds per call given ``calls``."""
    own, inclusive, total = summarise(path)
    if not total:
        return f"{path}: no samples"
    per_call = 1e6 / rate / calls if calls else None  # microseconds a sample is, per call
    lines = [
        f"{total} samples ({path})" + (f", {total * per_call:.0f} us per call" if per_call else ""),
        f"{'part':<50} {'innermost':>9} {'inclusive':>9}"
        + (f" {'us/call':>8}" if per_call else ""),
    ]
    for part in [*(p for p, _ in PARTS), OTHER]:
        line = f"{part:<50} {own[part] / total:9.1%} {inclusive[part] / total:9.1%}"
        if per_call:
            line += f" {own[part] * per_call:8.0f}"
        lines.append(line)
    return "\n".join(lines)


def under(path: Path, function: str) -> float:
    """The share of samples with ``function`` (as py-spy names it, such as
    ``Room._catch_up``) anywhere in their stack."""
    total = inside = 0
    for stack, count in read(path):
        total += count
        if any(frame.split(" (", 1)[0] == function for frame in stack):
            inside += count
    return inside / total if total else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stacks", type=Path, help="py-spy record --format raw output")
    parser.add_argument("--calls", type=int, help="calls made while it was recorded")
    parser.add_argument("--rate", type=float, default=100.0, help="py-spy's samples per second")
    parser.add_argument(
        "--under", action="append", default=[], help="also the share under this function"
    )
    args = parser.parse_args()
    print(report(args.stacks, args.calls, args.rate))
    for function in args.under:
        print(f"under {function}: {under(args.stacks, function):.1%}")


if __name__ == "__main__":
    main()
