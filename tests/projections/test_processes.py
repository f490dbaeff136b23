"""Two writer processes (each a Room, the write path of a server) and one
``feltline project`` process on one PostgreSQL store: nothing skipped and
nothing doubled. The live views equal a rebuild from zero, which reads
every committed notification once; and the ledger's books equal what the
streams hold, which an event skipped or applied twice would change."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.projections.follow import Log
from feltline.projections.projector import Projector
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.postgres import store_env
from tests.projections.bots import ledger_matches_streams, projector_process, rows
from tests.store.players import open_tables

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("partitions", [1, 4])
def test_two_writer_processes_and_a_projector_process_skip_nothing_and_double_nothing(
    postgres_schema: str, tmp_path: Path, partitions: int
) -> None:
    """Also with the log in four partitions, the projector following each
    from its own position (docs/store.md, "Partitions")."""
    key = tmp_path / "feltline.key"
    signer = Signer.create(key)
    raw = {
        **store_env(postgres_schema, FELTLINE_PARTITIONS=str(partitions)),
        "FELTLINE_KEY_FILE": str(key),
    }
    env = StoreConfig.from_env(raw).env
    Streams(signer, env=env).close()  # the tables made once, before the processes race
    log = Log(env=env)
    children: list[subprocess.Popen[bytes]] = []
    try:
        Projector(log, env)  # the views' tables too
        projector = projector_process(raw)
        children.append(projector)
        writers = [
            subprocess.Popen(
                [sys.executable, "-m", "tests.projections.writer", "4", "70", str(n), str(4 * n)],
                cwd=ROOT,
                env={**os.environ, **env},
                stderr=subprocess.PIPE,
            )
            for n in (0, 1)
        ]
        children += writers
        for writer in writers:
            assert writer.wait(300) == 0, writer.stderr.read() if writer.stderr else ""
        watching = Projector(log, env)
        deadline = time.monotonic() + 60
        while any(lag.events for lag in watching.lags()):
            assert time.monotonic() < deadline, watching.lags()
            time.sleep(0.2)
        projector.terminate()
        assert projector.wait(10) == 0, projector.stderr.read() if projector.stderr else ""

        live = {name: rows(view) for name, view in watching.views.items()}
        room = Room(Streams(signer, env=env))
        try:
            tables = open_tables(room, 8)  # opened by the writers: opening again finds them
            ledger_matches_streams(room, watching.view("ledger"), tables)
            dealt = watching.view("hand_index").rows("SELECT DISTINCT table_id FROM hand_index")
            assert {t for (t,) in dealt} == {str(t) for t in tables}
        finally:
            room.close()
        watching.rebuild()
        assert {name: rows(view) for name, view in watching.views.items()} == live
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
        log.close()
