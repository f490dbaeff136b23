"""Write clients/node/test/fixtures/hands.log: a few real hands of every game
from a fresh store, for the Node verifier's tests.

    uv run python tests/replay/make_fixture.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "clients/node/test/fixtures/hands.log"


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from feltline_replay.cli import main as replay
    from tests.replay.conftest import play

    with tempfile.TemporaryDirectory() as scratch:
        store = Path(scratch) / "feltline.db"
        signer = play(store, 12, seed=5)
        args = ["--store", str(store), "--public-key", signer.public_hex]
        replay(["export", *args, "--output", str(FIXTURE)])


if __name__ == "__main__":
    main()
