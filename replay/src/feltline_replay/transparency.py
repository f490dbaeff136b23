"""The transparency log, from outside the server: a witness that cosigns
only a checkpoint that extends the last one it accepted, and the check that
a portable log's hands are the ones a checkpoint committed to
(docs/transparency.md).

The server's key signs every stream, so whoever holds it can re-sign a
rewritten or shortened history that verifies on its own. What it cannot do
is make that history agree with a checkpoint a witness cosigned before:
a rewritten hand changes its leaf and so every root after it, a cut log
has fewer leaves than the checkpoint, and a witness refuses a checkpoint
that does not extend the one it holds (a fork) or is smaller (a
truncation). An auditor who trusts a witness trusts the checkpoints it
cosigned, and checks hands against those.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from feltline.audit.checkpoint import (
    COSIGNATURE,
    Checkpoint,
    Note,
    NoteError,
    NoteKey,
    cosign,
    cosigned,
    verify,
)
from feltline.audit.keys import KeyFileError, Signer
from feltline.audit.leaves import hand_leaf, hand_leaf_hash
from feltline.audit.merkle import ProofError, Tree, leaf_hash, verify_consistency, verify_inclusion
from feltline_replay.log import Record

STATE = "checkpoint"  # the last checkpoint the witness accepted, with its cosignature
KEY = "witness.pem"  # the witness's own Ed25519 key
LOG_KEY = "log.vkey"  # the log's verifier key, as first trusted
ROTATIONS = "rotations"  # the witness's key rotations, each a signed statement, oldest first
ROTATED = "feltline-witness-rotation/v1"  # a rotation statement's first line


class Refused(Exception):
    """A checkpoint the witness does not cosign; ``kind`` is ``fork``,
    ``truncation``, ``signature`` or ``origin``."""

    def __init__(self, kind: str, why: str) -> None:
        super().__init__(f"{kind}: {why}")
        self.kind = kind


@dataclass
class Witness:
    """A witness's state in a directory: its key (made on first use), the
    log's verifier key (given on first use, then fixed) and the last
    checkpoint it cosigned. ``name`` is the witness's key name."""

    state: Path
    name: str
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        self.state.mkdir(parents=True, exist_ok=True)
        path = self.state / KEY
        try:
            self.signer = Signer.load(path)
        except KeyFileError:
            if path.exists():
                raise
            self.signer = Signer.create(path)

    @property
    def key(self) -> NoteKey:
        """The witness's cosigner key, for auditors to trust."""
        return NoteKey.of(self.name, self.signer, COSIGNATURE)

    def log_key(self, given: str | None) -> NoteKey:
        """The log's verifier key: the one stored; else ``given``, stored."""
        path = self.state / LOG_KEY
        if path.exists():
            stored = NoteKey.parse(path.read_text().strip())
            if given is not None and NoteKey.parse(given) != stored:
                raise Refused("signature", f"this witness follows the log key {stored.vkey}")
            return stored
        if given is None:
            raise Refused("signature", "give the log's verifier key (--log-key) on first use")
        key = NoteKey.parse(given)
        _write(path, key.vkey + "\n")
        return key

    def last(self) -> Note | None:
        path = self.state / STATE
        return Note.parse(path.read_text()) if path.exists() else None

    def rotate(self) -> Rotation:
        """Replace the witness's key with a new one, keeping its history.

        The old key signs a statement naming the new key, the time and the
        checkpoint the witness holds (the new key signs it too, showing it
        is held), so an auditor who trusts the old key can trust the new one
        from then on, and the new key carries on from exactly where the old
        one stopped: it cosigns the held checkpoint too, and only what
        extends it after. The old key's cosignatures, on the server and in
        auditors' hands, stay valid for what it cosigned before; the old
        private key is gone from the state directory. The statement is added
        to ``rotations``, for the witness's operator to publish."""
        fresh = self.state / (KEY + ".new")
        fresh.unlink(missing_ok=True)  # a rotation stopped before it was stated
        signer = Signer.create(fresh)
        held = self.last()
        now = int(self.clock())
        old, new = self.key, NoteKey.of(self.name, signer, COSIGNATURE)
        text = f"{ROTATED}\nold {old.vkey}\nnew {new.vkey}\ntime {now}\n"
        if held is not None:
            text += held.text
        statement = Note(text).add(old, self.signer.sign(text.encode()))
        statement = statement.add(new, signer.sign(text.encode()))
        path = self.state / ROTATIONS
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        _write(path, before + statement.render())
        os.replace(fresh, self.state / KEY)
        self.signer = signer
        if held is not None:
            _write(self.state / STATE, cosign(held, self.name, signer, now).render())
        return Rotation(old, new, now, held.checkpoint if held is not None else None)

    def witness(self, note: Note, log_key: NoteKey, proof: Sequence[bytes]) -> Note:
        """Cosign ``note`` if the log's key signed it and ``proof`` shows it
        extends the last checkpoint accepted; keep and return it cosigned.
        :class:`Refused` otherwise, and nothing is kept."""
        if not verify(note, log_key):
            raise Refused("signature", f"the checkpoint is not signed by {log_key.vkey}")
        new = note.checkpoint
        if new.origin != log_key.name:
            raise Refused("origin", f"the checkpoint is of {new.origin!r}, not {log_key.name!r}")
        last = self.last()
        if last is not None:
            old = last.checkpoint
            if new.size < old.size:
                raise Refused(
                    "truncation",
                    f"the log shows {new.size} leaves after it showed {old.size}",
                )
            if new.size == old.size and new.root != old.root:
                raise Refused("fork", f"another root for the tree of {new.size} leaves")
            try:
                verify_consistency(old.size, new.size, old.root, new.root, proof)
            except ProofError as e:
                raise Refused(
                    "fork",
                    f"the tree of {new.size} leaves does not extend the one of {old.size} "
                    f"accepted before ({e})",
                ) from None
        signed = cosign(note, self.name, self.signer, int(self.clock()))
        _write(self.state / STATE, signed.render())
        return signed


