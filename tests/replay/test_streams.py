"""Every stream ``verify --store`` can reach, not only tables and hands:
an account's chips changed, forged or added without the key fail its
stream; a table cut back to before its last hand shows as chips the
accounts and the table do not agree on; a record the store cannot read
fails its own stream, and every other stream is still verified."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest

from feltline.audit import chain
from feltline_replay.cli import main
from feltline_replay.export import hand_id

from .conftest import Played
from .test_tamper import State, put, rows, run, tables

MINTED = "feltline.domain.account:Minted"


def _accounts(db: Path) -> list[UUID]:
    with sqlite3.connect(db) as conn:
        found = conn.execute(
            "SELECT originator_id FROM stored_events WHERE topic = ? AND originator_version = 1"
            " ORDER BY rowid",
            (MINTED,),
        ).fetchall()
    return [UUID(a) for (a,) in found]


def _link(previous: bytes, account: UUID, position: int, name: str, data: dict[str, Any]) -> bytes:
    return chain.link(
        previous,
        kind="account",
        stream=str(account),
        position=position,
        name=name,
        version=1,
        data=data,
    )


def _minted(amount: int, link: bytes) -> State:
    """A ``Minted`` record as the store keeps it, unsigned: nobody but the
    server has the key."""
    return {
        "signature": "",
        "signed_by": "",
        "command_id": str(uuid4()),
        "fingerprint": "00" * 32,
        "amount": amount,
        "link": link.hex(),
        "by": "admin",
        "class_version": 2,
    }


def _raised(db: Path, *, rechained: bool) -> UUID:
    """The first account's first ``Minted`` raised by 1,000, its link (and
    every link after it) recomputed or not."""
    account = _accounts(db)[0]
    recs = [(t, s) for _, t, s in rows(db, account)]
    recs[0][1]["amount"] += 1000
    if rechained:
        link = chain.GENESIS
        for n, (topic, state) in enumerate(recs, 1):
            name = topic.rpartition(":")[2]
            fields = ("amount", "by") if name == "Minted" else ("amount", "table", "seat")
            data = {f: state[f] for f in fields if f in state}
            if "table" in data:
                data["table"] = str(UUID(hex=data["table"]["_data_"]))
            link = _link(link, account, n, name, data)
            state["link"] = link.hex()
    put(db, account, recs)
    return account


def _forged_account(db: Path) -> UUID:
    account = uuid4()
    link = _link(chain.GENESIS, account, 1, "Minted", {"amount": 50_000, "by": "admin"})
    put(db, account, [(MINTED, _minted(50_000, link))])
    return account


def _appended(db: Path) -> UUID:
    account = _accounts(db)[0]
    recs = [(t, s) for _, t, s in rows(db, account)]
    previous = bytes.fromhex(recs[-1][1]["link"])
    link = _link(previous, account, len(recs) + 1, "Minted", {"amount": 50_000, "by": "admin"})
    put(db, account, [*recs, (MINTED, _minted(50_000, link))])
    return account


FORGERIES = {
    "Minted raised": lambda db: _raised(db, rechained=False),
    "Minted raised, chain recomputed": lambda db: _raised(db, rechained=True),
    "unsigned Minted in a new account": _forged_account,
    "unsigned Minted appended": _appended,
}


@pytest.mark.parametrize("every", [False, True], ids=["last signatures", "all signatures"])
@pytest.mark.parametrize("how", FORGERIES)
def test_an_account_forged_in_the_database_fails_its_stream(
    how: str, every: bool, played: Played, store_copy: Path
) -> None:
    account = FORGERIES[how](store_copy)
    more = ["--all-signatures"] if every else []
    code, report = run("--store", str(store_copy), "--public-key", played.signer.public_hex, *more)
    assert code == 1
    assert {(f["kind"], f["id"]) for f in report["failures"]} == {("account", str(account))}
    assert {f["check"] for f in report["failures"]} <= {"chain", "signature"}


def test_a_whole_store_verifies_its_accounts_and_an_export_carries_them(
    played: Played, store_copy: Path
) -> None:
    key = played.signer.public_hex
    code, report = run("--store", str(played.path), "--public-key", key)
    assert (code, report["failures"]) == (0, [])
    assert report["accounts"] == len(_accounts(played.path)) > 10
    account = _appended(store_copy)
    exported = store_copy.with_suffix(".log")
    assert main(["export", "--store", str(store_copy), "--output", str(exported)]) == 0
    code, report = run(str(exported), "--public-key", key)
    assert code == 1
    assert {(f["kind"], f["id"]) for f in report["failures"]} == {("account", str(account))}


def _cut(db: Path) -> UUID:
    """A table cut back to before its last hand that players came or went
    after, as a commit left it: the hand's stream and every later one
    deleted, and the table's rows from the hand's deal on."""

    def moves(state: State) -> bool:  # a player's chips, to a seat or back
        kind = state["type"]
        return kind in {"SatDown", "ChipsAdded"} or (
            kind == "StoodUp" and state["data"]["stack"] > 0
        )

    for table in tables(db):
        recs = [(t, s) for _, t, s in rows(db, table)]
        dealt = [i for i, (_, s) in enumerate(recs) if s["type"] == "HandDealt"]
        for number in range(len(dealt), 0, -1):
            if any(moves(s) for _, s in recs[dealt[number - 1] :]):
                for later in range(number, len(dealt) + 1):
                    put(db, hand_id(table, later), [])
                put(db, table, recs[: dealt[number - 1]])
                return table
    raise AssertionError("no table had players come or go after a hand")


def test_a_table_cut_back_to_before_a_hand_shows_as_chips(played: Played, store_copy: Path) -> None:
    table = _cut(store_copy)
    code, report = run("--store", str(store_copy), "--public-key", played.signer.public_hex)
    assert code == 1
    assert [(f["check"], f["kind"], f["id"]) for f in report["failures"]] == [
        ("chips", "table", str(table))
    ]
    assert "moved by the accounts, not at the table: " in report["failures"][0]["found"]


def test_a_damaged_record_fails_its_stream_and_the_rest_are_verified(
    played: Played, store_copy: Path
) -> None:
    with sqlite3.connect(store_copy) as conn:
        rowid, stream, position, state = conn.execute(
            "SELECT rowid, originator_id, originator_version, state FROM stored_events"
            " ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
        flipped = bytes([state[0] ^ 0xFF]) + bytes(state[1:])
        conn.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (flipped, rowid))
    out = run("--store", str(store_copy), "--public-key", played.signer.public_hex)
    code, report = out
    assert code == 1
    assert [(f["check"], f["id"], f["position"]) for f in report["failures"]] == [
        ("record", str(UUID(stream)), position)
    ]
    assert "neither a JSON object nor zlib-compressed JSON" in report["failures"][0]["found"]
    assert report["hands"] >= 300
    assert report["tables"] == 5


def test_a_store_none_of_whose_records_reads_is_said_to_be_encrypted(
    played: Played, store_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sqlite3.connect(store_copy) as conn:
        conn.execute("UPDATE stored_events SET state = zeroblob(40)")
    assert main(["verify", "--store", str(store_copy)]) == 2
    assert "encrypted at rest (CIPHER_TOPIC)" in capsys.readouterr().err
