"""The transparency log's Merkle tree: RFC 6962 (and RFC 9162) hashing,
inclusion and consistency proofs, and their verification.

A leaf hashes as ``SHA-256(0x00 || leaf)`` and a node as
``SHA-256(0x01 || left || right)``; a tree of ``n`` leaves splits at the
largest power of two below ``n``. The few dozen lines are ours: no Python
library of RFC 6962 on PyPI is kept by a transparency project (the
reference ones are Go: transparency-dev/merkle, certificate-transparency-go),
and the verifier must stay installable with nothing but the engine and
``cryptography``. The tests check this module against transparency-dev's
reference vectors.

:class:`Tree` keeps the hash of every complete aligned subtree, so a root
or a proof costs O(log² n) hashes at most, however large the tree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


class Tree:
    """An append-only tree of leaf hashes; ``levels[k][i]`` is the hash of
    the complete subtree over leaves ``i·2^k`` to ``(i+1)·2^k - 1``."""

    def __init__(self, leaf_hashes: Iterable[bytes] = ()) -> None:
        self.levels: list[list[bytes]] = [[]]
        for hashed in leaf_hashes:
            self.append(hashed)

    @property
    def size(self) -> int:
        return len(self.levels[0])

    def append(self, hashed: bytes) -> int:
        """Add a leaf by its hash; its index."""
        self.levels[0].append(hashed)
        level = 0
        while len(self.levels[level]) % 2 == 0:
            pair = self.levels[level][-2:]
            if level + 1 == len(self.levels):
                self.levels.append([])
            self.levels[level + 1].append(node_hash(pair[0], pair[1]))
            level += 1
        return self.size - 1

    def root(self, size: int | None = None) -> bytes:
        """The root of the tree's first ``size`` leaves (all by default)."""
        size = self.size if size is None else size
        if not 0 <= size <= self.size:
            raise ValueError(f"the tree has {self.size} leaves, not {size}")
        return self._hash(0, size) if size else EMPTY_ROOT

    def _hash(self, start: int, n: int) -> bytes:
        """The hash of the ``n`` leaves from ``start``, where ``start`` is a
        multiple of the largest power of two not above ``n`` (as RFC 6962's
        recursion always has it)."""
        if n & (n - 1) == 0:
            level = n.bit_length() - 1
            return self.levels[level][start >> level]
        k = _split(n)
        return node_hash(self._hash(start, k), self._hash(start + k, n - k))

    def inclusion(self, index: int, size: int | None = None) -> list[bytes]:
        """RFC 6962's audit path of leaf ``index`` in the tree of ``size`` leaves."""
        size = self.size if size is None else size
        if not 0 <= index < size <= self.size:
            raise ValueError(f"no leaf {index} in a tree of {size} leaves")
        path: list[bytes] = []
        start, n, m = 0, size, index
        while n > 1:
            k = _split(n)
            if m < k:
                path.append(self._hash(start + k, n - k))
                n = k
            else:
                path.append(self._hash(start, k))
                start, n, m = start + k, n - k, m - k
        path.reverse()
        return path

    def consistency(self, first: int, second: int | None = None) -> list[bytes]:
        """RFC 6962's consistency proof from the tree of ``first`` leaves to
        the tree of ``second`` (empty when either is trivially consistent)."""
        second = self.size if second is None else second
        if not 0 <= first <= second <= self.size:
            raise ValueError(f"no consistency from {first} leaves to {second}")
        if first in (0, second):
            return []
        proof: list[bytes] = []
        start, n, m, whole = 0, second, first, True
        while m != n:
            k = _split(n)
            if m <= k:
                proof.append(self._hash(start + k, n - k))
                n = k
            else:
                proof.append(self._hash(start, k))
                start, n, m, whole = start + k, n - k, m - k, False
        if not whole:
            proof.append(self._hash(start, n))
        proof.reverse()
        return proof


class ProofError(Exception):
    """A proof that does not prove what it claims."""


def _hashes(proof: Sequence[bytes], *roots: bytes) -> None:
    if any(len(h) != HASH_SIZE for h in (*proof, *roots)):
        raise ProofError("a hash is not 32 bytes")


def root_from_inclusion(index: int, size: int, hashed: bytes, proof: Sequence[bytes]) -> bytes:
    """The root that leaf hash ``hashed`` at ``index`` and its audit path
    imply for a tree of ``size`` leaves (RFC 9162, 2.1.3.2)."""
    _hashes(proof, hashed)
    if not 0 <= index < size:
        raise ProofError(f"no leaf {index} in a tree of {size} leaves")
    fn, sn, r = index, size - 1, hashed
    for p in proof:
        if sn == 0:
            raise ProofError("the inclusion proof is too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the inclusion proof is too short")
    return r


def verify_inclusion(
    index: int, size: int, hashed: bytes, proof: Sequence[bytes], root: bytes
) -> None:
    """Raise :class:`ProofError` unless the leaf hash is leaf ``index`` of the tree."""
    if root_from_inclusion(index, size, hashed, proof) != root:
        raise ProofError(f"leaf {index} is not in the tree of {size} leaves with that root")


def verify_consistency(
    first: int, second: int, first_root: bytes, second_root: bytes, proof: Sequence[bytes]
) -> None:
    """Raise :class:`ProofError` unless the tree of ``first`` leaves with
    ``first_root`` is a prefix of the one of ``second`` leaves with
    ``second_root`` (RFC 9162, 2.1.4.2)."""
    _hashes(proof, first_root, second_root)
    if not 0 <= first <= second:
        raise ProofError(f"a tree of {second} leaves cannot extend one of {first}")
    if first == second:
        if proof or first_root != second_root:
            raise ProofError(f"two trees of {first} leaves with different roots")
        return
    if first == 0:
        if proof:
            raise ProofError("a proof from the empty tree must be empty")
        return
    if not proof:
        raise ProofError("the consistency proof is empty")
    path = list(proof)
    if first & (first - 1) == 0:
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is too long")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the consistency proof is too short")
    if fr != first_root:
        raise ProofError(f"the proof does not lead to the root of the tree of {first} leaves")
    if sr != second_root:
        raise ProofError(f"the proof does not lead to the root of the tree of {second} leaves")
