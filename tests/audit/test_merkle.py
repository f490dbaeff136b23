"""The Merkle tree against RFC 6962's reference vectors (transparency-dev/merkle,
proof/verify_test.go and rfc6962/rfc6962_test.go) and against itself: every
proof it makes verifies, and any change to one does not."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feltline.audit.merkle import (
    EMPTY_ROOT,
    ProofError,
    Tree,
    leaf_hash,
    node_hash,
    root_from_inclusion,
    verify_consistency,
    verify_inclusion,
)

LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243",
          "5051525354555657", "606162636465666768696a6b6c6d6e6f")]  # fmt: skip
ROOTS = [
    bytes.fromhex(h)
    for h in (
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    )
]


def h(*hexes: str) -> list[bytes]:
    return [bytes.fromhex(x) for x in hexes]


INCLUSION = [  # (index from 0, size, proof)
    (0, 8, h("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4")),
    (5, 8, h("bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7")),
    (2, 3, h("fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125")),
    (1, 5, h("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b")),
    (0, 1, []),
]  # fmt: skip

CONSISTENCY = [  # (first, second, proof)
    (1, 1, []),
    (1, 8, h("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4")),
    (6, 8, h("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7")),
    (2, 5, h("5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b")),
    (6, 7, h("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
             "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7")),
]  # fmt: skip

REFERENCE = Tree(leaf_hash(leaf) for leaf in LEAVES)


def test_hashes_are_rfc6962s() -> None:
    """rfc6962_test.go: the empty tree, a leaf and a node."""
    assert EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert leaf_hash(b"L123456").hex() == (
        "395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56"
    )
    assert node_hash(b"N123", b"N456").hex() == (
        "aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb"
    )


@pytest.mark.parametrize("size", range(1, 9))
def test_roots_are_the_references(size: int) -> None:
    assert REFERENCE.root(size) == ROOTS[size - 1]
    assert Tree(leaf_hash(x) for x in LEAVES[:size]).root() == ROOTS[size - 1]


@pytest.mark.parametrize(("index", "size", "proof"), INCLUSION)
def test_inclusion_proofs_are_the_references(index: int, size: int, proof: list[bytes]) -> None:
    assert REFERENCE.inclusion(index, size) == proof
    verify_inclusion(index, size, leaf_hash(LEAVES[index]), proof, ROOTS[size - 1])


@pytest.mark.parametrize(("first", "second", "proof"), CONSISTENCY)
def test_consistency_proofs_are_the_references(first: int, second: int, proof: list[bytes]) -> None:
    assert REFERENCE.consistency(first, second) == proof
    verify_consistency(first, second, ROOTS[first - 1], ROOTS[second - 1], proof)


@pytest.mark.parametrize(("index", "size", "proof"), INCLUSION[:4])
def test_a_corrupt_inclusion_proof_fails(index: int, size: int, proof: list[bytes]) -> None:
    """verify_test.go's corruptions: wrong index, size, leaf or root; garbage
    before or after; a component flipped, removed or inserted."""
    root, leaf = ROOTS[size - 1], leaf_hash(LEAVES[index])
    some = bytes.fromhex("abacaba000000000000000000000000000000000000000000060061e00123456")
    probes = [
        (index - 1, size, leaf, proof, root),
        (index + 1, size, leaf, proof, root),
        (index ^ 2, size, leaf, proof, root),
        (index, size * 2, leaf, proof, root),
        (index, size // 2, leaf, proof, root),
        (index, size, leaf_hash(b"WrongLeaf"), proof, root),
        (index, size, leaf, proof, EMPTY_ROOT),
        (index, size, leaf, proof, some),
        (index, size, leaf, [*proof, b""], root),
        (index, size, leaf, [*proof, root], root),
        (index, size, leaf, [b"", *proof], root),
        (index, size, leaf, [root, *proof], root),
        (index, size, leaf, proof[:-1], root),
        (index, size, leaf, [proof[0], some, *proof[1:]], root),
    ]
    for i in range(len(proof)):
        flipped = [bytes([p[0] ^ 8]) + p[1:] if j == i else p for j, p in enumerate(proof)]
        probes.append((index, size, leaf, flipped, root))
    for probe in probes:
        with pytest.raises(ProofError):
            verify_inclusion(*probe)


@pytest.mark.parametrize(("first", "second", "proof"), CONSISTENCY[1:])
def test_a_corrupt_consistency_proof_fails(first: int, second: int, proof: list[bytes]) -> None:
    r1, r2 = ROOTS[first - 1], ROOTS[second - 1]
    wrong = hashlib.sha256(b"WrongRoot").digest()
    probes = [
        (first - 1, second, r1, r2, proof),
        (first + 1, second, r1, r2, proof),
        (first ^ 2, second, r1, r2, proof),
        (first, second * 2, r1, r2, proof),
        (first, second // 2, r1, r2, proof),
        (first, second, wrong, r2, proof),
        (first, second, r1, wrong, proof),
        (first, second, r2, r1, proof),
        (first, second, r1, r2, []),
        (first, second, r1, r2, [*proof, b""]),
        (first, second, r1, r2, [*proof, r1]),
        (first, second, r1, r2, [*proof, r2]),
        (first, second, r1, r2, [b"", *proof]),
        (first, second, r1, r2, [r1, *proof]),
        (first, second, r1, r2, [r2, *proof]),
        (first, second, r1, r2, [proof[0], *proof]),
        (first, second, r1, r2, proof[:-1]),
    ]
    for i in range(len(proof)):
        flipped = [bytes([p[0] ^ 16]) + p[1:] if j == i else p for j, p in enumerate(proof)]
        probes.append((first, second, r1, r2, flipped))
    for probe in probes:
        with pytest.raises(ProofError):
            verify_consistency(*probe)


def test_trivial_consistency() -> None:
    """From the empty tree anything follows; equal sizes need equal roots."""
    verify_consistency(0, 5, EMPTY_ROOT, ROOTS[4], [])
    verify_consistency(3, 3, ROOTS[2], ROOTS[2], [])
    with pytest.raises(ProofError):
        verify_consistency(3, 3, ROOTS[2], ROOTS[3], [])
    with pytest.raises(ProofError):
        verify_consistency(4, 3, ROOTS[3], ROOTS[2], [])


sizes = st.integers(min_value=1, max_value=300)


@settings(max_examples=200, deadline=None)
@given(sizes, st.data())
def test_every_inclusion_proof_verifies_and_a_changed_one_does_not(
    size: int, data: st.DataObject
) -> None:
    tree = Tree(leaf_hash(i.to_bytes(4, "big")) for i in range(size))
    grown = data.draw(st.integers(min_value=size, max_value=size + 40))
    for i in range(size, grown):
        tree.append(leaf_hash(i.to_bytes(4, "big")))
    index = data.draw(st.integers(min_value=0, max_value=size - 1))
    proof = tree.inclusion(index, size)
    leaf = leaf_hash(index.to_bytes(4, "big"))
    assert root_from_inclusion(index, size, leaf, proof) == tree.root(size)
    if proof:
        at = data.draw(st.integers(min_value=0, max_value=len(proof) - 1))
        bit = data.draw(st.integers(min_value=0, max_value=255))
        changed = list(proof)
        changed[at] = bytes([changed[at][bit // 8] ^ (1 << bit % 8)]).join(
            [changed[at][: bit // 8], changed[at][bit // 8 + 1 :]]
        )
        with pytest.raises(ProofError):
            verify_inclusion(index, size, leaf, changed, tree.root(size))
    other = data.draw(st.integers(min_value=0, max_value=size - 1))
    if other != index:
        with pytest.raises(ProofError):
            verify_inclusion(other, size, leaf, proof, tree.root(size))


@settings(max_examples=200, deadline=None)
@given(sizes, st.data())
def test_every_consistency_proof_verifies_and_a_changed_one_does_not(
    second: int, data: st.DataObject
) -> None:
    tree = Tree(leaf_hash(i.to_bytes(4, "big")) for i in range(second))
    first = data.draw(st.integers(min_value=0, max_value=second))
    proof = tree.consistency(first, second)
    verify_consistency(first, second, tree.root(first), tree.root(second), proof)
    if proof:
        at = data.draw(st.integers(min_value=0, max_value=len(proof) - 1))
        changed = list(proof)
        changed[at] = bytes([changed[at][0] ^ 1]) + changed[at][1:]
        with pytest.raises(ProofError):
            verify_consistency(first, second, tree.root(first), tree.root(second), changed)
    if 0 < first < second:  # a fork: the same size with another last leaf
        forked = Tree([*tree.levels[0][: first - 1], leaf_hash(b"rewritten")])
        with pytest.raises(ProofError):
            verify_consistency(first, second, forked.root(), tree.root(second), proof)


def test_every_proof_of_the_reference_tree_verifies() -> None:
    """Every leaf of every tree of up to 8 leaves, and every pair of sizes:
    the paths that climb several levels at once (leaf 6 of 7) included."""
    for size in range(1, 9):
        for index in range(size):
            proof = REFERENCE.inclusion(index, size)
            verify_inclusion(index, size, leaf_hash(LEAVES[index]), proof, ROOTS[size - 1])
        for first in range(1, size + 1):
            proof = REFERENCE.consistency(first, size)
            verify_consistency(first, size, ROOTS[first - 1], ROOTS[size - 1], proof)
    tree = Tree()
    assert [tree.append(leaf_hash(leaf)) for leaf in LEAVES] == list(range(8))
    assert tree.inclusion(5) == REFERENCE.inclusion(5, 8)
    assert tree.consistency(6) == REFERENCE.consistency(6, 8)


def test_each_refusal_says_why_word_for_word() -> None:
    """The verifier's report quotes these (feltline_replay.transparency), so
    an auditor reads which part of a proof is wrong."""
    index, size, proof = INCLUSION[1]
    leaf, root = leaf_hash(LEAVES[index]), ROOTS[size - 1]
    inclusion = [
        ((index, size, b"short", proof, root), "a hash is not 32 bytes"),
        ((index, size, leaf, [*proof[:2], b""], root), "a hash is not 32 bytes"),
        ((size, size, leaf, proof, root), "no leaf 8 in a tree of 8 leaves"),
        ((index, size, leaf, [*proof, root], root), "the inclusion proof is too long"),
        ((index, size, leaf, proof[:-1], root), "the inclusion proof is too short"),
        (
            (index, size, leaf_hash(b"WrongLeaf"), proof, root),
            "leaf 5 is not in the tree of 8 leaves with that root",
        ),
    ]
    for args, reason in inclusion:
        with pytest.raises(ProofError) as refused:
            verify_inclusion(*args)
        assert str(refused.value) == reason
    first, second, proof = CONSISTENCY[2]
    r1, r2 = ROOTS[first - 1], ROOTS[second - 1]
    wrong = hashlib.sha256(b"WrongRoot").digest()
    consistency = [
        ((first, second, b"short", r2, proof), "a hash is not 32 bytes"),
        ((first, second, r1, b"short", proof), "a hash is not 32 bytes"),
        ((second, first, r2, r1, proof), "a tree of 6 leaves cannot extend one of 8"),
        ((first, first, r1, r2, []), "two trees of 6 leaves with different roots"),
        ((0, second, EMPTY_ROOT, r2, [r2]), "a proof from the empty tree must be empty"),
        ((first, second, r1, r2, []), "the consistency proof is empty"),
        ((first, second, r1, r2, [*proof, r1]), "the consistency proof is too long"),
        ((first, second, r1, r2, proof[:-1]), "the consistency proof is too short"),
        (
            (first, second, wrong, r2, proof),
            "the proof does not lead to the root of the tree of 6 leaves",
        ),
        (
            (first, second, r1, wrong, proof),
            "the proof does not lead to the root of the tree of 8 leaves",
        ),
    ]
    for sizes_roots_proof, reason in consistency:
        with pytest.raises(ProofError) as refused:
            verify_consistency(*sizes_roots_proof)
        assert str(refused.value) == reason
    calls: list[tuple[Callable[[], object], str]] = [
        (lambda: REFERENCE.root(9), "the tree has 8 leaves, not 9"),
        (lambda: REFERENCE.inclusion(8, 8), "no leaf 8 in a tree of 8 leaves"),
        (lambda: REFERENCE.consistency(6, 9), "no consistency from 6 leaves to 9"),
    ]
    for call, reason in calls:
        with pytest.raises(ValueError, match=f"^{reason}$"):
            call()
