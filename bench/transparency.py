"""What the transparency log costs (docs/transparency.md, docs/performance.md).

    uv run python bench/transparency.py [--leaves 1000000] [--proofs 20000] [--hands 200]

A tree of ``--leaves`` leaves is built as the register builds it, leaf by
leaf; then ``--proofs`` inclusion proofs of random leaves, and as many
consistency proofs between random sizes, are made and verified, each
counted per second of CPU, with their sizes. Last, ``--hands`` hold'em
hands are played into a temporary SQLite store through the Room, and the
register logs them: its CPU per leaf (reading the seals, the records, the
commit and its signature), in one go and a leaf at a time (as a server
logs hands sealed apart), beside the CPU the hands took to play.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from feltline.audit.merkle import Tree, leaf_hash, verify_consistency, verify_inclusion


def tree_figures(leaves: int, proofs: int) -> None:
    began = time.process_time()
    tree = Tree(leaf_hash(i.to_bytes(8, "big")) for i in range(leaves))
    built = time.process_time() - began
    root = tree.root()
    print(f"tree of {leaves:,} leaves built in {built:.1f} s of CPU ({leaves / built:,.0f}/s)")
    rng = random.Random(1)
    indices = [rng.randrange(leaves) for _ in range(proofs)]
    began = time.process_time()
    made = [tree.inclusion(i) for i in indices]
    making = time.process_time() - began
    began = time.process_time()
    for i, proof in zip(indices, made, strict=True):
        verify_inclusion(i, leaves, leaf_hash(i.to_bytes(8, "big")), proof, root)
    checking = time.process_time() - began
    hashes = sum(len(p) for p in made) / proofs
    print(
        f"inclusion proofs: {proofs / making:,.0f}/s made, {proofs / checking:,.0f}/s verified;"
        f" {hashes:.1f} hashes ({hashes * 32:.0f} bytes) each"
    )
    sizes = [sorted((rng.randrange(1, leaves), leaves)) for _ in range(proofs)]
    roots = {first: tree.root(first) for first, _ in sizes}
    began = time.process_time()
    made = [tree.consistency(first, second) for first, second in sizes]
    making = time.process_time() - began
    began = time.process_time()
    for (first, second), proof in zip(sizes, made, strict=True):
        verify_consistency(first, second, roots[first], root, proof)
    checking = time.process_time() - began
    hashes = sum(len(p) for p in made) / proofs
    print(
        f"consistency proofs: {proofs / making:,.0f}/s made, {proofs / checking:,.0f}/s verified;"
        f" {hashes:.1f} hashes ({hashes * 32:.0f} bytes) each"
    )


def register_figures(hands: int) -> None:
    from feltline.audit.keys import Signer
    from feltline.cardroom.register import Register
    from feltline.cardroom.room import Room
    from feltline.engine.hand.rules import Game
    from feltline.store.config import StoreConfig
    from feltline.store.streams import Streams
    from tests.store.play import play

    with tempfile.TemporaryDirectory(prefix="feltline-tlog-") as tmp:
        env = StoreConfig.from_env({"SQLITE_DBNAME": str(Path(tmp) / "bench.db")}).env
        room = Room(Streams(Signer.generate(), env=env))
        try:
            began = time.process_time()
            for n in range(hands):
                play(room, Game.HOLDEM, random.Random(n))
            played = time.process_time() - began
            register = Register(room.streams)
            began = time.process_time()
            logged = register.catch_up()
            one_go = time.process_time() - began
            began = time.process_time()
            register.checkpoint()
            signing = time.process_time() - began
            alone = 0.0  # the same, a leaf at a time, as a server logs hands sealed apart
            for n in range(hands, hands + hands // 4):
                play(room, Game.HOLDEM, random.Random(n))
                began = time.process_time()
                register.catch_up()
                alone += time.process_time() - began
        finally:
            room.close()
    assert logged == hands
    print(
        f"{hands} hands played (and their tables opened, players minted and seated) in"
        f" {played:.1f} s of CPU: {played / hands * 1e3:.1f} ms a hand"
    )
    print(
        f"register: {one_go / hands * 1e6:.0f} us of CPU a leaf, logged in one go"
        f" ({one_go / played:.1%} of the play), {alone / (hands // 4) * 1e6:.0f} us a leaf"
        f" logged alone ({alone / (hands // 4) / (played / hands):.1%} of a hand's);"
        f" a checkpoint signed in {signing * 1e3:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--leaves", type=int, default=1_000_000)
    parser.add_argument("--proofs", type=int, default=20_000)
    parser.add_argument("--hands", type=int, default=200)
    args = parser.parse_args()
    tree_figures(args.leaves, args.proofs)
    register_figures(args.hands)


if __name__ == "__main__":
    main()
