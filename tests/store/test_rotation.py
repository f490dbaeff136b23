"""``feltline key rotate``: a new key signs from then on, the old one signs
its introduction, and the new one signs the history; hands sealed before a
rotation still verify against the key that sealed them, with both
verifiers, trusting the store's first key or its newest."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room, open_room
from feltline.cli import main
from feltline.domain.chained import TamperedError, sign
from feltline.domain.ids import server_keys_id
from feltline.domain.keys import KeyRevoked
from feltline.store.check import check
from feltline.store.signing import LOOK_BACK, KeyBusy, KeyChanged, _keys, hold
from feltline_replay.cli import main as replay
from tests.store.players import Players, finished, open_tables

from .conftest import Store
from .test_backup import _args, _config
from .test_signing import _reasons

ROOT = Path(__file__).resolve().parents[2]
TABLES = 2


def _play_on(room: Room, hands: int, rng: random.Random) -> list[UUID]:
    """Play until ``hands`` more have finished, and stop in the middle of one."""
    tables = open_tables(room, TABLES)  # opening again finds them
    players = [Players(room, t, rng) for t in tables]
    target = finished(room, tables) + hands
    while finished(room, tables) < target or all(room.table(t).table.dealt is None for t in tables):
        for p in players:
            p.step()
    return tables


def _node(log: Path, key: str) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(ROOT / "clients/node/src/verify.js"), str(log), "--public-key", key, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in {0, 1}, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _python(log: Path, key: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    replay(["verify", str(log), "--public-key", key, "--json"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def _export(
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Path:
    log = tmp_path / "hands.log"
    assert replay(["export", *_args(store.env, monkeypatch), "--output", str(log)]) == 0
    capsys.readouterr()
    return log


def _sealed_by(log: Path) -> set[str]:
    records = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    return {r["public_key"] for r in records if r["kind"] == "seal"}


def _rotated_twice(
    store: Store, key: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[list[str], int]:
    """A store played on, rotated, played on, rotated and played on, each
    stretch stopped in the middle of a hand: its three keys, and the hands
    finished."""
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    config = _config(store.env, key)
    rng = random.Random(3)
    keys = []
    for stretch in range(3):
        room = open_room(config)  # a server: it stops mid-hand, and resumes after a rotation
        keys.append(room.streams.signer.public_hex)
        _play_on(room, 3, rng)
        room.close()
        if stretch < 2:
            capsys.readouterr()
            assert main(["key", "rotate", *_args(store.env, monkeypatch)]) == 0
            said = capsys.readouterr().out
            new = Signer.load(key).public_hex
            assert f"rotated: key {new} signs from now on, introduced by key {keys[-1]}" in said
    assert len(set(keys)) == 3
    room = open_room(config)
    assert _keys(room.streams).adopted == tuple(keys)
    assert [why for _, why in _reasons(room)] == ["the store's first key", "rotated", "rotated"]
    ledger = check(room.streams)
    assert ledger.balanced, ledger.problems
    room.close()
    return keys, ledger.finished


def test_a_store_rotated_twice_while_players_play_verifies_with_both_verifiers(
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    keys, hands = _rotated_twice(store, tmp_path / "feltline.key", monkeypatch, capsys)
    log = _export(store, tmp_path, monkeypatch, capsys)
    assert _sealed_by(log) == set(keys)  # hands sealed by each key
    for trusted in (keys[0], keys[-1]):  # the store's first key, or `feltline public-key`'s
        for report in (_python(log, trusted, capsys), _node(log, trusted)):
            assert report["failures"] == []
            assert report["hands"] == hands
    capsys.readouterr()
    assert replay(["verify", *_args(store.env, monkeypatch), "--public-key", keys[0]]) == 0
    assert capsys.readouterr().out.endswith(f"{hands} hands: ok\n")

    stranger = "ab" * 32  # a key the history never adopted trusts none of it
    for report in (_python(log, stranger, capsys), _node(log, stranger)):
        assert {f["check"] for f in report["failures"]} == {"key"}
        assert {f["found"] for f in report["failures"]} == set(keys)


def test_a_key_adopted_without_the_old_ones_signature_is_not_trusted_from_the_old(
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--new-key`` (the old key lost) breaks the history forward: a
    verifier that trusts the first key fails what the new one signed. One
    that trusts the new key follows the history it signed back to the first."""
    key = tmp_path / "feltline.key"
    config = _config(store.env, key)
    rng = random.Random(4)
    room = open_room(config)
    first = room.streams.signer.public_hex
    _play_on(room, 2, rng)
    room.close()
    key.unlink()
    room = open_room(config, new_key=True)
    second = room.streams.signer.public_hex
    _play_on(room, 2, rng)
    room.close()

    log = _export(store, tmp_path, monkeypatch, capsys)
    for report in (_python(log, first, capsys), _node(log, first)):
        assert report["failures"]
        assert {(f["check"], f["found"]) for f in report["failures"]} == {("key", second)}
    for report in (_python(log, second, capsys), _node(log, second)):
        assert report["failures"] == []


