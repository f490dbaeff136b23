"""Checkpoints, signed notes and cosignatures, byte for byte as C2SP and Go's
golang.org/x/mod/sumdb/note write them."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from feltline.audit.checkpoint import (
    COSIGNATURE,
    Checkpoint,
    Note,
    NoteError,
    NoteKey,
    cosign,
    cosigned,
    sign,
    verify,
)
from feltline.audit.keys import Signer

# The reference example of golang.org/x/mod/sumdb/note (note.go's documentation).
VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
SEED = base64.b64decode("AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz")[1:]
TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
SIGNED = (
    f"{TEXT}\n\u2014 PeterNeumann "
    "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
)
PETER = Signer(Ed25519PrivateKey.from_private_bytes(SEED))


def test_the_reference_note_signs_and_verifies_byte_for_byte() -> None:
    key = NoteKey.of("PeterNeumann", PETER)
    assert key.vkey == VKEY
    assert NoteKey.parse(VKEY) == key
    note = Note(TEXT).add(key, PETER.sign(TEXT.encode()))
    assert note.render() == SIGNED
    assert Note.parse(SIGNED) == note
    assert verify(Note.parse(SIGNED), key)


def test_a_changed_note_does_not_verify() -> None:
    key = NoteKey.parse(VKEY)
    assert not verify(Note.parse(SIGNED.replace("answer", "anwser")), key)
    assert not verify(Note.parse(SIGNED), NoteKey("PeterNeumann", bytes(32)))
    other = NoteKey.of("PeterNeumann", Signer.generate())
    assert not verify(Note.parse(SIGNED), other)


def test_a_checkpoint_reads_back_as_written() -> None:
    root = bytes(range(32))
    checkpoint = Checkpoint("example.com/log", 20852163, root)
    assert checkpoint.body == (
        "example.com/log\n20852163\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"
    )
    assert Checkpoint.parse(checkpoint.body) == checkpoint
    ext = Checkpoint("o", 0, root, ("extra line",))
    assert Checkpoint.parse(ext.body) == ext


@pytest.mark.parametrize(
    "body",
    [
        "o\n1\n",
        "o\n1\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        "o\n01\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n",
        "o\n-1\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n",
        "o\n1\nAAEC\n",
        "o\n1\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n\n",
    ],
)
def test_a_malformed_checkpoint_is_refused(body: str) -> None:
    with pytest.raises(NoteError):
        Checkpoint.parse(body)


def test_a_checkpoint_is_signed_and_cosigned() -> None:
    log, witness = Signer.generate(), Signer.generate()
    note = sign(Checkpoint("feltline.test/log", 3, bytes(32)), "feltline.test/log", log)
    witnessed = Note.parse(cosign(note, "w1.test", witness, 1_796_000_000).render())
    key = NoteKey.of("feltline.test/log", log)
    witness_key = NoteKey.of("w1.test", witness, COSIGNATURE)
    assert verify(witnessed, key)
    assert cosigned(witnessed, witness_key) == 1_796_000_000
    assert witnessed.checkpoint.size == 3
    # the cosignature signs cosignature/v1, its time and the checkpoint's text
    assert not verify(witnessed, NoteKey.of("w1.test", witness))
    moved = Note(witnessed.text.replace("\n3\n", "\n4\n"), witnessed.signatures)
    assert cosigned(moved, witness_key) is None
    assert not verify(moved, key)
    name, blob = witnessed.signatures[1]
    later = blob[:4] + (1_796_000_001).to_bytes(8, "big") + blob[12:]
    assert (
        cosigned(Note(witnessed.text, (witnessed.signatures[0], (name, later))), witness_key)
        is None
    )


@pytest.mark.parametrize(
    "note",
    [
        "o\n1\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n",
        "o\n\n- o AAAAAAA=\n",
        "o\n\n\u2014 o !!!\n",
        "o\n\n\u2014 o AAAAAAA=",
    ],
)
def test_a_malformed_note_is_refused(note: str) -> None:
    with pytest.raises(NoteError):
        Note.parse(note)


def test_each_refusal_says_why_word_for_word() -> None:
    """The register's and the verifier's errors quote these, so an operator
    or an auditor reads what is wrong with the text."""
    peter = NoteKey.parse(VKEY)
    wrong_type = "k+00000000+" + base64.b64encode(b"\x02" + bytes(32)).decode()
    root = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    calls: list[tuple[Callable[[], object], str]] = [
        (lambda: NoteKey("", peter.public), "a key name has no spaces and no '+': ''"),
        (lambda: NoteKey("a b", peter.public), "a key name has no spaces and no '+': 'a b'"),
        (lambda: NoteKey("a+b", peter.public), "a key name has no spaces and no '+': 'a+b'"),
        (lambda: NoteKey("ab", bytes(31)), "an Ed25519 public key is 32 bytes"),
        (lambda: NoteKey.parse(wrong_type), f"not an Ed25519 verifier key: {wrong_type!r}"),
        (lambda: NoteKey.parse(VKEY[:-4]), f"not an Ed25519 verifier key: {VKEY[:-4]!r}"),
        (lambda: NoteKey.parse(VKEY.replace("ARp", "AR!p")), "not an Ed25519 verifier key: "
         f"{VKEY.replace('ARp', 'AR!p')!r}"),
        (lambda: NoteKey.parse(VKEY.replace("c74f", "c75f")),
         f"the key id of {VKEY.replace('c74f', 'c75f')!r} is not its key's"),
        (lambda: Checkpoint.parse("o\n1\n"),
         "a checkpoint is three or more non-empty lines, each ending in \\n"),
        (lambda: Checkpoint.parse(f"o\n01\n{root}\n"),
         "a checkpoint's size is a decimal number, not '01'"),
        (lambda: Checkpoint.parse("o\n1\nAAEC\n"), "a checkpoint's root is 32 bytes in base64"),
        (lambda: Checkpoint.parse(f"o\n1\n!{root}\n"), "a checkpoint's root is 32 bytes in base64"),
        (lambda: Note.parse(SIGNED.rstrip("\n")),
         "a signed note is its text, a blank line and its signature lines"),
        (lambda: Note.parse(SIGNED.replace("\u2014 ", "")),
         f"not a signature line: {SIGNED.split(chr(10))[-2].replace(chr(0x2014) + ' ', '')!r}"),
        (lambda: Note.parse(SIGNED.replace("Peter", "Pe ter")),
         f"not a signature line: {SIGNED.split(chr(10))[-2].replace('Peter', 'Pe ter')!r}"),
        (lambda: Note.parse(SIGNED.replace(" x08", " !x08")),
         f"not a signature line: {SIGNED.split(chr(10))[-2].replace(' x08', ' !x08')!r}"),
    ]  # fmt: skip
    for call, reason in calls:
        with pytest.raises(NoteError) as refused:
            call()
        assert str(refused.value) == reason


def test_a_key_whose_base64_holds_a_plus_reads_back() -> None:
    """Only the first two '+' split a verifier key: base64 has '+' of its own."""
    key = NoteKey("k", bytes([0xFB]) * 32)
    assert "+" in key.vkey.split("+", 2)[2]
    assert NoteKey.parse(key.vkey) == key
    witness = NoteKey.of("w1.test", PETER, COSIGNATURE)
    assert base64.b64decode(witness.vkey.split("+", 2)[2])[0] == COSIGNATURE
    assert NoteKey.parse(witness.vkey) == witness


def test_a_note_splits_at_its_last_blank_line_as_go_reads_it() -> None:
    """golang.org/x/mod/sumdb/note: the text may hold a blank line, the
    signatures start after the last; a signature is a key id and one byte at least."""
    text = "first\n\nsecond\n"
    note = Note(text).add(NoteKey.parse(VKEY), PETER.sign(text.encode()))
    assert Note.parse(note.render()) == note
    assert verify(Note.parse(note.render()), NoteKey.parse(VKEY))
    shortest = f"{TEXT}\n\u2014 o {base64.b64encode(bytes(5)).decode()}\n"
    assert Note.parse(shortest).signatures == (("o", bytes(5)),)


def test_a_key_signs_a_note_once_and_only_its_own_signatures_count() -> None:
    peter, other = NoteKey.parse(VKEY), NoteKey.of("Other", Signer.generate())
    once = Note(TEXT).add(peter, b"old").add(other, b"theirs").add(peter, b"new")
    assert once.signatures == (
        ("Other", other.key_id + b"theirs"),
        ("PeterNeumann", peter.key_id + b"new"),
    )
    assert once.signed(peter) == [b"new"]
    renamed = NoteKey("Other", peter.public)
    assert Note(TEXT, (("Other", peter.key_id + b"x"),)).signed(renamed) == []


def test_a_cosignature_time_is_below_two_to_the_63() -> None:
    """tlog-cosignature: the timestamp is a uint64 below 2^63."""
    witness = NoteKey.of("w1.test", PETER, COSIGNATURE)
    note = sign(Checkpoint("o", 1, bytes(32)), "o", Signer.generate())
    assert cosigned(cosign(note, "w1.test", PETER, (1 << 63) - 1), witness) == (1 << 63) - 1
    assert cosigned(cosign(note, "w1.test", PETER, 1 << 63), witness) is None
