"""Each of the verifier's checks, shown to fire on its own.

Every forgery here is made by someone holding the server's key: the records
are changed, everything that follows from the change is derived again
(the deck from a new seed, the stacks after a new start), every link is
recomputed and every signature made again. So the chain and the signatures
hold, and only the check under test stands between the forgery and "ok";
each test asserts exactly which checks report it, and where. Where the
engine's re-run of a hand also sees the change (the seed, the deck, a
card), it is named beside the check under test.

The log is the one the Node client's tests read (tests/replay/make_fixture.py),
signed again here with a key of these tests, so they run in a second.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest

from feltline.audit import chain
from feltline.audit.codec import TABLE_EVENT_TYPES, decode_event, encode_event
from feltline.audit.keys import Signer
from feltline.engine.cards.deck import commitment, shuffle
from feltline.engine.hand.dealing import fresh_deck
from feltline.engine.hand.events import HandStarted, SeatAtStart
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import Rotation, Turn
from feltline_replay.export import hand_id
from feltline_replay.log import LogError
from feltline_replay.verify import (
    Failure,
    LinesShare,
    LogShare,
    Report,
    line_shares,
    log_shares,
    verify,
    verify_shares,
)
from tests.audit.layouts import as_stored

Record = dict[str, Any]
FIXTURE = Path(__file__).resolve().parents[2] / "clients/node/test/fixtures/hands.log"
KEY = Signer.generate()
OTHER = Signer.generate()
LOG: list[Record] = [json.loads(line) for line in FIXTURE.read_text().splitlines()[1:]]


def signed(records: list[Record], signer: Signer = KEY) -> list[Record]:
    """Every stream chained again from its records' data, as they lie, and
    signed again by ``signer`` where it was signed: what the key's holder
    can write."""
    out: list[Record] = []
    stream: tuple[str, str] | None = None
    previous, position = chain.GENESIS, 0
    for record in copy.deepcopy(records):
        if record["kind"] == "seal":
            record["link"] = previous.hex()
            record["public_key"] = signer.public_hex
            record["signature"] = signer.sign(previous).hex()
            out.append(record)
            stream = None
            continue
        if (record["kind"], record["id"]) != stream:
            stream, previous, position = (record["kind"], record["id"]), chain.GENESIS, 0
        position += 1
        previous = chain.link(
            previous,
            kind=record["kind"],
            stream=record["id"],
            position=position,
            name=record["type"],
            version=record["version"],
            data=record["data"],
            at=record["at"] if record.get("timed") else None,
        )
        record["link"] = previous.hex()
        if record.get("signature"):
            record["signature"] = signer.sign(previous).hex()
            record["signed_by"] = signer.public_hex
        out.append(record)
    return out


SIGNED = signed(LOG)


@pytest.fixture
def log() -> list[Record]:
    """The fixture log, this test's to change, signed by ``KEY``."""
    return copy.deepcopy(SIGNED)


def alone(records: list[Record], stream: str) -> list[Record]:
    """Only the table of ``stream`` (a table or a hand), and its hands: a
    test verifies no more than it tampers with."""
    tables = [r["id"] for r in records if r["kind"] == "table"]
    table = stream if stream in tables else table_of(records, stream)
    ours = {table} | {str(hand_id(UUID(table), n)) for n in range(1, 50)}
    return [r for r in records if r["id"] in ours]


def failures(records: list[Record], **options: Any) -> list[tuple[str, str, str, int | None]]:
    report = verify(records, KEY.public_hex, **options)
    return [(f.check, f.kind, f.id, f.position) for f in report.failures]


def hands(records: list[Record]) -> list[str]:
    return list(dict.fromkeys(r["id"] for r in records if r["kind"] == "seal"))


def of(records: list[Record], stream: str) -> list[int]:
    """The indexes of a stream's records in the log (a hand's seal last)."""
    return [i for i, r in enumerate(records) if r["id"] == stream]


def typed(records: list[Record], stream: str, kind: str) -> list[int]:
    return [i for i in of(records, stream) if records[i].get("type") == kind]


def hand_where(records: list[Record], wanted: Callable[[list[Record]], bool]) -> str:
    for hand in hands(records):
        if wanted([records[i] for i in of(records, hand)]):
            return hand
    raise AssertionError("no such hand in the fixture")


def table_of(records: list[Record], hand: str) -> str:
    tables = {r["id"] for r in records if r["kind"] == "table"}
    return next(t for t in tables for n in range(1, 50) if str(hand_id(UUID(t), n)) == hand)


def last_hand_of_table(records: list[Record]) -> tuple[str, str, int]:
    """A table whose last hand is in the log: the table, that hand, its number."""
    for table in dict.fromkeys(r["id"] for r in records if r["kind"] == "table"):
        dealt = typed(records, table, "HandDealt")
        if dealt:
            number = records[dealt[-1]]["data"]["hand"]
            hand = str(hand_id(UUID(table), number))
            if of(records, hand):
                return table, hand, number
    raise AssertionError("no table with hands in the fixture")


def position(records: list[Record], index: int) -> int:
    """A record's position in its stream."""
    return int(records[index]["position"])


def reseeded(records: list[Record], hand: str, seed: bytes, *, commit: bool) -> None:
    """The hand's deck, cards and revealed seed derived from ``seed``; its
    commitment too if ``commit``."""
    (start,) = typed(records, hand, "HandStarted")
    event = decode_event("HandStarted", records[start]["version"], records[start]["data"])
    assert isinstance(event, HandStarted)
    deck = shuffle(seed, fresh_deck(event.rules))
    if commit:
        records[start]["data"]["commitment"] = commitment(seed)
    for i in of(records, hand):
        data = records[i].get("data", {})
        match records[i].get("type"):
            case "DeckShuffled":
                data["seed"], data["cards"] = seed.hex(), [str(c) for c in deck]
            case "CardDealt":
                data["card"] = str(deck[data["position"]])
            case "BoardDealt":
                data["cards"] = [str(deck[p]) for p in data["positions"]]
            case "HandEnded":
                data["seed"] = seed.hex()


def folded_before_showdown(stream: list[Record]) -> bool:
    """No cards shown and no stub: a new deck changes nothing the engine
    decides, only the cards."""
    types = {r.get("type") for r in stream}
    return not types & {"Shown", "StubReshuffled", "Drew"}


def test_the_fixture_signed_again_verifies_clean(log: list[Record]) -> None:
    report = verify(log, KEY.public_hex)
    assert (report.ok, report.tables, report.hands) == (True, 5, 15)
    assert report.warnings == []


# -- a stream's own records ---------------------------------------------


