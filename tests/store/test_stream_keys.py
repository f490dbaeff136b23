"""Every kind of stream (hand, table, account, match and the server's keys)
loads only if its last record is signed, and signed by a key the store
trusts: one whose signature was cut, or made again by another key over the
same records, is refused with a message that names the stream."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any
from uuid import UUID

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.domain.chained import TamperedError, sign
from feltline.domain.ids import account_id, hand_id, server_keys_id
from feltline.engine.hand.rules import Game
from feltline.store.faults import AccountUnreadable, Unreadable
from feltline.store.signing import adopt
from feltline.store.streams import Streams

from .conftest import Store
from .test_match import create
from .test_room import seated
from .test_tamper import _rewrite

OTHER = Signer.generate()


def _hand(room: Room) -> tuple[UUID, Callable[[Streams], object]]:
    table = seated(room, 2)
    room.deal(table, "d1", at=0)
    hand = hand_id(table, 1)
    return hand, lambda streams: streams.get(hand)


def _table(room: Room) -> tuple[UUID, Callable[[Streams], object]]:
    table = seated(room, 2)
    return table, lambda streams: streams.table(table)


def _account(room: Room) -> tuple[UUID, Callable[[Streams], object]]:
    room.mint("m1", "ann", 100, by="admin")
    account = account_id("ann")
    return account, lambda streams: streams.account(account)


def _match(room: Room) -> tuple[UUID, Callable[[Streams], object]]:
    match = create(room, Game.HOLDEM)
    return match, lambda streams: streams.match(match)


def _keys(room: Room) -> tuple[UUID, Callable[[Streams], object]]:
    adopt(room.streams, new_key=False)
    return server_keys_id(), lambda streams: adopt(streams, new_key=False)


KINDS = {"hand": _hand, "table": _table, "account": _account, "match": _match, "keys": _keys}
NAMES = {"keys": "server keys"}


def _cut(record: Any) -> Any:
    return replace(record, signature="", signed_by="")


def _other(record: Any) -> Any:
    return sign([_cut(record)], OTHER)[0]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("how", "refusal"),
    [
        (_cut, "{kind} {id}: its last stored event is not signed"),
        (_other, "{kind} {id} is signed by key {other}, not by this server's key {ours}"),
    ],
    ids=["unsigned", "signed by another key"],
)
def test_a_stream_not_signed_by_the_server_is_refused(
    store: Store, kind: str, how: Callable[[Any], Any], refusal: str
) -> None:
    room = store.room()
    stream, load = KINDS[kind](room)
    load(store.streams())  # as stored, it loads
    last = list(room.streams.events.get(stream))[-1]
    _rewrite(store, room.streams, [how(last)])
    with pytest.raises((TamperedError, Unreadable, AccountUnreadable)) as refused:
        load(store.streams())
    expected = refusal.format(
        kind=NAMES.get(kind, kind), id=stream, other=OTHER.public_hex, ours=store.signer.public_hex
    )
    assert expected in str(refused.value)
