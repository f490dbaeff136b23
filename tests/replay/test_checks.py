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
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest

from feltline.audit import chain
from feltline.audit.codec import decode_event
from feltline.audit.keys import Signer
from feltline.engine.dealing import fresh_deck
from feltline.engine.deck import commitment, shuffle
from feltline.engine.events import HandStarted
from feltline_replay.export import hand_id
from feltline_replay.verify import (
    Failure,
    Report,
    line_shares,
    log_shares,
    verify,
    verify_shares,
)

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
    assert failures(log) == [("order", "hand", hand, position(LOG, seal))]


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
    assert failures(log) == [("signature", "hand", hand, position(log, i))]


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


def test_seal_of_another_algorithm(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    seal = of(log, hand)[-1]
    log[seal]["algorithm"] = "feltline-chain-v0"
    assert failures(log) == [("seal", "hand", hand, position(log, seal))]


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
    del log[ended]
    log = signed(log)
    assert failures(log) == [("rules", "hand", hand, 1)]


# -- a hand tied to its table -------------------------------------------


def test_table_a_hand_dealt_from_another_commitment(log: list[Record]) -> None:
    """The whole hand consistent with a new seed and its commitment: only
    the table's record of the deal shows it is not the hand dealt."""
    hand = hand_where(log, folded_before_showdown)
    log = alone(log, hand)
    reseeded(log, hand, bytes(range(32)), commit=True)
    log = signed(log)
    assert failures(log) == [("table", "hand", hand, 1)]


def test_table_a_hand_started_from_other_stacks(log: list[Record]) -> None:
    """A seat given 100 chips more at the start, and so at the end: the
    hand plays again, but the table dealt it and took its result otherwise."""
    hand = hand_where(
        log, lambda s: not any(r.get("data", {}).get("all_in") for r in s) and len(s) > 5
    )
    log = alone(log, hand)
    (start,) = typed(log, hand, "HandStarted")
    (ended,) = typed(log, hand, "HandEnded")
    seat = log[start]["data"]["deal"]["seats"][0]
    seat["stack"] += 100
    for stack in log[ended]["data"]["stacks"]:
        stack[1] += 100 if stack[0] == seat["seat"] else 0
    log = signed(log)
    last = len(of(log, hand)) - 1
    assert failures(log) == [("table", "hand", hand, 1), ("table", "hand", hand, last)]


def test_table_a_result_the_table_did_not_take(log: list[Record]) -> None:
    """The table's last hand: its record of the result moved one chip from
    one seat to another (nothing at the table follows to show it)."""
    table, hand, _ = last_hand_of_table(log)
    log = alone(log, hand)
    finished = typed(log, table, "HandFinished")[-1]
    stacks = log[finished]["data"]["stacks"]
    stacks[0][1] -= 1
    stacks[1][1] += 1
    log = signed(log)
    assert failures(log) == [("table", "hand", hand, len(of(log, hand)) - 1)]


def test_table_a_hand_the_table_did_not_finish(log: list[Record]) -> None:
    table, hand, _ = last_hand_of_table(log)
    log = alone(log, hand)
    finished = typed(log, table, "HandFinished")[-1]
    after = [i for i in of(log, table) if i > finished]
    if not after:
        log[finished - 1]["signature"] = "x"  # signed again below
    del log[finished]
    log = signed(log)
    assert failures(log) == [("table", "hand", hand, len(of(log, hand)) - 1)]


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


def test_missing_a_hand_its_table_finished(log: list[Record]) -> None:
    hand = hands(log)[0]
    log = alone(log, hand)
    for i in reversed(of(log, hand)):
        del log[i]
    assert failures(log) == [("missing", "hand", hand, None)]
    assert failures(log, complete=False) == []


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


# -- what the report says -----------------------------------------------


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
