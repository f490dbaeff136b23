"""Someone with write access to the database changes one thing, in one of
many ways; ``feltline-replay verify`` finds it, names the hand (or the
table) it was done to, and exits non-zero. The untampered store verifies
clean."""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from feltline.audit import chain
from feltline.audit.codec import decode_event
from feltline.audit.keys import Signer
from feltline.engine.cards.card import Card
from feltline.engine.cards.deck import commitment, shuffle
from feltline.engine.hand.dealing import fresh_deck
from feltline.engine.hand.rules import Rules
from feltline_replay.cli import main
from feltline_replay.export import hand_id

from .conftest import Played

State = dict[str, Any]
HAND = "feltline.domain.hand:Recorded"
SEAL = "feltline.domain.hand:Sealed"


def run(*args: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["verify", *args, "--json"])
    return code, json.loads(out.getvalue())


def rows(db: Path, stream: UUID) -> list[tuple[int, str, State]]:
    with sqlite3.connect(db) as conn:
        found = conn.execute(
            "SELECT originator_version, topic, state FROM stored_events"
            " WHERE originator_id = ? ORDER BY originator_version",
            (stream.hex,),
        ).fetchall()
    return [(v, t, json.loads(s)) for v, t, s in found]


def put(db: Path, stream: UUID, new: list[tuple[str, State]]) -> None:
    """Replace the stream's rows with ``new``, numbered from 1, as SQL can."""
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM stored_events WHERE originator_id = ?", (stream.hex,))
        conn.executemany(
            "INSERT INTO stored_events (originator_id, originator_version, topic, state)"
            " VALUES (?, ?, ?, ?)",
            [(stream.hex, n, t, json.dumps(s).encode()) for n, (t, s) in enumerate(new, 1)],
        )


def tables(db: Path) -> list[UUID]:
    with sqlite3.connect(db) as conn:
        found = conn.execute(
            "SELECT originator_id FROM stored_events WHERE topic = ? AND originator_version = 1"
            " ORDER BY rowid",
            ("feltline.domain.table:TableRecord",),
        ).fetchall()
    return [UUID(t) for (t,) in found]


def table_of(db: Path, hand: UUID) -> UUID:
    """The table that dealt ``hand``: hand ids derive from the table's."""
    return next(t for t in tables(db) for n in range(1, 1000) if hand_id(t, n) == hand)


def find(db: Path, wanted: Callable[[list[State]], bool]) -> tuple[UUID, list[tuple[str, State]]]:
    """A hand whose records (states, seal last) satisfy ``wanted``: the
    first such of the middle hands of the first table that has one, so that
    the hands before and after it are there to tie it to."""
    for table in tables(db):
        for number in range(2, 1000):
            stream = rows(db, hand_id(table, number))
            if not stream:
                break
            states = [s for _, _, s in stream]
            if stream[-1][1] == SEAL and wanted(states):
                return hand_id(table, number), [(t, s) for _, t, s in stream]
    raise AssertionError("no such hand in the store")


def of(states: list[State], kind: str) -> list[int]:
    return [i for i, s in enumerate(states) if s.get("type") == kind]


def rechain(hand: UUID, records: list[tuple[str, State]]) -> list[tuple[str, State]]:
    """Every link recomputed, as anyone can without the key; signatures kept."""
    link, out = chain.GENESIS, []
    for n, (topic, stored) in enumerate(records, 1):
        state = dict(stored)
        if topic == HAND:
            link = chain.link(
                link,
                kind="hand",
                stream=str(hand),
                position=n,
                name=state["type"],
                version=state["version"],
                data=state["data"],
                at=state["at"] if state.get("timed") else None,
            )
        state["link"] = link.hex()
        out.append((topic, state))
    return out


def _card_swapped(db: Path) -> UUID:
    hand, recs = find(db, lambda s: bool(of(s, "CardDealt")))
    i = of([s for _, s in recs], "CardDealt")[0]
    data = recs[i][1]["data"]
    data["card"] = "As" if data["card"] != "As" else "Ks"
    put(db, hand, recs)
    return hand


def _discard_changed(db: Path) -> UUID:
    hand, recs = find(
        db, lambda s: any(x["data"]["discards"] for x in s if x.get("type") == "Drew")
    )
    i = next(i for i in of([s for _, s in recs], "Drew") if recs[i][1]["data"]["discards"])
    discards = recs[i][1]["data"]["discards"]
    discards[0] = "2c" if discards[0] != "2c" else "3c"
    put(db, hand, recs)
    return hand


