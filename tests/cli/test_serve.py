"""``feltline serve`` as an operator starts it: what it refuses to start on,
and how it says so (one line, exit status 1, nothing made)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from feltline.api.app import Feltline
from feltline.api.server import ListenError
from feltline.audit.keys import Signer
from feltline.store.config import StoreConfig
from feltline.store.room import Cardroom, Room

FELTLINE = [sys.executable, "-c", "import sys; from feltline.cli import main; sys.exit(main())"]


def serve(
    tmp: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``feltline serve`` in ``tmp``, expected to refuse to start."""
    environ = {**os.environ, "FELTLINE_KEY_FILE": str(tmp / "feltline.key"), **(env or {})}
    return subprocess.run(
        [*FELTLINE, "serve", *args],
        check=False,
        cwd=tmp,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refusal prints, after checking that it is one."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("feltline serve: ")
    return lines[0]


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Feltline]:
    signer = Signer.generate()
    env = StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / "first.db")}).env
    room = Room(Cardroom(signer, env=env))
    server = Feltline(room, signer.public_key).start()
    yield server
    server.stop()
    room.close()


def test_a_second_server_on_a_port_in_use_refuses_to_start(
    running: Feltline, tmp_path: Path
) -> None:
    done = serve(tmp_path, "--port", str(running.port), "--store", "second.db")
    line = refused(done)
    assert f"cannot listen on 127.0.0.1:{running.port}: the port is in use" in line
    assert not (tmp_path / "second.db").exists()


def test_a_server_does_not_share_its_port(running: Feltline, tmp_path: Path) -> None:
    """grpc would share a port (SO_REUSEPORT) and split clients between two
    servers; Feltline's server refuses instead."""
    signer = Signer.generate()
    room = Room(
        Cardroom(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(tmp_path / "b.db")}).env)
    )
    try:
        with pytest.raises(ListenError, match="the port is in use"):
            Feltline(room, signer.public_key, f"127.0.0.1:{running.port}")
    finally:
        room.close()