def _write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` whole: a witness stopped mid-write
    keeps its last state rather than half of a new one."""
    fresh = path.with_name(path.name + ".new")
    with open(fresh, "w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    os.replace(fresh, path)


@dataclass(frozen=True)
class Rotation:
    """A witness's key replaced: the ``old`` key, the ``new`` one, when
    (UNIX seconds), and the checkpoint the witness held then, if any."""

    old: NoteKey
    new: NoteKey
    time: int
    held: Checkpoint | None

    @classmethod
    def parse(cls, statement: str) -> Rotation:
        """A rotation statement, checked: its form, and that both keys it
        names signed it. :class:`NoteError` otherwise."""
        note = Note.parse(statement)
        lines = note.text.split("\n")
        if len(lines) < 5 or lines[0] != ROTATED:
            raise NoteError(f"a rotation statement begins {ROTATED!r}, then old, new and time")
        fields = {}
        for line, name in zip(lines[1:4], ("old", "new", "time"), strict=True):
            label, _, value = line.partition(" ")
            if label != name:
                raise NoteError(f"a rotation statement's line {line!r} is not its {name!r}")
            fields[name] = value
        old, new = NoteKey.parse(fields["old"]), NoteKey.parse(fields["new"])
        if not fields["time"].isdigit() or not fields["time"].isascii():
            raise NoteError(f"a rotation's time is whole seconds, not {fields['time']!r}")
        message = note.text.encode()
        for key in (old, new):
            if key.kind != COSIGNATURE:
                raise NoteError(f"{key.vkey} is not a witness's cosigner key")
            if not any(key.verify(message, s) for s in note.signed(key)):
                raise NoteError(f"the rotation to {new.vkey} is not signed by {key.vkey}")
        rest = "\n".join(lines[4:])
        held = Checkpoint.parse(rest) if rest else None
        return cls(old, new, int(fields["time"]), held)

    @staticmethod
    def split(text: str) -> list[str]:
        """The statements of a ``rotations`` file, each from its first line."""
        lines = text.split("\n")
        starts = [i for i, line in enumerate(lines) if line == ROTATED]
        ends = [*starts[1:], len(lines)]
        return [
            "\n".join(lines[a:b]).rstrip("\n") + "\n" for a, b in zip(starts, ends, strict=True)
        ]


@dataclass(frozen=True)
class Trusted:
    """A witness an auditor trusts: the key it first trusted and, after each
    rotation it accepted, the next key with the time its predecessor was
    retired. The newest key's cosignature counts whenever it was made; a
    retired key's only if made by the time it was retired, so a retired key
    that leaks cannot cosign a fork later."""

    first: NoteKey
    rotations: tuple[Rotation, ...] = ()

    @property
    def key(self) -> NoteKey:
        return self.rotations[-1].new if self.rotations else self.first

    def follow(self, rotation: Rotation) -> Trusted:
        """This witness after ``rotation``, which its current key signed."""
        return Trusted(self.first, (*self.rotations, rotation))

    def cosigned(self, note: Note) -> bool:
        keys = [self.first, *(r.new for r in self.rotations)]
        retired = [r.time for r in self.rotations]
        for key, until in zip(keys, [*retired, None], strict=True):
            at = cosigned(note, key)
            if at is not None and (until is None or at <= until):
                return True
        return False


def trusted(keys: Sequence[str], statements: Iterable[str]) -> list[Trusted]:
    """The witnesses of verifier ``keys``, each followed through the
    rotation ``statements`` (oldest first) its current key signed.
    :class:`NoteError` for a statement no trusted key signed."""
    witnesses = [Trusted(NoteKey.parse(k)) for k in keys]
    for statement in statements:
        rotation = Rotation.parse(statement)
        at = next((i for i, w in enumerate(witnesses) if w.key == rotation.old), None)
        if at is None:
            raise NoteError(f"the rotation from {rotation.old.vkey} follows no witness key trusted")
        witnesses[at] = witnesses[at].follow(rotation)
    return witnesses


@dataclass
class Logged:
    """What a portable log holds of the transparency log: each hand's final
    link (from its seal) and the leaves of the log stream, in order."""

    seals: dict[str, str] = field(default_factory=dict)
    leaves: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, records: Iterable[Record]) -> Logged:
        logged = cls()
        for record in records:
            kind = record.get("kind")
            if kind == "seal":
                logged.seals[str(record.get("id"))] = str(record.get("link"))
            elif kind == "log" and record.get("type") == "HandLogged":
                data = record.get("data") or {}
                logged.leaves.append((str(data.get("hand")), str(data.get("seal"))))
        return logged


@dataclass
class Checked:
    """The transparency check's findings: ``failures`` each one line."""

    checkpoint: Checkpoint | None = None
    included: int = 0
    later: int = 0  # hands sealed after the checkpoint: not covered by it
    witnesses: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def check(
    logged: Logged,
    note: Note,
    log_key: NoteKey,
    witnesses: Sequence[Trusted] = (),
    *,
    whole: bool = False,
) -> Checked:
    """Whether the log's hands are those the checkpoint ``note`` committed
    to: the note is signed by ``log_key`` and cosigned by every one of
    ``witnesses`` (by a key it held then); the log's leaves give the checkpoint's root; every hand
    of the log is its leaf; and, for a log that claims to be ``whole``,
    every leaf the checkpoint covers is a hand of the log."""
    found = Checked()
    try:
        checkpoint = note.checkpoint
    except NoteError as e:
        found.failures.append(f"checkpoint: not a checkpoint: {e}")
        return found
    found.checkpoint = checkpoint
    if not verify(note, log_key):
        found.failures.append(f"checkpoint: not signed by the log's key {log_key.vkey}")
    for witness in witnesses:
        if not witness.cosigned(note):
            found.failures.append(f"checkpoint: not cosigned by the witness {witness.first.vkey}")
        else:
            found.witnesses.append(witness.key.name)
    size = checkpoint.size
    if len(logged.leaves) < size:
        found.failures.append(
            f"log: {len(logged.leaves)} leaves, fewer than the checkpoint's {size}: "
            "the log was cut back after the checkpoint"
        )
        return found
    tree = Tree(hand_leaf_hash(hand, seal) for hand, seal in logged.leaves)
    if tree.root(size) != checkpoint.root:
        found.failures.append(
            f"log: its first {size} leaves do not give the checkpoint's root: "
            "the history was rewritten after the checkpoint"
        )
        return found
    where = {hand: i for i, (hand, _) in enumerate(logged.leaves)}
    for hand, link in logged.seals.items():
        index = where.get(hand)
        if index is None:
            found.failures.append(f"hand {hand}: not a leaf of the transparency log")
        elif logged.leaves[index][1] != link:
            found.failures.append(
                f"hand {hand}: its seal is not the one logged at leaf {index}: "
                "the hand was rewritten after it was logged"
            )
        elif index < size:
            found.included += 1
        else:
            found.later += 1
    if whole:
        missing = [hand for hand, _ in logged.leaves[:size] if hand not in logged.seals]
        for hand in missing:
            found.failures.append(
                f"hand {hand}: logged at leaf {where[hand]}, missing from the log"
            )
    return found


@dataclass(frozen=True)
class Receipt:
    """A hand's inclusion proof as ``GetHand`` and ``RecallHands`` give it
    (docs/transparency.md, Receipts): the leaf's text, its index, the tree
    size, the audit path and the signed checkpoint's note."""

    leaf: str
    index: int
    size: int
    path: tuple[bytes, ...]
    note: str


def check_receipt(
    hand: str, receipt: Receipt, log_key: NoteKey, witnesses: Sequence[Trusted] = ()
) -> list[str]:
    """What a player checks offline of its hand's receipt, each failure one
    line, none when it holds: the leaf is this hand's, the checkpoint is
    signed by ``log_key`` (the log's key as the player knows it, not as the
    receipt names it) and cosigned by every one of ``witnesses``, and the
    audit path takes the leaf to the checkpoint's root."""
    failures = []
    try:
        named = json.loads(receipt.leaf)
    except ValueError:
        named = None
    if not isinstance(named, dict) or named.get("hand") != hand:
        failures.append(f"hand {hand}: the receipt's leaf is not this hand's: {receipt.leaf}")
    elif hand_leaf(hand, str(named.get("link"))) != receipt.leaf.encode():
        failures.append(f"hand {hand}: the receipt's leaf is not in the canonical form")
    try:
        note = Note.parse(receipt.note)
        checkpoint = note.checkpoint
    except NoteError as e:
        return [*failures, f"hand {hand}: the receipt's checkpoint: {e}"]
    if not verify(note, log_key):
        failures.append(f"hand {hand}: the receipt's checkpoint is not signed by {log_key.vkey}")
    for witness in witnesses:
        if not witness.cosigned(note):
            failures.append(
                f"hand {hand}: the receipt's checkpoint is not cosigned by the witness "
                f"{witness.first.vkey}"
            )
    if checkpoint.size != receipt.size:
        failures.append(
            f"hand {hand}: the proof is for {receipt.size} leaves, "
            f"the checkpoint has {checkpoint.size}"
        )
        return failures
    try:
        verify_inclusion(
            receipt.index, receipt.size, leaf_hash(receipt.leaf.encode()), receipt.path,
            checkpoint.root,
        )  # fmt: skip
    except ProofError as e:
        failures.append(f"hand {hand}: {e}")
    return failures
