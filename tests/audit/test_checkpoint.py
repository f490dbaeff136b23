"""Checkpoints, signed notes and cosignatures, byte for byte as C2SP and Go's
golang.org/x/mod/sumdb/note write them."""

from __future__ import annotations

import base64

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
