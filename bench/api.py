"""How fast play goes through the gRPC API, beside two bare gRPC anchors.

    uv run python bench/api.py [--seconds 20] [--tables 16] [--store sqlite|postgres|both]
    uv run python bench/api.py --open-loop --tables 400 --seconds 60 [--interval 2]
    uv run python bench/api.py --metrics [--rounds 3]
    uv run python bench/api.py --log [--rounds 3]

A real Feltline server runs in a subprocess on a loopback port over a
temporary store (a SQLite file, or a fresh schema of the PostgreSQL at
POSTGRES_HOST, default 127.0.0.1:5432, user postgres, database test). Four
bots (``feltline_client.bots.Player``, ``Casual``) sit at each of ``--tables``
no-limit hold'em tables, 64 by default, each with its own connection: a
watch stream and one unary ``Act`` call at a time. Every ``Act`` is timed
from the client: actions per second, p50 and p99.

Beside it, in the same run, a bare gRPC echo service (a generic handler,
no auth, no interceptors) in a subprocess of its own, called by as many
client connections, each making one unary call at a time with a payload
and metadata of an ``Act``'s size. Goal: at least 60% of the echo rate,
p99 under 50 ms.

An echo is two messages per call; an action is six: the ``Act`` and its
reply, then a batch to each of the table's four watchers. So a second
anchor, "fan-out": a bare ``grpc.aio`` server (generic handlers, no poker,
store, auth or interceptors) of the API's shape, a unary-stream ``Watch``
and a unary ``Act`` that puts one message, naming whose turn is next, on
each of the table's four watches, all padded to Feltline's sizes. It is
driven like the bots: as many connections, a thread each, watching and
calling ``Act`` on its turn. Its rate is the ceiling of the shape in gRPC
Python on the machine, whatever the server does; Feltline's rate is shown
as a share of both anchors.

With ``--open-loop``, Feltline alone at a cardroom's pace: each table has
a schedule, one action every ``--interval`` seconds (2 by default) from a
random phase, and the seat to act sends its action at its slot, not when
the last reply came. Each ``Act`` is timed from its slot, so a reply that
comes late makes the next ones late too and queueing is not hidden (a turn
that reaches the bot after its slot counts from the slot). The seats are
played by one asyncio loop, each on a connection of its own, with the
SDK's ``Tracker`` and ``Casual``; a seat that goes broke stays broke
(a minute is a few hands). An ``Act`` the server refuses ``OVERLOADED``
is counted as refused, not timed, and sent again after its hint, as the
SDK's bots do (timed from then); one that fails otherwise is counted as
failed. A watch that ends is counted and re-opened from its cursor, as
the SDK does; one that ends five times in a row without a batch, or a
seat that fails otherwise, stops the bench with its error rather than
leaving it waiting for that seat. Figures: p50, p99 and p99.9 of the
calls answered, the rate answered beside the rate offered, the refusals,
and the watches re-opened. The goal, at half a process's capacity: 400
tables, p99 under 50 ms and p99.9 under 100 ms (``--tables 400
--interval 4``).

With ``--metrics``, what Prometheus metrics cost (docs/metrics.md):
Feltline alone, ``--rounds`` times with metrics off and on in turn (the
server ``--metrics-port`` makes: every call counted, play tallied, the
port served and scraped once a second as a busy Prometheus would), and
the server's CPU per action of each, on average. The goal: at most 5%
more with them on.

With ``--log``, what the transparency log costs (docs/transparency.md):
Feltline alone, ``--rounds`` times without and with it in turn (without:
no hand logged as it is sealed, no checkpoint signed), and the server's
CPU per action of each, on average.

With ``--py-spy FILE`` py-spy records each Feltline server over the
window (raw stacks, to FILE with the store's name added) and
``bench/spent.py`` prints where its CPU went, part by part, per action.

Each server's process id is printed, to attach a profiler while it runs
(``uvx py-spy top --pid PID``, or ``record``), and, where ``/proc`` is,
its CPU time in the window: cores used, and CPU per call. Each figure
carries the machine's one-minute load average at the window's end: the
bench's clients share the cores with the server.

A script, never a test: it prints figures and ratios and never fails.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, TypeVar

import grpc
import psycopg

from feltline.api.server import ADMIT
from feltline_client import Client, FeltlineError
from feltline_client.bots import Casual, Player
from feltline_client.client import Seen
from feltline_client.errors import from_rpc_error
from feltline_client.table import Tracker, send
from feltline_protos.v1 import auth_pb2, play_pb2, play_pb2_grpc, watch_pb2, watch_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' PostgreSQL

from serving import cpu_seconds, resident_mb, subprocess_server  # beside this script
from spent import report

from tests.postgres import PG, store_env

PLAYERS = 4
SAMPLES = 100  # py-spy's samples per second
BUY_IN = 1000
ECHO = "/feltline.bench.Echo/Echo"
WATCH = "/feltline.bench.FanOut/Watch"
ACT = "/feltline.bench.FanOut/Act"
# Feltline's mean sizes in this bench: a WatchTableBatchesResponse (median
# 150 bytes, more at a hand's end) and an ActResponse.
BATCH_SIZE = 500
REPLY_SIZE = 270
METADATA = (("authorization", "Bearer " + "x" * 160),)  # a player's token
# One connection per client: without a local subchannel pool, channels to
# the same target share one TCP connection.
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
RESOURCE_EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED
REOPENS = 5  # a watch ending this many times in a row without a batch stops the bench
T = TypeVar("T")
if TYPE_CHECKING:
    Call: TypeAlias = grpc.UnaryUnaryMultiCallable[bytes, bytes]
    StreamCall: TypeAlias = grpc.UnaryStreamMultiCallable[bytes, bytes]


@dataclass
class Result:
    name: str
    calls: int
    seconds: float
    latencies: list[float]  # seconds, every call answered in the window
    refused: int = 0  # OVERLOADED: sent again after the hint
    failed: int = 0  # any other error (the clock acted first, a deadline)
    server_cpu: float | None = None  # the server's CPU seconds in the window
    load: float = 0.0  # the machine's one-minute load average at the window's end
    # Open loop: from each answered call's sending to its answer, however
    # late its slot had come (``latencies`` count from the slot).
    answers: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.calls / self.seconds

    def percentile(self, p: float, of: list[float] | None = None) -> float:
        """The ``p``-th percentile in ms, to a tenth of a percent (99.9), of
        the latencies or of ``of``."""
        times = self.latencies if of is None else of
        if len(times) < 2:
            return float("nan")
        cuts = statistics.quantiles(times, n=1000, method="inclusive")
        return cuts[round(p * 10) - 1] * 1000

    def line(self, tail: bool = False) -> str:
        """The figures; with ``tail``, p99.9 too (for the open-loop run)."""
        line = (
            f"{self.name:<31} {self.rate:6.0f} calls/s   p50 {self.percentile(50):6.2f} ms"
            f"   p99 {self.percentile(99):6.2f} ms"
            + (f"   p99.9 {self.percentile(99.9):6.2f} ms" if tail else "")
            + f"   ({self.calls} calls in {self.seconds:.1f} s"
            + (f", {self.refused} refused" if self.refused else "")
            + (f", {self.failed} failed" if self.failed else "")
            + f"; load average {self.load:.2f})"
        )
        if self.answers:
            line += (
                f"\n{'':<31} from sending to answer: p50 {self.percentile(50, self.answers):.2f} ms"
                f"   p99 {self.percentile(99, self.answers):.2f} ms"
                f"   p99.9 {self.percentile(99.9, self.answers):.2f} ms"
            )
        if self.server_cpu is None or not self.calls:
            return line
        return (
            f"{line}\n{'':<31} server CPU {self.server_cpu / self.seconds:.2f} cores,"
            f" {self.server_cpu / self.calls * 1e6:.0f} us per call"
        )


class Window:
    """Counts calls that start within [start, end): those answered, timed,
    and apart from them those refused (the server's ``OVERLOADED``, to be
    sent again after its hint) and those that failed otherwise."""

    def __init__(self, start: float, end: float) -> None:
        self.start, self.end = start, end
        self.latencies: list[float] = []
        self.answers: list[float] = []
        self.refused = 0
        self.failed = 0

    def record(self, began: float, took: float, answer: float | None = None) -> None:
        if self.start <= began < self.end:
            self.latencies.append(took)  # list.append is atomic under the GIL
            if answer is not None:
                self.answers.append(answer)

    def refuse(self, began: float) -> None:
        if self.start <= began < self.end:
            self.refused += 1

    def fail(self, began: float) -> None:
        if self.start <= began < self.end:
            self.failed += 1

    def server_cpu(self, pid: int) -> float | None:
        """Sleeps until the window's end; the CPU seconds process ``pid``
        used in the window, or None without ``/proc``."""
        time.sleep(max(0.0, self.start - time.perf_counter()))
        before = cpu_seconds(pid)
        time.sleep(max(0.0, self.end - time.perf_counter()))
        after = cpu_seconds(pid)
        return None if before is None or after is None else after - before

    def result(self, name: str, server_cpu: float | None = None) -> Result:
        return Result(
            name,
            len(self.latencies),
            self.end - self.start,
            self.latencies,
            self.refused,
            self.failed,
            server_cpu,
            os.getloadavg()[0],
            self.answers,
        )


class Schedule:
    """A table's slots for the open-loop run: one every ``interval`` seconds
    from ``first``, each taken by whichever seat acts next."""

    def __init__(self, first: float, interval: float) -> None:
        self.next, self.interval = first, interval
        self.lock = threading.Lock()  # the table's four bots share it

    def take(self) -> float:
        with self.lock:
            slot = self.next
            self.next += self.interval
            return slot


# ---- the servers' own account of the window, from their metrics

# The histograms read: each (family, the label and value a sample must have,
# or None); a bucket's count is of observations at or under ``le``.
TIMED = {
    "Act in the handler": ("grpc_server_handling_seconds", ("grpc_method", "Act")),
    "store commit": ("feltline_store_commit_seconds", None),
    **{
        f"collector pass, generation {g}": ("feltline_gc_pause_seconds", ("generation", str(g)))
        for g in range(3)
    },
}


LIMITS = (0.025, 0.05, 0.1)  # seconds: the lengths counted over


def over(counts: Mapping[float, float]) -> str:
    """How many were over each of :data:`LIMITS`, from ``counts`` by limit."""
    return ", ".join(f"over {limit * 1000:.0f} ms {counts[limit]:.0f}" for limit in LIMITS)


def buckets(urls: Iterable[str]) -> dict[str, Counter[float]]:
    """Each of :data:`TIMED`'s cumulative buckets, summed over the servers
    whose metrics ``urls`` serve."""
    from urllib.request import urlopen

    from prometheus_client.parser import text_string_to_metric_families

    found: dict[str, Counter[float]] = {what: Counter() for what in TIMED}
    for url in urls:
        with urlopen(url, timeout=10) as reply:
            families = list(text_string_to_metric_families(reply.read().decode()))
        for what, (name, match) in TIMED.items():
            for family in families:
                if family.name != name:
                    continue
                for sample in family.samples:
                    if not sample.name.endswith("_bucket"):
                        continue
                    if match is not None and sample.labels.get(match[0]) != match[1]:
                        continue
                    found[what][float(sample.labels["le"])] += sample.value
    return found


class Pauses:
    """This process's collector passes in a window, over 25, 50 and 100 ms:
    the bots' own pauses, which delay the answers they time."""

    def __init__(self, window: Window) -> None:
        self.window = window
        self.over: Counter[float] = Counter()
        self.began = 0.0
        gc.callbacks.append(self._timed)

    def _timed(self, phase: str, _info: dict[str, object]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self.began = now
        elif self.window.start <= self.began < self.window.end:
            self.over.update(limit for limit in LIMITS if now - self.began > limit)

    def close(self) -> str:
        gc.callbacks.remove(self._timed)
        return over(self.over)


def server_timing(urls: list[str], window: Window) -> str:
    """Sleeps until the window's end; then what the servers' own histograms
    counted in the window: how many Act calls took over each of
    :data:`LIMITS` in the handler (from the first interceptor: a wait before it is the
    transport's), and the commits and collector passes as long."""
    time.sleep(max(0.0, window.start - time.perf_counter()))
    before = buckets(urls)
    time.sleep(max(0.0, window.end - time.perf_counter()))
    after = buckets(urls)
    lines = []
    for what in TIMED:
        counts = after[what] - before[what]  # Counter subtraction keeps the positive counts
        total = counts.get(float("inf"), 0.0)
        if not total:
            continue
        lines.append(
            f"{what}: {total:.0f}, "
            + over({limit: total - counts.get(limit, 0.0) for limit in LIMITS})
        )
    return "; ".join(lines)


# ---- the servers, each in a subprocess of its own


def serve_echo() -> None:
    from concurrent.futures import ThreadPoolExecutor

    def echo(request: bytes, _context: grpc.ServicerContext) -> bytes:
        return request

    handler = grpc.method_handlers_generic_handler(
        "feltline.bench.Echo",
        {
            "Echo": grpc.unary_unary_rpc_method_handler(
                echo, request_deserializer=None, response_serializer=None
            )
        },
    )
    server = grpc.server(ThreadPoolExecutor(max_workers=256))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    _ready_then_wait(port)
    server.stop(1).wait()


def serve_fanout() -> None:
    """The fan-out anchor's server: a table's turn goes round its watchers."""
    import asyncio

    async def main() -> None:
        watchers: dict[bytes, list[asyncio.Queue[bytes]]] = {}

        def fan_out(table: bytes, seat: int) -> None:
            message = bytes([seat]).ljust(BATCH_SIZE, b"x")  # whose turn it is
            for queue in watchers[table]:
                queue.put_nowait(message)

        async def watch(request: bytes, _context: object) -> AsyncIterator[bytes]:
            table, _seat = request.split(b":")
            queue: asyncio.Queue[bytes] = asyncio.Queue()
            watchers.setdefault(table, []).append(queue)
            if len(watchers[table]) == PLAYERS:  # all seated: the first turn
                fan_out(table, 0)
            while True:
                yield await queue.get()

        async def act(request: bytes, _context: object) -> bytes:
            table, seat, _padding = request.split(b":", 2)
            fan_out(table, (int(seat) + 1) % PLAYERS)
            return bytes(REPLY_SIZE)

        handler = grpc.method_handlers_generic_handler(
            "feltline.bench.FanOut",
            {
                "Watch": grpc.unary_stream_rpc_method_handler(watch),
                "Act": grpc.unary_unary_rpc_method_handler(act),
            },
        )
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        await asyncio.to_thread(_ready_then_wait, port)
        await server.stop(1)

    asyncio.run(main())


def serve_feltline(
    key: Path, env: dict[str, str], admit: int, metered: bool = False, logged: bool = True
) -> None:
    from feltline import metrics
    from feltline.api import logging as logs
    from feltline.api.app import Feltline
    from feltline.api.collector import short_pauses, time_pauses
    from feltline.audit.keys import Signer
    from feltline.cardroom.room import Room
    from feltline.store.config import StoreConfig
    from feltline.store.streams import Streams

    logs.configure(level=logging.WARNING)
    signer = Signer.load(key)
    room = Room(Streams(signer, env=StoreConfig.from_env(env).env))
    # Watches live on the event loop; each unary call in flight holds a thread.
    server = Feltline(
        room,
        signer.public_key,
        tick=0.2,
        max_workers=64,
        metered=metered,
        admit=admit,
        checkpoint_every=10.0 if logged else None,
    )
    server.start()
    short_pauses()  # as `feltline serve` does
    if metered:  # as `feltline serve --metrics-port` does, and scraped
        time_pauses()
        scraping = threading.Thread(target=_scrape, args=(metrics.serve(0),), daemon=True)
        scraping.start()
    try:
        _ready_then_wait(server.port)
    finally:
        server.stop()
        room.close()


def _scrape(port: int) -> None:
    """Read the metrics once a second, as Prometheus would, only busier."""
    import urllib.request

    while True:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics") as answer:
            answer.read()
        time.sleep(1.0)


def _ready_then_wait(port: int) -> None:
    print(port, flush=True)
    sys.stdin.read()  # until the parent closes our stdin


# ---- the load


def act_request_size() -> int:
    return play_pb2.ActRequest(
        table_id=str(uuid.uuid4()), request_id=str(uuid.uuid4()), hand_number=12, sequence=34
    ).ByteSize()


def run_echo(connections: int, seconds: float, warmup: float) -> Result:
    payload = os.urandom(act_request_size())
    with subprocess_server(__file__, "echo") as (target, pid):
        channels = [
            grpc.insecure_channel(target, options=OWN_CONNECTION) for _ in range(connections)
        ]
        calls: list[Call] = [
            c.unary_unary(ECHO, request_serializer=None, response_deserializer=None)
            for c in channels
        ]
        for call in calls:
            call(payload, metadata=METADATA, timeout=10)
        start = time.perf_counter() + warmup
        window = Window(start, start + seconds)

        def loop(call: Call) -> None:
            while True:
                began = time.perf_counter()
                if began >= window.end:
                    return
                call(payload, metadata=METADATA, timeout=10)
                window.record(began, time.perf_counter() - began)

        threads = [threading.Thread(target=loop, args=(c,), daemon=True) for c in calls]
        for t in threads:
            t.start()
        cpu = window.server_cpu(pid)
        for t in threads:
            t.join()
        for c in channels:
            c.close()
    return window.result("echo (bare gRPC)", cpu)


def run_fanout(tables: int, seconds: float, warmup: float) -> Result:
    """Bots reduced to the API's shape: watch, and act when it is your turn."""
    size = act_request_size()
    with subprocess_server(__file__, "fanout") as (target, pid):
        seats = [(table, seat) for table in range(tables) for seat in range(PLAYERS)]
        channels = [grpc.insecure_channel(target, options=OWN_CONNECTION) for _ in seats]
        for channel in channels:
            grpc.channel_ready_future(channel).result(timeout=10)
        subscribe: list[StreamCall] = [
            c.unary_stream(WATCH, request_serializer=None, response_deserializer=None)
            for c in channels
        ]
        watches = [
            call(f"{table}:{seat}".encode(), metadata=METADATA)
            for call, (table, seat) in zip(subscribe, seats, strict=True)
        ]
        acts: list[Call] = [
            c.unary_unary(ACT, request_serializer=None, response_deserializer=None)
            for c in channels
        ]
        start = time.perf_counter() + warmup
        window = Window(start, start + seconds)

        def bot(watch: Iterable[bytes], act: Call, table: int, seat: int) -> None:
            request = f"{table}:{seat}:".encode().ljust(size, b"y")
            try:
                for message in watch:
                    if message[0] == seat:
                        began = time.perf_counter()
                        act(request, metadata=METADATA, timeout=10)
                        window.record(began, time.perf_counter() - began)
            except grpc.RpcError:
                if time.perf_counter() < window.end:  # not the cancel that ends the run
                    raise

        threads = [
            threading.Thread(target=bot, args=(w, a, *s), daemon=True)
            for w, a, s in zip(watches, acts, seats, strict=True)
        ]
        for t in threads:
            t.start()
        cpu = window.server_cpu(pid)
        for w in watches:
            w.cancel()
        for t in threads:
            t.join()
        for c in channels:
            c.close()
    return window.result("fan-out (bare gRPC, same shape)", cpu)


class TimedClient(Client):
    """The SDK's client, timing every ``Act`` it sends (from its first try
    to its answer, the SDK's waits after a refusal included) and counting
    the refusals the SDK sends again."""

    window: Window | None = None

    def act(self, request: play_pb2.ActRequest) -> play_pb2.ActResponse:
        began = time.perf_counter()
        try:
            reply = super().act(request)
        except FeltlineError:
            if self.window is not None:
                self.window.fail(began)
            raise
        if self.window is not None:
            self.window.record(began, time.perf_counter() - began)
        return reply

    def _pause(self, error: FeltlineError, attempt: int, since: float) -> float | None:
        if self.window is not None and error.code is grpc.StatusCode.RESOURCE_EXHAUSTED:
            self.window.refuse(time.perf_counter())
        return super()._pause(error, attempt, since)


class Draft(Client):
    """The SDK's client as a form: ``send`` fills in the ``ActRequest`` a
    move makes, kept here, and nothing is sent."""

    def __init__(self) -> None:
        super().__init__("127.0.0.1:9")  # never connected: a channel connects on a call
        self.request = play_pb2.ActRequest()

    def act(self, request: play_pb2.ActRequest) -> play_pb2.ActResponse:
        self.request = request
        return play_pb2.ActResponse()


@dataclass
class Seated:
    """A Feltline server with its tables set and their bots seated; or a
    cluster's servers (``pids``), each table's bots connected to the server
    ``where`` names for it (bench/cluster.py)."""

    target: str
    pid: int  # 0: the servers are elsewhere, their CPU not counted
    seats: list[tuple[str, int, str]]  # table id, seat, the player's token
    rng: random.Random
    where: dict[str, str] = field(default_factory=dict)  # table id: its bots' server
    pids: list[int] = field(default_factory=list)  # every server, when several

    def target_of(self, table_id: str) -> str:
        return self.where.get(table_id, self.target)

    @property
    def servers(self) -> list[int]:
        """The pids whose CPU is counted (none: the servers are elsewhere)."""
        return self.pids or ([self.pid] if self.pid else [])


@contextmanager
def seated_server(
    env: dict[str, str],
    tables: int,
    admit: int,
    metered: bool = False,
    logged: bool = True,
    *,
    entropy: str = "off",
) -> Iterator[Seated]:
    """A server over a fresh store, ``tables`` tables of four seated bots;
    ``metered``, keeping its metrics; not ``logged``, keeping no
    transparency log (docs/transparency.md); ``entropy``, the tables' seat
    entropy (the bots contribute by themselves, docs/deck.md)."""
    from feltline.api import convert, tokens
    from feltline.api.tokens import Role
    from feltline.audit.keys import Signer
    from feltline.engine.hand.events import Entropy
    from feltline.engine.hand.rules import Game, Rules
    from feltline.engine.table.house import TableConfig

    with tempfile.TemporaryDirectory(prefix="feltline-apibench-") as tmp:
        key = Path(tmp) / "bench.key"
        signer = Signer.create(key)
        env = {"SQLITE_DBNAME": str(Path(tmp) / "bench.db"), **env}
        args = ["feltline", "--key", str(key), f"--admit={admit}"]
        args += [f"--env={k}={v}" for k, v in env.items()]
        args += ["--metered"] if metered else []
        args += [] if logged else ["--unlogged"]

        def token(role: Role, player: str = "") -> str:
            return tokens.mint(
                signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
            )

        with subprocess_server(__file__, *args) as (target, pid):
            admin = Client(target, token(auth_pb2.ROLE_ADMIN), timeout=30)
            config = convert.table_config(
                TableConfig(
                    Rules.house(Game.HOLDEM),
                    PLAYERS,
                    action_clock=60,
                    seat_entropy=Entropy(entropy),
                )
            )
            seats = []
            for n in range(tables):
                table_id = admin.create_table(config, f"bench {n}").table_id
                for seat in range(1, PLAYERS + 1):
                    player = f"bench-{n}-{seat}"
                    admin.mint_chips(player, 1000 * BUY_IN, "bench")
                    seats.append((table_id, seat, token(auth_pb2.ROLE_PLAYER, player)))
            admin.close()
            yield Seated(target, pid, seats, random.Random(1))


def run_feltline(
    name: str,
    env: dict[str, str],
    tables: int,
    seconds: float,
    warmup: float,
    *,
    admit: int,
    stacks: Path | None = None,
    metered: bool = False,
    logged: bool = True,
    entropy: str = "off",
) -> Result:
    """Bots at ``tables`` tables, each acting as soon as it may."""
    with seated_server(env, tables, admit, metered, logged, entropy=entropy) as room:
        bots: list[Player] = []
        channels: list[grpc.Channel] = []
        for table_id, seat, player_token in room.seats:
            channel = grpc.insecure_channel(room.target, options=OWN_CONNECTION)
            channels.append(channel)
            client = TimedClient(token=player_token, channel=channel, timeout=30)
            strategy = Casual(random.Random(room.rng.random()))
            bots.append(Player(client, table_id, strategy, seat=seat, buy_in=BUY_IN, rebuy=True))
        start = time.perf_counter() + warmup
        window = Window(start, start + seconds)
        TimedClient.window = window
        hands: set[tuple[str, int]] = set()
        lock = threading.Lock()

        def hand_done(table_id: str) -> Callable[[int], None]:
            def done(number: int) -> None:
                with lock:
                    hands.add((table_id, number))

            return done

        for bot in bots:
            bot.sit()
        threads = [
            threading.Thread(target=bot.play, args=(hand_done(bot.table_id),), daemon=True)
            for bot in bots
        ]
        for t in threads:
            t.start()
        recording = None if stacks is None else record(room.pid, window, stacks)
        cpu = window.server_cpu(room.pid)
        TimedClient.window = None
        if recording is not None:
            recording.wait()
        for bot in bots:
            bot.stop()
        for t in threads:
            t.join(timeout=15)
        for c in channels:
            c.close()
        result = window.result(name, cpu)
        print(f"  ({len(hands)} hands finished at {tables} tables)")
        if stacks is not None:
            print(report(stacks, result.calls, SAMPLES))
        return result


def run_open_loop(
    name: str,
    env: dict[str, str],
    tables: int,
    *,
    seconds: float,
    warmup: float,
    interval: float,
    admit: int,
    stacks: Path | None = None,
) -> Result:
    """Bots at ``tables`` tables, each table acting once every ``interval``
    seconds. One asyncio loop plays every seat: a thread per bot, as the
    closed loop has, would leave 1,600 of them fighting for the GIL here."""
    with seated_server(env, tables, admit) as room:
        for table_id, seat, player_token in room.seats:  # one shared channel to sit
            with Client(room.target, player_token, timeout=30) as client:
                client.sit_down(table_id, seat, BUY_IN)
        return asyncio.run(
            play_paced(room, name, seconds=seconds, warmup=warmup, interval=interval, stacks=stacks)
        )


async def play_paced(
    room: Seated,
    name: str,
    *,
    seconds: float,
    warmup: float,
    interval: float,
    stacks: Path | None,
    metrics: list[str] | None = None,
) -> Result:
    """The seats play at their tables' slots; with ``metrics`` (the
    servers' Prometheus URLs) what the servers timed themselves is printed
    too."""
    draft = Draft()
    window = Window(float("inf"), float("inf"))  # set once every watch is open
    schedules: dict[str, Schedule] = {}
    hands: set[tuple[str, int]] = set()
    waiting = len(room.seats)
    opened = asyncio.Event()
    ended: Counter[str] = Counter()  # the watches that ended, by status, each re-opened

    async def seat(table_id: str, seat: int, player_token: str) -> None:
        nonlocal waiting
        metadata = (("authorization", f"Bearer {player_token}"),)
        strategy = Casual(random.Random(room.rng.random()))
        async with grpc.aio.insecure_channel(
            room.target_of(table_id), options=OWN_CONNECTION
        ) as channel:
            play = play_pb2_grpc.PlayServiceStub(channel)
            watch = watch_pb2_grpc.WatchServiceStub(channel)
            tracker, acted = Tracker(), Seen(0, 0)
            first, cursor, failures = True, "", 0
            while True:  # a watch that ends is re-opened from its cursor, as the SDK does
                request = watch_pb2.WatchTableBatchesRequest(table_id=table_id, after=cursor)
                try:
                    async for batch in watch.WatchTableBatches(request, metadata=metadata):
                        failures = 0
                        if first:  # the schedules start once every watch has its snapshot
                            first, waiting = False, waiting - 1
                            if not waiting:
                                opened.set()
                            await opened.wait()
                            begins = time.perf_counter() + room.rng.uniform(0, interval)
                            schedule = schedules.setdefault(table_id, Schedule(begins, interval))
                        for item in batch.messages:
                            cursor = item.cursor
                            if item.event.WhichOneof("kind") == "hand_finished":
                                hands.add((table_id, tracker.hand_number))
                            spot = tracker.spot() if tracker.feed(item) else None
                            if spot is None or tracker.seen <= acted:
                                continue
                            acted = tracker.seen
                            send(draft, table_id, acted, strategy.decide(spot))
                            await act(play, draft.request, metadata, schedule.take())
                except grpc.aio.AioRpcError as e:
                    why = f"{e.code().name} {e.details()!r}"
                else:
                    why = "ended by the server"
                ended[why] += 1
                failures += 1
                if failures > REOPENS:
                    raise RuntimeError(
                        f"the watch of table {table_id} seat {seat} ended {failures} times in"
                        f" a row without a batch, last {why}"
                    )
                await asyncio.sleep(0.1 * failures)

    async def act(
        play: play_pb2_grpc.PlayServiceAsyncStub,
        action: play_pb2.ActRequest,
        metadata: tuple[tuple[str, str], ...],
        sent: float,
    ) -> None:
        """Send ``action`` at its slot ``sent``; again after the hint if refused."""
        action.request_id = str(uuid.UUID(int=room.rng.getrandbits(128), version=4))
        while True:
            await asyncio.sleep(sent - time.perf_counter())
            sending = time.perf_counter()
            try:
                await play.Act(action, metadata=metadata, timeout=30)
            except grpc.aio.AioRpcError as e:
                error = from_rpc_error(e)
                if error.code is RESOURCE_EXHAUSTED and error.retry_after is not None:
                    window.refuse(sent)  # sent again after the hint, as the SDK does
                    sent = time.perf_counter() + error.retry_after
                    continue
                window.fail(sent)  # the clock acted first, say: counted, not fatal
            else:
                done = time.perf_counter()
                window.record(sent, done - sent, done - sending)
            return

    tasks = [asyncio.create_task(seat(*s)) for s in room.seats]
    began = time.perf_counter()
    await until(opened.wait(), tasks)
    print(f"  (every watch open after {time.perf_counter() - began:.0f} s)")
    window.start = time.perf_counter() + warmup
    window.end = window.start + seconds
    pauses = Pauses(window)
    recording = None
    if stacks is not None:
        recording = await asyncio.to_thread(record, room.pid, window, stacks)
    timing = asyncio.to_thread(server_timing, metrics, window) if metrics else asyncio.sleep(0)
    *cpus, own, timed = await until(
        asyncio.gather(
            *(asyncio.to_thread(window.server_cpu, pid) for pid in room.servers),
            asyncio.to_thread(window.server_cpu, os.getpid()),
            timing,
        ),
        tasks,
    )
    cpu = None if not cpus or None in cpus else sum(c for c in cpus if c is not None)
    if own is not None:  # the bots share the cores: are they keeping up?
        print(f"  (the bots' process: {own / seconds:.2f} cores)")
    print(f"  (the bots' collector passes: {pauses.close()})")
    if timed:
        print(f"  (the servers' own timing: {timed})")
    memory = [f"{m:.0f} MB" for m in map(resident_mb, room.servers) if m is not None]
    if memory:
        print(f"  (the servers' memory at the end: {', '.join(memory)})")
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if recording is not None:
        await asyncio.to_thread(recording.wait)
    result = window.result(name, cpu)
    print(f"  ({len(hands)} hands finished at {len(schedules)} tables)")
    if ended:
        print(f"  (watches ended and re-opened from their cursors: {dict(ended)})")
    if stacks is not None:
        print(report(stacks, result.calls, SAMPLES))
    return result


async def until(work: Awaitable[T], seats: list[asyncio.Task[None]]) -> T:
    """``work``'s result, unless a seat fails first: then the bench stops
    with that seat's error rather than waiting for it forever."""
    doing = asyncio.ensure_future(work)
    await asyncio.wait([doing, *seats], return_when=asyncio.FIRST_COMPLETED)
    if not doing.done():
        doing.cancel()
        for task in seats:
            task.cancel()
        failed = next(t for t in seats if t.done())
        raise RuntimeError(f"a seat stopped playing: {failed.exception()}")
    return doing.result()


def record(pid: int, window: Window, stacks: Path) -> subprocess.Popen[bytes]:
    """py-spy recording process ``pid`` over the window (from now, if it began)."""
    time.sleep(max(0.0, window.start - time.perf_counter()))
    spy = shutil.which("py-spy")
    return subprocess.Popen(
        [
            *([spy] if spy else ["uvx", "py-spy"]),
            "record",
            f"--pid={pid}",
            f"--duration={round(window.end - time.perf_counter())}",
            f"--rate={SAMPLES}",
            "--nonblocking",  # never pauses the server to read it
            "--gil",  # only the thread holding the GIL: Python's CPU, not its waits
            "--format=raw",
            f"--output={stacks}",
        ],
        stdout=subprocess.DEVNULL,
    )


@contextmanager
def postgres_schema() -> Iterator[dict[str, str]]:
    schema = f"feltline_apibench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(**PG, autocommit=True) as conn:  # type: ignore[arg-type]
        conn.execute(f"CREATE SCHEMA {schema}")
        try:
            yield store_env(schema, POSTGRES_POOL_SIZE="20")
        finally:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def stacks_of(spy: Path | None, store: str) -> Path | None:
    """Where py-spy writes a store's stacks: FILE.sqlite, FILE.postgres."""
    return None if spy is None else spy.with_name(f"{spy.name}.{store}")


def open_loop(args: argparse.Namespace) -> None:
    """Feltline at a cardroom's pace, timed from each action's slot."""
    tables, interval = args.tables, args.interval
    print(
        f"open loop: {tables} no-limit hold'em tables x {PLAYERS} bots, one action per table"
        f" every {interval:g} s ({tables / interval:.0f}/s offered); {args.seconds:.0f} s"
        f" measured after {args.warmup:.0f} s; the server takes {args.admit} calls at once"
    )
    runs: list[Result] = []
    for store, name in (("sqlite", "SQLite"), ("postgres", "Postgres")):
        if args.store not in (store, "both"):
            continue
        with postgres_schema() if store == "postgres" else nullcontext({}) as env:
            runs.append(
                run_open_loop(
                    f"feltline Act, {name}",
                    env,
                    tables,
                    seconds=args.seconds,
                    warmup=args.warmup,
                    interval=interval,
                    admit=args.admit,
                    stacks=stacks_of(args.py_spy, store),
                )
            )
        print(runs[-1].line(tail=True))
    for run in runs:
        p99, p999 = run.percentile(99), run.percentile(99.9)
        print(
            f"{run.name}: p99 {p99:.1f} ms (goal < 50 ms: {'met' if p99 < 50 else 'not met'}),"
            f" p99.9 {p999:.1f} ms (goal < 100 ms: {'met' if p999 < 100 else 'not met'})"
        )


def metrics_cost(args: argparse.Namespace) -> None:
    """Feltline with metrics off and on in turn: the server's CPU per action."""
    print(
        f"metrics off and on in turn, {args.rounds} rounds: {args.tables} no-limit hold'em"
        f" tables x {PLAYERS} bots; {args.seconds:.0f} s measured after {args.warmup:.0f} s"
    )
    spent: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.rounds):
        for metered in (False, True):
            name = f"feltline Act, metrics {'on' if metered else 'off'}"
            run = run_feltline(name, {}, args.tables, args.seconds, args.warmup, metered=metered)
            print(run.line())
            if run.server_cpu is not None and run.calls:
                spent[metered].append(run.server_cpu / run.calls)
    if not (spent[False] and spent[True]):
        print("no CPU time to compare (no /proc)")
        return
    off, on = statistics.mean(spent[False]), statistics.mean(spent[True])
    more = on / off - 1
    print(
        f"server CPU per action: {off * 1e6:.0f} us off, {on * 1e6:.0f} us on:"
        f" {more:+.1%} (goal <= +5%: {'met' if more <= 0.05 else 'not met'})"
    )


