"""``feltline-deck-v2`` hands before the verifier: the Node verifier's
fixture (tests/replay/contributed.py) verifies clean and lists the seat
that withheld its reveal; a server that changes its seed after seeing the
contributions is caught, whether it reveals the new seed or the one it
committed to, though it holds the key and signs everything again."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from feltline.audit.codec import TABLE_EVENT_TYPES, decode_event, encode_event
from feltline.audit.keys import Signer
from feltline.engine.cards.card import deck, format_cards
from feltline.engine.cards.deck import commitment, deck_seed, shuffle
from feltline.engine.hand.events import HandEnded, HandStarted
from feltline.engine.table.events import HandDealt, HandFinished, SatDown, TableOpened
from feltline.engine.table.house import TableConfig
from feltline.engine.table.state import Entry
from feltline_replay.export import hand_id
from feltline_replay.verify import Withheld, check_hand, verify
from tests.replay.contributed import FIXTURE, HANDS
from tests.replay.test_checks import signed

Record = dict[str, Any]
LOG: list[Record] = [json.loads(line) for line in FIXTURE.read_text().splitlines()[1:]]
KEY = Signer.generate()


def hand(records: list[Record], number: int) -> list[Record]:
    return [r for r in records if r["id"] == str(HANDS[number])]


def checks(records: list[Record]) -> list[tuple[str, int | None]]:
    return [(check, position) for check, position, _, _ in check_hand(records).failures]


def test_the_fixture_verifies_clean_and_lists_the_seat_that_withheld() -> None:
    for number, withheld in enumerate([(), (4,), ()]):
        found = check_hand(hand(LOG, number))
        assert found.failures == []
        assert found.withheld == withheld
    assert any(r.get("type") == "StubReshuffled" for r in hand(LOG, 2))  # from the deck seed


def test_a_withheld_seat_reads_with_its_hand() -> None:
    assert str(Withheld("h", (4, 6), "t", 3)) == (
        "hand 3 of table t (h): seats 4, 6 committed and did not reveal"
    )


def server_seed(records: list[Record]) -> bytes:
    return bytes.fromhex(next(r for r in records if r.get("type") == "SeedDrawn")["data"]["seed"])


def reveals(records: list[Record]) -> dict[int, bytes]:
    return {
        r["data"]["seat"]: bytes.fromhex(r["data"]["contribution"])
        for r in records
        if r.get("type") == "ContributionRevealed"
    }


def reseeded(records: list[Record], new: bytes, *, reveal: bytes) -> list[Record]:
    """The hand dealt from ``new`` once the reveals are in: the hidden seed,
    the deck and every card from it, the end revealing ``reveal``; the
    HandStarted the players saw, and its commitment, left as they were."""
    out = copy.deepcopy(records)
    mixed = deck_seed(new, reveals(records))
    cards = format_cards(shuffle(mixed, deck())).split()
    for r in out:
        data, kind = r.get("data", {}), r.get("type")
        if kind == "SeedDrawn":
            data["seed"] = new.hex()
        elif kind == "DeckShuffled":
            data.update(seed=mixed.hex(), cards=cards)
        elif kind == "CardDealt" and data["stub"] == 0:
            data["card"] = cards[data["position"]]
        elif kind == "BoardDealt":
            data["cards"] = [cards[p] for p in data["positions"]]
        elif kind == "HandEnded":
            data["seed"] = reveal.hex()
    return signed(out, KEY)


def position_of(records: list[Record], kind: str) -> int:
    return next(r["position"] for r in records if r.get("type") == kind)


def test_a_server_changing_its_seed_after_the_reveals_and_revealing_it_is_caught() -> None:
    records = hand(LOG, 0)
    new = bytes(32)
    forged = reseeded(records, new, reveal=new)
    assert commitment(new) != records[0]["data"]["commitment"]
    found = checks(forged)
    assert ("commitment", position_of(forged, "HandEnded")) in found


def test_a_server_dealing_from_another_seed_but_revealing_the_committed_one_is_caught() -> None:
    records = hand(LOG, 0)
    forged = reseeded(records, bytes(32), reveal=server_seed(records))
    found = checks(forged)
    assert ("deck", position_of(forged, "DeckShuffled")) in found
    assert ("deck seed", position_of(forged, "DeckShuffled")) in found
    assert ("commitment", position_of(forged, "HandEnded")) not in found


def test_the_same_deck_re_signed_is_no_forgery() -> None:
    """The forgery's own machinery, given the server's seed, changes nothing:
    the tests above fail on the seed, not on the re-signing."""
    records = hand(LOG, 0)
    seed = server_seed(records)
    assert checks(reseeded(records, seed, reveal=seed)) == []


Change = Callable[[list[Record]], None]


def _reveal_other_bytes(records: list[Record]) -> None:
    r = next(r for r in records if r.get("type") == "ContributionRevealed")
    r["data"]["contribution"] = "00" * 32


def _leave_a_reveal_out_of_the_deck(records: list[Record]) -> None:
    """The deck derived as if the last seat had withheld, its reveal kept."""
    given = reveals(records)
    given.pop(max(given))
    mixed = deck_seed(server_seed(records), given)
    cards = format_cards(shuffle(mixed, deck())).split()
    shuffled = next(r for r in records if r.get("type") == "DeckShuffled")
    shuffled["data"].update(seed=mixed.hex(), cards=cards)


@pytest.mark.parametrize(
    ("change", "check", "at"),
    [
        (_reveal_other_bytes, "contribution", "ContributionRevealed"),
        (_leave_a_reveal_out_of_the_deck, "deck", "DeckShuffled"),
    ],
)
def test_a_forged_contribution_is_caught(change: Change, check: str, at: str) -> None:
    records = copy.deepcopy(hand(LOG, 0))
    change(records)
    forged = signed(records, KEY)
    assert (check, position_of(forged, at)) in checks(forged)


def test_a_contribution_failure_says_the_seat_its_commitment_and_the_bytes_revealed() -> None:
    """Other bytes revealed, and a reveal from a seat that committed nothing."""
    records = copy.deepcopy(hand(LOG, 0))
    first, second = [r for r in records if r.get("type") == "ContributionRevealed"][:2]
    seat = first["data"]["seat"]
    (committed,) = [
        r["data"]["commitment"]
        for r in records
        if r.get("type") == "ContributionCommitted" and r["data"]["seat"] == seat
    ]
    first["data"]["contribution"] = "00" * 32
    second["data"]["seat"] = 9
    said = [f for f in check_hand(signed(records, KEY)).failures if f[0] == "contribution"]
    assert said == [
        (
            "contribution",
            first["position"],
            f"seat {seat}'s 32 bytes hashing to {committed}",
            "00" * 32,
        ),
        (
            "contribution",
            second["position"],
            "seat 9's 32 bytes hashing to no commitment",
            second["data"]["contribution"],
        ),
    ]


def test_a_seat_not_asked_to_reveal_is_not_listed_as_withholding() -> None:
    """Only the seats ``RevealsOpened`` names are due to reveal: a seat
    whose commitment it leaves out (here the last revealer's, its reveal
    gone and the deck dealt without it) withheld nothing."""
    records = copy.deepcopy(hand(LOG, 0))
    (last,) = [r for r in records if r.get("type") == "ContributionRevealed"][-1:]
    records.remove(last)
    for n, r in enumerate(records, 1):
        r["position"] = n
    (opened,) = [r for r in records if r.get("type") == "RevealsOpened"]
    opened["data"]["seats"].remove(last["data"]["seat"])
    seed = server_seed(records)
    assert check_hand(reseeded(records, seed, reveal=seed)).withheld == ()


def test_the_report_lists_the_seat_that_withheld_with_its_hand() -> None:
    """Through the whole verifier, not only the hand's own check: the
    fixture holds no table, so the hand is named by its id alone."""
    report = verify(signed(LOG, KEY), KEY.public_hex)
    assert report.withheld == [Withheld(str(HANDS[1]), (4,), None, None)]


def dealt_at(table: UUID, records: list[Record]) -> list[Record]:
    """The hand as hand 1 of ``table``, which opened, seated its players,
    dealt it and took its result: the table's stream, then the hand's,
    moved to that deal's id (signed by :func:`signed`)."""
    events = [decode_event(r["type"], r["version"], r["data"]) for r in records[:-1]]
    started = next(e for e in events if isinstance(e, HandStarted))
    ended = next(e for e in events if isinstance(e, HandEnded))
    played = [
        TableOpened(TableConfig(started.rules, seats=6), at=0, name=""),
        *(SatDown(s.seat, s.player, s.stack, 0, Entry.PLAYING) for s in started.deal.seats),
        HandDealt(1, 0, started.deal, started.commitment),
        HandFinished(ended.stacks, ended.rake),
    ]
    out = []
    for position, event in enumerate(played, 1):
        name, version, data = encode_event(event, TABLE_EVENT_TYPES)
        last = position == len(played)
        out.append(
            {"kind": "table", "id": str(table), "position": position, "type": name}
            | {"version": version, "data": data, "signature": "signed" if last else ""}
        )
    return out + [{**r, "id": str(hand_id(table, 1))} for r in records]


def test_the_report_names_the_hand_that_withheld_by_its_table_and_number() -> None:
    """A withheld hand its table dealt is named as a failing one is: by the
    table and the hand's number there, the second time it is given too."""
    table = UUID("2b0c4a56-9d1e-4f37-8a6b-5c3d2e1f0b01")
    log = signed(dealt_at(table, hand(LOG, 1)), KEY)
    withheld = Withheld(str(hand_id(table, 1)), (4,), str(table), 1)
    report = verify(log, KEY.public_hex)
    assert report.failures == []
    assert report.withheld == [withheld]
    assert str(withheld) == f"hand 1 of table {table} ({hand_id(table, 1)}): " + (
        "seats 4 committed and did not reveal"
    )
    twice = verify(log + [r for r in log if r["kind"] != "table"], KEY.public_hex)
    assert [(f.check, f.table, f.number) for f in twice.failures] == [("table", str(table), 1)]
    assert twice.withheld == [withheld, withheld]
