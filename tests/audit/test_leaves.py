"""A leaf of the transparency log, byte for byte as docs/transparency.md
gives it: a verifier outside the server rebuilds it from the hand's id and
its seal's link, so any other spelling would fail every inclusion proof."""

from __future__ import annotations

import hashlib

from feltline.audit.leaves import hand_leaf, hand_leaf_hash

HAND = "0b5e8f3c-6d2a-4f1e-9c7b-2a4d6e8f0a1c"
LINK = "ab" * 32


def test_a_leaf_is_the_canonical_json_of_the_hand_and_its_link() -> None:
    leaf = f'{{"hand":"{HAND}","link":"{LINK}"}}'.encode()
    assert hand_leaf(HAND, LINK) == leaf
    assert hand_leaf_hash(HAND, LINK) == hashlib.sha256(b"\x00" + leaf).digest()
