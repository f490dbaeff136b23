"""The order of a hand's deck, derived from a secret seed (``feltline-deck-v1``).

The server draws a 32-byte seed from the operating system's CSPRNG, publishes
:func:`commitment` before any card is dealt and reveals the seed when the hand
ends. Anyone can then re-derive every card from the seed alone, so this module
fixes the derivation exactly; ``docs/deck.md`` states it for outside verifiers.

Algorithm ``feltline-deck-v1``, for a seed, a purpose string and a list of
cards ``c[0..n-1]``:

1. Byte stream: block ``k`` (k = 0, 1, 2, ...) is
   ``HMAC-SHA256(key=seed, msg=UTF-8("feltline-deck-v1/" + purpose) || k)``,
   with ``k`` as 8 bytes big-endian. The stream is block 0, block 1, ...
2. Words: the stream read 4 bytes at a time, each as a big-endian unsigned
   32-bit integer ``w``.
3. Uniform draw from ``[0, m)``: let ``limit = (2**32 // m) * m``; take the
   next word ``w``, discard it and take another while ``w >= limit``; the
   result is ``w % m``. Discarding keeps every result equally likely.
4. Fisher-Yates: for ``i`` from ``n - 1`` down to ``1``, draw ``j`` from
   ``[0, i + 1)`` and swap ``c[i]`` with ``c[j]``. Each draw continues the same
   word stream.
5. The result is ``c`` after the swaps; ``c[0]`` is the top card.

Purpose ``"deck"`` orders the fresh deck (in index order, 52 or 53 cards).
A draw game that runs out of cards reshuffles with purposes ``"reshuffle/1"``,
``"reshuffle/2"``, ... applied to the cards being reshuffled in the order the
caller gives them, so each reshuffle is independent of the deck and of each
other yet fixed by the same seed.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence

from feltline.engine.cards import Card

DECK_ALGORITHM = "feltline-deck-v1"
SEED_BYTES = 32

_WORD_LIMIT = 2**32
_EIGHT_WORDS = struct.Struct(">8I").unpack  # a SHA-256 block as big-endian words


def commitment(seed: bytes) -> str:
    """The lowercase hex SHA-256 of the seed: published before the deal."""
    _check_seed(seed)
    return hashlib.sha256(seed).hexdigest()


def reshuffle_purpose(number: int) -> str:
    """The purpose of the ``number``-th reshuffle of a hand (1, 2, ...)."""
    if number < 1:
        raise ValueError(f"reshuffles are numbered from 1, not {number}")
    return f"reshuffle/{number}"


def words(seed: bytes, purpose: str) -> Iterator[int]:
    """The endless stream of 32-bit words for one purpose of one seed.

    The seed is checked here, not lazily, so a bad seed fails even when a
    shuffle of one card never reads a word.
    """
    _check_seed(seed)
    return _words(seed, f"{DECK_ALGORITHM}/{purpose}".encode())


def _words(seed: bytes, label: bytes) -> Iterator[int]:
    counter = 0
    while True:
        yield from _EIGHT_WORDS(hmac.digest(seed, label + counter.to_bytes(8, "big"), "sha256"))
        counter += 1


def draw(stream: Iterator[int], bound: int) -> int:
    """A uniform integer in ``[0, bound)``, rejecting words that would bias it."""
    if not 0 < bound <= _WORD_LIMIT:
        raise ValueError(f"cannot draw below {bound}")
    limit = (_WORD_LIMIT // bound) * bound
    for word in stream:
        if word < limit:
            return word % bound
    raise ValueError("the word stream ended before an unbiased word came")


def shuffle(seed: bytes, cards: Sequence[Card], purpose: str = "deck") -> tuple[Card, ...]:
    """``cards`` in the order the seed gives them for this purpose; index 0 is the top."""
    stream = words(seed, purpose)
    order = list(cards)
    for i in range(len(order) - 1, 0, -1):
        # draw(stream, i + 1), inlined: a deal runs this 51 times
        bound = i + 1
        limit = (_WORD_LIMIT // bound) * bound
        word = next(stream)
        while word >= limit:
            word = next(stream)
        j = word % bound
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def _check_seed(seed: bytes) -> None:
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a deck seed is exactly {SEED_BYTES} bytes, not {len(seed)}")
