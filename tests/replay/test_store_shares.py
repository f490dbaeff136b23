"""A store verified in shares (:func:`store_shares`): how it is cut, and
that any cut, in one process or several, reports what the whole store
does, its keys stream, tables, hands and accounts each read once.

The store is small (a few hands at two tables, played in a fraction of a
second), so these run per mutant (tests/mutation/run)."""

from __future__ import annotations

import sqlite3
from itertools import pairwise
from pathlib import Path
from uuid import UUID, uuid4

import pytest

from feltline.store.config import StoreConfig
from feltline.store.signing import adopt
from feltline.store.streams import Streams
from feltline_replay import verify as verifying
from feltline_replay.export import KEYS, Plan, Selection, hand_id, plan
from feltline_replay.store import open_rows
from feltline_replay.verify import (
    SHARE_STREAMS,
    Report,
    StoreShare,
    store_shares,
    verify_shares,
)

from .conftest import Played, play


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A few hands played, then the key that signed them recorded in the
    store's keys stream, as a server started on the store records it."""
    path = tmp_path_factory.mktemp("shares") / "feltline.db"
    signer = play(path, 6, tables=2)
    streams = Streams(signer, env=StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env)
    assert adopt(streams, new_key=False) == {signer.public_hex}
    streams.close()
    return Played(path, signer)


@pytest.fixture(scope="module")
def chosen(store: Played) -> Plan:
    rows = open_rows(str(store.path))
    try:
        made = plan(rows, Selection())
        made.accounts = rows.accounts()
    finally:
        rows.close()
    return made


def read(store: Played, shares: list[StoreShare]) -> list[tuple[str, str, int]]:
    """Each record the shares read: its kind, stream and position."""
    return [(r["kind"], r["id"], r["position"]) for s in shares for r in s.records()]


def stored(store: Played, chosen: Plan) -> list[tuple[str, str, int]]:
    """Every record of the chosen streams, as (kind, stream, position), by
    stream: the keys, every table and finished hand, and the accounts."""
    streams = {KEYS, *chosen.tables, *(chosen.accounts or ())}
    streams |= {hand_id(t, n) for t in chosen.tables for n in chosen.hands[t]}
    with sqlite3.connect(store.path) as conn:
        rows = conn.execute("SELECT originator_id, originator_version FROM stored_events")
        return sorted(("", str(UUID(s)), p) for s, p in rows if UUID(s) in streams)


def test_a_store_is_cut_into_shares_of_whole_streams_of_about_size_hands(
    store: Played, chosen: Plan
) -> None:
    assert len(chosen.tables) == 3  # the draw table besides the two
    assert chosen.count >= 6
    order = [(t, n) for t in chosen.tables for n in chosen.hands[t]]
    for size in (1, 2, 5, 40):
        shares = list(store_shares(str(store.path), chosen.tables, chosen.hands, size))
        assert [s.keys for s in shares] == [True] + [False] * (len(shares) - 1)
        assert all(s.store == str(store.path) and s.others == () for s in shares)
        counts = [sum(len(numbers) for _, _, numbers in s.pieces) for s in shares]
        assert counts[:-1] == [size] * (len(shares) - 1)
        assert 0 < counts[-1] <= size
        pieces = [piece for s in shares for piece in s.pieces]
        assert [(t, n) for t, _, numbers in pieces for n in numbers] == order
        whole = [t for t, whole, _ in pieces if whole]
        assert whole == chosen.tables  # each table's own stream once, with its first hands
        firsts = {t: next(i for i, p in enumerate(pieces) if p[0] == t) for t in chosen.tables}
        assert all(pieces[i][1] for i in firsts.values())


def test_no_table_still_reads_the_keys_stream_and_others_go_400_a_share(store: Played) -> None:
    assert list(store_shares(str(store.path), [], {})) == [
        StoreShare(str(store.path), (), keys=True)
    ]
    others = tuple(uuid4() for _ in range(SHARE_STREAMS + 1))
    shares = list(store_shares(str(store.path), [], {}, others=others))
    assert shares == [
        StoreShare(str(store.path), (), keys=True),
        StoreShare(str(store.path), (), others=others[:SHARE_STREAMS]),
        StoreShare(str(store.path), (), others=others[SHARE_STREAMS:]),
    ]


def test_the_shares_read_every_record_once_keys_first_and_streams_whole(
    store: Played, chosen: Plan
) -> None:
    assert chosen.accounts
    for size in (1, 3, 40):
        shares = list(
            store_shares(str(store.path), chosen.tables, chosen.hands, size, others=chosen.accounts)
        )
        records = read(store, shares)
        assert sorted(("", s, p) for _, s, p in records) == stored(store, chosen)
        kinds = [k for k, _, _ in records]
        assert kinds[0] == "server"
        assert set(kinds[kinds.count("server") :]) >= {
            "table",
            "hand",
            "seal",
            "account",
        }
        assert "server" not in kinds[kinds.count("server") :]
        streams = [s for _, s, _ in records]
        changes = sum(a != b for a, b in pairwise(streams))
        assert changes == len(set(streams)) - 1  # each stream's records together
        assert records[0][1] == str(KEYS)
        table = chosen.tables[0]
        assert streams.index(str(table)) < streams.index(str(hand_id(table, 1)))


def whole_store(store: Played, chosen: Plan, size: int, **options: object) -> Report:
    shares = store_shares(
        str(store.path), chosen.tables, chosen.hands, size, others=chosen.accounts or ()
    )
    return verify_shares(shares, store.signer.public_hex, chips=True, **options)  # type: ignore[arg-type]


def test_a_store_in_shares_of_any_size_and_processes_verifies_as_one(
    store: Played, chosen: Plan
) -> None:
    whole = whole_store(store, chosen, 1 << 40)
    assert not verifying._OPEN  # the store this process opened to read it, closed
    assert (whole.ok, whole.tables, whole.hands) == (True, 3, chosen.count)
    assert whole.accounts == len(chosen.accounts or ()) > 0
    assert whole.verified > whole.tables + whole.hands
    for size in (1, 4):
        assert whole_store(store, chosen, size).as_json() == whole.as_json()
        assert whole_store(store, chosen, size, workers=2).as_json() == whole.as_json()


def test_a_store_s_tampered_hand_fails_alike_in_any_share(
    store: Played, chosen: Plan, tmp_path: Path
) -> None:
    """A seal's signature cut short in the database."""
    copy = tmp_path / "copy.db"
    copy.write_bytes(store.path.read_bytes())
    table = chosen.tables[0]
    hand = hand_id(table, chosen.hands[table][-1])
    with sqlite3.connect(copy) as conn:
        (last,) = conn.execute(
            "SELECT max(originator_version) FROM stored_events WHERE originator_id = ?",
            (hand.hex,),
        ).fetchone()
        conn.execute(
            "UPDATE stored_events SET state = CAST(replace(CAST(state AS TEXT),"
            ' \'"signature":"\', \'"signature":"00\') AS BLOB)'
            " WHERE originator_id = ? AND originator_version = ?",
            (hand.hex, last),
        )
    tampered = Played(copy, store.signer)
    whole = whole_store(tampered, chosen, 1 << 40)
    assert [(f.check, f.id) for f in whole.failures] == [("seal signature", str(hand))]
    assert whole_store(tampered, chosen, 1, workers=2).as_json() == whole.as_json()