def _amount_changed(db: Path) -> UUID:
    hand, recs = find(
        db, lambda s: any(x["data"]["amount"] > 0 for x in s if x.get("type") == "Acted")
    )
    i = next(i for i in of([s for _, s in recs], "Acted") if recs[i][1]["data"]["amount"] > 0)
    recs[i][1]["data"]["amount"] += 1
    put(db, hand, recs)
    return hand


def _pot_award_changed(db: Path) -> UUID:
    hand, recs = find(db, lambda s: bool(of(s, "PotAwarded")))
    i = of([s for _, s in recs], "PotAwarded")[0]
    recs[i][1]["data"]["shares"][0]["amount"] += 5
    put(db, hand, recs)
    return hand


def _rake_changed(db: Path) -> UUID:
    hand, recs = find(
        db, lambda s: any(x["data"]["rake"] > 0 for x in s if x.get("type") == "PotAwarded")
    )
    i = next(i for i in of([s for _, s in recs], "PotAwarded") if recs[i][1]["data"]["rake"])
    recs[i][1]["data"]["rake"] -= 1
    recs[i][1]["data"]["shares"][0]["amount"] += 1
    put(db, hand, recs)
    return hand


def _event_deleted(db: Path) -> UUID:
    hand, recs = find(db, lambda s: len(of(s, "Acted")) > 2)
    del recs[of([s for _, s in recs], "Acted")[1]]
    put(db, hand, recs)
    return hand


def _events_reordered(db: Path) -> UUID:
    hand, recs = find(db, lambda s: len(of(s, "Acted")) > 2)
    i, j = of([s for _, s in recs], "Acted")[:2]
    recs[i], recs[j] = recs[j], recs[i]
    put(db, hand, recs)
    return hand


def _event_inserted(db: Path) -> UUID:
    hand, recs = find(db, lambda s: len(of(s, "Acted")) > 2)
    i = of([s for _, s in recs], "Acted")[1]
    recs.insert(i, (recs[i][0], json.loads(json.dumps(recs[i][1]))))
    put(db, hand, recs)
    return hand


def _hand_deleted(db: Path) -> UUID:
    hand, _ = find(db, lambda s: True)
    put(db, hand, [])
    return hand


def _seal_signature_replaced(db: Path) -> UUID:
    hand, recs = find(db, lambda s: True)
    recs[-1][1]["signature"] = Signer.generate().sign(b"something else").hex()
    put(db, hand, recs)
    return hand


def _seal_resigned(db: Path) -> UUID:
    hand, recs = find(db, lambda s: True)
    other = Signer.generate()
    seal = recs[-1][1]
    seal["signature"] = other.sign(bytes.fromhex(seal["link"])).hex()
    seal["public_key"] = other.public_hex
    put(db, hand, recs)
    return hand


def _seed_forged(db: Path) -> UUID:
    """A new seed, the commitment that matches it, its deck, the cards it
    deals, and the chain recomputed: all but the signatures consistent."""
    hand, recs = find(db, lambda s: not of(s, "StubReshuffled"))
    seed = bytes(range(32))
    states = [s for _, s in recs]
    started = states[of(states, "HandStarted")[0]]
    rules = decode_event("HandStarted", started["version"], started["data"]).rules  # type: ignore[attr-defined]
    assert isinstance(rules, Rules)
    deck = shuffle(seed, fresh_deck(rules))
    started["data"]["commitment"] = commitment(seed)
    for state in states:
        data = state.get("data", {})
        match state.get("type"):
            case "DeckShuffled":
                data["seed"], data["cards"] = seed.hex(), [str(c) for c in deck]
            case "CardDealt":
                data["card"] = str(deck[data["position"]])
            case "BoardDealt":
                data["cards"] = [str(deck[p]) for p in data["positions"]]
            case "HandEnded":
                data["seed"] = seed.hex()
    assert all(isinstance(c, Card) for c in deck)
    put(db, hand, rechain(hand, recs))
    return hand


def _rechained_after_edit(db: Path) -> UUID:
    hand, recs = find(
        db, lambda s: any(x["data"]["amount"] > 0 for x in s if x.get("type") == "Acted")
    )
    i = next(i for i in of([s for _, s in recs], "Acted") if recs[i][1]["data"]["amount"] > 0)
    recs[i][1]["data"]["amount"] += 1
    put(db, hand, rechain(hand, recs))
    return hand