def log_cost(args: argparse.Namespace) -> None:
    """Feltline without and with its transparency log in turn: the server's
    CPU per action, and so what logging each sealed hand as a leaf costs."""
    print(
        f"transparency log off and on in turn, {args.rounds} rounds: {args.tables} no-limit"
        f" hold'em tables x {PLAYERS} bots; {args.seconds:.0f} s measured after"
        f" {args.warmup:.0f} s"
    )
    spent: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.rounds):
        for logged in (False, True):
            name = f"feltline Act, log {'on' if logged else 'off'}"
            run = run_feltline(
                name, {}, args.tables, args.seconds, args.warmup, admit=args.admit, logged=logged
            )
            print(run.line())
            if run.server_cpu is not None and run.calls:
                spent[logged].append(run.server_cpu / run.calls)
    if not (spent[False] and spent[True]):
        print("no CPU time to compare (no /proc)")
        return
    off, on = statistics.mean(spent[False]), statistics.mean(spent[True])
    print(
        f"server CPU per action: {off * 1e6:.0f} us off, {on * 1e6:.0f} us on: {on / off - 1:+.1%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window per run")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before the window")
    parser.add_argument("--tables", type=int, default=16, help="four bots at each")
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument(
        "--no-anchors",
        "--no-echo",
        dest="anchors",
        action="store_false",
        help="skip the echo and the fan-out (to profile)",
    )
    parser.add_argument(
        "--open-loop",
        action="store_true",
        help="Feltline alone, each table acting on a schedule (no anchors)",
    )
    parser.add_argument(
        "--interval", type=float, default=2.0, help="seconds between a table's actions"
    )
    parser.add_argument(
        "--py-spy", type=Path, metavar="FILE", help="record each Feltline server with py-spy"
    )
    parser.add_argument(
        "--metrics",
        action="store_true",
        help="Feltline alone with Prometheus metrics off and on in turn: their CPU cost",
    )
    parser.add_argument(
        "--log",
        action="store_true",
        help="Feltline alone without and with its transparency log in turn: its CPU cost",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="with --metrics or --log: off-on pairs"
    )
    parser.add_argument(
        "--seat-entropy",
        choices=["off", "optional", "required"],
        default="off",
        help="the tables' seat entropy: with it on, every hand waits for the bots'"
        " commitments and reveals (feltline-deck-v2) before its first Act",
    )
    parser.add_argument("--unlogged", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--metered", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--admit",
        type=int,
        default=ADMIT,
        help=f"unary calls the server takes at once, past which it refuses (default {ADMIT})",
    )
    parser.add_argument("--serve", nargs="?", const="", help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    parser.add_argument("--env", action="append", default=[], help=argparse.SUPPRESS)
    args, _ = parser.parse_known_args()
    logging.getLogger("feltline.audit.keys").setLevel(logging.ERROR)  # "generated a key"
    if args.serve is not None:
        if args.serve == "echo":
            serve_echo()
        elif args.serve == "fanout":
            serve_fanout()
        else:
            env = dict(item.split("=", 1) for item in args.env)
            serve_feltline(Path(args.key), env, args.admit, args.metered, not args.unlogged)
        return

    if args.metrics:
        metrics_cost(args)
        return
    if args.log:
        log_cost(args)
        return
    if args.open_loop:
        open_loop(args)
        return
    connections = args.tables * PLAYERS
    print(
        f"{connections} connections, one unary call at a time each; "
        f"{args.tables} no-limit hold'em tables x {PLAYERS} bots; "
        f"{args.seconds:.0f} s measured after {args.warmup:.0f} s"
    )
    echo = fanout = None
    if args.anchors:
        echo = run_echo(connections, args.seconds, args.warmup)
        print(echo.line())
        fanout = run_fanout(args.tables, args.seconds, args.warmup)
        print(fanout.line())
    runs: list[Result] = []
    if args.store in ("sqlite", "both"):
        runs.append(
            run_feltline(
                "feltline Act, SQLite",
                {},
                args.tables,
                args.seconds,
                args.warmup,
                admit=args.admit,
                stacks=stacks_of(args.py_spy, "sqlite"),
                entropy=args.seat_entropy,
            )
        )
        print(runs[-1].line())
    if args.store in ("postgres", "both"):
        with postgres_schema() as env:
            runs.append(
                run_feltline(
                    "feltline Act, Postgres",
                    env,
                    args.tables,
                    args.seconds,
                    args.warmup,
                    admit=args.admit,
                    stacks=stacks_of(args.py_spy, "postgres"),
                    entropy=args.seat_entropy,
                )
            )
        print(runs[-1].line())
    if echo is None or fanout is None:
        return
    print(
        f"{fanout.name}: {fanout.rate / echo.rate:.0%} of the echo rate,"
        " the most an action of the API's shape reaches here"
    )
    for run in runs:
        ratio = run.rate / echo.rate
        p99 = run.percentile(99)
        print(
            f"{run.name}: {ratio:.0%} of the echo rate (goal >= 60%: "
            f"{'met' if ratio >= 0.6 else 'not met'}), {run.rate / fanout.rate:.0%} of the"
            f" fan-out's; p99 {p99:.1f} ms (goal < 50 ms: {'met' if p99 < 50 else 'not met'})"
        )


if __name__ == "__main__":
    main()
