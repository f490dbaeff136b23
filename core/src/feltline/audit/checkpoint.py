"""Checkpoints of the transparency log, as C2SP writes them: the text of a
``tlog-checkpoint`` (origin line, tree size, base64 root hash), signed as a
C2SP ``signed-note`` by the server's Ed25519 key, and cosigned by witnesses
as a ``tlog-cosignature`` (v1). Byte for byte what other tlog tools read,
so any C2SP witness or client works with Feltline's log; docs/transparency.md
states it for writers of other verifiers.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from feltline.audit.keys import Signer

ED25519 = 0x01  # signed-note's signature type of an Ed25519 note key
COSIGNATURE = 0x04  # tlog-cosignature's signature type of an Ed25519 cosigner key
DASH = "\u2014 "  # an em dash and a space begin every signature line
COSIGNED = "cosignature/v1\n"


class NoteError(Exception):
    """Text that is not a well-formed checkpoint or signed note."""


@dataclass(frozen=True)
class NoteKey:
    """A note verifier key: a name, a signature type and 32 raw public key bytes."""

    name: str
    public: bytes
    kind: int = ED25519

    def __post_init__(self) -> None:
        if not self.name or any(c.isspace() or c == "+" for c in self.name):
            raise NoteError(f"a key name has no spaces and no '+': {self.name!r}")
        if len(self.public) != 32:
            raise NoteError("an Ed25519 public key is 32 bytes")

    @classmethod
    def of(cls, name: str, signer: Signer, kind: int = ED25519) -> NoteKey:
        return cls(name, signer.public_key.public_bytes_raw(), kind)

    @property
    def key_id(self) -> bytes:
        """``SHA-256(name || "\\n" || type || public key)[:4]``."""
        return hashlib.sha256(
            f"{self.name}\n".encode() + bytes([self.kind]) + self.public
        ).digest()[:4]

    @property
    def vkey(self) -> str:
        """The verifier key's text: ``name+hex key id+base64(type || key)``."""
        material = base64.b64encode(bytes([self.kind]) + self.public).decode()
        return f"{self.name}+{self.key_id.hex()}+{material}"

    @classmethod
    def parse(cls, vkey: str) -> NoteKey:
        name, key_id, material = [*vkey.split("+", 2), "", ""][:3]
        try:
            raw = base64.b64decode(material, validate=True)
        except binascii.Error:
            raw = b""
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE):
            raise NoteError(f"not an Ed25519 verifier key: {vkey!r}")
        key = cls(name, raw[1:], raw[0])
        if key.key_id.hex() != key_id:
            raise NoteError(f"the key id of {vkey!r} is not its key's")
        return key

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class Checkpoint:
    """A tree's size and root under the log's origin line."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    @property
    def body(self) -> str:
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode()]
        return "".join(f"{line}\n" for line in (*lines, *self.extensions))

    @classmethod
    def parse(cls, body: str) -> Checkpoint:
        lines = body.split("\n")
        if len(lines) < 4 or lines[-1] != "" or any(not line for line in lines[:-1]):
            raise NoteError("a checkpoint is three or more non-empty lines, each ending in \\n")
        origin, size, root = lines[:3]
        if not size.isdigit() or (size != "0" and size.startswith("0")) or not size.isascii():
            raise NoteError(f"a checkpoint's size is a decimal number, not {size!r}")
        try:
            hashed = base64.b64decode(root, validate=True)
        except binascii.Error:
            hashed = b""
        if len(hashed) != 32:
            raise NoteError("a checkpoint's root is 32 bytes in base64")
        return cls(origin, int(size), hashed, tuple(lines[3:-1]))


@dataclass(frozen=True)
class Note:
    """A signed note: its text (ending in a newline) and its signature
    lines, each a key name and base64 of key id then signature."""

    text: str
    signatures: tuple[tuple[str, bytes], ...] = field(default=())

    def render(self) -> str:
        lines = (
            f"{DASH}{name} {base64.b64encode(blob).decode()}\n" for name, blob in self.signatures
        )
        return f"{self.text}\n{''.join(lines)}"

    @classmethod
    def parse(cls, note: str) -> Note:
        text, sep, block = note.rpartition("\n\n")
        if not sep or not block.endswith("\n"):
            raise NoteError("a signed note is its text, a blank line and its signature lines")
        signatures = []
        for line in block[:-1].split("\n"):
            name, _, blob = line.removeprefix(DASH).partition(" ")
            try:
                raw = base64.b64decode(blob, validate=True)
            except binascii.Error:
                raw = b""
            if not line.startswith(DASH) or not name or len(raw) < 5:
                raise NoteError(f"not a signature line: {line!r}")
            signatures.append((name, raw))
        return cls(text + "\n", tuple(signatures))

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint.parse(self.text)

    def signed(self, key: NoteKey) -> list[bytes]:
        """The signatures (less the key id) under ``key``'s name and key id."""
        return [
            blob[4:]
            for name, blob in self.signatures
            if name == key.name and blob[:4] == key.key_id
        ]

    def add(self, key: NoteKey, signature: bytes) -> Note:
        kept = tuple(s for s in self.signatures if (s[0], s[1][:4]) != (key.name, key.key_id))
        return Note(self.text, (*kept, (key.name, key.key_id + signature)))


def sign(checkpoint: Checkpoint, name: str, signer: Signer) -> Note:
    """The checkpoint as a note signed by ``signer`` under the key name ``name``."""
    key = NoteKey.of(name, signer)
    return Note(checkpoint.body).add(key, signer.sign(checkpoint.body.encode()))


def verify(note: Note, key: NoteKey) -> bool:
    """Whether the note carries a valid signature by ``key``."""
    return any(key.verify(note.text.encode(), s) for s in note.signed(key))


def _cosigned(text: str, timestamp: int) -> bytes:
    return f"{COSIGNED}time {timestamp}\n{text}".encode()


def cosign(note: Note, name: str, signer: Signer, timestamp: int) -> Note:
    """The note with a witness's ``tlog-cosignature`` (v1) at ``timestamp``
    (whole seconds since the epoch) added."""
    key = NoteKey.of(name, signer, COSIGNATURE)
    signature = signer.sign(_cosigned(note.text, timestamp))
    return note.add(key, timestamp.to_bytes(8, "big") + signature)


def cosigned(note: Note, key: NoteKey) -> int | None:
    """The time of a valid cosignature by the witness ``key``, or None."""
    for blob in note.signed(key):
        if len(blob) == 72:
            timestamp = int.from_bytes(blob[:8], "big")
            if timestamp < 1 << 63 and key.verify(_cosigned(note.text, timestamp), blob[8:]):
                return timestamp
    return None
