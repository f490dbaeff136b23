"""The transparency log as stored: one stream of every sealed hand's leaf,
in the order the hands were sealed, and the checkpoints signed over them.

The stream is chained and signed like every other (kind ``log``), so it
loads only as the server wrote it; the tree over its leaves and the signed
checkpoints (:mod:`feltline.audit.checkpoint`) are what lets someone who
does not trust the key hold the server to the history it showed, through
witnesses (docs/transparency.md). A stream loads to a :class:`Log`: its
leaves' hands, its tree and its checkpoints.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar
from uuid import UUID

from feltline.audit import chain
from feltline.audit.leaves import hand_leaf_hash
from feltline.audit.merkle import Tree
from feltline.domain.chained import Signed, follow
from feltline.domain.ids import log_id
from feltline.engine.hand.fast import replace


@dataclass(frozen=True)
class HandLogged(Signed):
    """Leaf ``originator`` order: the hand ``hand`` sealed at ``seal`` (its
    final link); ``notification`` is where the seal is in the store's log,
    where the next look for seals begins (not chained: the store's order)."""

    originator_id: UUID
    originator_version: int
    hand: str
    seal: str
    notification: int
    link: str

    class_version: ClassVar[int] = 1

    def chained(self) -> dict[str, str]:
        return {"hand": self.hand, "seal": self.seal}


@dataclass(frozen=True)
class CheckpointSigned(Signed):
    """A checkpoint of the tree's first ``size`` leaves, whose root is
    ``root`` (hex): ``note``, the signed note the server serves."""

    originator_id: UUID
    originator_version: int
    size: int
    root: str
    note: str
    link: str

    class_version: ClassVar[int] = 1

    def chained(self) -> dict[str, str | int]:
        return {"size": self.size, "root": self.root, "note": self.note}


@dataclass(frozen=True)
class CheckpointCosigned(Signed):
    """The checkpoint of ``size`` leaves with the cosignatures collected so
    far: ``note``, its signed note with every witness's line added."""

    originator_id: UUID
    originator_version: int
    size: int
    note: str
    link: str

    class_version: ClassVar[int] = 1

    def chained(self) -> dict[str, str | int]:
        return {"size": self.size, "note": self.note}


LogRecord = HandLogged | CheckpointSigned | CheckpointCosigned
LOG_RECORDS = (HandLogged, CheckpointSigned, CheckpointCosigned)
R = TypeVar("R", HandLogged, CheckpointSigned, CheckpointCosigned)


@dataclass
class Log:
    """The log as stored: ``hands`` each leaf's hand in order (and
    ``seals`` its final link), ``index``
    where each hand is, ``tree`` over their leaves, ``checkpoints`` each
    signed note (with its size) in order, ``notified`` each leaf's seal's
    notification id (where the looks for seals go on from, partition by
    partition). Grows in place as records are added: a tree of a
    million leaves is not copied per hand."""

    id: UUID = field(default_factory=log_id)
    version: int = 0
    link: bytes = chain.GENESIS
    signer: str = ""
    hands: list[str] = field(default_factory=list)
    seals: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    tree: Tree = field(default_factory=Tree)
    checkpoints: list[tuple[int, str]] = field(default_factory=list)
    notified: list[int] = field(default_factory=list)

    def logged(self, hand: str, seal: str, notification: int) -> HandLogged:
        """The record that makes the hand the next leaf, chained after the last."""
        return self._linked(HandLogged(self.id, self.version + 1, hand, seal, notification, ""))

    def signed(self, size: int, root: bytes, note: str) -> CheckpointSigned:
        return self._linked(CheckpointSigned(self.id, self.version + 1, size, root.hex(), note, ""))

    def cosigned(self, size: int, note: str) -> CheckpointCosigned:
        return self._linked(CheckpointCosigned(self.id, self.version + 1, size, note, ""))

    def _linked(self, record: R) -> R:
        link = chain.link(
            self.link,
            kind="log",
            stream=str(self.id),
            position=record.originator_version,
            name=type(record).__name__,
            version=1,
            data=record.chained(),
        )
        return replace(record, link=link.hex())

    def add(self, record: LogRecord, *, check: bool = True) -> None:
        """Take a stored (or just committed) record; ``check`` its link and
        signature (what the server itself just made needs no second look)."""
        if record.originator_version != self.version + 1:
            raise ValueError(f"log: record {record.originator_version} follows {self.version}")
        if check:
            self.link = follow(
                self.link,
                record,
                record.link,
                kind="log",
                stream=self.id,
                position=record.originator_version,
                name=type(record).__name__,
                version=1,
                data=record.chained(),
            )
        else:
            self.link = bytes.fromhex(record.link)
        self.version = record.originator_version
        self.signer = record.signed_by if record.signature else ""
        if isinstance(record, HandLogged):
            self.index[record.hand] = len(self.hands)
            self.hands.append(record.hand)
            self.seals.append(record.seal)
            self.tree.append(hand_leaf_hash(record.hand, record.seal))
            self.notified.append(record.notification)
        elif isinstance(record, CheckpointSigned):
            self.checkpoints.append((record.size, record.note))
        else:  # the same checkpoint, with the cosignatures collected
            text = record.note.rpartition("\n\n")[0]
            for i in range(len(self.checkpoints) - 1, -1, -1):
                size, note = self.checkpoints[i]
                if size == record.size and note.rpartition("\n\n")[0] == text:
                    self.checkpoints[i] = (size, record.note)
                    break


def project(log: Log | None, records: Iterable[LogRecord]) -> Log | None:
    for record in records:
        log = log or Log()
        log.add(record)
    return log
