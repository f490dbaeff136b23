"""``feltline project`` in a process of its own, SIGKILLed at random
moments while bots play and started again: once it has caught up, every
view equals a rebuild from zero, row for row. And ``--rebuild NAME``
rebuilds one view from the command line."""

from __future__ import annotations

import random
import signal
import subprocess
import threading
import time
from pathlib import Path

from feltline.projections.follow import Follower, Log
from feltline.projections.projector import PROJECTIONS, Projector
from feltline.store.config import StoreConfig
from tests.projections.bots import play, projector_process, rows
from tests.projections.conftest import Store


def projector(store: Store, *args: str) -> subprocess.Popen[bytes]:
    return projector_process(store.env, *args)


def test_a_projector_killed_at_random_moments_ends_equal_to_a_rebuild(every_store: Store) -> None:
    store = every_store
    room = store.room()
    env = StoreConfig.from_env(store.env).env
    done = threading.Event()
    bots = threading.Thread(target=lambda: (play(room, 4, 150), done.set()))
    bots.start()
    rng = random.Random(3)
    kills = 0
    while not done.is_set() or kills < 4:
        child = projector(store)
        time.sleep(rng.uniform(0.3, 1.5))
        child.send_signal(signal.SIGKILL)
        child.wait()
        kills += 1
    bots.join()
    child = projector(store)
    log = Log(env=env)
    try:
        watching = Projector(log, env)
        deadline = time.monotonic() + 60
        while any(lag.events for lag in watching.lags()):
            assert time.monotonic() < deadline, watching.lags()
            time.sleep(0.2)
        child.send_signal(signal.SIGTERM)
        assert child.wait(10) == 0, child.stderr.read() if child.stderr else ""
        killed = {name: rows(view) for name, view in watching.views.items()}
        assert killed["ledger"]["ledger_entries"]
        for name in PROJECTIONS:
            watching.rebuild(name)
        assert {name: rows(view) for name, view in watching.views.items()} == killed
    finally:
        log.close()


def test_rebuild_from_the_command_line(store: Store, tmp_path: Path) -> None:
    room = store.room()
    play(room, 2, 40)
    env = StoreConfig.from_env(store.env).env
    log = Log(env=env)
    try:
        live = Projector(log, env)
        live.follower.catch_up()
        before = rows(live.view("hand_index"))
        live.view("hand_index").drop()
        child = projector(store, "--rebuild", "hand_index")
        assert child.wait(60) == 0, child.stderr.read() if child.stderr else ""
        assert rows(live.view("hand_index")) == before
        Follower(log, live.follower.projections).catch_up()
        assert rows(live.view("hand_index")) == before
    finally:
        log.close()
