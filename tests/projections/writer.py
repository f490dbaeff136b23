"""One writer process of its own: bots play through a Room on the store
the environment names, signing with the key at ``FELTLINE_KEY_FILE``, as a
server beside others on one PostgreSQL store would.

    python -m tests.projections.writer TABLES STEPS SEED FIRST
"""

from __future__ import annotations

import sys

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from tests.projections.bots import play


def main(argv: list[str]) -> int:
    tables, steps, seed, first = (int(a) for a in argv)
    config = StoreConfig.from_env()
    room = Room(Streams(Signer.load(config.key_file), env=config.env))
    try:
        play(room, tables, steps, seed, first)
    finally:
        room.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
