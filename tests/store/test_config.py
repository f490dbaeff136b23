import json
import random
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from eventsourcing.cryptography import AESCipher

from feltline.audit import chain
from feltline.audit.codec import encode_event
from feltline.cardroom.room import open_room
from feltline.domain.hand import Recorded
from feltline.engine.cards.deck import DECK_ALGORITHM
from feltline.engine.hand.decide import NEW_HAND, decide, replay
from feltline.engine.hand.events import HandStarted
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline.store.config import StoreConfig
from tests.audit.layouts import as_stored
from tests.tables import TABLES

from .conftest import Store
from .play import play, start
from .players import cid
from .test_room import seated


def test_sqlite_file_in_the_working_directory_is_the_default(tmp_path: Path) -> None:
    config = StoreConfig.from_env({})
    assert config.env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite"
    assert config.env["SQLITE_DBNAME"] == "feltline.db"
    assert config.key_file == Path("feltline.key")
    names = [f"{p}POSTGRES_ENABLE_DB_FUNCTIONS" for p in ("", "CARDROOM_")]
    forced = StoreConfig.from_env(dict.fromkeys(names, "y"))
    assert [forced.env[name] for name in names] == ["n", "n"]


def test_open_room_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    room = open_room()
    room.open_table("t1", TableConfig(TABLES[Game.JACKPOTS], 6), at=0)
    room.close()
    assert (tmp_path / "feltline.db").exists()
    assert (tmp_path / "feltline.key").exists()


def test_encryption_at_rest_hides_names_and_still_loads(store: Store) -> None:
    key = AESCipher.create_key(32)
    room = store.room(CIPHER_TOPIC="eventsourcing.cryptography:AESCipher", CIPHER_KEY=key)
    _, hand_id = play(room, Game.DRAW_DECLARE, random.Random(2))
    states = b"".join(bytes(r[0]) for r in store.sql("SELECT state FROM {events}"))  # type: ignore[arg-type]
    assert b"bot 1" not in states
    assert b"HandEnded" not in states
    assert (
        store.streams(CIPHER_TOPIC="eventsourcing.cryptography:AESCipher", CIPHER_KEY=key)
        .get(hand_id)
        .seal
        is not None
    )


@pytest.mark.parametrize("under", [1, 2])
def test_a_hand_started_stored_under_an_old_version_still_loads(store: Store, under: int) -> None:
    """Version 1 did not name the deck algorithm; versions 1 and 2 held the
    deal's fields flat."""
    hand_id = uuid.uuid4()
    events = decide(NEW_HAND, replace(start(Game.HOLDEM), seed=bytes(32)))
    link, stored = chain.GENESIS, []
    for position, event in enumerate(events, 1):
        name, version, data = encode_event(event)
        if isinstance(event, HandStarted):
            version, data = under, as_stored(name, data, version, under)
        link = chain.link(
            link,
            kind="hand",
            stream=str(hand_id),
            position=position,
            name=name,
            version=version,
            data=data,
        )
        stored.append(Recorded(hand_id, position, name, version, data, link.hex(), "start", "", 0))
    streams = store.streams()
    streams.commit(stored)
    loaded = store.streams().get(hand_id)
    first = loaded.commands["start"][1][0]
    assert isinstance(first, HandStarted)
    assert first.algorithm == DECK_ALGORITHM
    assert first == events[0]
    assert loaded.hand == replay(events)


def test_a_record_stored_before_times_were_kept_loads_at_time_zero(store: Store) -> None:
    """The hand's records as a server of record version 1 wrote them: no
    time, chained without one, signed by the same key."""
    room = store.room()
    table = seated(room, 2)
    room.deal(table, cid(), at=17)
    hand_id = room.hand(table, 1).id
    assert store.streams().get(hand_id).since == 17
    rows = store.sql("SELECT originator_id, originator_version, state FROM {events}")
    ours = sorted((r for r in rows if str(r[0]).replace("-", "") == hand_id.hex), key=_position)
    link = chain.GENESIS
    for row in ours:
        state = json.loads(bytes(row[2]))  # type: ignore[arg-type]
        for newer in ("at", "timed", "class_version"):
            del state[newer]
        link = chain.link(
            link,
            kind="hand",
            stream=str(hand_id),
            position=_position(row),
            name=state["type"],
            version=state["version"],
            data=state["data"],
        )
        state["link"] = link.hex()
        if state["signature"]:
            state["signature"] = store.signer.sign(link).hex()
        store.sql(
            "UPDATE {events} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            json.dumps(state).encode(),
            row[0],
            row[1],
        )
    assert store.streams().get(hand_id).since == 0


def _position(row: tuple[object, ...]) -> int:
    return int(str(row[1]))


def test_compressed_events_still_load(store: Store) -> None:
    room = store.room(COMPRESSOR_TOPIC="eventsourcing.compressor:ZlibCompressor")
    _, hand_id = play(room, Game.STUD_HI_LO, random.Random(3))
    states = b"".join(bytes(r[0]) for r in store.sql("SELECT state FROM {events}"))  # type: ignore[arg-type]
    assert b"HandEnded" not in states
    reopened = store.streams(COMPRESSOR_TOPIC="eventsourcing.compressor:ZlibCompressor")
    assert reopened.get(hand_id).seal is not None


def test_a_postgres_store_opens_without_a_password_variable(postgres_schema: str) -> None:
    """With trust, peer or ~/.pgpass, an operator sets no POSTGRES_PASSWORD;
    the library refused such a store with a traceback from `feltline serve`."""
    from tests.postgres import store_env

    settings = {k: v for k, v in store_env(postgres_schema).items() if k != "POSTGRES_PASSWORD"}
    config = replace(StoreConfig.from_env(settings), key_file=Path(f"/tmp/{uuid.uuid4()}.key"))
    room = open_room(config)
    try:
        assert room.mint("m", "ann", 5, by="admin") == 5
    finally:
        room.close()
        config.key_file.unlink()