def test_order_a_record_out_of_its_place(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    i = of(log, hand)[3]
    log[i]["position"] = 40
    assert failures(log) == [("order", "hand", hand, 4)]


def test_order_a_seal_out_of_its_place(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    seal = of(log, hand)[-1]
    log[seal]["position"] += 1
    due = position(LOG, seal)
    assert said(log) == [("order", due, str(due), str(due + 1))]


def test_chain_a_link_that_is_not_its_record_s(log: list[Record]) -> None:
    """The table's last record keeps its signature of the true link; its
    stored link is another."""
    table = log[0]["id"]
    log = alone(log, table)
    last = of(log, table)[-1]
    log[last]["link"] = "00" * 32
    assert failures(log) == [("chain", "table", table, position(log, last))]


def test_record_a_record_without_its_link(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    i = of(log, hand)[3]
    del log[i]["link"]
    at = position(log, i)
    assert failures(log) == [("record", "hand", hand, at), ("chain", "hand", hand, at + 1)]


def test_decode_a_chained_and_signed_record_that_is_no_event(log: list[Record]) -> None:
    hand = hand_where(log, lambda s: any(r.get("type") == "Acted" for r in s))
    log = alone(log, hand)
    i = typed(log, hand, "Acted")[0]
    log[i]["data"]["action"] = "dance"
    log = signed(log)
    assert failures(log) == [("decode", "hand", hand, position(log, i))]


def test_signature_a_table_s_last_record_signed_over_other_bytes(log: list[Record]) -> None:
    table = log[0]["id"]
    log = alone(log, table)
    last = of(log, table)[-1]
    log[last]["signature"] = KEY.sign(b"something else").hex()
    assert failures(log) == [("signature", "table", table, position(log, last))]


def test_signature_a_table_whose_last_record_is_unsigned(log: list[Record]) -> None:
    table = log[0]["id"]
    log = alone(log, table)
    records = of(log, table)
    log[records[-1]]["signature"] = log[records[-1]]["signed_by"] = ""
    if not log[records[-2]]["signature"]:
        log[records[-2]]["signature"] = "x"  # signed again below
    log = signed(log)
    assert failures(log) == [("signature", "table", table, len(records))]


def test_signature_a_malformed_one_before_the_last(log: list[Record]) -> None:
    hand = hand_where(log, lambda s: any(r.get("signature") for r in s[:-2]))
    log = alone(log, hand)
    i = next(i for i in of(log, hand)[:-2] if log[i]["signature"])
    log[i]["signature"] = log[i]["signature"][:-2]
    assert said(log) == [
        (
            "signature",
            position(log, i),
            "an Ed25519 signature (128 hex digits)",
            log[i]["signature"],
        )
    ]


def test_signature_a_forged_one_before_the_last_only_with_every_signature(
    log: list[Record],
) -> None:
    hand = hand_where(log, lambda s: any(r.get("signature") for r in s[:-2]))
    log = alone(log, hand)
    i = next(i for i in of(log, hand)[:-2] if log[i]["signature"])
    log[i]["signature"] = KEY.sign(b"something else").hex()
    assert failures(log) == []
    assert failures(log, all_signatures=True) == [("signature", "hand", hand, position(log, i))]


def test_signature_without_a_seal_the_last_signed_record_is_verified(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    *body, seal = of(log, hand)
    last = max(i for i in body if log[i]["signature"])
    log[last]["signature"] = KEY.sign(b"something else").hex()
    del log[seal]
    assert failures(log) == [
        ("signature", "hand", hand, position(log, last)),
        ("seal", "hand", hand, len(body)),
    ]


def test_seal_missing(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    *body, seal = of(log, hand)
    del log[seal]
    assert failures(log) == [("seal", "hand", hand, len(body))]
    assert said(log) == [("seal", len(body), "a seal", "none")]


def test_seal_of_another_algorithm(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    seal = of(log, hand)[-1]
    log[seal]["algorithm"] = "feltline-chain-v0"
    link = log[seal]["link"]
    assert said(log) == [("seal", position(log, seal), f"feltline-chain-v1 over {link}", link)]


def test_seal_over_another_link_signed_with_the_key(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    seal = of(log, hand)[-1]
    log[seal]["link"] = log[seal - 1]["link"][::-1]
    log[seal]["signature"] = KEY.sign(bytes.fromhex(log[seal]["link"])).hex()
    assert failures(log) == [("seal", "hand", hand, position(log, seal))]


def test_seal_signature_over_other_bytes(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    seal = of(log, hand)[-1]
    log[seal]["signature"] = KEY.sign(b"something else").hex()
    assert failures(log) == [("seal signature", "hand", hand, position(log, seal))]


def test_key_a_hand_signed_throughout_by_another_key(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    mine = of(log, hand)
    log[mine[0] : mine[-1] + 1] = signed([log[i] for i in mine], OTHER)
    at = [position(log, i) for i in mine if log[i].get("signature")]
    assert failures(log) == [("key", "hand", hand, p) for p in at]
    table = table_of(log, hand)
    number = next(n for n in range(1, 50) if str(hand_id(UUID(table), n)) == hand)
    expected, found = f"signed by {KEY.public_hex}", OTHER.public_hex
    assert verify(log, KEY.public_hex).failures == [
        Failure("key", "hand", hand, p, expected, found, table, number) for p in at
    ]


def test_without_a_key_the_first_signer_is_trusted_with_a_warning(log: list[Record]) -> None:
    report = verify(log, None)
    assert report.ok
    assert report.warnings == [
        f"no public key given: trusting {KEY.public_hex}, the key that signed table "
        f"{log[0]['id']}. This shows only that the records agree with one another and were "
        "signed by one key, not that the key is your server's: give --public-key to know."
    ]


# -- a hand played again ------------------------------------------------


def test_commitment_a_seed_that_does_not_hash_to_it(log: list[Record]) -> None:
    """Deck, cards and revealed seed from a new seed, the commitment kept:
    the engine's re-run commits to the new seed, so it differs at the start."""
    hand = hand_where(log, folded_before_showdown)
    log = alone(log, hand)
    reseeded(log, hand, bytes(range(32)), commit=False)
    log = signed(log)
    mine = of(log, hand)
    assert failures(log) == [
        ("commitment", "hand", hand, len(mine) - 1),
        ("rules", "hand", hand, 1),
    ]
    (started,) = typed(log, hand, "HandStarted")
    committed, seed = log[started]["data"]["commitment"], bytes(range(32))
    assert said(log)[0][2:] == (
        f"a 32-byte seed hashing to {committed}",
        f"{seed.hex()} hashing to {commitment(seed)}",
    )


def test_deck_not_the_one_its_seed_derives(log: list[Record]) -> None:
    """Two cards no one was dealt swapped in the recorded deck."""
    hand = hand_where(log, folded_before_showdown)
    log = alone(log, hand)
    (i,) = typed(log, hand, "DeckShuffled")
    cards = log[i]["data"]["cards"]
    cards[-1], cards[-2] = cards[-2], cards[-1]
    log = signed(log)
    at = position(log, i)
    assert failures(log) == [("deck", "hand", hand, at), ("rules", "hand", hand, at)]


def test_card_not_the_one_its_position_in_the_deck_holds(log: list[Record]) -> None:
    hand = hand_where(log, folded_before_showdown)
    log = alone(log, hand)
    i = typed(log, hand, "CardDealt")[0]
    (deck,) = typed(log, hand, "DeckShuffled")
    log[i]["data"]["card"] = log[deck]["data"]["cards"][-1]
    log = signed(log)
    at = position(log, i)
    assert failures(log) == [("card", "hand", hand, at), ("rules", "hand", hand, at)]


def test_card_on_the_board_not_the_deck_s(log: list[Record]) -> None:
    hand = hand_where(log, lambda s: any(r.get("type") == "BoardDealt" for r in s))
    log = alone(log, hand)
    i = typed(log, hand, "BoardDealt")[0]
    (deck,) = typed(log, hand, "DeckShuffled")
    log[i]["data"]["cards"][0] = log[deck]["data"]["cards"][-1]
    log = signed(log)
    at = position(log, i)
    assert failures(log) == [("card", "hand", hand, at), ("rules", "hand", hand, at)]


def test_card_from_a_reshuffled_stub_not_the_stub_s(log: list[Record]) -> None:
    hand = hand_where(log, lambda s: any(r.get("type") == "StubReshuffled" for r in s))
    log = alone(log, hand)
    i = next(i for i in typed(log, hand, "CardDealt") if log[i]["data"]["stub"])
    (stub,) = typed(log, hand, "StubReshuffled")[:1]
    dealt = log[i]["data"]
    dealt["card"] = next(c for c in log[stub]["data"]["cards"] if c != dealt["card"])
    log = signed(log)
    at = position(log, i)
    assert failures(log) == [("card", "hand", hand, at), ("rules", "hand", hand, at)]


def test_rules_an_amount_the_engine_would_not_make(log: list[Record]) -> None:
    hand = hand_where(
        log, lambda s: any(r.get("type") == "Acted" and r["data"]["amount"] for r in s)
    )
    log = alone(log, hand)
    i = next(i for i in typed(log, hand, "Acted") if log[i]["data"]["amount"])
    log[i]["data"]["amount"] += 1
    log = signed(log)
    assert failures(log) == [("rules", "hand", hand, position(log, i))]


def test_rules_a_hand_that_does_not_end(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    (ended,) = typed(log, hand, "HandEnded")
    log[ended - 1]["signature"] = "x"  # the last record is signed, as a commit leaves it
    log[ended + 1]["position"] -= 1
    last = log[ended - 1]["type"]
    del log[ended]
    log = signed(log)
    assert failures(log) == [("rules", "hand", hand, 1)]
    assert said(log) == [("rules", 1, "HandStarted ... HandEnded", f"HandStarted ... {last}")]


# -- a hand tied to its table -------------------------------------------


def test_table_a_hand_dealt_from_another_commitment(log: list[Record]) -> None:
    """The whole hand consistent with a new seed and its commitment: only
    the table's record of the deal shows it is not the hand dealt, and the
    hand is named by that table and its number there."""
    hand = hand_where(log, folded_before_showdown)
    log = alone(log, hand)
    table = table_of(log, hand)
    (dealt,) = [
        log[i]["data"]
        for i in typed(log, table, "HandDealt")
        if str(hand_id(UUID(table), log[i]["data"]["hand"])) == hand
    ]
    reseeded(log, hand, bytes(range(32)), commit=True)
    log = signed(log)
    assert failures(log) == [("table", "hand", hand, 1)]
    assert said(log) == [
        ("table", 1, f"commitment {dealt['commitment']}", commitment(bytes(range(32))))
    ]
    (failure,) = verify(log, KEY.public_hex).failures
    assert (failure.table, failure.number) == (table, dealt["hand"])


def test_table_a_hand_started_from_other_stacks(log: list[Record]) -> None:
    """A seat given 100 chips more at the start, and so at the end: the
    hand plays again, but the table dealt it and took its result otherwise."""
    hand = hand_where(
        log, lambda s: not any(r.get("data", {}).get("all_in") for r in s) and len(s) > 5
    )
    log = alone(log, hand)
    (start,) = typed(log, hand, "HandStarted")
    (ended,) = typed(log, hand, "HandEnded")
    deal = log[start]["data"]["deal"]
    dealt = seated(deal)
    seat = deal["seats"][0]
    seat["stack"] += 100
    for stack in log[ended]["data"]["stacks"]:
        stack[1] += 100 if stack[0] == seat["seat"] else 0
    log = signed(log)
    last = len(of(log, hand)) - 1
    assert failures(log) == [("table", "hand", hand, 1), ("table", "hand", hand, last)]
    table = table_of(log, hand)
    number = next(n for n in range(1, 50) if str(hand_id(UUID(table), n)) == hand)
    (failure, _) = verify(log, KEY.public_hex).failures
    assert failure == Failure(
        "table", "hand", hand, 1, f"the deal {dealt}", str(seated(deal)), table, number
    )


def seated(deal: dict[str, Any]) -> tuple[int, tuple[SeatAtStart, ...]]:
    """A deal's button and seats, as a failure shows them."""
    seats = tuple(SeatAtStart(**seat) for seat in deal["seats"])
    return deal["button"], seats


def test_table_a_result_the_table_did_not_take(log: list[Record]) -> None:
    """The table's last hand: its record of the result moved one chip from
    one seat to another (nothing at the table follows to show it)."""
    table, hand, number = last_hand_of_table(log)
    log = alone(log, hand)
    finished = typed(log, table, "HandFinished")[-1]
    stacks = log[finished]["data"]["stacks"]
    stacks[0][1] -= 1
    stacks[1][1] += 1
    (ended,) = typed(log, hand, "HandEnded")
    log = signed(log)
    last = len(of(log, hand)) - 1
    assert verify(log, KEY.public_hex).failures == [
        Failure(
            "table",
            "hand",
            hand,
            last,
            f"stacks and rake {result(log[finished]['data'])} as the table took them",
            str(result(log[ended]["data"])),
            table,
            number,
        )
    ]


def result(data: dict[str, Any]) -> tuple[tuple[tuple[int, int], ...], int]:
    """A hand's stacks and rake, as a failure shows them."""
    return tuple((seat, stack) for seat, stack in data["stacks"]), data["rake"]


def test_table_a_hand_the_table_did_not_finish(log: list[Record]) -> None:
    table, hand, number = last_hand_of_table(log)
    log = alone(log, hand)
    finished = typed(log, table, "HandFinished")[-1]
    after = [i for i in of(log, table) if i > finished]
    if not after:
        log[finished - 1]["signature"] = "x"  # signed again below
    del log[finished]
    log = signed(log)
    last = len(of(log, hand)) - 1
    assert verify(log, KEY.public_hex).failures == [
        Failure("table", "hand", hand, last, "the table to finish it", "no finish", table, number)
    ]


def test_table_a_hand_no_table_dealt(log: list[Record]) -> None:
    """A hand moved to a stream of its own, chained and signed there: it
    is no deal of its table's, and the hand its table dealt is missing."""
    hand = hands(log)[0]
    log = alone(log, hand)
    stranger = str(uuid4())
    for i in of(log, hand):
        log[i]["id"] = stranger
    log = signed(log)
    assert failures(log) == [("table", "hand", stranger, None), ("missing", "hand", hand, None)]


def test_table_a_hand_given_twice(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    mine = of(log, hand)
    log[mine[-1] + 1 : mine[-1] + 1] = copy.deepcopy([log[i] for i in mine])
    assert failures(log) == [("table", "hand", hand, None)]
    assert said(log) == [("table", None, "the hand once", "again")]
    (failure,) = verify(log, KEY.public_hex).failures
    assert (failure.table, failure.number) == (log[0]["id"], 1)


def test_missing_a_hand_its_table_finished(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    table = table_of(log, hand)
    for i in reversed(of(log, hand)):
        del log[i]
    assert failures(log, complete=False) == []
    (failure,) = verify(log, KEY.public_hex).failures
    assert verify_shares(line_shares(log), KEY.public_hex).failures == [failure]
    number = next(n for n in range(1, 50) if str(hand_id(UUID(table), n)) == hand)
    assert failure == Failure(
        "missing", "hand", hand, None, "the hand's records", "none", table, number
    )


# -- a table's own rules ------------------------------------------------


def test_hand_numbers_a_hand_dealt_out_of_turn(log: list[Record]) -> None:
    """The table's last hand numbered one on, and its stream moved to that
    number's id: the hand ties to its deal, but no hand came between."""
    table, hand, number = last_hand_of_table(log)
    log = alone(log, hand)
    dealt = typed(log, table, "HandDealt")[-1]
    log[dealt]["data"]["hand"] = number + 1
    for i in of(log, hand):
        log[i]["id"] = str(hand_id(UUID(table), number + 1))
    log = signed(log)
    found = failures(log)
    assert found[0] == ("hand numbers", "table", table, position(log, dealt))
    assert {f[0] for f in found[1:]} <= {"table rules"}


def test_starting_stacks_a_deal_that_is_not_what_the_table_holds(log: list[Record]) -> None:
    """The table's last hand dealt with a seat 100 chips richer, the hand
    and its result made to match: only the table's own count shows it."""
    table, hand, _ = last_hand_of_table(log)
    log = alone(log, hand)
    dealt = typed(log, table, "HandDealt")[-1]
    finished = typed(log, table, "HandFinished")[-1]
    (start,) = typed(log, hand, "HandStarted")
    (ended,) = typed(log, hand, "HandEnded")
    seat = log[dealt]["data"]["deal"]["seats"][0]
    seat["stack"] += 100
    log[start]["data"]["deal"]["seats"][0]["stack"] += 100
    for stacks in (log[ended]["data"]["stacks"], log[finished]["data"]["stacks"]):
        for stack in stacks:
            stack[1] += 100 if stack[0] == seat["seat"] else 0
    log = signed(log)
    found = failures(log)
    assert found[0] == ("starting stacks", "table", table, position(log, dealt))
    assert {f[0] for f in found[1:]} <= {"table rules"}


def test_game_a_hand_dealt_at_rules_its_table_does_not_deal(log: list[Record]) -> None:
    """A hold'em hand's rules given another draw limit, which hold'em never
    reads: the hand plays the same, only its tie to its table's rules shows it."""
    hand = hand_where(log, lambda s: s[0]["data"]["rules"]["game"] == "holdem")
    log = alone(log, hand)
    (start,) = typed(log, hand, "HandStarted")
    log[start]["data"]["rules"]["draw_limit_small"] = 4
    log = signed(log)
    assert failures(log) == [("game", "hand", hand, 1)]
    assert said(log)[0][2:] == ("its table's turn: draw_limit_small 5", "draw_limit_small 4")


def test_rotation_a_mixed_table_dealing_a_game_out_of_its_turn(log: list[Record]) -> None:
    """A table made a mixed one, Omaha then hold'em for 50 hands each, whose
    first deal says hold'em's turn: its hold'em hand is dealt while Omaha is
    due. The table's rotation and the hand's game both show it; the hands
    after it follow the turn recorded before them."""
    table = next(
        r["id"]
        for r in log
        if r.get("type") == "TableOpened" and r["data"]["config"]["rules"]["game"] == "holdem"
    )
    log = alone(log, table)
    (opened,) = typed(log, table, "TableOpened")
    rotation = Rotation((Game.OMAHA, Game.HOLDEM), 50)
    recoded(log, opened, lambda e: replace(e, config=replace(e.config, rotation=rotation)))
    dealt = typed(log, table, "HandDealt")
    for n, i in enumerate(dealt, 1):
        recoded(log, i, lambda e, n=n: replace(e, turn=Turn(Game.HOLDEM, n, 50, Game.OMAHA)))
    log = signed(log)
    first = str(hand_id(UUID(table), 1))
    assert failures(log) == [
        ("rotation", "table", table, position(log, dealt[0])),
        ("game", "hand", first, 1),
    ]
    assert [s[2:] for s in said(log)] == [
        ("hand 1 at omaha hand 1 of 50, then holdem", "holdem hand 1 of 50, then omaha"),
        ("its table's turn: game omaha", "game holdem"),
    ]


def recoded(records: list[Record], index: int, change: Callable[[Any], Any]) -> None:
    """A table's record decoded, changed and written again at its event's
    current version."""
    record = records[index]
    event = decode_event(record["type"], record["version"], record["data"], TABLE_EVENT_TYPES)
    name, version, data = encode_event(change(event), TABLE_EVENT_TYPES)
    record.update(type=name, version=version, data=data)


def test_table_rules_an_event_the_table_cannot_apply(log: list[Record]) -> None:
    """A player stood up from a seat no one sat in."""
    table = log[0]["id"]
    log = alone(log, table)
    sat = typed(log, table, "SatDown")[0]
    log.insert(sat, copy.deepcopy(log[sat]))
    log[sat].update(type="StoodUp", data={"seat": 1, "player": "x", "stack": 0, "forfeited": 0})
    for n, i in enumerate(of(log, table), 1):
        log[i]["position"] = n
    log = signed(log)
    assert failures(log) == [("table rules", "table", table, position(log, sat))]
    assert said(log)[0][2:] == ("an event that applies", "'seat 1 is empty'")


# -- what the report says -----------------------------------------------


def test_the_report_counts_each_signature_it_verified(log: list[Record]) -> None:
    """Each stream's last signature (a hand's seal's) unless every one is
    asked for; then every one, each hand's seal too."""
    signatures = sum(1 for r in log if r.get("signature"))
    assert verify(log, KEY.public_hex).verified == len(hands(log)) + 5
    assert verify(log, KEY.public_hex, all_signatures=True).verified == signatures == 233


def test_a_failure_names_its_hand_by_table_and_number(log: list[Record]) -> None:
    table, hand, number = last_hand_of_table(log)
    log = alone(log, hand)
    seal = of(log, hand)[-1]
    log[seal]["signature"] = KEY.sign(b"something else").hex()
    report: Report = verify(log, KEY.public_hex)
    (failure,) = report.failures
    assert str(failure) == (
        f"hand {number} of table {table} ({hand}) at position {position(log, seal)}: "
        f"seal signature: expected a valid signature, found {log[seal]['signature']}"
    )
    assert report.failed_hands() == {hand}
    assert report.as_json()["ok"] is False
    assert report.as_json()["failures"][0]["number"] == number
    table_failure = Failure("chain", "table", table, None, "a", "b")
    assert str(table_failure) == f"table {table}: chain: expected a, found b"


# -- shares: any cut of the log verifies as the whole -------------------


def test_a_tampered_log_in_shares_of_any_size_verifies_as_one(
    log: list[Record], tmp_path: Path
) -> None:
    """Cut at streams' starts, by bytes or by lines, the shares report
    what the whole does; a blank line is no record."""
    hand = hands(log)[1]
    i = next(i for i in typed(log, hand, "Acted") if log[i]["data"]["amount"])
    log[i]["data"]["amount"] += 1
    whole = verify(log, KEY.public_hex)
    assert {f.id for f in whole.failures} == {hand}
    path = tmp_path / "hands.log"
    lines = [json.dumps(r) for r in log]
    path.write_text("\n".join(["{}", *lines[: i + 1], "", *lines[i + 1 :]]) + "\n")
    start = len("{}\n")
    for size in (1, 5_000, 1 << 20):
        shares = list(log_shares(str(path), start, size))
        assert shares[0].start == start
        assert shares[-1].end == path.stat().st_size
        assert all(a.end == b.start for a, b in pairwise(shares))
        assert len(shares) > 1 or size == 1 << 20
        text = path.read_bytes()
        for share in shares[1:]:
            before = json.loads(text[: share.start].rstrip(b"\n").rsplit(b"\n", 1)[-1])
            first = json.loads(text[share.start :].split(b"\n", 1)[0])
            assert before["kind"] == "seal" or before["id"] != first["id"]
        assert verify_shares(shares, KEY.public_hex).as_json() == whole.as_json()
    for size in (1, 7, 2000):
        shares = list(line_shares(lines, size))
        assert [line for share in shares for line in share.lines] == lines
        assert verify_shares(shares, KEY.public_hex).as_json() == whole.as_json()


# -- what each failure says ---------------------------------------------


def said(records: list[Record]) -> list[tuple[str, int | None, str, str]]:
    """Each failure's check, position, and what was due and found there."""
    report = verify(records, KEY.public_hex)
    return [(f.check, f.position, f.expected, f.found) for f in report.failures]


def shown(record: Record) -> str:
    """A record's event as a failure shows it: its type and its data as
    compact JSON with sorted keys (docs/replay.md)."""
    return f"{record['type']} {json.dumps(record['data'], separators=(',', ':'), sort_keys=True)}"


def test_rules_says_what_the_engine_made_and_what_was_stored(log: list[Record]) -> None:
    hand = hand_where(
        log, lambda s: any(r.get("type") == "Acted" and r["data"]["amount"] for r in s)
    )
    log = alone(log, hand)
    i = next(i for i in typed(log, hand, "Acted") if log[i]["data"]["amount"])
    true = copy.deepcopy(log[i])
    log[i]["data"]["amount"] += 1
    log = signed(log)
    assert said(log) == [("rules", position(log, i), shown(true), shown(log[i]))]


def test_rules_shows_a_long_event_cut_at_400_characters(log: list[Record]) -> None:
    """A second HandStarted where the engine deals the deck."""
    hand = hands(log)[0]
    log = alone(log, hand)
    (start,) = typed(log, hand, "HandStarted")
    log.insert(start + 1, copy.deepcopy(log[start]))
    for n, i in enumerate(of(log, hand), 1):
        log[i]["position"] = n
    log = signed(log)
    long = shown(log[start + 1])
    assert len(long) > 400
    assert said(log) == [("rules", 2, shown(log[start + 2]), long[:400] + "...")]


def test_deck_says_the_derived_order_and_the_recorded_one(log: list[Record]) -> None:
    hand = hand_where(log, folded_before_showdown)
    log = alone(log, hand)
    (i,) = typed(log, hand, "DeckShuffled")
    derived = " ".join(log[i]["data"]["cards"])
    cards = log[i]["data"]["cards"]
    cards[-1], cards[-2] = cards[-2], cards[-1]
    log = signed(log)
    assert said(log)[0] == ("deck", position(log, i), derived, " ".join(cards))


def test_card_from_a_stub_never_reshuffled_is_no_card_of_the_deck(log: list[Record]) -> None:
    hand = hand_where(log, lambda s: not any(r.get("type") == "StubReshuffled" for r in s))
    log = alone(log, hand)
    i = typed(log, hand, "CardDealt")[0]
    dealt = log[i]["data"]
    dealt["stub"] = 5
    log = signed(log)
    at = position(log, i)
    assert [f[:2] for f in said(log)] == [("card", at), ("rules", at)]
    assert said(log)[0][2:] == (f"None (card {dealt['position']} of stub 5)", dealt["card"])


def test_hand_numbers_says_the_number_due_and_the_number_dealt(log: list[Record]) -> None:
    table, hand, number = last_hand_of_table(log)
    log = alone(log, hand)
    dealt = typed(log, table, "HandDealt")[-1]
    log[dealt]["data"]["hand"] = number + 1
    for i in of(log, hand):
        log[i]["id"] = str(hand_id(UUID(table), number + 1))
    log = signed(log)
    assert said(log)[0] == (
        "hand numbers",
        position(log, dealt),
        f"hand {number}",
        f"hand {number + 1}",
    )


def test_a_hand_no_table_dealt_is_named_by_its_id_alone(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    stranger = str(uuid4())
    for i in of(log, hand):
        log[i]["id"] = stranger
    report = verify(signed(log), KEY.public_hex)
    assert str(report.failures[0]) == (
        f"hand {stranger}: table: expected a hand its table dealt, found no such deal"
    )


def test_a_clean_report_as_json(log: list[Record]) -> None:
    assert verify(log, KEY.public_hex).as_json() == {
        "ok": True,
        "tables": 5,
        "hands": 15,
        "accounts": 0,
        "matches": 0,
        "signatures_verified": 20,
        "signatures_checked_for_form": 213,
        "failures": [],
        "warnings": [],
        "withheld": [],
    }


# -- shares: each a run of whole streams ----------------------------------


def test_a_line_that_is_not_json_is_named_by_its_byte(tmp_path: Path) -> None:
    path = tmp_path / "hands.log"
    lines = [b"{}", json.dumps(SIGNED[0]).encode(), b"", json.dumps(SIGNED[1]).encode(), b"{oops"]
    path.write_bytes(b"\n".join(lines) + b"\n")
    start = len(lines[0]) + 1
    at = start + len(lines[1]) + 1 + 1 + len(lines[3]) + 1
    share = LogShare(str(path), start, path.stat().st_size)
    with pytest.raises(LogError, match=f"^the line at byte {at} of the log is not JSON: "):
        list(share.records())


def test_a_line_read_that_is_not_utf8_is_refused_as_not_json() -> None:
    """Lines already read (standard input) are refused as a file's are: a
    byte that is not UTF-8 is the log's error, not a traceback."""
    share = LinesShare((json.dumps(SIGNED[0]).encode(), b'{"kind": "\xff"}'))
    with pytest.raises(LogError, match=r"^a line of the log is not JSON: "):
        list(share.records())


def test_shares_of_the_smallest_size_are_one_stream_each(log: list[Record], tmp_path: Path) -> None:
    """Every table first, then every hand, one of them given twice in a row;
    a table named in letters beyond ASCII and a blank line before a hand:
    each stream is cut where it begins, whatever came before it."""
    kinds = {r["id"]: r["kind"] for r in log if r["kind"] == "table"}
    (opened,) = typed(log, list(kinds)[1], "TableOpened")
    log[opened]["data"]["name"] = "Zoë's"  # a cut falls before this line
    ordered = [r for r in log if r["id"] in kinds] + [r for r in log if r["id"] not in kinds]
    hand = hands(ordered)[0]
    twice = [r for r in ordered if r["id"] == hand]
    at = max(i for i, r in enumerate(ordered) if r["id"] == hand) + 1
    records = signed(ordered[:at] + copy.deepcopy(twice) + ordered[at:])
    whole = verify(records, KEY.public_hex)
    assert [f.check for f in whole.failures] == ["table"]  # the hand given again
    streams = len(kinds) + sum(r["kind"] == "seal" for r in records)
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    path = tmp_path / "hands.log"
    path.write_text("\n".join(["{}", *lines[:at], "", *lines[at:]]) + "\n", encoding="utf-8")
    by_bytes = list(log_shares(str(path), len("{}\n"), 1))
    for shares in (by_bytes, list(line_shares(lines, 1)), list(line_shares(records, 1))):
        assert len(shares) == streams
        for share in shares:
            ids = [r["id"] for r in share.records()]
            kinds_in = [r["kind"] for r in share.records()]
            assert len(set(ids)) == 1
            assert "seal" not in kinds_in[:-1]
        assert verify_shares(shares, KEY.public_hex).as_json() == whole.as_json()


# -- a stream's records, again: where the chain starts and where it is cut ----


def test_chain_a_stream_s_first_record_changed(log: list[Record]) -> None:
    """The first link is compared too: it chains from 32 zero bytes."""
    table = log[0]["id"]
    log = alone(log, table)
    (opened,) = typed(log, table, "TableOpened")
    log[opened]["data"]["name"] += " (forged)"
    assert said(log) == [
        ("chain", 1, chain.link(chain.GENESIS, **_linked(log[opened])).hex(), log[opened]["link"])
    ]


def test_chain_an_upcast_record_by_the_bytes_it_was_stored_as(log: list[Record]) -> None:
    """The fast canonical writer is exact only for data decoded as written:
    a record stored under an older version may hold what its upcast drops,
    here a version 1 ``TableOpened`` with a name (version 1 stored none,
    the upcast makes it "") of ``1e-7``, which orjson writes ``1e-7`` and
    the canonical form ``1e-07``."""
    table = log[0]["id"]
    (opened,) = typed(log, table, "TableOpened")
    record = log[opened]
    older = as_stored("TableOpened", record["data"], record["version"], 1)
    record["version"], record["data"] = 1, {**older, "name": 1e-7}
    report = verify(signed([record]), KEY.public_hex)
    assert (report.ok, report.tables, report.verified) == (True, 1, 1)


def _linked(record: Record) -> dict[str, Any]:
    return {
        "kind": record["kind"],
        "stream": record["id"],
        "position": record["position"],
        "name": record["type"],
        "version": record["version"],
        "data": record["data"],
    }


def test_order_says_the_position_due_and_the_one_found(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    i = of(log, hand)[3]
    log[i]["position"] = 40
    assert said(log) == [("order", 4, "4", "40")]


@pytest.mark.parametrize("which", ["first", "last"])
def test_signature_a_sealed_hand_s_body_forged_only_with_every_signature(
    log: list[Record], which: str
) -> None:
    """The seal's signature covers the body: a well-formed forged signature
    on the body's first record, or on its last signed one, is found only
    when every signature is verified."""
    hand = hands(log)[0]
    log = alone(log, hand)
    *body, _ = of(log, hand)
    i = body[0] if which == "first" else max(i for i in body if log[i]["signature"])
    log[i]["signature"] = KEY.sign(b"something else").hex()
    log[i]["signed_by"] = KEY.public_hex
    assert failures(log) == []
    assert failures(log, all_signatures=True) == [("signature", "hand", hand, position(log, i))]


def test_record_a_damaged_one_fails_alone_and_the_chain_goes_on_after_it(
    log: list[Record],
) -> None:
    """A record the store could not read: its link is unknown, so the next
    is not compared with it; every link after that is (the one after a
    forged link, chained from it, too)."""
    hand = hands(log)[0]
    log = alone(log, hand)
    mine = of(log, hand)
    record = log[mine[1]]
    log[mine[1]] = {k: record[k] for k in ("kind", "id", "position")} | {"damaged": "bad bytes"}
    true = log[mine[4]]["link"]
    log[mine[4]]["link"] = "00" * 32
    assert said(log) == [
        ("record", 2, "a stored record the store can read", "bad bytes"),
        ("chain", 5, true, "00" * 32),
        ("chain", 6, chain.link(bytes(32), **_linked(log[mine[5]])).hex(), log[mine[5]]["link"]),
    ]


def test_an_account_s_records_are_chained_not_decoded_as_a_hand_s(log: list[Record]) -> None:
    account = str(uuid4())
    minted = {"amount": 500, "by": "admin"}
    records = signed(
        [
            {
                "kind": "account",
                "id": account,
                "position": 1,
                "type": "Minted",
                "version": 1,
                "data": minted,
                "signature": "x",
            }
        ]
    )
    report = verify(alone(log, log[0]["id"]) + records, KEY.public_hex)
    assert (report.ok, report.accounts) == (True, 1)


def test_record_a_damaged_one_before_the_last_leaves_the_last_signature_to_verify(
    log: list[Record],
) -> None:
    """The table's last record follows one the store could not read: its
    signature is verified over its stored link, the only one known. (The
    table's rules then miss the damaged event: not this test's checks.)"""
    table = log[0]["id"]
    log = alone(log, table)
    mine = of(log, table)
    log[mine[-2]]["damaged"] = "bad bytes"
    own = [f for f in said(log) if f[0] in {"record", "chain", "signature"}]
    assert own == [("record", len(mine) - 1, "a stored record the store can read", "bad bytes")]


def test_each_check_of_a_stream_s_records_says_what_was_due(log: list[Record]) -> None:
    hand = hand_where(log, lambda s: any(r.get("type") == "Acted" for r in s))
    log = alone(log, hand)
    mine = of(log, hand)
    del log[mine[2]]["link"]
    i = typed(log, hand, "Acted")[0]
    log[i]["data"]["action"] = "dance"
    table = log[0]["id"]
    last = of(log, table)[-1]
    signature = log[last]["signature"]
    del log[last]["signed_by"]
    found = said(log)
    assert ("record", 3, "a chained record", "'link'") in found
    assert ("decode", position(log, i), "a valid event", "'dance' is not a valid Action") in found
    assert found[:2] == [
        ("signature", position(log, last), "a valid signature", signature),
        ("key", position(log, last), f"signed by {KEY.public_hex}", ""),
    ]


def test_signature_a_stream_s_last_record_unsigned_says_so(log: list[Record]) -> None:
    table = log[0]["id"]
    log = alone(log, table)
    records = of(log, table)
    log[records[-1]]["signature"] = log[records[-1]]["signed_by"] = ""
    if not log[records[-2]]["signature"]:
        log[records[-2]]["signature"] = "x"  # signed again below
    log = signed(log)
    assert said(log) == [("signature", len(records), "the last record signed", "unsigned")]


def test_a_timed_hand_chains_each_record_s_time(log: list[Record]) -> None:
    """Records written since hands are timed chain the time they were
    recorded at: such a hand verifies, and one record moved a second is
    caught by the chain, even with every signature made again without it."""
    hand = hands(log)[0]
    log = alone(log, hand)
    mine = of(log, hand)
    for n, i in enumerate(mine[:-1]):
        log[i].update(timed=True, at=1_700_000_000 + n)
    log = signed(log)
    assert said(log) == []
    moved = copy.deepcopy(log)
    moved[mine[3]]["at"] += 1
    assert [f[:2] for f in said(moved)] == [("chain", 4)]
    untimed = signed([{k: v for k, v in r.items() if k != "timed"} for r in log])
    untimed = [{**r, "timed": True} if r["kind"] == "hand" else r for r in untimed]
    assert [f[:2] for f in said(untimed)][:1] == [("chain", 1)]


def test_seal_without_its_key_or_over_a_link_that_is_no_hex(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    seal = of(log, hand)[-1]
    at = position(log, seal)
    del log[seal]["public_key"]
    signature = log[seal]["signature"]
    assert said(log) == [
        ("seal signature", at, "a valid signature", signature),
        ("key", at, f"signed by {KEY.public_hex}", ""),
    ]
    log[seal].update(link="zz", public_key=KEY.public_hex)
    body = log[seal - 1]["link"]
    assert said(log) == [
        ("seal", at, f"feltline-chain-v1 over {body}", "zz"),
        ("seal signature", at, "a valid signature", signature),
    ]


def test_record_a_damaged_seal_fails_alone(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    seal = of(log, hand)[-1]
    log[seal] = {k: log[seal][k] for k in ("kind", "id", "position")} | {"damaged": "cut"}
    assert said(log) == [
        ("record", position(log, seal), "a stored record the store can read", "cut")
    ]


def test_rules_a_decision_the_engine_refuses_says_why(log: list[Record]) -> None:
    """A call turned into a check: the engine makes nothing there."""
    hand = hand_where(
        log, lambda s: any(r.get("type") == "Acted" and r["data"]["action"] == "call" for r in s)
    )
    log = alone(log, hand)
    i = next(i for i in typed(log, hand, "Acted") if log[i]["data"]["action"] == "call")
    log[i]["data"].update(action="check", amount=0)
    log = signed(log)
    ((check, at, expected, found),) = [f for f in said(log) if f[0] == "rules"]
    assert (check, at, found) == ("rules", position(log, i), shown(log[i]))
    assert re.fullmatch(r"nothing \(seat \d cannot check: \d+ to call\)", expected)


def test_a_line_that_is_no_json_object_is_left_to_its_share_to_refuse(tmp_path: Path) -> None:
    path = tmp_path / "hands.log"
    lines = [json.dumps(r) for r in SIGNED[:3]]
    path.write_text("\n".join(["{}", lines[0], "[1, 2]", *lines[1:]]) + "\n")
    shares = list(log_shares(str(path), len("{}\n"), 1))
    with pytest.raises(LogError, match="is not a JSON object"):
        verify_shares(shares, KEY.public_hex)


def test_record_a_damaged_table_record_fails_alone_and_the_table_is_folded_on(
    log: list[Record],
) -> None:
    """A stand-up the store could not read: the table's rules go on past
    it, so every hand dealt after it is still tied to its deal."""
    table = log[0]["id"]
    log = alone(log, table)
    i = typed(log, table, "StoodUp")[0]
    assert i < typed(log, table, "HandDealt")[0]
    log[i] = {k: log[i][k] for k in ("kind", "id", "position")} | {"damaged": "bad bytes"}
    assert said(log) == [
        ("record", position(log, i), "a stored record the store can read", "bad bytes")
    ]


def test_seal_alone_is_over_no_link(log: list[Record]) -> None:
    """A hand's stream that holds nothing but its seal: the seal covers no
    record, whatever link it names."""
    hand = hands(log)[0]
    log = alone(log, hand)
    *body, seal = of(log, hand)
    log[seal]["position"] = 1
    for i in reversed(body):
        del log[i]
    sealed = log[of(log, hand)[0]]
    assert said(log) == [("seal", 1, "feltline-chain-v1 over None", sealed["link"])]


def test_card_from_a_stub_is_checked_against_that_stub_not_the_latest(
    log: list[Record],
) -> None:
    """A second reshuffle recorded after the first, its cards reversed:
    the cards dealt from stub 1 are still stub 1's, so only the engine
    (which made no second reshuffle) objects, and a card dealt from stub 2
    is checked against the second."""
    hand = hand_where(log, lambda s: any(r.get("type") == "StubReshuffled" for r in s))
    log = alone(log, hand)
    (stub,) = typed(log, hand, "StubReshuffled")[:1]
    second = copy.deepcopy(log[stub])
    second["data"]["cards"] = second["data"]["cards"][::-1]
    log.insert(stub + 1, second)
    for n, i in enumerate(of(log, hand), 1):
        log[i]["position"] = n
    log = signed(log)
    assert [f[:2] for f in said(log)] == [("rules", position(log, stub + 1))]
    dealt = next(i for i in typed(log, hand, "CardDealt") if log[i]["data"]["stub"] == 1)
    log[dealt]["data"]["stub"] = 2
    log = signed(log)
    at = log[dealt]["data"]["position"]
    card = second["data"]["cards"][at]
    assert [f for f in said(log) if f[0] == "card"] == [
        ("card", position(log, dealt), f"{card} (card {at} of stub 2)", log[dealt]["data"]["card"])
    ]


@pytest.mark.parametrize("length", [399, 400, 401])
def test_rules_shows_an_event_of_up_to_400_characters_whole(log: list[Record], length: int) -> None:
    """A pot's award stored with its winner's hand described at length."""
    hand = hand_where(log, lambda s: any(r.get("type") == "PotAwarded" for r in s))
    log = alone(log, hand)
    i = typed(log, hand, "PotAwarded")[0]
    true = shown(log[i])
    log[i]["data"]["shares"][0]["hand"] += "x" * (length - len(true))
    stored = shown(log[i])
    assert len(stored) == length
    log = signed(log)
    cut = stored if length <= 400 else stored[:400] + "..."
    assert said(log) == [("rules", position(log, i), true, cut)]


def test_lines_that_are_no_json_object_are_refused_in_shares_of_one_line(
    log: list[Record],
) -> None:
    """The first shares hold no stream to cut after: the log's own error
    names the line, as with shares of any size."""
    lines = ["[1]", "[2]", *(json.dumps(r) for r in alone(log, log[0]["id"]))]
    for size in (1, 2000):
        with pytest.raises(LogError, match=r"^a line of the log is not a JSON object$"):
            verify_shares(line_shares(lines, size), KEY.public_hex)


def test_progress_is_told_each_hand_checked(log: list[Record]) -> None:
    told: list[int] = []
    report = verify(log, KEY.public_hex, progress=told.append)
    assert told == list(range(1, report.hands + 1))
    assert report.hands == 15


@pytest.mark.parametrize("beyond", [52, 99])
def test_card_on_the_board_from_beyond_the_deck_is_none_of_its_cards(
    log: list[Record], beyond: int
) -> None:
    """A hold'em deck holds 52 cards, at positions 0 to 51."""
    hand = hand_where(log, lambda s: any(r.get("type") == "BoardDealt" for r in s))
    log = alone(log, hand)
    i = typed(log, hand, "BoardDealt")[0]
    (deck,) = typed(log, hand, "DeckShuffled")
    assert len(log[deck]["data"]["cards"]) == 52
    dealt = log[i]["data"]
    dealt["positions"][0] = beyond
    log = signed(log)
    cards = log[deck]["data"]["cards"]
    due = " ".join(["None", *(cards[p] for p in dealt["positions"][1:])])
    at = position(log, i)
    assert said(log)[0] == ("card", at, due, " ".join(dealt["cards"]))


def test_table_rules_a_hand_finished_before_any_was_dealt(log: list[Record]) -> None:
    """The table's first HandFinished copied before its first deal: no deal
    takes its result, the table takes its stacks, and the deal after it
    starts two seats from other stacks than the table then holds."""
    table = log[0]["id"]
    log = alone(log, table)
    dealt = typed(log, table, "HandDealt")[0]
    log.insert(dealt, copy.deepcopy(log[typed(log, table, "HandFinished")[0]]))
    for n, i in enumerate(of(log, table), 1):
        log[i]["position"] = n
    log = signed(log)
    assert failures(log) == [("starting stacks", "table", table, position(log, dealt) + 1)] * 2


def test_signature_a_table_s_forged_one_before_the_last_only_with_every_signature(
    log: list[Record],
) -> None:
    table = log[0]["id"]
    log = alone(log, table)
    first = of(log, table)[0]
    log[first]["signature"] = KEY.sign(b"something else").hex()
    assert failures(log) == []
    assert failures(log, all_signatures=True) == [("signature", "table", table, 1)]


def test_starting_stacks_a_deal_seating_an_empty_seat(log: list[Record]) -> None:
    table, hand, number = last_hand_of_table(log)
    log = alone(log, hand)
    dealt = typed(log, table, "HandDealt")[-1]
    sat = {log[i]["data"]["seat"] for i in typed(log, table, "SatDown")}
    empty = min(set(range(1, 7)) - sat)  # no one ever sits there at this table
    seat = log[dealt]["data"]["deal"]["seats"][0]
    seat["seat"] = empty
    log = signed(log)
    found = said(log)[0]
    assert found == (
        "starting stacks",
        position(log, dealt),
        f"hand {number} seat {seat['seat']} (player, stack, carried) None",
        str((seat["player"], seat["stack"], seat["carried"])),
    )


def test_a_table_of_nothing_but_its_opening_verifies(log: list[Record]) -> None:
    table = log[0]["id"]
    (opened,) = typed(log, table, "TableOpened")
    report = verify([log[opened]], KEY.public_hex)
    assert (report.ok, report.tables, report.verified) == (True, 1, 1)


def test_record_a_table_whose_opening_is_damaged_is_folded_on(log: list[Record]) -> None:
    """The table's rules go on from an empty table: its deals are still
    kept for its hands."""
    table = log[0]["id"]
    log = alone(log, table)
    (opened,) = typed(log, table, "TableOpened")
    log[opened] = {k: log[opened][k] for k in ("kind", "id", "position")} | {"damaged": "bad"}
    found = failures(log)
    assert found[0] == ("record", "table", table, 1)
    assert {f[1] for f in found} == {"table"}  # every hand still tied to its deal


def test_deck_a_hand_dealt_by_an_algorithm_there_is_none_of(log: list[Record]) -> None:
    """A deck algorithm the verifier does not know is the deck's failure, at
    the hand's first record, naming the ones it knows (the engine, which
    starts the hand with its own, names it too)."""
    hand = hands(log)[0]
    log = alone(log, hand)
    (start,) = typed(log, hand, "HandStarted")
    log[start]["data"]["algorithm"] = "feltline-deck-v9"
    deck, rules = said(signed(log))
    assert deck == ("deck", 1, "feltline-deck-v1 or feltline-deck-v2", "feltline-deck-v9")
    assert rules[:2] == ("rules", 1)
