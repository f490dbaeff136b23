"""What a server spends on tables where nobody is acting.

    uv run python bench/idle.py [--tables 1000] [--watchers 1] [--seconds 10]

At a table of people the server is idle most of the time, waiting on
someone to decide, while every seat and spectator keeps a watch open. This
opens ``--tables`` tables on a real server in a subprocess (a temporary
SQLite store), has ``--watchers`` spectators watch each
(``WatchTableBatches``, the SDK's stream, from one asyncio loop, a hundred
to a connection), and reads the server's CPU from ``/proc`` over a
quiet window. Beside it, in the same run, the anchor: a bare ``grpc.aio``
server holding as many open response streams that never send. The
difference is what Feltline itself spends on being ready.

A script, never a test: it prints figures and never fails. Linux only
(``/proc``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import Future
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
from serving import cpu_seconds, subprocess_server  # beside this script

from feltline_client import Client
from feltline_protos.v1 import auth_pb2, watch_pb2, watch_pb2_grpc

QUIET = "/feltline.bench.Quiet/Wait"
# Watches sharing one connection: with all 10,000 on one, some ended
# CANCELLED before their snapshot (why was not looked into).
PER_CONNECTION = 100
# Watches waiting on their snapshot at once: spectators arrive over time, and
# 3,000 opened at once ended CANCELLED too.
OPENING = 100


def serve_feltline(key: str, db: str) -> None:
    from feltline.api import logging as logs
    from feltline.api.app import Feltline
    from feltline.api.collector import short_pauses
    from feltline.audit.keys import Signer
    from feltline.cardroom.room import Room
    from feltline.store.config import StoreConfig
    from feltline.store.streams import Streams

    logs.configure(level=logging.WARNING)
    signer = Signer.load(Path(key))
    room = Room(Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": db}).env))
    server = Feltline(room, signer.public_key).start()
    short_pauses()  # as `feltline serve` does
    print(server.port, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    server.stop()
    room.close()


def serve_quiet() -> None:
    async def wait(
        request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]
    ) -> AsyncIterator[bytes]:
        await asyncio.Event().wait()  # never sends
        yield b""

    async def main() -> None:
        handler = grpc.method_handlers_generic_handler(
            "feltline.bench.Quiet", {"Wait": grpc.unary_stream_rpc_method_handler(wait)}
        )
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        print(port, flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await server.stop(0)

    asyncio.run(main())


def quiet_cores(pid: int, seconds: float) -> float:
    """The server's CPU over ``seconds`` of nothing happening, in cores."""
    before = cpu_seconds(pid)
    time.sleep(seconds)
    after = cpu_seconds(pid)
    assert before is not None
    assert after is not None, "Linux only: reads /proc"
    return (after - before) / seconds


def run_feltline(tables: int, watchers: int, seconds: float) -> float:
    from feltline.api import convert, tokens
    from feltline.audit.keys import Signer
    from feltline.engine.hand.rules import Game, Rules
    from feltline.engine.table.house import TableConfig

    with tempfile.TemporaryDirectory(prefix="feltline-idlebench-") as tmp:
        key = Path(tmp) / "bench.key"
        signer = Signer.create(key)

        def token(role: auth_pb2.Role.ValueType) -> str:
            return tokens.mint(signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1))

        with subprocess_server(__file__, "feltline", str(key), str(Path(tmp) / "idle.db")) as (
            target,
            pid,
        ):
            admin = Client(target, token(auth_pb2.ROLE_ADMIN), timeout=30)
            config = convert.table_config(TableConfig(Rules.house(Game.HOLDEM), 6))
            ids = [admin.create_table(config, f"idle {n}").table_id for n in range(tables)]
            admin.close()
            with Spectators(target, token(auth_pb2.ROLE_SPECTATOR), ids * watchers):
                time.sleep(1)  # the last snapshots sent
                return quiet_cores(pid, seconds)


