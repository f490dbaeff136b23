"""What a leaf of the transparency log is: one sealed hand.

A leaf is ``canonical({"hand": <hand id>, "link": <its seal's link>})``
(:func:`feltline.audit.codec.canonical`): the hand's id and the final link of
its chain, which covers every record of the hand. A verifier holding the
hand recomputes its leaf, and with an inclusion proof and a checkpoint knows
the log committed to exactly that hand; docs/transparency.md.
"""

from __future__ import annotations

from feltline.audit.codec import canonical
from feltline.audit.merkle import leaf_hash


def hand_leaf(hand: str, link: str) -> bytes:
    """The leaf of the hand ``hand`` (its UUID's text) sealed at ``link`` (hex)."""
    return canonical({"hand": hand, "link": link})


def hand_leaf_hash(hand: str, link: str) -> bytes:
    return leaf_hash(hand_leaf(hand, link))
