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

Algorithm ``feltline-deck-v2`` lets the seats dealt in add entropy the
server cannot know when it commits (:func:`deck_seed`): the deck seed is
``HMAC-SHA256(key=server seed, msg=UTF-8("feltline-deck-v2") || seat ||
contribution || ...)`` over the revealed contributions in seat order (each
seat as 4 bytes big-endian, each contribution 32 bytes), and everything
above then runs on the deck seed instead of the server's seed.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from feltline.engine.cards.card import Card

if TYPE_CHECKING:
    from _hashlib import HASH

DECK_ALGORITHM = "feltline-deck-v1"
CONTRIBUTED_ALGORITHM = "feltline-deck-v2"
ALGORITHMS = (DECK_ALGORITHM, CONTRIBUTED_ALGORITHM)
SEED_BYTES = 32

_WORD_LIMIT = 2**32
_EIGHT_WORDS = struct.Struct(">8I").unpack  # a SHA-256 block as big-endian words
# HMAC's key pads (RFC 2104) as byte translations: key.translate(_INNER_PAD)
# is the key XOR 0x36 byte by byte, as the hmac module makes them.
_INNER_PAD = bytes(b ^ 0x36 for b in range(256))
_OUTER_PAD = bytes(b ^ 0x5C for b in range(256))


def commitment(seed: bytes) -> str:
    """The lowercase hex SHA-256 of the seed: published before the deal."""
    _check_seed(seed)
    return hashlib.sha256(seed).hexdigest()


def deck_seed(seed: bytes, contributions: Mapping[int, bytes]) -> bytes:
    """The seed a ``feltline-deck-v2`` deck is shuffled from: the server's
    ``seed`` mixed with each seat's revealed contribution, in seat order.

    The server commits to ``seed`` before any seat commits, and each seat
    commits before it sees another's contribution, so nobody knows this
    value until the last reveal, and nobody alone can choose it."""
    _check_seed(seed)
    message = bytearray(CONTRIBUTED_ALGORITHM.encode())
    for seat in sorted(contributions):
        contribution = contributions[seat]
        if not 0 <= seat < 2**32:
            raise ValueError(f"a seat is numbered from 0 to 2**32 - 1, not {seat}")
        if len(contribution) != SEED_BYTES:
            raise ValueError(
                f"seat {seat}'s contribution is exactly {SEED_BYTES} bytes, not {len(contribution)}"
            )
        message += seat.to_bytes(4, "big") + contribution
    return hmac.digest(seed, bytes(message), "sha256")


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
    keyed = _keyed(seed)
    counter = 0
    while True:
        yield from _EIGHT_WORDS(_block(keyed, label, counter))
        counter += 1


def _keyed(seed: bytes) -> tuple[HASH, HASH]:
    """SHA-256 having read the seed's inner and outer HMAC pads, for
    :func:`_block` to copy: hashed once a shuffle, not once a block (a
    32-byte seed is its own padded key, no longer than a SHA-256 block)."""
    key = seed.ljust(64, b"\0")
    return hashlib.sha256(key.translate(_INNER_PAD)), hashlib.sha256(key.translate(_OUTER_PAD))


def _block(keyed: tuple[HASH, HASH], label: bytes, counter: int) -> bytes:
    """Block ``counter``: HMAC-SHA256(seed, label || counter), as RFC 2104
    defines it, twice as fast as ``hmac.digest`` per call."""
    inner, outer = keyed[0].copy(), keyed[1].copy()
    inner.update(label + counter.to_bytes(8, "big"))
    outer.update(inner.digest())
    return outer.digest()


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
    _check_seed(seed)
    order = list(cards)
    n = len(order)
    if n < 2:
        return tuple(order)
    # A draw below ``bound`` rejects only words of 2**32 - (2**32 % bound) or
    # more, so words up to 2**32 - n are never rejected by any bound up to n:
    # then draw k takes word k, and the words are made in one go. Otherwise
    # (about one deal in two million) the stream is read word by word.
    first = _first_words(seed, f"{DECK_ALGORITHM}/{purpose}".encode(), n - 1)
    if max(first) > _WORD_LIMIT - n:
        return fisher_yates(words(seed, purpose), order)
    for i, word in zip(range(n - 1, 0, -1), first, strict=True):
        j = word % (i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def fisher_yates(stream: Iterator[int], cards: Sequence[Card]) -> tuple[Card, ...]:
    """Step 4 word by word: ``cards`` shuffled by draws from ``stream``."""
    order = list(cards)
    for i in range(len(order) - 1, 0, -1):
        j = draw(stream, i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def _first_words(seed: bytes, label: bytes, count: int) -> tuple[int, ...]:
    """The stream's first ``count`` words."""
    keyed = _keyed(seed)
    blocks = -(-count // 8)
    stream = b"".join([_block(keyed, label, k) for k in range(blocks)])
    return struct.unpack(f">{8 * blocks}I", stream)[:count]


def _check_seed(seed: bytes) -> None:
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a deck seed is exactly {SEED_BYTES} bytes, not {len(seed)}")
