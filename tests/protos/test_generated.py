"""The checked-in generated code is exactly what the protos produce."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_matches_the_protos() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "protos" / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_generated_modules_live_in_their_own_package() -> None:
    """Nothing generated claims the server's ``feltline`` or a top-level ``buf``."""
    from feltline_protos.v1 import events_pb2, tables_pb2_grpc

    assert events_pb2.Event.__module__ == "feltline_protos.v1.events_pb2"
    assert events_pb2.DESCRIPTOR.package == "feltline.v1"
    assert hasattr(tables_pb2_grpc, "TableServiceStub")
    assert "buf" not in sys.modules
