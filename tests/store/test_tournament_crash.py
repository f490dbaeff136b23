"""A sit-and-go played by a process killed with SIGKILL at random moments
and started again until the tournament ends: after every kill the store
accounts for every chip; at the end every prize is paid once, the pool
is empty and the players hold what they paid in less the fees."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

from feltline.audit.keys import Signer
from feltline.domain.ids import account_id, pool_id, tournament_id
from feltline.store.check import check

from .conftest import Store

CHILD = Path(__file__).with_name("tournament_child.py")


def test_a_killed_process_leaves_a_tournament_that_resumes_and_pays_once(
    store: Store, tmp_path: Path
) -> None:
    key, acks, errors = tmp_path / "feltline.key", tmp_path / "acks", tmp_path / "stderr"
    store.signer = Signer.create(key)
    env = {**store.env, "FELTLINE_KEY_FILE": str(key), "FELTLINE_LEASE_SECONDS": "1"}
    rng = random.Random(2026)
    kills = 0
    for _ in range(40):
        with errors.open("wb") as stderr:
            dealt = len(acks.read_text().splitlines()) if acks.exists() else 0
            child = subprocess.Popen(
                [
                    sys.executable,
                    str(CHILD),
                    json.dumps({"env": env, "acks": str(acks), "seed": rng.random()}),
                ],
                stderr=stderr,
            )
            # The first two runs are killed at their first hand, so that the
            # tournament resumes twice however fast the others play.
            code = _kill_after(child, acks, dealt + (1 if kills < 2 else rng.randint(1, 4)))
            kills += code is None
        assert code in (None, 0), errors.read_text()
        assert check(store.streams()).problems == []
        if code == 0:
            break
    else:
        raise AssertionError("the tournament did not end in 40 runs")
    assert kills >= 2
    streams = store.streams()
    tournament = streams.tournament(tournament_id("crash")).tournament
    assert tournament.finished is not None
    assert sum(tournament.paid.values()) == 6 * 100
    assert streams.account(pool_id(tournament_id("crash"))).balance == 0
    held = sum(streams.account(account_id(f"p{n}")).balance for n in range(6))
    assert held == 6 * (1_000 - 110) + 6 * 100


def _kill_after(child: subprocess.Popen[bytes], acks: Path, hands: int) -> int | None:
    """Kill the child once ``hands`` hands have been dealt in all, or a
    moment later, mid-hand; its exit code if it ends first, or None."""
    started = time.monotonic()
    while child.poll() is None and time.monotonic() - started < 120:
        if acks.exists() and len(acks.read_text().splitlines()) >= hands:
            time.sleep(random.uniform(0, 0.3))
            break
        time.sleep(0.01)
    else:
        return child.wait()
    child.kill()
    child.wait()
    return None
