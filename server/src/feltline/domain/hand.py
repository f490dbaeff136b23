"""One stream per hand: the engine's events as stored, chained and sealed.

:class:`HandStream` is an immutable aggregate. Its command method returns the
new stored events and changes nothing; :func:`project` rebuilds it from stored
events, re-checking every chain link and the seal on the way, so a tampered
hand fails to load instead of replaying something it never was.

A command carries a client-chosen id. The stream remembers, per id, a
fingerprint of the command and the engine events it caused, so a repeat gives
the same answer without a second event and a different command under a used
id is refused.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from uuid import UUID

from feltline.audit import chain, keys
from feltline.audit.codec import JSON, canonical, decode_event, encode_command, encode_event
from feltline.engine.commands import Command, StartHand
from feltline.engine.events import Event, HandEnded
from feltline.engine.evolve import evolve
from feltline.engine.hand import NEW_HAND, decide
from feltline.engine.state import Hand


class TamperedError(Exception):
    """A stored hand does not match its chain or its seal."""


class CommandIdReused(Exception):
    """A command id already stands for a different command in this hand."""


@dataclass(frozen=True)
class Recorded:
    """One engine event as stored: its codec name, version and data, the chain
    link after it, and the client's command id with the command's fingerprint."""

    originator_id: UUID
    originator_version: int
    type: str
    version: int
    data: dict[str, JSON]
    link: str
    command_id: str
    fingerprint: str


@dataclass(frozen=True)
class Sealed:
    """The last stored event of an ended hand: its final link, signed."""

    originator_id: UUID
    originator_version: int
    algorithm: str
    link: str
    signature: str
    public_key: str


StoredHandEvent = Recorded | Sealed


@dataclass(frozen=True)
class HandStream:
    id: UUID
    version: int
    hand: Hand
    link: bytes
    commands: Mapping[str, tuple[str, tuple[Event, ...]]]
    seal: Sealed | None = None

    @classmethod
    def new(cls, hand_id: UUID) -> HandStream:
        return cls(hand_id, 0, NEW_HAND, chain.GENESIS, MappingProxyType({}))

    def repeat(self, command_id: str, command: Command) -> tuple[Event, ...] | None:
        """The events a command already caused, or None if the id is new."""
        if command_id not in self.commands:
            return None
        fingerprint, events = self.commands[command_id]
        if fingerprint != _fingerprint(command):
            raise CommandIdReused(
                f"command id {command_id!r} was used for another command in hand {self.id}"
            )
        return events

    def execute(
        self, command_id: str, command: Command, signer: keys.Signer
    ) -> list[StoredHandEvent]:
        """The stored events the engine decides on; a seal follows the hand's end."""
        events = decide(self.hand, command)
        stored: list[StoredHandEvent] = []
        link = self.link
        fingerprint = _fingerprint(command)
        for position, event in enumerate(events, self.version + 1):
            name, version, data = encode_event(event)
            link = chain.link(
                link, hand=str(self.id), position=position, name=name, version=version, data=data
            )
            stored.append(
                Recorded(
                    self.id, position, name, version, data, link.hex(), command_id, fingerprint
                )
            )
        if isinstance(events[-1], HandEnded):
            stored.append(
                Sealed(
                    self.id,
                    self.version + len(events) + 1,
                    chain.CHAIN_ALGORITHM,
                    link.hex(),
                    signer.sign(link).hex(),
                    signer.public_hex,
                )
            )
        return stored

    def apply(self, stored: StoredHandEvent) -> HandStream:
        """The stream after one stored event, which must fit its chain and seal."""
        if stored.originator_version != self.version + 1:
            raise TamperedError(
                f"hand {self.id}: event {stored.originator_version} follows {self.version}"
            )
        if isinstance(stored, Sealed):
            return self._sealed(stored)
        if self.seal is not None:
            raise TamperedError(f"hand {self.id}: an event follows the seal")
        link = chain.link(
            self.link,
            hand=str(self.id),
            position=stored.originator_version,
            name=stored.type,
            version=stored.version,
            data=stored.data,
        )
        if link.hex() != stored.link:
            raise TamperedError(
                f"hand {self.id}: event {stored.originator_version} does not match its chain link"
            )
        try:
            event = decode_event(stored.type, stored.version, stored.data)
        except ValueError as e:
            raise TamperedError(f"hand {self.id}: event {stored.originator_version}: {e}") from e
        done = self.commands.get(stored.command_id, (stored.fingerprint, ()))[1]
        commands = {**self.commands, stored.command_id: (stored.fingerprint, (*done, event))}
        return replace(
            self,
            version=stored.originator_version,
            hand=evolve(self.hand, event),
            link=link,
            commands=MappingProxyType(commands),
        )

    def _sealed(self, seal: Sealed) -> HandStream:
        if seal.link != self.link.hex() or seal.algorithm != chain.CHAIN_ALGORITHM:
            raise TamperedError(f"hand {self.id}: the seal is not over the last link")
        if not keys.verify(seal.public_key, self.link, seal.signature):
            raise TamperedError(f"hand {self.id}: the seal's signature does not verify")
        return replace(self, version=seal.originator_version, seal=seal)


def project(stream: HandStream | None, stored: Iterable[StoredHandEvent]) -> HandStream | None:
    """Fold stored events into a stream, checking chain and seal as it goes."""
    for event in stored:
        stream = (stream or HandStream.new(event.originator_id)).apply(event)
    return stream


def _fingerprint(command: Command) -> str:
    """What makes two commands the same: everything but a hand's seed, which
    the server draws afresh for every attempt."""
    if isinstance(command, StartHand):
        command = replace(command, seed=b"")
    data: JSON = encode_command(command)
    return hashlib.sha256(canonical(data)).hexdigest()
