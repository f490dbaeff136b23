"""Where hands are stored and which key signs them, from the environment.

Feltline reads the eventsourcing library's own settings, so everything the
library documents works as it says: ``PERSISTENCE_MODULE``
(``eventsourcing.sqlite``, the default, or ``eventsourcing.postgres``),
``SQLITE_DBNAME`` (default ``feltline.db`` in the working directory),
``POSTGRES_DBNAME``, ``POSTGRES_HOST``, ``POSTGRES_PORT``, ``POSTGRES_USER``,
``POSTGRES_PASSWORD``, ``POSTGRES_SCHEMA``, and ``CIPHER_TOPIC`` with
``CIPHER_KEY`` for encryption at rest. ``FELTLINE_KEY_FILE`` is the signing
key's path (default ``feltline.key``). See ``docs/store.md``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULTS = {
    "PERSISTENCE_MODULE": "eventsourcing.sqlite",
    "SQLITE_DBNAME": "feltline.db",
    # The library refuses a store without it; no password is libpq's own
    # default (trust, peer, or ~/.pgpass), which the preflight check uses too.
    "POSTGRES_PASSWORD": "",
}

# Feltline is tested with the library's plain inserts only, so the
# database-functions insert mode stays off, also under the application's
# prefixed name, which the library would read first.
FORCED = {
    "POSTGRES_ENABLE_DB_FUNCTIONS": "n",
    "CARDROOM_POSTGRES_ENABLE_DB_FUNCTIONS": "n",
}


@dataclass(frozen=True)
class StoreConfig:
    env: Mapping[str, str]
    key_file: Path

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> StoreConfig:
        source = os.environ if environ is None else environ
        env = {**DEFAULTS, **source, **FORCED}
        return cls(env=env, key_file=Path(source.get("FELTLINE_KEY_FILE", "feltline.key")))
