"""The server's keys: which Ed25519 keys have signed this store's streams.

A store is signed by one key at a time. Replacing it (the old key file
lost, or rotated on purpose) is an operator's decision, recorded as a
:class:`KeyAdopted` event in a stream of its own, chained and signed like
every stream. A rotation's adoption is signed by the key it retires, which
so introduces its successor, and the new key then signs a
:class:`KeyAccepted` after it, covering the whole history: a verifier
trusting either the first key or the newest follows the history to every
key (docs/audit.md). An adoption with ``--new-key`` (the old key lost) is
signed by the key it adopts alone, and nothing proves it from the old one.
The streams signed by an earlier key stay trusted; a key the store never
adopted is not, and because this stream's last record must be signed by
the key the server holds (or the one it replaced), nobody without those
can add a key to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar
from uuid import UUID

from feltline.audit import chain
from feltline.domain.chained import Signed, follow
from feltline.domain.ids import server_keys_id
from feltline.engine.hand.fast import replace

K = TypeVar("K", "KeyAdopted", "KeyAccepted", "KeyRevoked")


@dataclass(frozen=True)
class KeyAdopted(Signed):
    """From this event on, ``public_key`` (64 hex digits) signs the store;
    ``replaces`` is the key it takes over from ("" for the first)."""

    originator_id: UUID
    originator_version: int
    public_key: str
    replaces: str
    reason: str
    link: str

    def chained(self) -> dict[str, str]:
        return {"public_key": self.public_key, "replaces": self.replaces, "reason": self.reason}


@dataclass(frozen=True)
class KeyAccepted(Signed):
    """``public_key``, just adopted by rotation, signs the history that
    introduced it: proof that its holder has it, and a signature by the
    newest key over every key before it."""

    originator_id: UUID
    originator_version: int
    public_key: str
    link: str

    def chained(self) -> dict[str, str]:
        return {"public_key": self.public_key}


@dataclass(frozen=True)
class KeyRevoked(Signed):
    """``public_key`` is compromised: whatever it signed at or after
    notification ``since`` (a place in the store's whole log) is not to be
    trusted, though it stays trusted for what it signed before."""

    originator_id: UUID
    originator_version: int
    public_key: str
    since: int
    reason: str
    link: str

    def chained(self) -> dict[str, str | int]:
        return {"public_key": self.public_key, "since": self.since, "reason": self.reason}


KeyRecord = KeyAdopted | KeyAccepted | KeyRevoked
KEY_RECORDS = (KeyAdopted, KeyAccepted, KeyRevoked)


@dataclass(frozen=True)
class Keys:
    """Every key the store has adopted, in order; the last signs it now."""

    id: UUID
    version: int
    adopted: tuple[str, ...]
    revoked: tuple[tuple[str, int], ...] = ()  # each key revoked, and from which notification
    link: bytes = chain.GENESIS
    signer: str = ""

    @classmethod
    def new(cls) -> Keys:
        return cls(server_keys_id(), 0, ())

    @property
    def current(self) -> str:
        """The key that signs the store now ("" before the first)."""
        return self.adopted[-1] if self.adopted else ""

    def adopt(self, public_key: str, reason: str) -> KeyAdopted:
        """The event that makes ``public_key`` the store's key, chained after the last."""
        return self._linked(
            KeyAdopted(self.id, self.version + 1, public_key, self.current, reason, "")
        )

    def revoke(self, public_key: str, since: int, reason: str) -> KeyRevoked:
        """The event that revokes ``public_key`` from notification ``since`` on."""
        return self._linked(KeyRevoked(self.id, self.version + 1, public_key, since, reason, ""))

    def accept(self) -> KeyAccepted:
        """The event by which the current key signs the history so far."""
        return self._linked(KeyAccepted(self.id, self.version + 1, self.current, ""))

    def _linked(self, event: K) -> K:
        link = chain.link(
            self.link,
            kind="server",
            stream=str(self.id),
            position=event.originator_version,
            name=type(event).__name__,
            version=1,
            data=event.chained(),
        )
        return replace(event, link=link.hex())

    def apply(self, event: KeyRecord) -> Keys:
        if event.originator_version != self.version + 1:
            raise ValueError(f"keys: event {event.originator_version} follows {self.version}")
        link = follow(
            self.link,
            event,
            event.link,
            kind="server",
            stream=self.id,
            position=event.originator_version,
            name=type(event).__name__,
            version=1,
            data=event.chained(),
        )
        adopted = isinstance(event, KeyAdopted)
        revoked = self.revoked
        if isinstance(event, KeyRevoked):
            revoked = (*revoked, (event.public_key, event.since))
        return replace(
            self,
            version=event.originator_version,
            adopted=(*self.adopted, event.public_key) if adopted else self.adopted,
            revoked=revoked,
            link=link,
            signer=event.signed_by if event.signature else "",
        )


def project(keys: Keys | None, events: Iterable[KeyRecord]) -> Keys | None:
    for event in events:
        keys = (keys or Keys.new()).apply(event)
    return keys
