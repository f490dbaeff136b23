"""Two writers on one PostgreSQL store, each with its own connections and
tables, and one projector following them live: nothing skipped (the live
views equal a rebuild, which reads every committed notification), nothing
doubled (the ledger's books hold what the streams do)."""

from __future__ import annotations

import threading

from feltline.projections.follow import Log
from feltline.projections.projector import PROJECTIONS, Projector
from feltline.store.config import StoreConfig
from tests.projections.bots import ledger_matches_streams, play, rows
from tests.store.conftest import Store
from tests.store.players import open_tables


def test_two_writers_and_one_projector_skip_nothing_and_double_nothing(
    postgres_schema: str,
) -> None:
    from feltline.audit.keys import Signer
    from tests.postgres import store_env

    store = Store(store_env(postgres_schema), Signer.generate(), lambda *_: [], "", [])
    env = StoreConfig.from_env(store.env).env
    rooms = [store.room(), store.room()]
    log = Log(env=env)
    try:
        projector = Projector(log, env)
        projector.start()
        writers = [
            threading.Thread(target=play, args=(room, 4, 60, seed, 4 * seed))
            for seed, room in enumerate(rooms)
        ]
        for w in writers:
            w.start()
        for w in writers:
            w.join()
        head = log.recorder.max_notification_id() or 0
        projector.follower.poke.set()
        while any(lag.position < head for lag in projector.lags()):
            projector.follower.stopping.wait(0.1)
        projector.stop()
        live = {name: rows(view) for name, view in projector.views.items()}
        ledger_matches_streams(rooms[0], projector.view("ledger"), open_tables(rooms[0], 8))
        for name in PROJECTIONS:
            projector.rebuild(name)
        assert {name: rows(view) for name, view in projector.views.items()} == live
    finally:
        log.close()
        for room in rooms:
            room.close()
