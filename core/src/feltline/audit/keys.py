"""The server's Ed25519 key, which signs the last link of every hand.

The private key lives in a file (PKCS#8 PEM, readable by its owner only).
Only the server makes one, on a store's first start or when its operator
says a new key is meant (a new key means earlier hands are signed by
another): reading a key never makes one. Verifiers need only the public key,
exported as PEM or as the 32 raw bytes in hex that seals carry.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

log = logging.getLogger(__name__)


class KeyFileError(Exception):
    """There is no key file, or it holds no Ed25519 private key."""


class Signer:
    """Signs digests with one private key and names its public key."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.public_key = key.public_key()

    @classmethod
    def generate(cls) -> Signer:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def load(cls, path: Path) -> Signer:
        """The key at ``path``; :class:`KeyFileError` if there is none."""
        try:
            pem = path.read_bytes()
        except FileNotFoundError:
            raise KeyFileError(
                f"there is no key file at {path}: run `feltline serve` with the same "
                "FELTLINE_KEY_FILE first, or point FELTLINE_KEY_FILE at the server's key"
            ) from None
        try:
            loaded = serialization.load_pem_private_key(pem, password=None)
        except ValueError:
            loaded = None
        if not isinstance(loaded, Ed25519PrivateKey):
            raise KeyFileError(f"{path} does not hold an Ed25519 private key")
        return cls(loaded)

    @classmethod
    def create(cls, path: Path) -> Signer:
        """A new key, written to ``path``, which must not exist yet."""
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(pem)
        signer = cls(key)
        log.warning(
            "generated a new Ed25519 signing key at %s (public key %s)", path, signer.public_hex
        )
        return signer

    @property
    def public_hex(self) -> str:
        """The public key as 64 hex digits: its 32 raw bytes."""
        return self.public_key.public_bytes_raw().hex()

    @property
    def public_pem(self) -> str:
        """The public key as a PEM SubjectPublicKeyInfo block, for export."""
        return self.public_key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode()

    def sign(self, digest: bytes) -> bytes:
        return self._key.sign(digest)


def verify(public_hex: str, digest: bytes, signature_hex: str) -> bool:
    """Whether ``signature_hex`` is the key's Ed25519 signature of ``digest``."""
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
        key.verify(bytes.fromhex(signature_hex), digest)
    except (InvalidSignature, ValueError):
        return False
    return True