def test_a_rotation_is_refused_while_a_server_holds_the_key(
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = tmp_path / "feltline.key"
    room = open_room(_config(store.env, key))
    before = key.read_bytes()
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    assert main(["key", "rotate", *_args(store.env, monkeypatch)]) == 1
    assert (
        f"a server is running with the key file {key}: stop every server on this store "
        "before rotating its key" in capsys.readouterr().err
    )
    assert key.read_bytes() == before
    assert _keys(room.streams).adopted == (room.streams.signer.public_hex,)
    room.close()
    assert main(["key", "rotate", *_args(store.env, monkeypatch)]) == 0
    assert key.read_bytes() != before


def test_servers_share_the_key_file_and_one_starting_mid_rotation_is_told_to_wait(
    store: Store, tmp_path: Path
) -> None:
    key = tmp_path / "feltline.key"
    first = open_room(_config(store.env, key))
    second = open_room(_config(store.env, key))  # two servers on one machine and store
    second.close()
    first.close()
    rotation = hold(key, alone=True)
    with pytest.raises(KeyBusy, match=f"the key file {key} is being rotated: start the server"):
        open_room(_config(store.env, key))
    rotation.close()


def test_a_lost_key_file_after_a_rotation_names_the_key_that_signs_the_store_now(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More records than the look-back window before the rotation, whose
    last record alone is signed by the new key: that key is named."""
    key = tmp_path / "feltline.key"
    room = open_room(_config(store.env, key))
    while (room.streams.recorder.max_notification_id() or 0) <= LOOK_BACK:
        room.mint(f"m{room.streams.recorder.max_notification_id()}", "ann", 1, by="admin")
    room.close()
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    assert main(["key", "rotate", *_args(store.env, monkeypatch)]) == 0
    new = Signer.load(key).public_hex
    key.unlink()
    with pytest.raises(KeyChanged, match=f"the store is signed by key {new}:"):
        open_room(_config(store.env, key))


def test_a_rotation_or_revocation_with_another_key_file_or_cut_short_is_refused(
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = tmp_path / "feltline.key"
    room = open_room(_config(store.env, key))
    ours = room.streams.signer.public_hex
    room.close()
    other = tmp_path / "other.key"
    theirs = Signer.create(other).public_hex
    for held, said in (
        (other, f"signed by key {ours}, and this server's key file holds key {theirs}"),
        (key, f"{key}.new exists: a rotation was cut short. If the store's current key is {ours}"),
    ):
        if held == key:
            (tmp_path / "feltline.key.new").write_bytes(b"")
        monkeypatch.setenv("FELTLINE_KEY_FILE", str(held))
        capsys.readouterr()
        assert main(["key", "rotate", *_args(store.env, monkeypatch)]) == 1
        assert said in capsys.readouterr().err
    (tmp_path / "feltline.key.new").unlink()
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(other))
    assert main(["key", "revoke", ours, *_args(store.env, monkeypatch)]) == 1
    assert f"holds key {theirs}" in capsys.readouterr().err
    room = open_room(_config(store.env, key))
    assert _keys(room.streams).adopted == (ours,)
    room.close()


def test_a_retired_key_cannot_add_a_key_after_its_successor(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keys stream's last record is signed by the key it adopts or the
    one that key replaces: a key retired before cannot add one of its own."""
    key = tmp_path / "feltline.key"
    room = open_room(_config(store.env, key))
    retired = Signer.load(key)
    room.close()
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    assert main(["key", "rotate", *_args(store.env, monkeypatch)]) == 0
    room = open_room(_config(store.env, key))
    forged = sign([_keys(room.streams).adopt(Signer.generate().public_hex, "forged")], retired)
    room.streams.recorder.insert_events([room.streams.mapper.to_stored_event(forged[0])])
    room.close()
    with pytest.raises(TamperedError, match=f"is signed by key {retired.public_hex}, not by"):
        open_room(_config(store.env, key))


def _signed(log: Path, key: str) -> list[tuple[str, str, int, int]]:
    """Every record of the log ``key`` signed: (kind, stream, position, notification)."""
    records = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    return [
        ("hand" if r["kind"] == "seal" else r["kind"], r["id"], r["position"], r["notification"])
        for r in records
        if key in {r.get("signed_by"), r.get("public_key") if r["kind"] == "seal" else None}
        and (r.get("signature") or r["kind"] == "seal")
    ]


def test_a_revoked_key_fails_what_it_signed_from_the_point_revoked_on(
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    keys, _ = _rotated_twice(store, tmp_path / "feltline.key", monkeypatch, capsys)
    store_args = _args(store.env, monkeypatch)
    for key, why in (
        (
            keys[2],
            f"key {keys[2]} signs the store now: rotate first (feltline key rotate), "
            "then revoke it",
        ),
        ("cd" * 32, f"the store never adopted key {'cd' * 32}"),
    ):
        assert main(["key", "revoke", key, *store_args]) == 1
        assert why in capsys.readouterr().err
    signed = _signed(_export(store, tmp_path, monkeypatch, capsys), keys[1])
    since = sorted(n for *_, n in signed)[len(signed) // 2]  # a point while it signed
    assert main(["key", "revoke", keys[1], "--since", str(since), *store_args]) == 0
    assert f"from notification {since} on" in capsys.readouterr().out
    room = open_room(_config(store.env, tmp_path / "feltline.key"))
    rows = room.streams.recorder.select_events(server_keys_id())
    revoked = [room.streams.mapper.to_domain_event(row) for row in rows][-1]
    assert isinstance(revoked, KeyRevoked)
    assert (revoked.public_key, revoked.since, revoked.reason) == (keys[1], since, "compromised")
    room.close()

    (tmp_path / "hands.log").unlink()
    log = _export(store, tmp_path, monkeypatch, capsys)
    late = {
        (kind, stream, position)
        for kind, stream, position, n in signed
        if n >= since and kind != "server"  # the key history is judged by who signed it
    }
    assert 0 < len(late) < len(signed)
    for trusted in (keys[0], keys[2]):
        for report in (_python(log, trusted, capsys), _node(log, trusted)):
            failed = {(f["kind"], f["id"], f["position"]) for f in report["failures"]}
            assert {f["check"] for f in report["failures"]} == {"revoked"}
            assert failed == late


def test_a_revoked_key_cannot_bring_in_a_key_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Someone holding a revoked old key appends an adoption of their own
    key to the keys stream, signed by the revoked key, and re-signs a
    table's last record with theirs: both verifiers refuse their key."""
    db, key = tmp_path / "feltline.db", tmp_path / "feltline.key"
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    config = _config({"SQLITE_DBNAME": str(db)}, key)
    rng = random.Random(6)
    room = open_room(config)
    tables = _play_on(room, 2, rng)
    room.close()
    leaked = Signer.load(key)
    store_args = ["--store", str(db)]
    assert main(["key", "rotate", *store_args]) == 0
    with sqlite3.connect(db) as sql:
        (newest_row,) = sql.execute("SELECT MAX(rowid) FROM stored_events").fetchone()
    assert main(["key", "revoke", leaked.public_hex, *store_args]) == 0
    assert f"from notification {newest_row + 1} on" in capsys.readouterr().out  # the next stored
    room = open_room(config)
    newest = room.streams.signer.public_hex
    ours = Signer.generate()
    forged = sign([_keys(room.streams).adopt(ours.public_hex, "forged")], leaked)
    room.streams.recorder.insert_events([room.streams.mapper.to_stored_event(forged[0])])
    room.close()
    with sqlite3.connect(db) as sql:
        rowid, raw = sql.execute(
            "SELECT rowid, state FROM stored_events WHERE originator_id = ?"
            " ORDER BY originator_version DESC LIMIT 1",
            (tables[0].hex,),
        ).fetchone()
        state = json.loads(raw)
        state["signature"] = ours.sign(bytes.fromhex(state["link"])).hex()
        state["signed_by"] = ours.public_hex
        sql.execute(
            "UPDATE stored_events SET state = ? WHERE rowid = ?",
            (json.dumps(state).encode(), rowid),
        )
    log = tmp_path / "hands.log"
    assert replay(["export", *store_args, "--output", str(log)]) == 0
    for trusted in (leaked.public_hex, newest):
        for report in (_python(log, trusted, capsys), _node(log, trusted)):
            assert {(f["check"], f["kind"], f["id"], f["found"]) for f in report["failures"]} == {
                ("key", "table", str(tables[0]), ours.public_hex)
            }
