"""How play scales with server processes on one PostgreSQL store.

    uv run python bench/cluster.py [--processes 1,2] [--tables 100] [--seconds 30]

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
the bench's database that were waiting on a lock (the events table's
exclusive lock, taken by every append), and the machine's load average:
on a 2-core machine the bots, PostgreSQL and the servers share the cores.
Then the ratios against one process: the rate, and the actions per second
of server CPU.

A script, never a test: it prints figures and ratios and never fails.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import os
import random
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import psycopg
from api import BUY_IN, OWN_CONNECTION, PLAYERS, Result, TimedClient, Window  # beside this script
from serving import cpu_seconds

from feltline.api import convert, tokens
from feltline.api.tokens import Role
from feltline.audit.keys import Signer
from feltline.demo import TABLES
from feltline.engine.house import TableConfig
from feltline.engine.rules import Game
from feltline_client import Client
from feltline_client.bots import Casual, Player
from feltline_protos.v1 import auth_pb2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' PostgreSQL settings
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
    backends running a statement, how many wait on a lock."""

    def __init__(self) -> None:
        self.waiting = 0
        self.active = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with psycopg.connect(**PG, autocommit=True) as conn:  # type: ignore[arg-type]
            while not self._stop.wait(0.05):
                rows = conn.execute(
                    "SELECT wait_event_type FROM pg_stat_activity WHERE datname = %s "
                    "AND state = 'active' AND pid <> pg_backend_pid()",
                    (PG["dbname"],),
                ).fetchall()
                self.active += len(rows)
                self.waiting += sum(1 for (kind,) in rows if kind == "Lock")

    def start(self) -> LockSampler:
        self._thread.start()
        return self

    def stop(self) -> float | None:
        self._stop.set()
        self._thread.join()
        return self.waiting / self.active if self.active else None


def run(
    processes: int,
    tables: int,
    *,
    seconds: float,
    warmup: float,
    any_server: bool,
    sqlite: bool = False,
) -> Run:
    """Bots at ``tables`` tables of a cluster of ``processes`` servers (or
    of one server on a SQLite file)."""
    with tempfile.TemporaryDirectory(prefix="feltline-clusterbench-") as tmp, schema() as fresh:
        key = Path(tmp) / "bench.key"
        signer = Signer.create(key)
        env = {**os.environ, "FELTLINE_KEY_FILE": str(key), "FELTLINE_LOG_FORMAT": "json"}
        env.update(store_env(fresh, POSTGRES_POOL_SIZE="4", POSTGRES_MAX_OVERFLOW="4"))
        store = str(Path(tmp) / "bench.db") if sqlite else "postgres"
        cluster = _ops_cluster().Cluster(
            processes, env=env, port=0, projector=False, store=store, echo=False
        )
        cluster.start()
        try:
            seats = _seat(cluster.targets, signer, tables, any_server=any_server)
            store_name = "SQLite" if sqlite else "PostgreSQL"
            name = f"{processes} process{'es' if processes > 1 else ''}, {store_name}"
            servers = [s.pid for s in cluster.servers if s is not None]
            return _play(
                name, processes, servers, seats, seconds=seconds, warmup=warmup, sample=not sqlite
            )
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

    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], PLAYERS, action_clock=60))
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
    waits = sampler.stop() if sampler is not None else None
    TimedClient.window = None
    for bot in bots:
        bot.stop()
    for t in threads:
        t.join(timeout=15)
    for c in channels:
        c.close()
    return Run(window.result(name, server_cpu), processes, pg_cpu if sample else None, waits)


def line(r: Run) -> str:
    out = r.result.line(tail=True)
    if r.postgres_cpu is not None:
        out += f"\n{'':<31} PostgreSQL CPU {r.postgres_cpu / r.result.seconds:.2f} cores"
    if r.lock_waits is not None:
        out += f", backends waiting on a lock {r.lock_waits:.0%} of samples"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--processes", default="1,2", help="comma-separated cluster sizes (default 1,2)"
    )
    parser.add_argument("--tables", type=int, default=100, help="four bots at each")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window per run")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before the window")
    parser.add_argument(
        "--any-server", action="store_true", help="bots connect to any server, not the owner"
    )
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite run")
    args = parser.parse_args()
    sizes = [int(n) for n in args.processes.split(",")]
    print(
        f"closed loop: {args.tables} no-limit hold'em tables x {PLAYERS} bots, each on its own "
        f"connection to {'any server' if args.any_server else 'the table owner'}; "
        f"{args.seconds:.0f} s measured after {args.warmup:.0f} s; {os.cpu_count()} cores"
    )
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
            )
        )
        print(line(runs[-1]), flush=True)
    postgres: list[Run] = []
    for n in sizes:
        postgres.append(
            run(
                n, args.tables, seconds=args.seconds, warmup=args.warmup, any_server=args.any_server
            )
        )
        print(line(postgres[-1]), flush=True)
    one = next((r for r in postgres if r.processes == 1), None)
    if one is None or not one.result.calls:
        return
    per_cpu = one.result.calls / (one.result.server_cpu or float("nan"))
    for r in postgres:
        if r is one or not r.result.calls:
            continue
        mine = r.result.calls / (r.result.server_cpu or float("nan"))
        print(
            f"{r.processes} processes against 1: {r.result.rate / one.result.rate:.2f}x the "
            f"actions per second (goal >= 1.3x), {mine / per_cpu:.2f}x the actions per second "
            "of server CPU (goal >= 0.9x)"
        )


if __name__ == "__main__":
    main()
