"""The transparency log as the register keeps it: every sealed hand a leaf,
in the order sealed, once; checkpoints signed over the tree; proofs that
verify against them; and a log stream that loads only as it was written."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import replace

import pytest

from feltline.audit.checkpoint import (
    COSIGNATURE,
    Checkpoint,
    Note,
    NoteKey,
    cosign,
    cosigned,
    sign,
    verify,
)
from feltline.audit.keys import Signer
from feltline.audit.leaves import hand_leaf_hash
from feltline.audit.merkle import verify_consistency, verify_inclusion
from feltline.cardroom.register import NotCosigned, NotLogged, Register
from feltline.domain.chained import TamperedError
from feltline.domain.transparency import HandLogged
from feltline.engine.hand.rules import Game
from feltline.store.faults import StoreAway

from .conftest import Store
from .play import play
from .test_tamper import _rewrite


def test_every_sealed_hand_becomes_a_leaf_once(every_store: Store) -> None:
    """On a partitioned store too: each partition is followed from its own
    position, and a register started later finds them from its leaves."""
    store = every_store
    room = store.room()
    register = Register(room.streams, origin="feltline.test/log")
    hands = [play(room, Game.HOLDEM, random.Random(n))[1] for n in range(3)]
    assert register.catch_up() == 3
    assert register.catch_up() == 0
    assert sorted(register.log.hands) == sorted(str(h) for h in hands)
    again = Register(store.streams())  # another process, or after a restart
    assert again.log.hands == register.log.hands
    assert again.log.tree.root() == register.log.tree.root()
    assert again.catch_up() == 0
    hands += [play(room, Game.HOLDEM, random.Random(n))[1] for n in range(3, 8)]
    assert again.catch_up() == 5
    assert sorted(again.log.hands) == sorted(str(h) for h in hands)


def test_a_checkpoint_is_signed_and_proves_each_hand(store: Store) -> None:
    room = store.room()
    register = Register(room.streams, origin="feltline.test/log")
    first = play(room, Game.HOLDEM, random.Random(1))[1]
    note = Note.parse(register.checkpoint())
    key = NoteKey.of("feltline.test/log", store.signer)
    assert verify(note, key)
    assert (note.checkpoint.origin, note.checkpoint.size) == ("feltline.test/log", 1)
    assert register.checkpoint() == note.render()  # nothing new: the same checkpoint
    second = play(room, list(Game)[1], random.Random(2))[1]
    later = Note.parse(register.checkpoint()).checkpoint
    assert later.size == 2
    for hand in (first, second):
        index, size, proof = register.inclusion(hand)
        stream = store.streams().get(hand)
        assert stream.seal is not None
        verify_inclusion(
            index, size, hand_leaf_hash(str(hand), stream.seal.link), proof, later.root
        )
    verify_consistency(1, 2, note.checkpoint.root, later.root, register.consistency(1, 2))
    stored = Register(store.streams())
    assert stored.latest() == register.latest()
    assert stored.origin == "feltline.test/log"


def test_a_hand_not_yet_logged_has_no_proof(store: Store) -> None:
    room = store.room()
    register = Register(room.streams)
    hand = play(room, Game.HOLDEM, random.Random(1))[1]
    with pytest.raises(NotLogged):
        register.inclusion(hand)  # sealed, but no checkpoint covers it yet
    register.checkpoint()
    assert register.inclusion(hand)[:2] == (0, 1)
    with pytest.raises(NotLogged):
        register.consistency(1, 2)


def test_two_registers_log_each_hand_once(every_store: Store) -> None:
    store = every_store
    room = store.room()
    one, two = Register(room.streams), Register(store.streams())
    play(room, Game.HOLDEM, random.Random(1))
    assert one.catch_up() == 1
    play(room, Game.HOLDEM, random.Random(2))
    assert two.catch_up() == 1  # it had not seen the first: it conflicted, reloaded, logged one
    assert two.log.hands == Register(store.streams()).log.hands
    assert len(set(two.log.hands)) == 2


def test_a_rewritten_log_does_not_load(store: Store) -> None:
    """Someone with the database but not the key swaps a leaf's seal: the
    log stream no longer loads, and no register serves it."""
    room = store.room()
    register = Register(room.streams)
    play(room, Game.HOLDEM, random.Random(1))
    play(room, Game.HOLDEM, random.Random(2))
    register.checkpoint()
    first = store.streams().repository.get(register.log.id, projector_func=lambda s, r: list(r))
    logged = first[0]
    assert isinstance(logged, HandLogged)
    _rewrite(store, room.streams, [replace(logged, seal="00" * 32)])
    with pytest.raises(TamperedError, match=r"log .* event 1 does not match its chain link"):
        Register(store.streams())


def test_a_witness_s_cosignature_is_kept_and_served(store: Store) -> None:
    room = store.room()
    register = Register(room.streams, origin="feltline.test/log")
    play(room, Game.HOLDEM, random.Random(1))
    note = Note.parse(register.checkpoint())
    witness = Signer.generate()
    key = NoteKey.of("w1.test", witness, COSIGNATURE)
    witnessed = cosign(note, "w1.test", witness, 1_900_000_000)
    kept = Note.parse(register.cosign(witnessed.render(), key.vkey))
    assert cosigned(kept, key) == 1_900_000_000
    assert verify(kept, NoteKey.of("feltline.test/log", store.signer))
    assert register.latest() == kept.render()
    assert Register(store.streams()).latest() == kept.render()  # stored
    assert register.cosign(witnessed.render(), key.vkey) == kept.render()  # once
    other = Signer.generate()
    with pytest.raises(NotCosigned, match="no valid cosignature"):
        register.cosign(witnessed.render(), NoteKey.of("w2.test", other, COSIGNATURE).vkey)
    foreign = sign(Checkpoint("feltline.test/log", 1, bytes(32)), "feltline.test/log", store.signer)
    with pytest.raises(NotCosigned, match="not a checkpoint this log signed"):
        register.cosign(cosign(foreign, "w1.test", witness, 1).render(), key.vkey)
    assert Register(store.streams()).latest() == kept.render()


def test_at_the_interval_a_checkpoint_is_signed_only_when_the_tree_grew(store: Store) -> None:
    """An idle store stays unsigned (a server with no key file refuses a
    signed store: `feltline serve` beside a running one must be told it is
    busy, not that its key is missing)."""
    room = store.room()
    register = Register(room.streams)
    running = threading.Thread(target=register.run, args=(0.02,))
    running.start()
    try:
        time.sleep(0.2)
        assert register.latest() is None
        assert Register(store.streams()).log.version == 0  # nothing stored
        play(room, Game.HOLDEM, random.Random(1))
        register.heard()
        deadline = time.monotonic() + 10
        while register.latest() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        latest = register.latest()
        assert latest is not None
        assert Note.parse(latest).checkpoint.size == 1
    finally:
        register.stop()
        running.join()


def test_a_commit_that_failed_while_the_database_was_away_leaves_no_gap(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The records a failed commit added in memory are not built on: when
    the log cannot even be read again (the database still away), the next
    round reads it first, so a later commit never skips their versions."""
    room = store.room()
    register = Register(room.streams)
    play(room, Game.HOLDEM, random.Random(1))
    streams = register.streams

    def away(*args: object, **kwargs: object) -> None:
        raise StoreAway("the database is away")

    with monkeypatch.context() as patch:
        patch.setattr(streams, "commit", away)
        patch.setattr(streams.events, "get", away)
        with pytest.raises(StoreAway):
            register.catch_up()
    play(room, Game.HOLDEM, random.Random(2))
    assert register.catch_up() == 2
    again = Register(store.streams())
    assert again.log.hands == register.log.hands
    assert len(set(again.log.hands)) == 2
