"""docs/api.md's Python example of reading an error's details runs as
written against a real refusal."""

import re
import textwrap
import uuid
from pathlib import Path

import grpc
import pytest

from feltline_protos.v1 import auth_pb2, tables_pb2

from .conftest import Live

DOCS = Path(__file__).parents[2] / "docs" / "api.md"


def _example(lead: str) -> str:
    """The indented block after the line starting with ``lead``."""
    text = DOCS.read_text()
    found = re.search(rf"^{re.escape(lead)}.*\n\n((?:    .*\n|\n)+)", text, re.M)
    assert found, lead
    return textwrap.dedent(found[1])


def test_the_python_example_reads_the_error_info(live: Live) -> None:
    client = live.client(auth_pb2.ROLE_SPECTATOR)
    missing = str(uuid.uuid4())
    with pytest.raises(grpc.RpcError) as raised:
        client.tables.GetTable(
            tables_pb2.GetTableRequest(table_id=missing), metadata=client.metadata()
        )
    scope: dict[str, object] = {"error": raised.value}
    exec(_example("Python (`pip install grpcio-status`"), scope)
    info = scope["info"]
    assert type(info).__name__ == "ErrorInfo"
    assert (info.domain, info.reason) == ("feltline.v1", "TABLE_NOT_FOUND")  # type: ignore[attr-defined]
