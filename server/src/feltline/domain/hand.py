"""One stream per hand: the engine's events as stored, chained, signed and sealed.

:class:`HandStream` is an immutable aggregate. Its command method returns the
new stored events and changes nothing; :func:`project` rebuilds it from stored
events, re-checking every chain link, signature and the seal on the way, and
that the deck is the one the committed seed derives, so a tampered hand
fails to load instead of replaying (or dealing) something it never was.

A command carries a client-chosen id. The stream remembers, per id, a
fingerprint of the command and the engine events it caused, so a repeat gives
the same answer without a second event and a different command under a used
id is refused. It also comes with the time on the caller's clock, stored with
its events, so the action clock runs from stored times and replays the same;
a record chains its time (``timed``, record version 4), so a hand moved to
another time does not load.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar
from uuid import UUID

from feltline.audit import chain, keys
from feltline.audit.codec import JSON, decode_event, encode_event
from feltline.domain.chained import Signed, TamperedError, follow
from feltline.domain.ids import fingerprint
from feltline.engine.cards.deck import commitment, deck_seed, shuffle
from feltline.engine.hand.commands import Command
from feltline.engine.hand.dealing import fresh_deck
from feltline.engine.hand.decide import NEW_HAND, play
from feltline.engine.hand.events import DeckShuffled, Event, HandEnded, HandStarted, StreetBegan
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.fast import replace
from feltline.engine.hand.state import Hand


class CommandIdReused(Exception):
    """A command id already stands for a different command in this hand."""


@dataclass(frozen=True)
class Recorded(Signed):
    """One engine event as stored: its codec name, version and data, the chain
    link after it, the client's command id with the command's fingerprint,
    and the command's time (whole seconds on the caller's clock), which the
    link covers when ``timed`` (every record since version 4)."""

    originator_id: UUID
    originator_version: int
    type: str
    version: int
    data: dict[str, JSON]
    link: str
    command_id: str
    fingerprint: str
    at: int
    timed: bool = field(default=False, kw_only=True)

    class_version: ClassVar[int] = 4

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """Version 1 kept no time: its events count as made at time 0."""
        state["at"] = 0

    upcast_v2_v3 = Signed.unsigned

    @staticmethod
    def upcast_v3_v4(state: dict[str, Any]) -> None:
        """Before version 4 the time was kept beside the chain, not in it."""
        state["timed"] = False


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
    """A hand as stored. ``since`` is the time of its last event, when the
    player it now waits on was put on the clock; ``step_began`` the position
    of its latest ``StreetBegan``, where the step it is in began (declarations
    are simultaneous: one made from anywhere in their step is current).
    ``signer`` is the key that signed its last stored record ("" if that
    record is not signed); ``commitment`` the deck commitment it began with."""

    id: UUID
    version: int
    hand: Hand
    link: bytes
    commands: Mapping[str, tuple[str, tuple[Event, ...]]]
    seal: Sealed | None = None
    since: int = 0
    step_began: int = 0
    signer: str = ""
    commitment: str = ""

    @classmethod
    def new(cls, hand_id: UUID) -> HandStream:
        return cls(hand_id, 0, NEW_HAND, chain.GENESIS, MappingProxyType({}))

    def repeat(self, command_id: str, command: Command) -> tuple[Event, ...] | None:
        """The events a command already caused, or None if the id is new."""
        if command_id not in self.commands:
            return None
        first, events = self.commands[command_id]
        if first != fingerprint(command):
            raise CommandIdReused(
                f"command id {command_id!r} was used for another command in hand {self.id}"
            )
        return events

    def execute(
        self,
        command_id: str,
        command: Command,
        signer: keys.Signer,
        *,
        at: int,
        request: str | None = None,
    ) -> tuple[list[StoredHandEvent], HandStream]:
        """The stored events the engine decides on, a seal after the hand's
        end, and the stream after them (what :meth:`apply` would make of
        them, without checking again what was just made). ``request`` is the
        fingerprint to file them under when the command is a consequence of
        another request (the command's own by default)."""
        events, hand = play(self.hand, command)
        stored: list[StoredHandEvent] = []
        link = self.link
        filed_under = fingerprint(command) if request is None else request
        step_began = self.step_began
        hand_name = str(self.id)
        for position, event in enumerate(events, self.version + 1):
            if isinstance(event, StreetBegan):
                step_began = position
            name, version, data = encode_event(event)
            link = chain.link(
                link,
                kind="hand",
                stream=hand_name,
                position=position,
                name=name,
                version=version,
                data=data,
                at=at,
            )
            stored.append(
                Recorded(
                    self.id,
                    position,
                    name,
                    version,
                    data,
                    link.hex(),
                    command_id,
                    filed_under,
                    at,
                    timed=True,
                )
            )
        seal = None
        if isinstance(events[-1], HandEnded):
            seal = Sealed(
                self.id,
                self.version + len(events) + 1,
                chain.CHAIN_ALGORITHM,
                link.hex(),
                signer.sign(link).hex(),
                signer.public_hex,
            )
            stored.append(seal)
        done = self.commands.get(command_id, (filed_under, ()))[1]
        after = replace(
            self,
            version=stored[-1].originator_version,
            hand=hand,
            link=link,
            commands=MappingProxyType(
                {**self.commands, command_id: (filed_under, (*done, *events))}
            ),
            seal=seal,
            since=at,
            step_began=step_began,
            signer=seal.public_key if seal is not None else "",
            commitment=events[0].commitment
            if isinstance(events[0], HandStarted)
            else self.commitment,
        )
        return stored, after

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
        link = follow(
            self.link,
            stored,
            stored.link,
            kind="hand",
            stream=self.id,
            position=stored.originator_version,
            name=stored.type,
            version=stored.version,
            data=stored.data,
            at=stored.at if stored.timed else None,
        )
        try:
            event = decode_event(stored.type, stored.version, stored.data)
        except ValueError as e:
            raise TamperedError(f"hand {self.id}: event {stored.originator_version}: {e}") from e
        if isinstance(event, DeckShuffled) and not self._derives(event):
            raise TamperedError(
                f"hand {self.id}: the stored deck is not the one its committed seed derives"
            )
        done = self.commands.get(stored.command_id, (stored.fingerprint, ()))[1]
        commands = {**self.commands, stored.command_id: (stored.fingerprint, (*done, event))}
        return replace(
            self,
            version=stored.originator_version,
            hand=evolve(self.hand, event),
            link=link,
            commands=MappingProxyType(commands),
            since=stored.at,
            step_began=stored.originator_version
            if isinstance(event, StreetBegan)
            else self.step_began,
            signer=stored.signed_by if stored.signature else "",
            commitment=event.commitment if isinstance(event, HandStarted) else self.commitment,
        )

    def _derives(self, shuffled: DeckShuffled) -> bool:
        """Whether a hand's deck is the one its seed gives, and the seed the
        one it committed to before the deal: under ``feltline-deck-v2`` the
        server's seed (stored before the contributions) mixed with the
        seats' revealed contributions."""
        hand = self.hand
        seed = hand.seed or shuffled.seed
        mixed = deck_seed(seed, dict(hand.contributions)) if hand.contributors else seed
        return (
            shuffled.purpose == "deck"
            and commitment(seed) == self.commitment
            and shuffled.seed == mixed
            and shuffled.cards == shuffle(mixed, fresh_deck(hand.rules))
        )

    def _sealed(self, seal: Sealed) -> HandStream:
        if seal.link != self.link.hex() or seal.algorithm != chain.CHAIN_ALGORITHM:
            raise TamperedError(f"hand {self.id}: the seal is not over the last link")
        if not keys.verify(seal.public_key, self.link, seal.signature):
            raise TamperedError(f"hand {self.id}: the seal's signature does not verify")
        return replace(self, version=seal.originator_version, seal=seal, signer=seal.public_key)


def project(stream: HandStream | None, stored: Iterable[StoredHandEvent]) -> HandStream | None:
    """Fold stored events into a stream, checking chain and seal as it goes."""
    for event in stored:
        stream = (stream or HandStream.new(event.originator_id)).apply(event)
    return stream
