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

The exit status is 1 if the server logged any error-level line, whatever
the command's.
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


def _errors(lines: Iterator[str], found: list[str]) -> None:
    """Read the server's output to its end (so that the pipe never fills),
    keeping its error-level lines (JSON, as it logs when not on a terminal)."""
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("level") in ("error", "critical"):
            found.append(line.strip())


@contextlib.contextmanager
def running(*, errors: list[str] | None = None) -> Iterator[dict[str, object]]:
    """A real server for as long as the block runs: its FELTLINE_TEST_SERVER.
    Error-level lines it logs are added to ``errors``."""
    with tempfile.TemporaryDirectory(prefix="feltline-real-") as tmp:
        env = dict(os.environ)
        env["FELTLINE_KEY_FILE"] = str(Path(tmp) / "feltline.key")
        env["PYTHONUNBUFFERED"] = "1"
        env["FELTLINE_LOG_FORMAT"] = "json"
        store = str(Path(tmp) / "feltline.db")
        # The key first, so that the server and the tokens share it.
        admin = _token(env, "--role", "admin")
        command = [*_feltline(), "serve", "--port", "0", "--store", store]
        server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
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
            found: list[str] = []
            reader = threading.Thread(target=_errors, args=(server.stdout, found), daemon=True)
            reader.start()
            players = {p: _token(env, "--role", "player", "--player", p) for p in PLAYERS}
            settings: dict[str, object] = {"target": target, "admin": admin, "players": players}
            yield settings
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        reader.join(timeout=5)
        if errors is not None:
            errors.extend(found)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    errors: list[str] = []
    status = 0
    with running(errors=errors) as settings:
        if argv[:1] == ["--run"]:
            env = dict(os.environ, FELTLINE_TEST_SERVER=json.dumps(settings))
            status = subprocess.run(argv[1:], env=env, check=False).returncode
        else:
            print(json.dumps(settings), flush=True)
            sys.stdin.read()
    if errors:
        print(
            f"the server logged {len(errors)} error-level lines:",
            *errors,
            sep="\n",
            file=sys.stderr,
        )
        return status or 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
