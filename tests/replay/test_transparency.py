"""The transparency log against an attacker who holds the server's key
(docs/transparency.md): a rewritten past hand, the last hands deleted, and
two witnesses shown two histories all verify on their own, re-signed, and
are each caught against a checkpoint a witness cosigned earlier: by the
witness, which refuses to cosign, and by ``feltline-replay verify``."""

from __future__ import annotations

import io
import json
import random
import shutil
import sqlite3
import subprocess
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path
from typing import Any, cast
from uuid import UUID

import pytest

from feltline.audit import chain
from feltline.audit.checkpoint import Note, NoteKey, cosign, cosigned
from feltline.audit.keys import Signer
from feltline.cardroom.register import Register
from feltline.cardroom.room import Room
from feltline.domain.hand import Recorded, Sealed
from feltline.domain.ids import log_id
from feltline.engine.hand.rules import Game
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_replay.cli import main
from feltline_replay.transparency import Refused, Rotation, Witness
from tests.store.play import play
from tests.store.test_tamper import _rewrite

ORIGIN = "feltline.test/log"
ROOT = Path(__file__).resolve().parents[2]


class Attacked:
    """A SQLite store, its server's key, and SQL and the key in one hand."""

    def __init__(self, path: Path, signer: Signer) -> None:
        self.path, self.signer = path, signer
        self.streams = Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env)
        self.room = Room(self.streams)
        self.hands: list[UUID] = []

    def play(self, hands: int, seed: int) -> None:
        for n in range(hands):
            self.hands.append(play(self.room, Game.HOLDEM, random.Random(seed * 100 + n))[1])

    def register(self) -> Register:
        return Register(self.streams, origin=ORIGIN)

    events_table = "stored_events"

    def execute_sql(self, statement: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
        with sqlite3.connect(self.path) as conn:
            return conn.execute(statement, params).fetchall()

    def sql(self, statement: str, *params: object) -> None:
        self.execute_sql(statement, params)

    def close(self) -> None:
        self.room.close()


@pytest.fixture
def attacked(tmp_path: Path) -> Any:
    store = Attacked(tmp_path / "store.db", Signer.generate())
    yield store
    store.close()


def log_key(signer: Signer) -> NoteKey:
    return NoteKey.of(ORIGIN, signer)


def witnessed(witness: Witness, register: Register, signer: Signer) -> Note:
    """The register's newest checkpoint, cosigned by ``witness`` (or Refused)."""
    note = Note.parse(register.checkpoint())
    last = witness.last()
    proof: list[bytes] = []
    if last is not None and last.checkpoint.size < note.checkpoint.size:
        proof = register.consistency(last.checkpoint.size, note.checkpoint.size)
    return witness.witness(note, log_key(signer), proof)


def verify(store: Path, checkpoint: Note, *more: str) -> tuple[int, dict[str, Any]]:
    note = store.with_name("checkpoint.txt")
    note.write_text(checkpoint.render())
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["verify", "--store", str(store), "--checkpoint", str(note), "--json", *more])
    return code, json.loads(out.getvalue())


def checkpoint_failures(report: dict[str, Any]) -> list[str]:
    return [f["found"] for f in report["failures"] if f["check"] == "checkpoint"]


def reseal(attacked: Attacked, hand: UUID) -> None:
    """Move the hand one second later in time and sign it all again with the
    key: a rewritten hand that every chain and signature check accepts."""
    records = cast(list[Recorded | Sealed], list(attacked.streams.events.get(hand)))
    link, out = chain.GENESIS, []
    for record in records:
        if isinstance(record, Sealed):
            signature = attacked.signer.sign(link).hex()
            out.append(replace(record, link=link.hex(), signature=signature))
            continue
        at = record.at + 1
        link = chain.link(
            link,
            kind="hand",
            stream=str(hand),
            position=record.originator_version,
            name=record.type,
            version=record.version,
            data=record.data,
            at=at if record.timed else None,
        )
        signature = attacked.signer.sign(link).hex() if record.signature else ""
        out.append(replace(record, at=at, link=link.hex(), signature=signature))
    _rewrite(cast(Any, attacked), attacked.streams, out)


def relog(attacked: Attacked) -> Register:
    """Throw the log away and have it written again from the store's seals, signed."""
    attacked.sql("DELETE FROM stored_events WHERE originator_id = ?", log_id().hex)
    return attacked.register()


