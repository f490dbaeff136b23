"""The SDK's keepalive pings against the server's ping policy, over a real
loopback server: a watch on a quiet table carries no data for minutes, and
the client's pings are then all that cross its connection. gRPC's server
counts a ping closer than it allows to the one before, with no data sent
between, as a strike, and at the third it sends GOAWAY ``too_many_pings``
and closes the connection: every call on it fails UNAVAILABLE."""

from __future__ import annotations

import threading

from feltline.api import convert
from feltline.api.forward import PEER_OPTIONS
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client import FeltlineError
from feltline_client.client import CHANNEL_OPTIONS, KEEPALIVE_MS
from feltline_protos.v1 import auth_pb2, watch_pb2
from tests.tables import TABLES

from .conftest import Live

# Three pings after the snapshot and one more to spare: a server that took
# the SDK's pings for abuse would have closed the connection by then.
QUIET = 3.5 * KEEPALIVE_MS / 1000


def test_a_watch_on_a_quiet_table_outlives_the_sdks_keepalive_pings(live: Live) -> None:
    admin = live.client(auth_pb2.ROLE_ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
    table = admin.create_table(config, "quiet").table_id
    stop = threading.Event()
    seen: list[watch_pb2.WatchTableResponse] = []
    dropped: list[FeltlineError] = []
    spectator = live.client(auth_pb2.ROLE_SPECTATOR)

    def watch() -> None:
        # Without reconnecting, so that a dropped connection shows.
        try:
            seen.extend(spectator.watch(table, reconnect=False, stop=stop))
        except FeltlineError as e:
            dropped.append(e)

    watching = threading.Thread(target=watch)
    watching.start()
    stop.wait(QUIET)
    stop.set()
    watching.join()
    assert dropped == []
    assert [each.WhichOneof("item") for each in seen] == ["snapshot"]
    assert admin.get_table(table).table_id == table  # and the connection serves calls


def test_a_forwarding_channel_pings_its_peer_as_the_sdk_pings_its_server() -> None:
    """A forwarded call waits on its peer with no data crossing for as long
    as the owner takes; gRPC's default stops a channel's pings after two
    without data, and a peer frozen after them would hold the call to its
    deadline. The forwarding channel pings as the SDK's does, every one of
    the SDK's keepalive settings the same."""
    sdk = {name: value for name, value in CHANNEL_OPTIONS if "ping" in name or "keepalive" in name}
    assert sdk["grpc.http2.max_pings_without_data"] == 0
    assert dict(PEER_OPTIONS) == sdk
