"""What the bench scripts share: a server in a subprocess of its own, and
its CPU time read from ``/proc``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def subprocess_server(script: str, *args: str) -> Iterator[tuple[str, int]]:
    """Run ``script --serve args...``, which prints its port and serves until
    its stdin closes; the server's target and process id."""
    proc = subprocess.Popen(
        [sys.executable, script, "--serve", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdin is not None
    line = proc.stdout.readline()
    print(f"  ({args[0]} server: pid {proc.pid})", flush=True)
    if not line.strip():
        proc.kill()
        raise RuntimeError(f"server {args} did not start")
    try:
        yield f"127.0.0.1:{int(line)}", proc.pid
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()


def resident_mb(pid: int) -> float | None:
    """A process's resident memory now, in MB, or None without ``/proc``."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    kb = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(kb) / 1024


def cpu_seconds(pid: int) -> float | None:
    """A process's user and system CPU time so far, or None without ``/proc``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # from the 3rd on: the name may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
