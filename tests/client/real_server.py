"""Start a real ``feltline serve`` for the client tests.

    python tests/client/real_server.py      # prints {"target", "admin", "players"}

runs the server on a free loopback port over a temporary SQLite store and
key file, mints an admin token and player tokens for alice, bob and carol
with ``feltline token``, prints the FELTLINE_TEST_SERVER JSON on one line
and keeps the server up until this script's stdin closes (or it gets
SIGTERM); then it stops the server and removes the temporary files.
``--run CMD...`` runs a command with the variable set instead and exits
with its status:

    python tests/client/real_server.py --run npm test --prefix clients/node
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

PLAYERS = ("alice", "bob", "carol")
LISTENING = re.compile(r"feltline listening on (\S+)")


def _feltline() -> list[str]:
    """The ``feltline`` command of this Python's environment."""
    return [sys.executable, "-c", "import sys; from feltline.cli import main; sys.exit(main())"]


def _token(env: dict[str, str], *claims: str) -> str:
    out = subprocess.run(
        [*_feltline(), "token", "--ttl", "86400", *claims],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


@contextlib.contextmanager
def running() -> Iterator[dict[str, object]]:
    """A real server for as long as the block runs: its FELTLINE_TEST_SERVER."""
    with tempfile.TemporaryDirectory(prefix="feltline-real-") as tmp:
        env = dict(os.environ)
        env["FELTLINE_KEY_FILE"] = str(Path(tmp) / "feltline.key")
        env["PYTHONUNBUFFERED"] = "1"
        store = str(Path(tmp) / "feltline.db")
        # The key first, so that the server and the tokens share it.
        admin = _token(env, "--role", "admin")
        server = subprocess.Popen(
            [*_feltline(), "serve", "--port", "0", "--store", store],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            target = ""
            for line in server.stdout:
                found = LISTENING.search(line)
                if found:
                    target = found.group(1)
                    break
            if not target:
                raise RuntimeError(f"feltline serve exited ({server.wait()}) before listening")
            # Keep reading its output so that the pipe never fills.
            threading.Thread(target=server.stdout.read, daemon=True).start()
            players = {p: _token(env, "--role", "player", "--player", p) for p in PLAYERS}
            yield {"target": target, "admin": admin, "players": players}
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with running() as settings:
        if argv[:1] == ["--run"]:
            env = dict(os.environ, FELTLINE_TEST_SERVER=json.dumps(settings))
            return subprocess.run(argv[1:], env=env, check=False).returncode
        print(json.dumps(settings), flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