class Spectators:
    """A watch on each of ``table_ids``, all in one asyncio loop on a thread
    of its own, ``PER_CONNECTION`` to a connection: a thread per watch
    stalls the client well before 10,000 of them.
    Entering waits until every watch has had its snapshot."""

    def __init__(self, target: str, token: str, table_ids: list[str]) -> None:
        self.target, self.table_ids = target, table_ids
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.loop = asyncio.new_event_loop()
        self.watching = threading.Event()
        self.left = len(table_ids)  # watches yet to have their snapshot
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.done: Future[None] | None = None

    def __enter__(self) -> Spectators:
        self.thread.start()
        self.done = asyncio.run_coroutine_threadsafe(self._watch(), self.loop)
        patience = time.monotonic() + 600
        while not self.watching.wait(timeout=1):
            if self.done.done():
                self.done.result()  # a watch failed: its error
                raise RuntimeError("the watches ended before all opened")
            if time.monotonic() > patience:
                raise RuntimeError(f"{self.left} of the watches had no snapshot in 10 minutes")
        return self

    def __exit__(self, *_: object) -> None:
        if self.done is not None:
            self.done.cancel()  # cancels the watches, on the loop
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)

    async def _watch(self) -> None:
        options = [("grpc.use_local_subchannel_pool", 1)]  # a connection each
        channels = [
            grpc.aio.insecure_channel(self.target, options=options)
            for _ in range(0, len(self.table_ids), PER_CONNECTION)
        ]
        try:
            stubs = [watch_pb2_grpc.WatchServiceStub(channel) for channel in channels]

            opening = asyncio.Semaphore(OPENING)

            async def one(n: int, table_id: str) -> None:
                stub = stubs[n // PER_CONNECTION]
                request = watch_pb2.WatchTableBatchesRequest(table_id=table_id)
                await opening.acquire()
                first = True
                async for _ in stub.WatchTableBatches(request, metadata=self.metadata):
                    if first:
                        opening.release()
                        first, self.left = False, self.left - 1
                        if not self.left:
                            self.watching.set()

            await asyncio.gather(*(one(n, t) for n, t in enumerate(self.table_ids)))
        finally:
            for channel in channels:
                await channel.close()


def run_quiet(streams: int, seconds: float) -> float:
    with subprocess_server(__file__, "quiet") as (target, pid):
        channel = grpc.insecure_channel(target)
        wait: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(
            QUIET, request_serializer=None, response_deserializer=None
        )
        calls = [wait(b"") for _ in range(streams)]
        time.sleep(3)
        cores = quiet_cores(pid, seconds)
        for call in calls:
            call.cancel()
        channel.close()
    return cores


def load() -> str:
    """The machine's one-minute load average: other work shares the cores."""
    return f"load average {os.getloadavg()[0]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--watchers", type=int, default=1, help="spectators at each table")
    parser.add_argument("--seconds", type=float, default=10.0, help="quiet window measured")
    parser.add_argument("--serve", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    logging.getLogger("feltline.audit.keys").setLevel(logging.ERROR)  # "generated a key"
    if args.serve is not None:
        if args.serve == ["quiet"]:
            serve_quiet()
        else:
            serve_feltline(*args.serve[1:])
        return
    streams = args.tables * args.watchers
    print(f"{args.tables} tables, {args.watchers} watch(es) each; {args.seconds:.0f} s quiet")
    quiet = run_quiet(streams, args.seconds)
    print(f"bare gRPC, {streams} open streams:  server CPU {quiet:.3f} cores  ({load()})")
    feltline = run_feltline(args.tables, args.watchers, args.seconds)
    print(f"Feltline, idle tables:           server CPU {feltline:.3f} cores  ({load()})")
    print(
        f"Feltline's own idle work: {max(0.0, feltline - quiet) * 1000 / args.tables:.2f} ms "
        "of CPU per table per second"
    )


if __name__ == "__main__":
    main()
