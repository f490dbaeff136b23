"""Which key signs a store, and which keys it trusts.

A server that signs a store with a key the store has never seen would make
every earlier hand fail verification and every token invalid, so it does
not start silently: the store records each key it is signed with
(:mod:`feltline.domain.keys`), and a server whose key is not the store's
current one refuses to start unless its operator says a new key is meant,
which is then recorded. A store signed before keys were recorded names its
key in the signatures of its newest records.

Rotating the key (:func:`rotate`) is done with the store's servers
stopped: each server holds a shared lock on its key file while it runs,
and a rotation takes it alone, so it is refused while a server on this
machine signs with the key it retires. A server elsewhere that still holds
the old key file is refused when it starts again.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from eventsourcing.application import AggregateNotFoundError

from feltline.audit.keys import Signer
from feltline.domain.chained import Signed
from feltline.domain.hand import Sealed
from feltline.domain.ids import server_keys_id
from feltline.domain.keys import Keys
from feltline.domain.keys import project as project_keys
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams

LOOK_BACK = 100  # newest records to read for a signature, in a store that recorded no key


class KeyChanged(Exception):
    """The server's key is not the one the store is signed with."""


class KeyBusy(Exception):
    """The key file is held: by a running server, or by a rotation."""


def hold(path: Path, *, alone: bool) -> IO[bytes]:
    """The key file, open and locked: shared by servers, ``alone`` by a
    rotation; :class:`KeyBusy` at once if the other holds it. Closing the
    file lets it go."""
    file = path.open("rb")
    try:
        fcntl.flock(file, (fcntl.LOCK_EX if alone else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        file.close()
        raise KeyBusy(
            f"a server is running with the key file {path}: stop every server on this store "
            "before rotating its key"
            if alone
            else f"the key file {path} is being rotated: start the server when that is done"
        ) from None
    return file


def open_streams(config: StoreConfig | None = None, *, new_key: bool = False) -> Streams:
    """The store as configured (by default, from the environment), signed
    with the key in its key file: a new key only for a new store or with
    ``new_key``, else :class:`KeyChanged`."""
    config = config or StoreConfig.from_env()
    path = config.key_file
    signer = Signer.load(path) if path.exists() else Signer.generate()
    streams = Streams(signer, env=config.env)
    try:
        if not path.exists():
            signed_by = store_key(streams)
            if signed_by and not new_key:
                raise KeyChanged(
                    f"there is no key file at {path}, and the store is signed by key "
                    f"{signed_by}: restore that key file (or point FELTLINE_KEY_FILE at it), "
                    "or start with --new-key to sign from now on with a new key"
                )
            streams.signer = Signer.create(path)
        streams.key_held = hold(path, alone=False)
        streams.trusted = adopt(streams, new_key=new_key)
    except BaseException:
        streams.close()
        raise
    return streams


def adopt(streams: Streams, *, new_key: bool) -> frozenset[str]:
    """Check the cardroom's key against the store's and record it on the
    store's first start, or when ``new_key`` allows a change; the keys whose
    signatures the store's streams may carry."""
    keys = _keys(streams)
    ours = streams.signer.public_hex
    if keys.version:  # each adoption is signed by the key it adopts, or (rotated) it replaces
        streams.vouch("server keys", keys.id, keys.signer, trusted=frozenset(keys.adopted[-2:]))
    if keys.current == ours:
        return frozenset(keys.adopted)
    before = keys.current or store_key(streams)
    if before and before != ours and not new_key:
        raise KeyChanged(
            f"the store is signed by key {before}, and this server's key file holds key "
            f"{ours}: restore the store's key file, or start with --new-key to adopt this one "
            "(streams signed by the old key stay trusted)"
        )
    records = []
    if before and not keys.current:  # signed before keys were recorded
        records.append(keys.adopt(before, "signed the store before its keys were recorded"))
        keys = keys.apply(records[-1])
    if keys.current != ours:  # not the key that signed the store before keys were recorded
        reason = "the store's first key" if not before else "adopted with --new-key"
        records.append(keys.adopt(ours, reason))
    streams.commit(records)
    return frozenset((*keys.adopted, ours))


def store_key(streams: Streams) -> str:
    """The key that signed the store's newest signed record ("" if none did)."""
    top = streams.recorder.max_notification_id() or 0
    newest = streams.recorder.select_notifications(max(1, top - LOOK_BACK + 1), LOOK_BACK)
    for notification in reversed(newest):
        record = streams.mapper.to_domain_event(notification)
        if isinstance(record, Sealed):
            return record.public_key
        if isinstance(record, Signed) and record.signature:
            return record.signed_by
    return ""


def _keys(streams: Streams) -> Keys:
    try:
        keys: Keys = streams.repository.get(server_keys_id(), projector_func=project_keys)
    except AggregateNotFoundError:
        return Keys.new()
    return keys


@dataclass(frozen=True)
class Rotated:
    """A rotation: the key retired, and the key that signs from now on."""

    old: str
    new: str


def rotate(config: StoreConfig) -> Rotated:
    """Make a new key and record its introduction, signed by the old key,
    in the store's keys stream; then put it in the key file. Refused
    (:class:`KeyBusy`) while a server holds the key file. The new key is
    written beside the old first, so a rotation cut short leaves both."""
    path = config.key_file
    old = Signer.load(path)  # a KeyFileError, before anything is locked or made
    held = hold(path, alone=True)
    try:
        streams = Streams(old, env=config.env)
        try:
            adopt(streams, new_key=False)  # KeyChanged unless the key file's key signs the store
            keys = _keys(streams)
            fresh = path.with_name(f"{path.name}.new")
            if fresh.exists():
                raise KeyBusy(
                    f"{fresh} exists: a rotation was cut short. If the store's current key is "
                    f"{old.public_hex}, remove it and rotate again; otherwise move it to {path}"
                )
            new = Signer.create(fresh)
            adopted = keys.adopt(new.public_hex, "rotated")
            streams.commit([adopted])  # signed by the old key: it introduces the new one
            streams.signer = new
            streams.commit([keys.apply(adopted).accept()])  # the new key signs the history
            os.replace(fresh, path)
        finally:
            streams.close()
    finally:
        held.close()
    return Rotated(old.public_hex, new.public_hex)


class NotRevocable(Exception):
    """A key the store never adopted, or the one that signs it now."""


def revoke(config: StoreConfig, public_key: str, since: int | None, reason: str) -> int:
    """Record that ``public_key`` is compromised from notification ``since``
    on (by default, from the next one stored), signed by the current key;
    the notification it is revoked from."""
    streams = Streams(Signer.load(config.key_file), env=config.env)
    try:
        adopt(streams, new_key=False)
        keys = _keys(streams)
        if public_key not in keys.adopted:
            raise NotRevocable(f"the store never adopted key {public_key}")
        if public_key == keys.current:
            raise NotRevocable(
                f"key {public_key} signs the store now: rotate first (feltline key rotate), "
                "then revoke it"
            )
        start = since or (streams.recorder.max_notification_id() or 0) + 1
        streams.commit([keys.revoke(public_key, start, reason)])
    finally:
        streams.close()
    return start
