"""How long an operator waits for a ``feltline`` command.

Run with ``uv run python bench/commands.py``. It starts a ``feltline serve``
over a temporary store and key, then runs ``feltline token``, ``feltline
table list`` and ``feltline chips balance`` in fresh processes, each as an
operator would (the admin token minted from the key file), in turns with
the anchor, ``python -c pass``, so a busy machine slows them alike. They
run as an installed copy does, with its bytecode cached: a first run of
each, not counted, writes the caches (whatever PYTHONDONTWRITEBYTECODE
says here). Each figure is the CPU time (user + system) of one process, the best and the
median of a few runs, and the ratio of the median to the anchor's; the
goal is under 0.5 s for each command.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

FELTLINE = [sys.executable, "-c", "import sys; from feltline.cli import main; sys.exit(main())"]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "feltline token --role admin": [*FELTLINE, "token", "--role", "admin"],
    "feltline table list": [*FELTLINE, "table", "list"],
    "feltline chips balance alice": [*FELTLINE, "chips", "balance", "alice"],
}
GOAL = 0.5  # seconds


def cpu_seconds(command: Sequence[str], env: dict[str, str]) -> float:
    """The CPU time of ``command`` run to its end, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@contextmanager
def server(folder: Path) -> Iterator[dict[str, str]]:
    """A ``feltline serve`` on a free port: the environment that reaches it."""
    env = dict(os.environ, FELTLINE_KEY_FILE=str(folder / "feltline.key"), PYTHONUNBUFFERED="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [*FELTLINE, "serve", "--port", "0", "--store", str(folder / "feltline.db")]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            found = re.search(r"listening on (\S+)", line)
            if found:
                env["FELTLINE_TARGET"] = found[1]
                break
        else:
            raise RuntimeError(f"feltline serve exited ({process.wait()}) before listening")
        yield env
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, server(Path(folder)) as env:
        minting = [*FELTLINE, "chips", "mint", "alice", "100"]
        subprocess.run(minting, env=env, check=True, stdout=subprocess.DEVNULL)
        times: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for run in range(args.runs + 1):
            for name, command in COMMANDS.items():
                seconds = cpu_seconds(command, env)
                if run:  # the first wrote the bytecode caches
                    times[name].append(seconds)
    anchor = statistics.median(times["python -c pass"])
    print(f"CPU seconds of one process, {args.runs} runs each, in turns; goal under {GOAL} s")
    print(f"{'':30}{'best':>8}{'median':>8}{'/ anchor':>10}")
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"{name:30}{min(seconds):>8.3f}{median:>8.3f}{median / anchor:>9.1f}x")


if __name__ == "__main__":
    main()
