"""Benchmark the HTML replayer: hands a second that ``feltline-replay convert
--to html`` writes from a portable log, and its peak memory as the log grows.

    uv run python bench/html.py               # about a minute: 1,000 hands
    uv run python bench/html.py --hands 300   # quicker

Random players play ``--hands`` real hands of every game through a Room
(tests/replay/conftest.py), in a child process, and they are exported. The
command runs on the log and on one holding its hands ``--times`` over, each
in a child process whose peak memory the kernel reports (``ru_maxrss``):
equal peaks show it streams. Then each viewer's page
is written in this process, timed by the wall clock and by the CPU it took
(the figure a loaded machine disturbs least).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from feltline_replay import log
from feltline_replay.convert import convert
from feltline_replay.histories import FORMATS
from feltline_replay.show import Viewer

ROOT = Path(__file__).resolve().parent.parent


def rate(path: Path, viewer: str) -> tuple[int, float, float, int]:
    """Hands, hands a second by the clock and by the CPU, and the page's bytes."""
    with path.open() as file, tempfile.TemporaryDirectory() as out:
        _, records = log.read(file)
        wall, cpu = time.perf_counter(), time.process_time()
        done = convert(records, FORMATS["html"], Path(out), viewer=Viewer.parse(viewer))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        size = sum(p.stat().st_size for p in done.files)
    return done.hands, done.hands / wall, done.hands / cpu, size


def repeated(path: Path, times: int, out: Path) -> None:
    """The log with its hands ``times`` over (its tables once)."""
    with path.open() as file, out.open("w") as copy:
        copy.write(file.readline())
        hands = []
        for line in file:
            if line.startswith('{"kind":"table"'):
                copy.write(line)
            else:
                hands.append(line)
        for _ in range(times):
            copy.writelines(hands)


def peak(path: Path) -> tuple[float, int]:
    """Seconds and peak kB of the command converting ``path``, in a process
    of its own that reads its peak from the kernel when it is done."""
    script = (
        "import resource, sys; from feltline_replay.cli import main; main(sys.argv[1:]);"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    with tempfile.TemporaryDirectory() as out:
        args = ["convert", str(path), "--to", "html", "--output", out, "--as", "spectator"]
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", script, *args], check=True, capture_output=True, text=True
        )
        seconds = time.perf_counter() - start
    return seconds, int(done.stdout.split()[-1])


def played(hands: int, folder: Path) -> Path:
    """A log of ``hands`` real hands, played and exported in a child process."""
    script = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
        "from tests.replay.conftest import play; from feltline_replay.cli import main;"
        "store = Path(sys.argv[3]) / 'feltline.db'; play(store, int(sys.argv[2]), seed=7);"
        "main(['export', '--store', str(store), '--output', sys.argv[3] + '/hands.log'])"
    )
    subprocess.run([sys.executable, "-c", script, str(ROOT), str(hands), str(folder)], check=True)
    return folder / "hands.log"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000, help="real hands to play (1000)")
    parser.add_argument("--times", type=int, default=4, help="the larger log's repeats (4)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        hands = played(args.hands, folder)
        bigger = folder / "bigger.log"
        repeated(hands, args.times, bigger)
        for path, label in ((hands, "the log"), (bigger, f"its hands {args.times} times over")):
            seconds, kb = peak(path)
            print(f"convert {label}: {seconds:.1f} s, peak {kb / 1024:.0f} MB")
        for viewer in ("auditor", "spectator", "seat 1"):
            n, by_clock, by_cpu, size = rate(hands, viewer)
            print(
                f"as {viewer}: {n} hands, {by_clock:.0f}/s by the clock, {by_cpu:.0f}/s of CPU, "
                f"{size / n / 1000:.1f} kB a hand"
            )


if __name__ == "__main__":
    main()
