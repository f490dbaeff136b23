"""Watches opened all at once, as the clients of a restarted server open
them again: every one is served. gRPC queues the calls that grpc.aio has
not yet taken, and past its default of 1,000 it dropped some at random,
each caller seeing a bare CANCELLED and the server logging nothing
(``feltline.api.server.OPTIONS``)."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta

import grpc

from feltline.api import convert, tokens
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_protos.v1 import auth_pb2, watch_pb2, watch_pb2_grpc
from tests.tables import TABLES

from .conftest import Live

WATCHES = 2_000  # twice gRPC's default queue: some 10% were dropped
CONNECTIONS = 8  # the calls come in faster over few of them than over many


def test_two_thousand_watches_opened_at_once_each_get_their_snapshot(live: Live) -> None:
    admin = live.client(auth_pb2.ROLE_ADMIN)
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
    table = admin.create_table(config, "rail").table_id
    token = tokens.mint(
        live.signer, auth_pb2.ROLE_SPECTATOR, now=datetime.now(UTC), ttl=timedelta(hours=1)
    )
    ends = asyncio.run(open_at_once(live.server.target, table, token))
    assert ends == Counter(snapshot=WATCHES)


async def open_at_once(target: str, table: str, token: str) -> Counter[str]:
    """How each of ``WATCHES`` watches of ``table`` began: with a snapshot,
    or the status it ended with."""
    metadata = (("authorization", f"Bearer {token}"),)
    request = watch_pb2.WatchTableBatchesRequest(table_id=table)
    own = [("grpc.use_local_subchannel_pool", 1)]  # a connection each
    channels = [grpc.aio.insecure_channel(target, options=own) for _ in range(CONNECTIONS)]
    for channel in channels:
        await channel.channel_ready()  # then the calls alone arrive together
    ends: Counter[str] = Counter()

    async def watch(channel: grpc.aio.Channel) -> None:
        call = watch_pb2_grpc.WatchServiceStub(channel).WatchTableBatches(
            request, metadata=metadata, timeout=60
        )
        try:
            batch = await call.read()
        except grpc.aio.AioRpcError as e:
            ends[e.code().name] += 1
        else:
            assert isinstance(batch, watch_pb2.WatchTableBatchesResponse)
            ends["snapshot" if batch.messages[0].HasField("snapshot") else "no snapshot"] += 1
        call.cancel()

    try:
        await asyncio.gather(*(watch(channels[n % CONNECTIONS]) for n in range(WATCHES)))
    finally:
        for channel in channels:
            await channel.close()
    return ends
