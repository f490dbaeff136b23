"""What a ``feltline`` command loads: what it needs, and no more. An
operator scripting a room runs many; bench/commands.py times them."""

from __future__ import annotations

import json
import subprocess
import sys

from feltline.api.app import Feltline
from tests.cli.test_floor import server

__all__ = ["server"]  # the fixture

RUN = """
import json, sys
from feltline.cli import main
status = main(sys.argv[1:])
values = sys.modules.get("feltline.engine.cards.values")
print(json.dumps({
    "status": status,
    "values built": bool(values) and getattr(values, "_BUILT", True),  # before: at import
    "loaded": sorted(set(sys.argv[0].split(",")) & set(sys.modules)),
}))
"""
# The server, its store and its contract checks, and the hand values' tables.
SERVER_SIDE = (
    "feltline.api.app",
    "feltline.api.server",
    "feltline.cardroom.room",
    "eventsourcing",
    "psycopg",
    "protovalidate",
)


def loads(*argv: str, watched: tuple[str, ...]) -> dict[str, object]:
    """What ``feltline argv`` loaded of the ``watched`` modules, in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-c", RUN.replace("sys.argv[0]", repr(",".join(watched))), *argv],
        check=True,
        capture_output=True,
        text=True,
    )
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_a_token_loads_neither_server_nor_client_nor_hand_values(server: Feltline) -> None:
    found = loads(
        "token", "--role", "admin", watched=(*SERVER_SIDE, "grpc", "feltline.engine.cards.values")
    )
    assert found == {"status": 0, "values built": False, "loaded": []}


def test_reading_tables_and_chips_loads_the_client_only(server: Feltline) -> None:
    for argv in (["table", "list"], ["chips", "mint", "alice", "5"], ["chips", "balance", "alice"]):
        found = loads(*argv, watched=(*SERVER_SIDE, "grpc"))
        assert found == {"status": 0, "values built": False, "loaded": ["grpc"]}, argv
