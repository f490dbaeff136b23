"""The transparency log through the Replay service: a checkpoint signed by
the server's key, a receipt with every hand (GetHand, RecallHands) that
verifies offline against it, consistency proofs between checkpoints, new
checkpoints watched as they are signed, and bad sizes refused."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.audit.checkpoint import (
    COSIGNATURE,
    Checkpoint,
    Note,
    NoteKey,
    cosign,
    sign,
    verify,
)
from feltline.audit.checkpoint import cosigned as cosigned_at
from feltline.audit.keys import Signer
from feltline.audit.merkle import verify_consistency
from feltline_client import FeltlineError
from feltline_protos.v1 import auth_pb2, replay_pb2
from feltline_replay.cli import main
from feltline_replay.transparency import Receipt, check_receipt
from tests.store.players import Players, finished, open_tables

from .conftest import Live, Seconds, open_store

PLAYER, SPECTATOR = auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR
NAMES = tuple(f"p{n}" for n in range(6))


def play(live: Live, hands: int, seed: int) -> None:
    ids = open_tables(live.room, 1)
    players = Players(live.room, ids[0], random.Random(seed), pool=NAMES)
    target = finished(live.room, ids) + hands
    while finished(live.room, ids) < target:
        players.step()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    signer = Signer.generate()
    env = {"SQLITE_DBNAME": str(tmp_path / "log.db"), "FELTLINE_LOG_ORIGIN": "feltline.test/log"}
    room = open_store(env, signer)
    clock = Seconds(0)
    server = Feltline(room, signer.public_key, clock=clock, tick=0.1).start()
    running = Live(tmp_path, signer, clock, room, server, env=env)
    yield running
    for client in running.clients:
        client.close()
    server.stop()
    room.close()


def _receipt(inclusion: replay_pb2.InclusionProof) -> Receipt:
    return Receipt(
        inclusion.leaf,
        inclusion.leaf_index,
        inclusion.tree_size,
        tuple(inclusion.hashes),
        inclusion.checkpoint.note,
    )


def _receipt_holds(inclusion: replay_pb2.InclusionProof, hand_id: str, key: NoteKey) -> None:
    """What a player checks offline (feltline-replay receipt): the
    checkpoint is the server's, the leaf is this hand's, and the proof
    takes the leaf to the root."""
    assert check_receipt(hand_id, _receipt(inclusion), key) == []


def test_a_checkpoint_and_every_hand_s_receipt(live: Live) -> None:
    play(live, 3, seed=1)
    spectator = live.client(SPECTATOR)
    checkpoint = spectator.get_checkpoint()
    key = NoteKey.parse(checkpoint.verifier_key)
    assert key == NoteKey.of("feltline.test/log", live.signer)
    assert checkpoint.origin == "feltline.test/log"
    assert checkpoint.size == 3
    assert verify(Note.parse(checkpoint.note), key)
    for summary in spectator.list_hands():
        got = spectator.get_hand(summary.hand_id)
        assert got.HasField("inclusion")
        _receipt_holds(got.inclusion, summary.hand_id, key)
    player = next(iter(spectator.list_hands())).seats[0].player_id
    for recalled in live.client(PLAYER, player).recall_hands():
        _receipt_holds(recalled.inclusion, recalled.hand.hand_id, key)


def test_a_receipt_changed_or_under_another_key_does_not_hold(
    live: Live, capsys: pytest.CaptureFixture[str]
) -> None:
    """``feltline-replay receipt`` says a player's hand is in the log the
    server signed; a receipt for another hand, with its path or index
    changed, or checked against a key the log does not sign with, fails."""
    play(live, 3, seed=4)
    spectator = live.client(SPECTATOR)
    key = NoteKey.parse(spectator.get_checkpoint().verifier_key)
    summary = next(iter(spectator.list_hands()))
    player = summary.seats[0].player_id
    [hand] = [
        h for h in live.client(PLAYER, player).recall_hands() if h.hand.hand_id == summary.hand_id
    ]
    receipt = _receipt(hand.inclusion)
    hand_id = summary.hand_id
    assert check_receipt(hand_id, receipt, key) == []
    other = next(h.hand_id for h in spectator.list_hands() if h.hand_id != hand_id)
    assert check_receipt(other, receipt, key) == [
        f"hand {other}: the receipt's leaf is not this hand's: {receipt.leaf}"
    ]
    bent = replace(receipt, path=(bytes(32), *receipt.path[1:]))
    assert check_receipt(hand_id, bent, key) == [
        f"hand {hand_id}: leaf {receipt.index} is not in the tree of 3 leaves with that root"
    ]
    moved = replace(receipt, index=(receipt.index + 1) % 3)
    assert len(check_receipt(hand_id, moved, key)) == 1
    stranger = NoteKey.of(key.name, Signer.generate())
    assert check_receipt(hand_id, receipt, stranger) == [
        f"hand {hand_id}: the receipt's checkpoint is not signed by {stranger.vkey}"
    ]

    token = tokens.mint(
        live.signer, PLAYER, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
    )
    where = ["--server", live.server.target, "--token", token]
    # The server's own log lines (a deal, say) may come on the same standard output.
    assert main(["receipt", hand_id, *where, "--log-key", key.vkey]) == 0
    said = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith(("hand", "FAIL"))
    ]
    assert said == [
        f"hand {hand_id}: leaf {receipt.index} of 3 in the checkpoint signed by "
        "feltline.test/log: ok"
    ]
    assert main(["receipt", hand_id, *where, "--log-key", stranger.vkey]) == 1
    said = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith(("hand", "FAIL"))
    ]
    assert said == [
        f"FAIL hand {hand_id}: the receipt's checkpoint is not signed by {stranger.vkey}"
    ]


def test_consistency_between_checkpoints(live: Live) -> None:
    client = live.client(SPECTATOR)
    play(live, 2, seed=2)
    first = client.get_checkpoint()
    play(live, 3, seed=3)
    second = client.get_checkpoint()
    assert (first.size, second.size) == (2, 5)
    proof = client.consistency_proof(first.size)
    assert (proof.first_size, proof.second_size) == (2, 5)
    verify_consistency(2, 5, first.root_hash, second.root_hash, list(proof.hashes))
    same = client.consistency_proof(2, 2)
    assert list(same.hashes) == []


@pytest.mark.parametrize(
    ("first", "second", "field"), [(3, 2, "first_size"), (1, 9, "second_size")]
)
def test_a_size_the_log_cannot_prove_is_refused(
    live: Live, first: int, second: int, field: str
) -> None:
    play(live, 2, seed=4)
    client = live.client(SPECTATOR)
    client.get_checkpoint()
    with pytest.raises(FeltlineError) as refused:
        client.consistency_proof(first, second)
    assert refused.value.code.name == "INVALID_ARGUMENT"
    assert [v.field for v in refused.value.violations] == [field]


def test_new_checkpoints_are_watched(live: Live) -> None:
    play(live, 1, seed=5)
    client = live.client(SPECTATOR)
    watched = client.watch_checkpoints()
    assert next(watched).size == 1
    play(live, 2, seed=6)
    client.get_checkpoint()  # on demand: signs the grown tree now
    assert next(watched).size == 3


def _token(live: Live) -> str:
    return tokens.mint(live.signer, SPECTATOR, now=datetime.now(UTC), ttl=timedelta(hours=1))


def _forged(live: Live, size: int, root: bytes) -> str:
    """A checkpoint the key holder signs for another history."""
    return sign(
        Checkpoint("feltline.test/log", size, root), "feltline.test/log", live.signer
    ).render()


def test_the_witness_command_cosigns_growth_and_refuses_a_fork_and_a_truncation(
    live: Live, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from feltline_replay.cli import main

    state = tmp_path / "witness"
    server = ["--server", live.server.target, "--token", _token(live)]
    vkey = NoteKey.of("feltline.test/log", live.signer).vkey
    play(live, 2, seed=7)
    assert main(["witness", *server, "--state", str(state), "--log-key", vkey]) == 0
    assert "cosigned feltline.test/log at 2 leaves as w" in capsys.readouterr().out
    play(live, 2, seed=8)
    out = tmp_path / "cosigned.txt"
    capsys.readouterr()
    assert main(["witness", *server, "--state", str(state), "--output", str(out)]) == 0
    cosigned = Note.parse(out.read_text())
    assert cosigned.checkpoint.size == 4
    assert len(cosigned.signatures) == 2  # the server's and the witness's
    assert main(["checkpoint", *server, "--output", str(tmp_path / "cp.txt")]) == 0
    served = Note.parse((tmp_path / "cp.txt").read_text())
    assert served == cosigned  # handed back: the server serves it with the cosignature
    # The server's own log lines may come between (it plays on in this process).
    said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("cosigned ")]
    witness_key = NoteKey.parse(said[-1].split(" as ")[-1].strip())
    assert cosigned_at(served, witness_key) is not None
    capsys.readouterr()
    for size, root, reason in [
        (4, bytes(32), "fork: another root for the tree of 4 leaves"),
        (3, cosigned.checkpoint.root, "truncation: the log shows 3 leaves after it showed 4"),
    ]:
        forged = tmp_path / "forged.txt"
        forged.write_text(_forged(live, size, root))
        argv = ["witness", *server, "--state", str(state), "--checkpoint", str(forged)]
        assert main(argv) == 3
        assert capsys.readouterr().err == f"feltline-replay witness: refused: {reason}\n"
    assert Note.parse((state / "checkpoint").read_text()).checkpoint.size == 4  # kept


def test_a_cosignature_not_of_the_log_s_checkpoint_is_refused(live: Live) -> None:
    play(live, 1, seed=9)
    client = live.client(SPECTATOR)
    witness = Signer.generate()
    key = NoteKey.of("w1.test", witness, COSIGNATURE).vkey
    foreign = cosign(Note.parse(_forged(live, 1, bytes(32))), "w1.test", witness, 1)
    with pytest.raises(FeltlineError) as refused:
        client.add_cosignature(foreign.render(), key)
    assert refused.value.code.name == "INVALID_ARGUMENT"
    assert "not a checkpoint this log signed" in refused.value.message
    assert len(Note.parse(client.get_checkpoint().note).signatures) == 1  # nothing kept
