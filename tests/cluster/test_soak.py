"""``ops/soak``, briefly: a cluster of real processes plays for a fraction
of a minute, one server is killed and started again, and the soak's last
line says PASS (every table played again, nothing logged an error, every
hand verified, every chip accounted for). The half-hour run's figures are
in docs/reliability.md."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from tests.postgres import PG

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(180)  # 40-60 s; three servers and a projector on a shared 2-core machine
def test_a_short_soak_with_one_kill_passes(
    postgres: psycopg.Connection[tuple[object, ...]],
) -> None:
    env = {
        **os.environ,
        "POSTGRES_HOST": PG["host"],
        "POSTGRES_PORT": PG["port"],
        "POSTGRES_USER": PG["user"],
        "POSTGRES_PASSWORD": PG["password"],
        "POSTGRES_DBNAME": PG["dbname"],
    }
    soak = [sys.executable, str(ROOT / "ops" / "soak")]
    done = subprocess.run(
        [*soak, "--minutes", "0.3", "--kill-every", "10", "--tables", "3", "--seats", "2"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=170,
    )
    out = done.stdout
    assert out.splitlines()[-1] == "PASS", out + done.stderr[-3000:]
    assert done.returncode == 0
    assert len(re.findall(r"killed server \d+ \(pid \d+\) at \d+ s: every table played", out)) == 1
    hands = int(re.search(r"hands played: (\d+)", out).group(1))  # type: ignore[union-attr]
    verified = re.search(r"verify --store postgres: (\d+) hands verified", out)
    assert verified is not None
    assert int(verified.group(1)) >= hands > 0
    assert "Act from the client:" in out
    assert "memory by process (RSS):" in out
