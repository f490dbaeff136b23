"""The hands application: run a command against a hand's stream and store
whatever the engine decided, exactly once, or fail loudly."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import replace
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError, MapperDeserialisationError

from feltline.audit.keys import Signer
from feltline.domain.chained import TamperedError, sign
from feltline.domain.hand import HandStream, project
from feltline.engine.commands import Command, StartHand
from feltline.engine.deck import SEED_BYTES
from feltline.engine.events import Event


class Conflict(Exception):
    """Another writer stored events in this hand first; run the command again
    to decide it against the new state."""


class Hands(Application[UUID]):
    """Hands by id. Every method re-reads the stream: the database, not this
    process, decides who wrote first."""

    def __init__(self, signer: Signer, env: Mapping[str, str] | None = None) -> None:
        super().__init__(env)
        self.signer = signer
        self.trusted = frozenset({signer.public_hex})  # the keys the store was signed with

    def get(self, hand_id: UUID) -> HandStream:
        """The hand's stream, checked link by link and against this server's
        key; a new one if none is stored."""
        try:
            stream: HandStream = self.repository.get(hand_id, projector_func=project)
        except AggregateNotFoundError:
            return HandStream.new(hand_id)
        except MapperDeserialisationError as e:
            raise TamperedError(f"hand {hand_id}: a stored event does not decode: {e}") from e
        self.vouch("hand", hand_id, stream.signer)
        return stream

    def vouch(
        self, kind: str, stream_id: UUID, signer: str, *, trusted: frozenset[str] | None = None
    ) -> None:
        """Refuse a stream whose last record is not signed, or is signed by
        a key this server does not trust (the store's keys, or ``trusted``):
        its chain then proves nothing."""
        if not signer:
            raise TamperedError(f"{kind} {stream_id}: its last stored event is not signed")
        if signer not in (self.trusted if trusted is None else trusted):
            raise TamperedError(
                f"{kind} {stream_id} is signed by key {signer}, "
                f"not by this server's key {self.signer.public_hex}"
            )

    def execute(
        self, hand_id: UUID, command_id: str, command: Command, *, at: int
    ) -> tuple[Event, ...]:
        """The engine events the command caused, stored with the command's
        time ``at``; the same events again, with nothing stored, when the
        command id was seen before.

        A ``StartHand`` gets a fresh seed from the OS CSPRNG here, whatever
        seed it came with: only the commitment is public until the hand ends.
        """
        return self.decide(self.get(hand_id), command_id, command, at=at)

    def decide(
        self, stream: HandStream, command_id: str, command: Command, *, at: int
    ) -> tuple[Event, ...]:
        """:meth:`execute` against a stream already read: it fails with
        :class:`Conflict` if the stored hand has moved on since."""
        done = stream.repeat(command_id, command)
        if done is not None:
            return done
        if isinstance(command, StartHand):
            command = replace(command, seed=secrets.token_bytes(SEED_BYTES))
        stored, after = stream.execute(command_id, command, self.signer, at=at)
        try:
            self.save(*sign(stored, self.signer))
        except IntegrityError as e:
            raise Conflict(
                f"hand {stream.id} changed after version {stream.version} while this command "
                "was decided; run it again against the new state"
            ) from e
        return after.commands[command_id][1]
