"""Benchmark feltline-replay convert: hands converted per second for each
format from a portable log, and its peak memory for logs of two sizes, to
show it streams (memory flat as the log grows).

    uv run python bench/histories.py                # a log of 10,000 hands, about 5 minutes

Random players play ``--hands`` real hands of every game through a Room
(tests/replay/conftest.py); the store is cloned to ``--big`` hands
(bench/replay.py's clone: the played tables again under new ids) and
exported as a log, and a log of a fifth of that size beside it. Then
``feltline-replay convert LOG --to FORMAT`` runs for each format of
``feltline_replay.histories.FORMATS`` in a process of its own, timed, its
peak memory read from GNU time. Hands per second count every hand of the
log, those a format leaves out (PHH has no code for the draw games) among
them: each is read, decoded and looked at. A script, never a test.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' players
sys.path.insert(0, str(ROOT / "bench"))

from feltline_replay.histories import FORMATS  # noqa: E402
from replay import clone  # noqa: E402


def run(*args: str) -> tuple[float, int, str]:
    """Seconds, peak memory (MB) and standard error of one feltline-replay
    command in a process of its own."""
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "feltline_replay", *args],
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - start
    lines = done.stderr.strip().splitlines()
    return seconds, int(lines[-1]) // 1024, "\n".join(lines[:-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=400, help="real hands to play (400)")
    parser.add_argument("--big", type=int, default=10000, help="hands in the log (10,000)")
    args = parser.parse_args()
    from tests.replay.conftest import play

    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        store = tmp / "feltline.db"
        signer = play(store, args.hands, seed=5)
        logs = {}
        for size in (args.big // 5, args.big):
            copy = tmp / f"copy-{size}.db"
            made = clone(store, copy, signer, size)
            path = tmp / f"hands-{size}.log"
            run("export", "--store", str(copy), "--output", str(path))
            copy.unlink()
            logs[made] = path
            print(f"log of {made:,} hands: {path.stat().st_size / 1e6:,.0f} MB")
        print("\nformat       hands/s (largest log)   peak MB by log size   files written")
        for name in FORMATS:
            peaks = []
            rate = 0.0
            said = ""
            for made, path in sorted(logs.items()):
                out = tmp / f"out-{name}-{made}"
                seconds, peak, said = run("convert", str(path), "--to", name, "--output", str(out))
                peaks.append(f"{made:,}: {peak}")
                rate = made / seconds
                for written in out.iterdir():
                    written.unlink()
                out.rmdir()
            summary = re.search(r"converted (\d+) hands.*", said)
            print(
                f"{name:<12} {rate:>10,.0f}              {', '.join(peaks):<22} "
                f"{summary.group(0) if summary else said[-80:]}"
            )


if __name__ == "__main__":
    main()