def test_an_honest_log_verifies_against_a_cosigned_checkpoint(
    attacked: Attacked, tmp_path: Path
) -> None:
    witness = Witness(tmp_path / "w1", "w1.test")
    attacked.play(3, seed=1)
    note = witnessed(witness, attacked.register(), attacked.signer)
    code, report = verify(
        attacked.path, note, "--public-key", attacked.signer.public_hex,
        "--witness", witness.key.vkey,
    )  # fmt: skip
    assert (code, report["failures"]) == (0, [])
    assert report["transparency"] == {
        "size": 3,
        "included": 3,
        "later": 0,
        "witnesses": ["w1.test"],
    }
    attacked.play(2, seed=2)
    later = witnessed(witness, attacked.register(), attacked.signer)
    assert later.checkpoint.size == 5
    code, report = verify(attacked.path, note, "--public-key", attacked.signer.public_hex)
    assert code == 0
    assert report["transparency"]["later"] == 2  # sealed after the checkpoint: not covered


def test_a_rewritten_past_hand_re_signed_is_caught(attacked: Attacked, tmp_path: Path) -> None:
    witness = Witness(tmp_path / "w1", "w1.test")
    attacked.play(4, seed=3)
    cosigned = witnessed(witness, attacked.register(), attacked.signer)
    reseal(attacked, attacked.hands[1])
    attacked.streams.get(attacked.hands[1])  # the hand alone verifies: the key signed it
    # Keeping the log: the hand is no longer its leaf.
    code, report = verify(attacked.path, cosigned, "--public-key", attacked.signer.public_hex)
    assert code == 1
    assert checkpoint_failures(report) == [
        f"hand {attacked.hands[1]}: its seal is not the one logged at leaf 1: "
        "the hand was rewritten after it was logged"
    ]
    # Writing the log again from the seals, re-signed: its root is another.
    forged = relog(attacked)
    with pytest.raises(Refused, match=r"^fork: another root for the tree of 4 leaves"):
        witnessed(witness, forged, attacked.signer)
    attacked.play(1, seed=4)
    with pytest.raises(Refused, match=r"^fork: the tree of 5 leaves does not extend the one of 4"):
        witnessed(witness, attacked.register(), attacked.signer)
    code, report = verify(attacked.path, cosigned, "--public-key", attacked.signer.public_hex)
    assert code == 1
    assert checkpoint_failures(report) == [
        "log: its first 4 leaves do not give the checkpoint's root: "
        "the history was rewritten after the checkpoint"
    ]


def test_the_last_hands_deleted_and_re_signed_are_caught(
    attacked: Attacked, tmp_path: Path
) -> None:
    witness = Witness(tmp_path / "w1", "w1.test")
    attacked.play(4, seed=5)
    cosigned = witnessed(witness, attacked.register(), attacked.signer)
    for hand in attacked.hands[-2:]:
        attacked.sql("DELETE FROM stored_events WHERE originator_id = ?", hand.hex)
    forged = relog(attacked)
    assert Note.parse(forged.checkpoint()).checkpoint.size == 2
    with pytest.raises(Refused, match=r"^truncation: the log shows 2 leaves after it showed 4"):
        witnessed(witness, forged, attacked.signer)
    code, report = verify(attacked.path, cosigned, "--public-key", attacked.signer.public_hex)
    assert code == 1
    assert checkpoint_failures(report) == [
        "log: 2 leaves, fewer than the checkpoint's 4: the log was cut back after the checkpoint"
    ]


def test_two_witnesses_shown_two_histories_are_caught(attacked: Attacked, tmp_path: Path) -> None:
    one, two = Witness(tmp_path / "w1", "w1.test"), Witness(tmp_path / "w2", "w2.test")
    attacked.play(2, seed=6)
    register = attacked.register()
    witnessed(one, register, attacked.signer)
    witnessed(two, register, attacked.signer)
    attacked.close()
    copy = tmp_path / "fork.db"
    shutil.copy(attacked.path, copy)
    honest = Attacked(attacked.path, attacked.signer)
    forked = Attacked(copy, attacked.signer)
    try:
        honest.play(2, seed=7)
        forked.play(2, seed=8)  # other hands: the same size, another root
        shown_one = witnessed(one, honest.register(), attacked.signer)
        shown_two = witnessed(two, forked.register(), attacked.signer)
        assert shown_one.checkpoint.size == shown_two.checkpoint.size == 4
        assert shown_one.checkpoint.root != shown_two.checkpoint.root
        # Each witness compares what it was shown with what the other cosigned:
        with pytest.raises(Refused, match=r"^fork: another root for the tree of 4 leaves"):
            two.witness(Note.parse(shown_one.render()), log_key(attacked.signer), [])
        # An auditor who trusts both finds no checkpoint both cosigned:
        code, report = verify(
            honest.path, shown_one, "--public-key", attacked.signer.public_hex,
            "--witness", one.key.vkey, "--witness", two.key.vkey,
        )  # fmt: skip
        assert code == 1
        assert checkpoint_failures(report) == [
            f"checkpoint: not cosigned by the witness {two.key.vkey}"
        ]
    finally:
        honest.close()
        forked.close()


