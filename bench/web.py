"""What a call costs over the web port (Connect, gRPC-Web) beside gRPC.

    uv run python bench/web.py [--seconds 5]

A real ``feltline serve --web-port`` (tests/client/real_server.py: a
temporary SQLite store, a subprocess) holds one open hold'em table. One
client in this process calls ``TableService.GetTable`` on it, one call at a
time on one connection, for ``--seconds`` per protocol: gRPC (the SDK's
channel, HTTP/2), then over the web port (HTTP/1.1, kept alive) Connect
with JSON, Connect with binary protobuf, and gRPC-Web with binary protobuf.
Each call is a whole request through the same interceptors (admission,
token, validation) and servicer. Figures per protocol: calls, p50 and p99
of the latency seen by the client, and the server's CPU per call (from
/proc, over the window), which is the cost the server pays.
"""

from __future__ import annotations

import argparse
import http.client
import json
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' real server

from feltline.api import convert  # noqa: E402
from feltline.engine.hand.rules import Game  # noqa: E402
from feltline.engine.table.house import TableConfig  # noqa: E402
from feltline_client import Client  # noqa: E402
from feltline_protos.v1 import tables_pb2  # noqa: E402
from tests.client.real_server import running  # noqa: E402
from tests.tables import TABLES  # noqa: E402

PATH = "/feltline.v1.TableService/GetTable"


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime, stime in clock ticks


def measure(call: Callable[[], None], seconds: float, pid: int) -> dict[str, float]:
    for _ in range(50):  # warm: connections, caches, the token's check
        call()
    times: list[float] = []
    cpu = cpu_seconds(pid)
    end = time.perf_counter() + seconds
    while (now := time.perf_counter()) < end:
        call()
        times.append(time.perf_counter() - now)
    used = cpu_seconds(pid) - cpu
    times.sort()
    return {
        "calls": len(times),
        "p50_ms": times[len(times) // 2] * 1000,
        "p99_ms": times[int(len(times) * 0.99)] * 1000,
        "server_cpu_us": used / len(times) * 1e6,
    }


def web_call(
    url: str, token: str, content_type: str, body: bytes, check: Callable[[bytes], None]
) -> Callable[[], None]:
    where = urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=10)
    headers = {"content-type": content_type, "authorization": f"Bearer {token}"}

    def call() -> None:
        connection.request("POST", PATH, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{response.status}: {data!r}")
        check(data)

    return call


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per protocol")
    args = parser.parse_args()
    with running() as server:
        target, url, token = str(server["target"]), str(server["web"]), str(server["admin"])
        pid = int(str(server["pid"]))
        admin = Client(target, token, timeout=10)
        config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
        table = admin.create_table(config, "bench").table_id
        request = tables_pb2.GetTableRequest(table_id=table)
        binary = request.SerializeToString()
        framed = struct.pack(">BI", 0, len(binary)) + binary

        def json_ok(data: bytes) -> None:
            assert json.loads(data)["table"]["tableId"] == table

        def proto_ok(data: bytes) -> None:
            assert tables_pb2.GetTableResponse.FromString(data).table.table_id == table

        def grpc_web_ok(data: bytes) -> None:
            size = struct.unpack(">I", data[1:5])[0]
            proto_ok(data[5 : 5 + size])
            assert b"grpc-status: 0" in data[5 + size :]

        def grpc_call() -> None:
            assert admin.get_table(table).table_id == table

        calls: dict[str, Callable[[], None]] = {
            "gRPC (HTTP/2)": grpc_call,
            "Connect JSON (HTTP/1.1)": web_call(
                url, token, "application/json", json.dumps({"tableId": table}).encode(), json_ok
            ),
            "Connect proto (HTTP/1.1)": web_call(url, token, "application/proto", binary, proto_ok),
            "gRPC-Web proto (HTTP/1.1)": web_call(
                url, token, "application/grpc-web+proto", framed, grpc_web_ok
            ),
        }
        print(f"GetTable, one call at a time, {args.seconds:g} s each; server pid {pid}")
        print(f"{'protocol':<28}{'calls':>8}{'p50 ms':>9}{'p99 ms':>9}{'server CPU/call':>17}")
        for name, call in calls.items():
            got = measure(call, args.seconds, pid)
            print(
                f"{name:<28}{got['calls']:>8.0f}{got['p50_ms']:>9.2f}{got['p99_ms']:>9.2f}"
                f"{got['server_cpu_us']:>14.0f} µs"
            )
        admin.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
