"""Hearing another process's appends (docs/store.md, "Several processes"):
a listener returns once it listens, having been told once to look for
what was stored before, so no append falls between a process's start and
its first notification."""

from __future__ import annotations

import threading

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.postgres import store_env


def test_a_listener_is_told_once_it_listens_then_of_each_append(postgres_schema: str) -> None:
    env = StoreConfig.from_env(store_env(postgres_schema)).env
    signer = Signer.generate()
    listening, writing = Streams(signer, env=env, server="l"), Streams(signer, env=env, server="w")
    told = threading.Semaphore(0)
    notices = listening.hear(told.release)
    assert notices is not None
    try:
        assert told.acquire(timeout=0)  # at once: look for what came before it listened
        Room(writing).mint("heard", "ann", 5, by="admin")
        assert told.acquire(timeout=10)  # the append's notice
    finally:
        notices.stop()
        listening.close()
        writing.close()