def _time_moved(db: Path) -> UUID:
    """Every record of a hand a day earlier: as if it was played then."""
    hand, recs = find(db, lambda s: all(x.get("timed") for x in s[:-1]))
    for _, state in recs[:-1]:
        state["at"] -= 86_400
    put(db, hand, recs)
    return hand


def _stub_card_swapped(db: Path) -> UUID:
    hand, recs = find(db, lambda s: bool(of(s, "StubReshuffled")))
    i = next(
        i for i, (_, s) in enumerate(recs) if s.get("type") == "CardDealt" and s["data"]["stub"]
    )
    data = recs[i][1]["data"]
    data["card"] = "As" if data["card"] != "As" else "Ks"
    put(db, hand, recs)
    return hand


TAMPERINGS = {
    "card from a reshuffled stub swapped": _stub_card_swapped,
    "card swapped": _card_swapped,
    "discard changed": _discard_changed,
    "amount changed": _amount_changed,
    "pot award changed": _pot_award_changed,
    "rake changed": _rake_changed,
    "event deleted": _event_deleted,
    "two events reordered": _events_reordered,
    "event inserted": _event_inserted,
    "whole hand deleted": _hand_deleted,
    "seal signature replaced": _seal_signature_replaced,
    "seal re-signed with another key": _seal_resigned,
    "seed forged with its commitment": _seed_forged,
    "chain recomputed after an edit": _rechained_after_edit,
    "time moved a day back": _time_moved,
}


def test_the_untampered_store_verifies_clean(played: Played) -> None:
    code, report = run("--store", str(played.path), "--public-key", played.signer.public_hex)
    assert (code, report["failures"]) == (0, [])
    assert report["hands"] >= 300
    assert report["tables"] == 5


@pytest.mark.parametrize("how", TAMPERINGS)
def test_each_tampering_is_caught_and_names_its_hand(
    how: str, played: Played, store_copy: Path
) -> None:
    table = table_of(played.path, hand := TAMPERINGS[how](store_copy))
    key = played.signer.public_hex
    code, report = run("--store", str(store_copy), "--table", str(table), "--public-key", key)
    assert code == 1
    assert report["failures"], how
    assert {f["id"] for f in report["failures"]} == {str(hand)}, report["failures"][:3]
    assert all(f["kind"] == "hand" and f["number"] for f in report["failures"])


def test_a_table_record_changed_is_caught_at_the_table(played: Played, store_copy: Path) -> None:
    with sqlite3.connect(store_copy) as conn:
        (table,) = conn.execute(
            "SELECT originator_id FROM stored_events WHERE topic = ? AND originator_version = 1"
            " ORDER BY rowid LIMIT 1",
            ("feltline.domain.table:TableRecord",),
        ).fetchone()
    recs = [(t, s) for _, t, s in rows(store_copy, UUID(table))]
    i = next(i for i, (_, s) in enumerate(recs) if s["type"] == "SatDown")
    recs[i][1]["data"]["buy_in"] += 100
    put(store_copy, UUID(table), recs)
    key = played.signer.public_hex
    code, report = run("--store", str(store_copy), "--table", table, "--public-key", key)
    assert code == 1
    assert {(f["kind"], f["id"]) for f in report["failures"]} == {("table", str(UUID(table)))}


def test_two_workers_find_what_one_finds(played: Played, store_copy: Path) -> None:
    hand = _amount_changed(store_copy)
    key = played.signer.public_hex
    one = run("--store", str(store_copy), "--public-key", key)
    two = run("--store", str(store_copy), "--public-key", key, "--workers", "2")
    assert one == two
    assert {f["id"] for f in two[1]["failures"]} == {str(hand)}
    exported = store_copy.with_suffix(".log")
    assert main(["export", "--store", str(store_copy), "--output", str(exported)]) == 0
    from_log = run(str(exported), "--public-key", key, "--workers", "2")
    assert from_log == one


def test_another_server_s_key_fails_every_stream(played: Played) -> None:
    code, report = run("--store", str(played.path), "--public-key", Signer.generate().public_hex)
    assert code == 1
    assert {f["check"] for f in report["failures"]} == {"key"}
