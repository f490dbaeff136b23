"""The server's key is never replaced silently: a store remembers the keys
it was signed with, a server holding another refuses to start unless told
a new key is meant (which the store then records, the old key staying
trusted), and reading a key never makes one."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room, open_room
from feltline.cli import main
from feltline.domain.chained import sign
from feltline.domain.ids import server_keys_id
from feltline.domain.keys import KeyAdopted
from feltline.store.config import StoreConfig
from feltline.store.signing import KeyChanged, _keys
from tests.cli.test_serve import refused, serve

from .conftest import Store
from .test_room import seated


def _config(store: Store, key: Path) -> StoreConfig:
    return StoreConfig.from_env({**store.env, "FELTLINE_KEY_FILE": str(key)})


def _played(store: Store, key: Path) -> tuple[str, object]:
    """A store with a table and a dealt hand signed by the key at ``key``."""
    room = open_room(_config(store, key))
    table = seated(room, 2)
    room.deal(table, "d1", at=0)
    public = room.streams.signer.public_hex
    room.close()
    return public, table


def test_a_new_store_adopts_the_key_it_makes_and_knows_it_after(
    store: Store, tmp_path: Path
) -> None:
    key = tmp_path / "feltline.key"
    public, table = _played(store, key)
    assert key.exists()
    room = open_room(_config(store, key))
    keys = _keys(room.streams)
    assert keys.adopted == (public,)
    assert room.streams.trusted == {public}
    assert room.table(table).version  # type: ignore[arg-type]
    room.close()


def test_a_lost_key_file_is_refused_not_replaced(store: Store, tmp_path: Path) -> None:
    key = tmp_path / "feltline.key"
    public, _ = _played(store, key)
    key.unlink()
    said = (
        f"there is no key file at {key}, and the store is signed by key {public}: restore that "
        "key file (or point FELTLINE_KEY_FILE at it), or start with --new-key to sign from now "
        "on with a new key"
    )
    with pytest.raises(KeyChanged, match=re.escape(said)):
        open_room(_config(store, key))
    assert not key.exists()


def test_another_key_file_is_refused(store: Store, tmp_path: Path) -> None:
    key = tmp_path / "feltline.key"
    public, _ = _played(store, key)
    other = tmp_path / "other.key"
    theirs = Signer.create(other).public_hex
    said = (
        f"the store is signed by key {public}, and this server's key file holds key {theirs}: "
        "restore the store's key file, or start with --new-key to adopt this one (streams "
        "signed by the old key stay trusted)"
    )
    with pytest.raises(KeyChanged, match=re.escape(said)):
        open_room(_config(store, other))


def test_a_new_key_when_told_is_recorded_and_the_old_stays_trusted(
    store: Store, tmp_path: Path
) -> None:
    key = tmp_path / "feltline.key"
    public, table = _played(store, key)
    key.unlink()
    room = open_room(_config(store, key), new_key=True)
    new = room.streams.signer.public_hex
    assert new != public
    keys = _keys(room.streams)
    assert keys.adopted == (public, new)
    assert room.table(table).version  # type: ignore[arg-type]  # signed by the old key: trusted
    assert room.hand(table, 1).signer == public  # type: ignore[arg-type]
    room.close()
    again = open_room(_config(store, key))  # the new key is now the store's: no flag needed
    assert again.streams.trusted == {public, new}
    again.close()


def test_a_key_added_to_the_store_without_the_servers_key_stops_the_server(
    store: Store, tmp_path: Path
) -> None:
    key = tmp_path / "feltline.key"
    _played(store, key)
    room = open_room(_config(store, key))
    attacker = Signer.generate()
    forged = _keys(room.streams).adopt(attacker.public_hex, "forged")
    row = room.streams.mapper.to_stored_event(sign([forged], attacker)[0])
    room.streams.recorder.insert_events([row])
    room.close()
    with pytest.raises(KeyChanged, match=f"signed by key {attacker.public_hex}"):
        open_room(_config(store, key))


def test_public_key_and_token_never_make_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "feltline.key"
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    for command in (["public-key"], ["token", "--role", "admin"]):
        with pytest.raises(SystemExit) as done:
            main(command)
        assert done.value.code == 1
        assert f"there is no key file at {key}" in capsys.readouterr().err
    assert not key.exists()


def test_serve_refuses_a_used_store_without_its_key_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "feltline.db"
    first = StoreConfig.from_env(
        {"SQLITE_DBNAME": str(db), "FELTLINE_KEY_FILE": str(tmp_path / "old.key")}
    )
    room = open_room(first)
    seated(room, 2)
    room.close()
    done: subprocess.CompletedProcess[str] = serve(tmp_path, "--port", "0", "--store", str(db))
    line = refused(done)
    assert "there is no key file" in line
    assert "--new-key" in line
    assert not (tmp_path / "feltline.key").exists()


def _reasons(room: Room) -> list[tuple[str, str]]:
    """Each key the store adopted, and the reason recorded with it."""
    rows = room.streams.recorder.select_events(server_keys_id())
    records = [room.streams.mapper.to_domain_event(row) for row in rows]
    return [(r.public_key, r.reason) for r in records if isinstance(r, KeyAdopted)]


def _forget_keys(store: Store) -> None:
    """The store as it was before it recorded its keys: no keys stream."""
    store.sql("DELETE FROM {events} WHERE originator_id = ?", server_keys_id().hex)


def test_each_key_is_recorded_with_why_it_was_adopted(store: Store, tmp_path: Path) -> None:
    key = tmp_path / "feltline.key"
    public, _ = _played(store, key)
    key.unlink()
    room = open_room(_config(store, key), new_key=True)
    new = room.streams.signer.public_hex
    assert _reasons(room) == [(public, "the store's first key"), (new, "adopted with --new-key")]
    room.close()


def test_a_store_signed_before_its_keys_were_recorded_adopts_the_key_that_signed_it(
    store: Store, tmp_path: Path
) -> None:
    key = tmp_path / "feltline.key"
    public, table = _played(store, key)
    _forget_keys(store)
    room = open_room(_config(store, key))
    assert _reasons(room) == [(public, "signed the store before its keys were recorded")]
    assert room.streams.trusted == {public}
    assert room.table(table).version  # type: ignore[arg-type]
    room.close()


def test_a_store_signed_before_its_keys_were_recorded_refuses_another_key(
    store: Store, tmp_path: Path
) -> None:
    key = tmp_path / "feltline.key"
    public, table = _played(store, key)
    _forget_keys(store)
    other = tmp_path / "other.key"
    theirs = Signer.create(other).public_hex
    with pytest.raises(KeyChanged, match=f"signed by key {public}.*holds key {theirs}"):
        open_room(_config(store, other))
    room = open_room(_config(store, other), new_key=True)
    assert _reasons(room) == [
        (public, "signed the store before its keys were recorded"),
        (theirs, "adopted with --new-key"),
    ]
    assert room.streams.trusted == {public, theirs}
    assert room.table(table).version  # type: ignore[arg-type]  # signed by the old key: trusted
    room.close()