def test_a_checkpoint_not_signed_by_the_log_s_key_is_refused(
    attacked: Attacked, tmp_path: Path
) -> None:
    witness = Witness(tmp_path / "w1", "w1.test")
    attacked.play(1, seed=9)
    note = Note.parse(attacked.register().checkpoint())
    with pytest.raises(Refused, match=r"^signature: the checkpoint is not signed by"):
        witness.witness(note, log_key(Signer.generate()), [])
    assert witness.last() is None


def _export(store: Path, to: Path) -> list[str]:
    assert main(["export", "--store", str(store), "--output", str(to)]) == 0
    return to.read_text().splitlines()


def _node(log: Path, key: str, *more: str) -> dict[str, Any]:
    done = subprocess.run(
        [
            "node",
            str(ROOT / "clients/node/src/verify.js"),
            str(log),
            "--public-key",
            key,
            "--json",
            *more,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in {0, 1}, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_an_exported_log_carries_the_log_stream_and_verifies_against_a_checkpoint(
    attacked: Attacked, tmp_path: Path
) -> None:
    """Both verifiers check the log stream's chain; verify --checkpoint
    reads its leaves from the file."""
    attacked.play(3, seed=10)
    note = Note.parse(attacked.register().checkpoint())
    log = tmp_path / "whole.log"
    lines = _export(attacked.path, log)
    assert sum('"kind":"log"' in line for line in lines) == 4  # three leaves, a checkpoint
    key = attacked.signer.public_hex
    assert _node(log, key)["failures"] == []
    (tmp_path / "cp.txt").write_text(note.render())
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(
            ["verify", str(log), "--public-key", key, "--checkpoint", str(tmp_path / "cp.txt")]
        )
    assert code == 0, out.getvalue()
    shown = out.getvalue().splitlines()
    assert f"checkpoint {ORIGIN} of 3 leaves: 3 hands included, 0 sealed after it" in shown
    assert shown[-1].endswith("3 tables, 3 hands: ok")


def test_a_whole_log_missing_a_logged_hand_is_caught(attacked: Attacked, tmp_path: Path) -> None:
    attacked.play(3, seed=11)
    note = Note.parse(attacked.register().checkpoint())
    lines = _export(attacked.path, tmp_path / "whole.log")
    gone = str(attacked.hands[1])
    cut = tmp_path / "cut.log"
    cut.write_text("".join(f"{line}\n" for line in lines if f'"id":"{gone}"' not in line))
    (tmp_path / "cp.txt").write_text(note.render())
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(
            ["verify", str(cut), "--public-key", attacked.signer.public_hex, "--json",
             "--checkpoint", str(tmp_path / "cp.txt")]
        )  # fmt: skip
    assert code == 1
    assert checkpoint_failures(json.loads(out.getvalue())) == [
        f"hand {gone}: logged at leaf 1, missing from the log"
    ]


def test_the_node_verifier_catches_each_attack_against_a_cosigned_checkpoint(
    attacked: Attacked, tmp_path: Path
) -> None:
    """The second verifier, written from docs/transparency.md: the same
    attacks, each caught against the checkpoint a witness cosigned."""
    witness = Witness(tmp_path / "w1", "w1.test")
    attacked.play(4, seed=12)
    cosigned = witnessed(witness, attacked.register(), attacked.signer)
    note = tmp_path / "cp.txt"
    note.write_text(cosigned.render())
    key = attacked.signer.public_hex
    trusting = ["--checkpoint", str(note), "--witness", witness.key.vkey]

    def node_failures(name: str) -> list[str]:
        log = tmp_path / f"{name}.log"
        _export(attacked.path, log)
        report = _node(log, key, *trusting)
        return [f["found"] for f in report["failures"] if f["check"] == "checkpoint"]

    assert node_failures("honest") == []
    stranger = Witness(tmp_path / "w2", "w2.test")
    log = tmp_path / "honest.log"
    report = _node(log, key, "--checkpoint", str(note), "--witness", stranger.key.vkey)
    assert [f["found"] for f in report["failures"]] == [
        "checkpoint: not cosigned by the witness w2.test"
    ]
    reseal(attacked, attacked.hands[1])
    assert node_failures("rewritten") == [
        f"hand {attacked.hands[1]}: its seal is not the one logged at leaf 1"
    ]
    relog(attacked).checkpoint()
    assert node_failures("relogged") == [
        "log: its first 4 leaves do not give the checkpoint's root"
    ]
    for hand in attacked.hands[-2:]:
        attacked.sql("DELETE FROM stored_events WHERE originator_id = ?", hand.hex)
    relog(attacked).checkpoint()
    assert node_failures("cut") == ["log: 2 leaves, fewer than the checkpoint's 4"]


def test_a_witness_key_rotated_keeps_the_history_it_cosigned(
    attacked: Attacked, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A witness's key replaced with ``--rotate-key``: what the old key
    cosigned still verifies under it; an auditor who trusts the old key
    follows the signed rotation to the new one; the new key carries on
    from the checkpoint the old one held; and the old key, retired, counts
    for nothing it cosigns afterwards."""
    state = tmp_path / "w1"
    witness = Witness(state, "w1.test")
    old_key, old_signer = witness.key, Signer.load(state / "witness.pem")
    attacked.play(2, seed=1)
    before = witnessed(witness, attacked.register(), attacked.signer)

    with pytest.raises(SystemExit, match=r"^feltline-replay witness: --server is needed, unless"):
        main(["witness", "--state", str(state), "--name", "w1.test"])
    assert main(["witness", "--state", str(state), "--name", "w1.test", "--rotate-key"]) == 0
    rotated = Witness(state, "w1.test")
    assert rotated.key != old_key
    assert capsys.readouterr().out == f"rotated w1.test from {old_key.vkey} to {rotated.key.vkey}\n"
    [statement] = Rotation.split((state / "rotations").read_text())
    rotation = Rotation.parse(statement)
    assert (rotation.old, rotation.new, rotation.held) == (old_key, rotated.key, before.checkpoint)
    held = rotated.last()
    assert held is not None
    assert held.checkpoint == before.checkpoint
    assert cosigned(held, old_key) is not None
    assert cosigned(held, rotated.key) is not None
    assert sorted(p.name for p in state.iterdir()) == ["checkpoint", "rotations", "witness.pem"]

    attacked.play(2, seed=2)
    after = witnessed(rotated, attacked.register(), attacked.signer)
    assert after.checkpoint.size == 4
    key = ["--public-key", attacked.signer.public_hex]
    follow = ["--witness-rotations", str(state / "rotations")]
    code, report = verify(attacked.path, before, *key, "--witness", old_key.vkey)
    assert (code, report["failures"]) == (0, [])
    code, report = verify(attacked.path, after, *key, "--witness", old_key.vkey)
    assert checkpoint_failures(report) == [
        f"checkpoint: not cosigned by the witness {old_key.vkey}"
    ]
    code, report = verify(attacked.path, after, *key, "--witness", old_key.vkey, *follow)
    assert (code, report["failures"]) == (0, [])
    assert report["transparency"]["witnesses"] == ["w1.test"]

    # The old key, leaked after its retirement, cosigns the newest checkpoint.
    served = Note(after.text, after.signatures[:1])
    late = cosign(served, "w1.test", old_signer, rotation.time + 1)
    code, report = verify(attacked.path, late, *key, "--witness", old_key.vkey, *follow)
    assert checkpoint_failures(report) == [
        f"checkpoint: not cosigned by the witness {old_key.vkey}"
    ]

    # The Node verifier follows the same statements the same way.
    log = tmp_path / "whole.log"
    _export(attacked.path, log)
    for note, more, failures in [
        (after, [], [f"checkpoint: not cosigned by the witness {old_key.name}"]),
        (after, follow, []),
        (late, follow, [f"checkpoint: not cosigned by the witness {old_key.name}"]),
    ]:
        checkpoint = tmp_path / "node-checkpoint.txt"
        checkpoint.write_text(note.render())
        trusting = ["--checkpoint", str(checkpoint), "--witness", old_key.vkey, *more]
        report = _node(log, attacked.signer.public_hex, *trusting)
        assert [f["found"] for f in report["failures"]] == failures

    # A rotation to an attacker's key that the witness's key never signed.
    forged = tmp_path / "forged"
    forged.write_text(
        statement.replace(rotated.key.vkey, NoteKey.of("w1.test", Signer.generate(), 4).vkey)
    )
    with pytest.raises(
        SystemExit, match=r"^feltline-replay verify: --witness-rotations: the rotation to "
    ):
        verify(
            attacked.path,
            after,
            *key,
            "--witness",
            old_key.vkey,
            "--witness-rotations",
            str(forged),
        )
