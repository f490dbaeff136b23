"""Servers starting together on one PostgreSQL store: each makes the
store's tables if they are missing, replacing the library's insert
function, and two doing so at once used to fail with 'tuple concurrently
updated'. They take turns now."""

from __future__ import annotations

import threading

from feltline.audit.keys import Signer
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.postgres import store_env


def test_servers_starting_together_on_one_postgres_store_all_open_it(
    postgres_schema: str,
) -> None:
    env = StoreConfig.from_env(store_env(postgres_schema)).env
    signer = Signer.generate()
    Streams(signer, env=env).close()  # the tables there, as after a first start
    start = threading.Barrier(8)
    failures: list[BaseException] = []

    def open_one() -> None:
        start.wait()
        try:
            Streams(signer, env=env).close()
        except BaseException as e:
            failures.append(e)

    for _ in range(5):
        threads = [threading.Thread(target=open_one) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        start.reset()
    assert failures == []
