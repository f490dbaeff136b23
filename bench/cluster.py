"""How play scales with server processes on one PostgreSQL store.

    uv run python bench/cluster.py [--processes 1,2] [--partitions 1,4] [--tables 100]

Each run starts a cluster (``ops/cluster``: N ``feltline serve`` processes,
no projector, on a fresh schema of the PostgreSQL at POSTGRES_HOST, default
127.0.0.1:5432, database test), opens ``--tables`` no-limit hold'em tables
through its servers in turn (each server owns the tables opened through
it), and seats four bots at each, every bot on a connection of its own to
the table's owner (``--any-server``: to a server picked at random, so that
most calls are forwarded once). Closed loop: each bot acts as soon as it
may. Beside them, one process on the SQLite default, the same way.

Figures per run: actions per second, p50/p99/p99.9 of ``Act`` from the
client, the servers' CPU (all of them) per action and in cores,
PostgreSQL's CPU (every ``postgres`` process of the machine: other users
of the database count too), the share of sampled PostgreSQL backends of
the bench's database that were waiting on a lock (a partition's turn,
taken by every append to it) beside the share waiting on the write-ahead
log (a commit's flush), and the machine's load average:
on a 2-core machine the bots, PostgreSQL and the servers share the cores.
Then the ratios against one process of the same partitions: the rate, and
the actions per second of server CPU. ``--partitions`` makes each
cluster's store with that many partitions of its log (docs/store.md,
"Partitions"); the SQLite run has one.

With ``--open-loop INTERVAL``, at a cardroom's pace instead (as
``bench/api.py --open-loop``): each table acts once every INTERVAL
seconds from a random phase, every seat played by one asyncio loop on a
connection of its own to its server, each ``Act`` timed from its slot, so
queueing is not hidden; the offered rate is the tables over INTERVAL. The
lock and flush shares then cover the whole run, watches opening included.
Every server serves its metrics (``--metrics-port``, as operators run it),
and the window's counts from its own histograms are printed beside the
client's figures: the ``Act`` calls that took over 25, 50 and 100 ms from
its first interceptor to their reply, and the commits and collector passes
as long. A slow call the handler did not see slow waited on its way in.

On a machine with many cores, keep the bots off the servers' cores:
``--clients-elsewhere`` starts one cluster (the first of ``--processes``
and ``--partitions``) listening on every interface, prints the command for
the bots, and serves until Ctrl-C, then prints the servers' and
PostgreSQL's CPU over that time; on another machine, ``--targets HOST:PORT,...
--key FILE`` (a copy of the cluster's key, to mint the bots' tokens) runs
the bots alone against it, closed or open loop, and prints the client's
figures.

A script, never a test: it prints figures and ratios and never fails.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib.machinery
import importlib.util
import os
import random
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import psycopg
from api import (  # beside this script
    BUY_IN,
    OWN_CONNECTION,
    PLAYERS,
    Result,
    Seated,
    TimedClient,
    Window,
    play_paced,
)
from serving import cpu_seconds

from feltline.api import convert, tokens
from feltline.api.tokens import Role
from feltline.audit.keys import Signer
from feltline.engine.hand.rules import Game, Rules
from feltline.engine.table.house import TableConfig
from feltline_client import Client
from feltline_client.bots import Casual, Player
from feltline_protos.v1 import auth_pb2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' PostgreSQL settings
from tests.ports import free_ports  # noqa: E402
from tests.postgres import PG, store_env  # noqa: E402


def _ops_cluster() -> Any:
    loader = importlib.machinery.SourceFileLoader("ops_cluster", str(ROOT / "ops" / "cluster"))
    spec = importlib.util.spec_from_loader("ops_cluster", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ops_cluster"] = module
    loader.exec_module(module)
    return module


@dataclass
class Run:
    result: Result
    processes: int
    postgres_cpu: float | None
    lock_waits: float | None  # the share of sampled backends waiting on a lock
    wal_waits: float | None  # ... and on the write-ahead log: commits flushing
    locks: str = ""  # the kinds of lock waited on ("advisory": a partition's turn)
    partitions: int = 1


@contextmanager
def schema() -> Iterator[str]:
    name = f"feltline_clusterbench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(**PG, autocommit=True) as conn:  # type: ignore[arg-type]
        conn.execute(f"CREATE SCHEMA {name}")
        try:
            yield name
        finally:
            conn.execute(f"DROP SCHEMA {name} CASCADE")


def postgres_pids() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in ("postgres", "postmaster"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def cpu_of(pids: list[int]) -> float:
    return sum(c for c in (cpu_seconds(p) for p in pids) if c is not None)


class LockSampler:
    """Samples pg_stat_activity every 50 ms: of the bench's database's
    backends running a statement, how many wait on a lock and how many on
    the write-ahead log (a commit's flush)."""

    def __init__(self) -> None:
        self.waiting = 0
        self.flushing = 0
        self.active = 0
        self.kinds: Counter[str] = Counter()  # the locks waited on, by kind
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with psycopg.connect(**PG, autocommit=True) as conn:  # type: ignore[arg-type]
            while not self._stop.wait(0.05):
                rows = conn.execute(
                    "SELECT wait_event_type, wait_event FROM pg_stat_activity "
                    "WHERE datname = %s AND state = 'active' AND pid <> pg_backend_pid()",
                    (PG["dbname"],),
                ).fetchall()
                self.active += len(rows)
                locks = [str(event) for (kind, event) in rows if kind == "Lock"]
                self.waiting += len(locks)
                self.kinds.update(locks)
                self.flushing += sum(1 for (_, event) in rows if str(event).startswith("WAL"))

    def start(self) -> LockSampler:
        self._thread.start()
        return self

    def stop(self) -> tuple[float | None, float | None]:
        """The shares of samples waiting on a lock, and on the log."""
        self._stop.set()
        self._thread.join()
        if not self.active:
            return None, None
        return self.waiting / self.active, self.flushing / self.active


def run(
    processes: int,
    tables: int,
    *,
    seconds: float,
    warmup: float,
    any_server: bool,
    sqlite: bool = False,
    partitions: int = 1,
    interval: float | None = None,
) -> Run:
    """Bots at ``tables`` tables of a cluster of ``processes`` servers (or
    of one server on a SQLite file)."""
    with tempfile.TemporaryDirectory(prefix="feltline-clusterbench-") as tmp, schema() as fresh:
        key = Path(tmp) / "bench.key"
        signer = Signer.create(key)
        env = {**os.environ, "FELTLINE_KEY_FILE": str(key), "FELTLINE_LOG_FORMAT": "json"}
        env.update(
            store_env(
                fresh,
                POSTGRES_POOL_SIZE="4",
                POSTGRES_MAX_OVERFLOW="4",
                FELTLINE_PARTITIONS=str(partitions),
            )
        )
        store = str(Path(tmp) / "bench.db") if sqlite else "postgres"
        cluster = _ops_cluster().Cluster(
            processes,
            env=env,
            port=0,
            projector=False,
            store=store,
            echo=False,
            metrics_port=free_ports(processes + 1),  # no projector: the first is unused
        )
        cluster.start()
        try:
            seats = _seat(cluster.targets, signer, tables, any_server=any_server)
            store_name = "SQLite" if sqlite else "PostgreSQL"
            name = f"{processes} process{'es' if processes > 1 else ''}, {store_name}"
            if not sqlite:
                name += f" K={partitions}"
            servers = [s.pid for s in cluster.servers if s is not None]
            if interval is not None:
                played = _paced(
                    name,
                    processes,
                    servers,
                    [cluster.metrics(n) for n in range(processes)],
                    seats,
                    seconds=seconds,
                    warmup=warmup,
                    interval=interval,
                    sample=not sqlite,
                )
            else:
                played = _play(
                    name,
                    processes,
                    servers,
                    seats,
                    seconds=seconds,
                    warmup=warmup,
                    sample=not sqlite,
                )
            return dataclasses.replace(played, partitions=partitions)
        finally:
            cluster.stop()


def _seat(
    targets: list[str], signer: Signer, tables: int, *, any_server: bool
) -> list[tuple[str, str, int, str]]:
    """Open the tables through the servers in turn; each seat: where its
    bot connects, the table, the seat and the bot's token."""

    def token(role: Role, player: str = "") -> str:
        return tokens.mint(
            signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
        )

    config = convert.table_config(TableConfig(Rules.house(Game.HOLDEM), PLAYERS, action_clock=60))
    rng = random.Random(1)
    seats: list[tuple[str, str, int, str]] = []
    for n in range(tables):
        owner = targets[n % len(targets)]
        with Client(owner, token(auth_pb2.ROLE_ADMIN), timeout=60) as admin:
            table_id = admin.create_table(config, f"bench {n}").table_id
            for seat in range(1, PLAYERS + 1):
                player = f"bench-{n}-{seat}"
                admin.mint_chips(player, 1000 * BUY_IN)
                target = rng.choice(targets) if any_server else owner
                seats.append((target, table_id, seat, token(auth_pb2.ROLE_PLAYER, player)))
    return seats


def _play(
    name: str,
    processes: int,
    servers: list[int],
    seats: list[tuple[str, str, int, str]],
    *,
    seconds: float,
    warmup: float,
    sample: bool,
) -> Run:
    """The bots play, each acting as soon as it may; the window's figures."""
    rng = random.Random(2)
    bots: list[Player] = []
    channels: list[grpc.Channel] = []
    for target, table_id, seat, player_token in seats:
        channel = grpc.insecure_channel(target, options=OWN_CONNECTION)
        channels.append(channel)
        client = TimedClient(token=player_token, channel=channel, timeout=60)
        strategy = Casual(random.Random(rng.random()))
        bots.append(Player(client, table_id, strategy, seat=seat, buy_in=BUY_IN, rebuy=True))
    for bot in bots:
        bot.sit()
    start = time.perf_counter() + warmup
    window = Window(start, start + seconds)
    TimedClient.window = window
    threads = [threading.Thread(target=bot.play, daemon=True) for bot in bots]
    for t in threads:
        t.start()
    time.sleep(max(0.0, start - time.perf_counter()))
    sampler = LockSampler().start() if sample else None
    pg = postgres_pids()
    before, pg_before = cpu_of(servers), cpu_of(pg)
    time.sleep(max(0.0, window.end - time.perf_counter()))
    server_cpu, pg_cpu = cpu_of(servers) - before, cpu_of(pg) - pg_before
    waits, flushes = sampler.stop() if sampler is not None else (None, None)
    kinds = sampler.kinds.most_common(4) if sampler is not None else []
    total = sum(sampler.kinds.values()) if sampler is not None else 0
    locks = ", ".join(f"{kind} {n / total:.0%}" for kind, n in kinds)
    TimedClient.window = None
    for bot in bots:
        bot.stop()
    for t in threads:
        t.join(timeout=15)
    for c in channels:
        c.close()
    return Run(
        window.result(name, server_cpu if servers else None),  # None: the servers are elsewhere
        processes,
        pg_cpu if sample else None,
        waits,
        flushes,
        locks,
    )


def _paced(
    name: str,
    processes: int,
    servers: list[int],
    metrics: list[str],
    seats: list[tuple[str, str, int, str]],
    *,
    seconds: float,
    warmup: float,
    interval: float,
    sample: bool,
) -> Run:
    """The open loop: every table acts once every ``interval`` seconds."""
    for target, table_id, seat, player_token in seats:
        with Client(target, player_token, timeout=60) as client:
            client.sit_down(table_id, seat, BUY_IN)
    room = Seated(
        target=seats[0][0],
        pid=servers[0] if servers else 0,  # 0: elsewhere, not counted
        seats=[(table_id, seat, token) for _, table_id, seat, token in seats],
        rng=random.Random(2),
        where={table_id: target for target, table_id, _, _ in seats},
        pids=servers,
    )
    sampler = LockSampler().start() if sample else None
    pg = postgres_pids()
    pg_before, began = cpu_of(pg), time.perf_counter()
    result = asyncio.run(
        play_paced(
            room,
            name,
            seconds=seconds,
            warmup=warmup,
            interval=interval,
            stacks=None,
            metrics=metrics,
        )
    )
    pg_cpu = (cpu_of(pg) - pg_before) * seconds / (time.perf_counter() - began)
    waits, flushes = sampler.stop() if sampler is not None else (None, None)
    kinds = sampler.kinds.most_common(4) if sampler is not None else []
    total = sum(sampler.kinds.values()) if sampler is not None else 0
    locks = ", ".join(f"{kind} {n / total:.0%}" for kind, n in kinds)
    return Run(result, processes, pg_cpu if sample else None, waits, flushes, locks)


def line(r: Run) -> str:
    out = r.result.line(tail=True)
    if r.postgres_cpu is not None:
        out += f"\n{'':<31} PostgreSQL CPU {r.postgres_cpu / r.result.seconds:.2f} cores"
    if r.lock_waits is not None:
        out += f", backends waiting on a lock {r.lock_waits:.0%} of samples"
    if r.wal_waits is not None:
        out += f", on the log's flush {r.wal_waits:.0%}"
    if r.locks:
        out += f"\n{'':<31} locks waited on: {r.locks}"
    return out


def elsewhere(targets: list[str], key: Path, args: argparse.Namespace) -> Run:
    """The bots alone, against a cluster serving on another machine
    (``--clients-elsewhere`` there): the client's figures, no server's."""
    seats = _seat(targets, Signer.load(key), args.tables, any_server=args.any_server)
    name = f"{len(targets)} processes elsewhere"
    if args.open_loop is not None:
        return _paced(
            name,
            len(targets),
            [],
            seats,
            seconds=args.seconds,
            warmup=args.warmup,
            interval=args.open_loop,
            sample=False,
        )
    return _play(
        name, len(targets), [], seats, seconds=args.seconds, warmup=args.warmup, sample=False
    )


def serve_only(processes: int, partitions: int) -> None:
    """A cluster for bots run from another machine (``--targets``): started
    on a fresh schema, its targets and key printed, served until Ctrl-C;
    then each server's CPU and PostgreSQL's over the time it served."""
    with tempfile.TemporaryDirectory(prefix="feltline-clusterbench-") as tmp, schema() as fresh:
        key = Path(tmp) / "bench.key"
        Signer.create(key)
        env = {**os.environ, "FELTLINE_KEY_FILE": str(key), "FELTLINE_LOG_FORMAT": "json"}
        env.update(store_env(fresh, FELTLINE_PARTITIONS=str(partitions)))
        cluster = _ops_cluster().Cluster(
            processes, env=env, host="0.0.0.0", port=0, projector=False, echo=False
        )
        cluster.start()
        try:
            servers = [s.pid for s in cluster.servers if s is not None]
            pg = postgres_pids()
            began, before, pg_before = time.perf_counter(), cpu_of(servers), cpu_of(pg)
            here = socket.getfqdn()
            targets = ",".join(f"{here}:{t.rsplit(':', 1)[1]}" for t in cluster.targets)
            print(f"serving {processes} processes, K={partitions}, until Ctrl-C; the bots:")
            print(f"  uv run python bench/cluster.py --targets {targets} --key COPY_OF_{key}")
            stopped = threading.Event()
            for each in (signal.SIGINT, signal.SIGTERM):
                signal.signal(each, lambda *_: stopped.set())
            stopped.wait()
            took = time.perf_counter() - began
            print(
                f"served {took:.0f} s: servers {(cpu_of(servers) - before) / took:.2f} cores, "
                f"PostgreSQL {(cpu_of(pg) - pg_before) / took:.2f} cores"
            )
        finally:
            cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--processes", default="1,2", help="comma-separated cluster sizes (default 1,2)"
    )
    parser.add_argument(
        "--partitions", default="1", help="comma-separated partitions of the log (default 1)"
    )
    parser.add_argument("--tables", type=int, default=100, help="four bots at each")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window per run")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before the window")
    parser.add_argument(
        "--any-server", action="store_true", help="bots connect to any server, not the owner"
    )
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite run")
    parser.add_argument(
        "--open-loop",
        type=float,
        metavar="INTERVAL",
        help="each table acts once every INTERVAL seconds (default: closed loop)",
    )
    parser.add_argument(
        "--clients-elsewhere",
        action="store_true",
        help="only serve (the first of --processes and --partitions), on every interface, "
        "until Ctrl-C; run the bots from another machine with --targets",
    )
    parser.add_argument(
        "--targets", help="comma-separated servers of a cluster serving elsewhere: only the bots"
    )
    parser.add_argument("--key", type=Path, help="with --targets: a copy of that cluster's key")
    args = parser.parse_args()
    sizes = [int(n) for n in args.processes.split(",")]
    ks = [int(k) for k in args.partitions.split(",")]
    if args.clients_elsewhere:
        serve_only(sizes[0], ks[0])
        return
    pace = (
        "closed loop"
        if args.open_loop is None
        else f"open loop, one action per table every {args.open_loop:g} s "
        f"({args.tables / args.open_loop:.0f}/s offered)"
    )
    print(
        f"{pace}: {args.tables} no-limit hold'em tables x {PLAYERS} bots, each on its own "
        f"connection to {'any server' if args.any_server else 'the table owner'}; "
        f"{args.seconds:.0f} s measured after {args.warmup:.0f} s; {os.cpu_count()} cores"
    )
    if args.targets:
        if args.key is None:
            parser.error("--targets needs --key, a copy of the cluster's key file")
        print(line(elsewhere(args.targets.split(","), args.key, args)), flush=True)
        return
    runs: list[Run] = []
    if not args.no_sqlite:
        runs.append(
            run(
                1,
                args.tables,
                seconds=args.seconds,
                warmup=args.warmup,
                any_server=False,
                sqlite=True,
                interval=args.open_loop,
            )
        )
        print(line(runs[-1]), flush=True)
    postgres: list[Run] = []
    for k in ks:
        for n in sizes:
            postgres.append(
                run(
                    n,
                    args.tables,
                    seconds=args.seconds,
                    warmup=args.warmup,
                    any_server=args.any_server,
                    partitions=k,
                    interval=args.open_loop,
                )
            )
            print(line(postgres[-1]), flush=True)
    for k in ks:
        ratios([r for r in postgres if r.partitions == k])


def ratios(runs: list[Run]) -> None:
    """Each run against the one of a single process among ``runs``."""
    one = next((r for r in runs if r.processes == 1), None)
    if one is None or not one.result.calls:
        return
    per_cpu = one.result.calls / (one.result.server_cpu or float("nan"))
    for r in runs:
        if r is one or not r.result.calls:
            continue
        mine = r.result.calls / (r.result.server_cpu or float("nan"))
        print(
            f"K={r.partitions}: {r.processes} processes against 1: "
            f"{r.result.rate / one.result.rate:.2f}x the actions per second (goal >= 1.3x), "
            f"{mine / per_cpu:.2f}x the actions per second of server CPU (goal >= 0.9x)"
        )


if __name__ == "__main__":
    main()
