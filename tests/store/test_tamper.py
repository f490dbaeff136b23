"""Someone who can write the database but has not the server's key can
rig nothing: not the deck of a hand in progress, not an account's chips,
not a table's history. Every way of doing it is refused when the stream
loads, and when a room catches up with it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from uuid import UUID

import pytest

from feltline.audit import chain
from feltline.audit.keys import Signer
from feltline.domain.account import Minted
from feltline.domain.chained import TamperedError, sign
from feltline.domain.hand import HandStream, Recorded, project
from feltline.domain.ids import account_id, hand_id
from feltline.engine.cards.card import Card
from feltline.engine.cards.deck import commitment, shuffle
from feltline.engine.hand.events import DeckShuffled, HandStarted
from feltline.engine.hand.rules import Game
from feltline.store.faults import AccountUnreadable, Unreadable
from feltline.store.streams import Streams

from .conftest import Store
from .play import start
from .test_room import seated


def _rewrite(store: Store, streams: Streams, records: list[Any]) -> None:
    """Store ``records`` over the rows at their positions, as SQL would."""
    table = store.events_table
    rows = store.execute_sql(f"SELECT originator_id, originator_version FROM {table}", ())
    for record in records:
        key = next(
            r[0]
            for r in rows
            if str(r[0]).replace("-", "") == record.originator_id.hex
            and r[1] == record.originator_version
        )
        state = streams.mapper.to_stored_event(record).state
        store.execute_sql(
            f"UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (state, key, record.originator_version),
        )


def _rechained(records: list[Recorded], swap_at: int, seed: bytes = b"") -> list[Recorded]:
    """The hand's records with two undealt cards of its deck swapped (or,
    given a ``seed``, the deck, seed and commitment replaced by that seed's)
    and every link recomputed, as anyone can without the key."""
    out, link = [], chain.GENESIS
    for record in records:
        data = record.data
        if record.type == HandStarted.__name__ and seed:
            data = {**data, "commitment": commitment(seed)}
        if record.type == DeckShuffled.__name__:
            cards = list(data["cards"])
            cards[swap_at], cards[-1] = cards[-1], cards[swap_at]
            if seed:
                cards = [str(c) for c in shuffle(seed, sorted(Card.parse(c) for c in cards))]
            data = {**data, "cards": cards, "seed": seed.hex() if seed else data["seed"]}
        link = chain.link(
            link,
            kind="hand",
            stream=str(record.originator_id),
            position=record.originator_version,
            name=record.type,
            version=record.version,
            data=data,
            at=record.at if record.timed else None,
        )
        out.append(replace(record, data=data, link=link.hex()))
    return out


@pytest.mark.parametrize(
    ("how", "signatures", "refusal"),
    [
        ("swap", "kept", "not the one its committed seed derives"),
        ("reseed", "kept", "signature of event .* does not verify"),
        ("reseed", "cut", "its last stored event is not signed"),
    ],
)
def test_a_hand_in_progress_rigged_in_the_database_is_refused(
    store: Store, how: str, signatures: str, refusal: str
) -> None:
    room = store.room()
    table = seated(room, 3)
    room.deal(table, "d1", at=0)
    records = list(room.streams.events.get(hand_id(table, 1)))
    rigged = _rechained(records, swap_at=-2, seed=bytes(32) if how == "reseed" else b"")
    if signatures == "cut":
        rigged = [replace(r, signature="", signed_by="") for r in rigged]
    _rewrite(store, room.streams, rigged)
    with pytest.raises(Unreadable, match=refusal):  # the table is not served
        store.room().hand(table, 1)


def test_a_room_catching_up_refuses_a_record_appended_without_the_key(store: Store) -> None:
    room, attacker = store.room(), store.streams()
    table = seated(room, 3)
    room.deal(table, "d1", at=0)
    hand = room.hand(table, 1)
    last = list(room.streams.events.get(hand.id))[-1]
    assert isinstance(last, Recorded)
    forged = replace(last, originator_version=last.originator_version + 1, signature="")
    forged = replace(forged, link=_next_link(hand, forged).hex())
    attacker.recorder.insert_events([attacker.mapper.to_stored_event(forged)])
    room.look()
    with pytest.raises(Unreadable, match="not signed"):
        room.hand(table, 1)


def _next_link(hand: HandStream, record: Recorded) -> bytes:
    return chain.link(
        hand.link,
        kind="hand",
        stream=str(hand.id),
        position=record.originator_version,
        name=record.type,
        version=record.version,
        data=record.data,
        at=record.at if record.timed else None,
    )


def test_a_hand_moved_to_another_time_is_refused(store: Store) -> None:
    """A hand's records moved a day back: the time is in the chain."""
    room = store.room()
    table = seated(room, 3)
    room.deal(table, "d1", at=100_000)
    records = list(room.streams.events.get(hand_id(table, 1)))
    assert all(isinstance(r, Recorded) and r.timed for r in records)
    _rewrite(store, room.streams, [replace(r, at=r.at - 86_400) for r in records])
    with pytest.raises(Unreadable, match="event 1 does not match its chain link"):
        store.room().hand(table, 1)


@pytest.mark.parametrize("game", list(Game))
def test_a_deck_its_seed_does_not_derive_is_refused_even_when_signed(game: Game) -> None:
    signer = Signer.generate()
    stream = HandStream.new(UUID(int=7))
    command = replace(start(game), seed=bytes(range(32)))
    records, _ = stream.execute("start", command, signer, at=0)
    rigged = sign(_rechained([r for r in records if isinstance(r, Recorded)], swap_at=-2), signer)
    with pytest.raises(TamperedError, match="committed seed derives"):
        project(None, rigged)
    assert project(None, sign(records, signer)) is not None  # the hand as dealt loads


@pytest.mark.parametrize(("key", "refusal"), [("none", "not signed"), ("other", "not by this")])
def test_chips_minted_in_the_database_are_refused(store: Store, key: str, refusal: str) -> None:
    room = store.room()
    room.mint("m1", "ann", 100, by="admin")
    account = room.streams.account(account_id("ann"))
    forged = account.mint("forged", "fp", 1000, "admin")  # correctly chained, unsigned
    if key == "other":
        forged = sign([forged], Signer.generate())[0]
    assert isinstance(forged, Minted)
    room.streams.recorder.insert_events([room.streams.mapper.to_stored_event(forged)])
    with pytest.raises(AccountUnreadable, match=refusal):
        store.room().balance("ann")


def test_a_table_whose_last_signature_is_cut_is_refused(store: Store) -> None:
    room = store.room()
    table = seated(room, 2)
    last = list(room.streams.events.get(table))[-1]
    _rewrite(store, room.streams, [replace(last, signature="", signed_by="")])
    with pytest.raises(Unreadable, match=f"table {table}: its last stored event is not signed"):
        store.room().table(table)
