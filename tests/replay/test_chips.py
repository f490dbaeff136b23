"""The verifier's checks of the streams beside tables and hands: each
account's chain and the chips it moved to and from seats, compared with
what each table recorded (``chips``); a match's and the transparency log's
chain and keys; and the same report from several processes as from one.

The accounts are made here from the fixture log's tables (tests/replay/
test_checks.py): each buy-in, chips added and stand-up, as the player's
account recorded it, chained and signed with the tables' key.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

import pytest

from feltline_replay import verify as verifying
from feltline_replay.verify import Report, verify

from .test_checks import KEY, OTHER, SIGNED, Record, hands, of, signed, typed
from .test_key_history import NEW, ROTATED, history, numbered, revoked, table


def account_of(player: str) -> str:
    return str(uuid5(NAMESPACE_URL, player))


def accounts(log: list[Record]) -> dict[str, list[Record]]:
    """Each player's account: chips minted, then every move of chips
    between it and a seat that the tables recorded, in order."""
    moves: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    seated: dict[tuple[str, int], str] = {}
    for record in log:
        if record["kind"] != "table":
            continue
        data, where = record["data"], {"table": record["id"], "seat": record["data"].get("seat")}
        match record["type"]:
            case "SatDown":
                seated[record["id"], data["seat"]] = data["player"]
                moved = ("BoughtIn", {"amount": data["buy_in"], **where})
            case "ChipsAdded":
                moved = ("BoughtIn", {"amount": data["amount"], **where})
            case "StoodUp" if data["stack"] > 0:
                moved = ("Returned", {"amount": data["stack"], **where})
            case _:
                continue
        moves.setdefault(seated[record["id"], data["seat"]], []).append(moved)
    return {
        player: [
            {
                "kind": "account",
                "id": account_of(player),
                "position": n,
                "type": name,
                "version": 1,
                "data": data,
                "signature": "x",
            }
            for n, (name, data) in enumerate([("Minted", {"amount": 10_000, "by": "a"}), *mine], 1)
        ]
        for player, mine in moves.items()
    }


ACCOUNTS = accounts(SIGNED)


def with_accounts(mine: dict[str, list[Record]], signer: Any = KEY) -> list[Record]:
    """The fixture log and these accounts, after it, each chained and signed."""
    return copy.deepcopy(SIGNED) + signed([r for a in mine.values() for r in a], signer)


def chips(records: list[Record], **options: Any) -> list[tuple[str, str, str, str]]:
    report = verify(records, KEY.public_hex, chips=True, **options)
    return [(f.check, f.kind, f.id, f.found) for f in report.failures]


def renumbered(stream: list[Record]) -> list[Record]:
    return [{**r, "position": n} for n, r in enumerate(stream, 1)]


def test_accounts_that_moved_what_the_tables_recorded_verify() -> None:
    report = verify(with_accounts(ACCOUNTS), KEY.public_hex, chips=True)
    assert (report.ok, report.accounts, report.tables) == (True, len(ACCOUNTS), 5)
    moves = sum(len(a) - 1 for a in ACCOUNTS.values())
    assert moves > len(ACCOUNTS)  # some players moved chips more than once


def test_a_buy_in_no_account_moved_is_named_by_its_seat_and_amount() -> None:
    mine = copy.deepcopy(ACCOUNTS)
    dropped = mine["player 12"].pop(1)  # the first buy-in, at the first table
    assert dropped["data"] == {"amount": 942, "table": SIGNED[0]["id"], "seat": 1}
    records = with_accounts({k: renumbered(v) for k, v in mine.items()})
    assert chips(records) == [
        (
            "chips",
            "table",
            SIGNED[0]["id"],
            "moved by the accounts, not at the table: none; "
            "at the table, moved by no account: to seat 1, 942",
        )
    ]
    assert verify(records, KEY.public_hex).ok  # compared only when asked: the log holds all


def test_a_stand_up_no_account_took_back_is_named_by_its_seat_and_amount() -> None:
    mine = copy.deepcopy(ACCOUNTS)
    (returned,) = [r for r in mine["player 2"] if r["type"] == "Returned"][:1]
    mine["player 2"].remove(returned)
    records = with_accounts({k: renumbered(v) for k, v in mine.items()})
    seat, amount = returned["data"]["seat"], returned["data"]["amount"]
    assert chips(records) == [
        (
            "chips",
            "table",
            returned["data"]["table"],
            "moved by the accounts, not at the table: none; "
            f"at the table, moved by no account: back from seat {seat}, {amount}",
        )
    ]
    (failure,) = verify(records, KEY.public_hex, chips=True).failures
    assert (failure.position, failure.expected) == (
        None,
        "every move of chips between an account and a seat in both streams",
    )


def test_moves_no_table_recorded_are_counted_and_listed_in_order() -> None:
    """A buy-in moved three times by the account, once at the table; two
    more moves at the same table; and one at a table the log does not hold,
    listed after the fixture's tables (in the order of their ids)."""
    mine = copy.deepcopy(ACCOUNTS)
    first = SIGNED[0]["id"]
    buy_in = mine["player 12"][1]
    nowhere = str(UUID(int=(1 << 128) - 1))
    extra = [
        copy.deepcopy(buy_in),
        copy.deepcopy(buy_in),
        {**buy_in, "type": "Returned", "data": {"amount": 7, "table": first, "seat": 6}},
        {**buy_in, "data": {"amount": 5, "table": first, "seat": 6}},
        {**buy_in, "data": {"amount": 1, "table": nowhere, "seat": 9}},
    ]
    mine["player 12"] = renumbered([*mine["player 12"], *extra])
    assert chips(with_accounts(mine)) == [
        (
            "chips",
            "table",
            first,
            "moved by the accounts, not at the table: "
            "to seat 1, 942 (2 times); back from seat 6, 7; to seat 6, 5; "
            "at the table, moved by no account: none",
        ),
        (
            "chips",
            "table",
            nowhere,
            "moved by the accounts, not at the table: to seat 9, 1; "
            "at the table, moved by no account: none",
        ),
    ]


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"amount": 942, "table": SIGNED[0]["id"]}, "'seat'"),
        ({"amount": 942, "table": "no table", "seat": 1}, "badly formed hexadecimal UUID string"),
        ({"amount": "lots", "table": str(uuid4()), "seat": 1}, "invalid literal for int()"),
        ({"amount": 942, "table": None, "seat": 1}, "badly formed hexadecimal UUID string"),
    ],
)
def test_record_a_move_without_a_table_a_seat_and_an_amount(data: dict[str, Any], why: str) -> None:
    mine = copy.deepcopy(ACCOUNTS)
    mine["player 12"][1]["data"] = data
    report = verify(with_accounts(mine), KEY.public_hex)
    ((check, kind, stream, position, expected, found),) = [
        (f.check, f.kind, f.id, f.position, f.expected, f.found) for f in report.failures
    ]
    assert (check, kind, stream, position) == ("record", "account", account_of("player 12"), 2)
    assert expected == "a table, a seat and an amount"
    assert why in found
    # The account's other moves are still read: only this one is unmatched.
    compared = verify(with_accounts(mine), KEY.public_hex, chips=True)
    assert [f.found for f in compared.failures if f.check == "chips"] == [
        "moved by the accounts, not at the table: none; "
        "at the table, moved by no account: to seat 1, 942"
    ]


def test_only_buy_ins_and_returns_move_chips_to_and_from_seats() -> None:
    """A Minted or CashedOut names no seat; a move whose data is no object
    fails as a record of the chain, not again as a move."""
    mine = copy.deepcopy(ACCOUNTS)
    mine["player 12"].append(
        {**mine["player 12"][0], "type": "CashedOut", "data": {"amount": 5, "seat": 1}}
    )
    records = with_accounts({k: renumbered(v) for k, v in mine.items()})
    assert verify(records, KEY.public_hex, chips=True).ok
    i = next(i for i, r in enumerate(records) if r["kind"] == "account" and r["position"] == 2)
    records[i]["data"] = [942, 1]
    report = verify(records, KEY.public_hex)
    assert [(f.check, f.kind, f.position) for f in report.failures] == [
        ("record", "account", 2),
        ("chain", "account", 3),  # chained from the last link known, the first's
    ]
    assert report.failures[0].expected == "a chained record"


def test_an_account_signed_by_another_key_fails_its_key() -> None:
    mine = {"player 12": ACCOUNTS["player 12"]}
    records = copy.deepcopy(SIGNED) + signed(mine["player 12"], OTHER)
    report = verify(records, KEY.public_hex)
    assert {(f.check, f.kind, f.id, f.found) for f in report.failures} == {
        ("key", "account", account_of("player 12"), OTHER.public_hex)
    }
    assert len(report.failures) == len(mine["player 12"])


def test_an_account_changed_after_it_was_signed_fails_its_chain() -> None:
    records = with_accounts(ACCOUNTS)
    i = next(i for i, r in enumerate(records) if r["kind"] == "account" and r["position"] == 2)
    records[i]["data"]["amount"] += 1
    report = verify(records, KEY.public_hex, chips=True)
    assert [(f.check, f.kind, f.position) for f in report.failures] == [
        ("chain", "account", 2),
        ("chips", "table", None),
    ]


# -- a match's stream and the transparency log's ----------------------------


def stream_of(kind: str, signer: Any = KEY) -> list[Record]:
    stream = str(uuid4())
    return signed(
        [
            {
                "kind": kind,
                "id": stream,
                "position": n,
                "type": name,
                "version": 1,
                "data": {"n": n},
                "signature": "x",
            }
            for n, name in enumerate(["Opened", "Played"], 1)
        ],
        signer,
    )


@pytest.mark.parametrize("kind", ["match", "tournament", "log"])
def test_a_match_a_tournament_or_the_transparency_log_is_chained_and_signed_by_the_key(
    kind: str,
) -> None:
    records = stream_of(kind)
    report = verify(copy.deepcopy(SIGNED) + records, KEY.public_hex)
    assert (report.ok, report.matches, report.hands) == (True, int(kind == "match"), 15)
    assert verify(records + stream_of(kind), KEY.public_hex).matches == 2 * (kind == "match")
    forged = copy.deepcopy(records)
    forged[0]["signature"] = "00" * 64  # well formed; covered by the last one
    assert verify(forged, KEY.public_hex).ok
    every = verify(forged, KEY.public_hex, all_signatures=True)
    assert [(f.check, f.kind, f.position) for f in every.failures] == [("signature", kind, 1)]
    records[0]["data"]["n"] = 3
    report = verify(records, KEY.public_hex)
    assert [(f.check, f.kind, f.id, f.position) for f in report.failures] == [
        ("chain", kind, records[0]["id"], 1)
    ]
    other = stream_of(kind, OTHER)
    assert [(f.check, f.kind, f.found) for f in verify(other, KEY.public_hex).failures] == [
        ("key", kind, OTHER.public_hex)
    ] * 2


# -- in several processes ---------------------------------------------------


def test_every_stream_s_findings_come_back_whole_from_other_processes() -> None:
    """A log with something to find in every kind of stream, verified with
    one process and with three: the same report, every field of it."""
    log = numbered(table(NEW), 100)
    hand = hands(log)[1]
    i = next(i for i in typed(log, hand, "Acted") if log[i]["data"]["amount"])
    log[i]["data"]["amount"] += 1  # the rules, and the tie to the table
    log = signed(log, NEW)
    first = log[0]["id"]
    dealt = typed(log, first, "HandDealt")[-1]
    log[dealt]["data"]["hand"] += 1  # the hand numbers
    finished = typed(log, first, "HandFinished")[0]
    log[finished]["data"]["stacks"][0][1] += 1  # the tie to the table
    log = signed(log, NEW)
    mine = copy.deepcopy({k: v for k, v in ACCOUNTS.items() if k in {"player 12", "player 2"}})
    mine["player 12"].pop(1)
    records = (
        history(*ROTATED, revoked(NEW, 150, KEY))
        + log
        + signed([r for a in mine.values() for r in renumbered(a)], NEW)
        + stream_of("match", OTHER)
    )
    records = [r for r in records if r["kind"] != "seal" or r["id"] != hands(log)[0]]
    one = verify(records, KEY.public_hex, chips=True)
    checks = {f.check for f in one.failures}
    assert checks >= {"revoked", "rules", "hand numbers", "table", "chips", "key", "seal"}
    assert (one.accounts, one.matches) == (2, 1)
    for workers in (2, 3):
        several = verify(records, KEY.public_hex, chips=True, workers=workers)
        assert several.as_json() == one.as_json()
    again = verify(records, None, chips=True, workers=2)
    assert again.as_json() == verify(records, None, chips=True).as_json()


def test_hands_tied_in_other_processes_are_tied_to_their_tables() -> None:
    log = copy.deepcopy(SIGNED)
    table_id = log[0]["id"]
    finished = typed(log, table_id, "HandFinished")[0]
    log[finished]["data"]["stacks"][0][1] += 1
    log = signed(log)
    one = verify(log, KEY.public_hex)
    assert [f.check for f in one.failures][-1:] == ["table"]
    report: Report = verify(log, KEY.public_hex, workers=2)
    assert report.as_json() == one.as_json()
    assert of(log, table_id)


def test_a_match_s_last_signature_is_verified_and_every_one_when_asked() -> None:
    records = stream_of("match")
    records[0]["signature"] = KEY.sign(b"something else").hex()  # covered by the last
    assert verify(records, KEY.public_hex).ok
    found = verify(records, KEY.public_hex, all_signatures=True).failures
    assert [(f.check, f.kind, f.position) for f in found] == [("signature", "match", 1)]
    records[-1]["signature"] = KEY.sign(b"something else").hex()
    found = verify(records, KEY.public_hex).failures
    assert [(f.check, f.kind, f.position) for f in found] == [("signature", "match", 2)]


def test_a_match_of_one_record_verifies() -> None:
    records = stream_of("match")[:1]
    records[0]["signature"] = KEY.sign(bytes.fromhex(records[0]["link"])).hex()
    report = verify(records, KEY.public_hex)
    assert (report.ok, report.matches, report.verified) == (True, 1, 1)


def test_what_a_share_sends_back_between_processes_makes_the_same_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each share's findings pickled and read back, as a process pool sends
    them (the pool's own processes are not traced by the mutation run)."""
    log = numbered(table(NEW), 100)
    hand = hands(log)[1]
    i = next(i for i in typed(log, hand, "Acted") if log[i]["data"]["amount"])
    log[i]["data"]["amount"] += 1
    first = log[0]["id"]
    log[typed(log, first, "HandFinished")[0]]["data"]["stacks"][0][1] += 1
    log[typed(log, first, "HandDealt")[-1]]["data"]["hand"] += 1
    log = signed(log, NEW)
    mine = copy.deepcopy({k: v for k, v in ACCOUNTS.items() if k in {"player 12", "player 2"}})
    mine["player 12"].pop(1)
    records = (
        history(*ROTATED, revoked(NEW, 150, KEY))
        + log
        + signed([r for a in mine.values() for r in renumbered(a)], NEW)
        + stream_of("match", OTHER)
    )
    here = verify(records, KEY.public_hex, chips=True)
    unkeyed = verify(records, None, chips=True, all_signatures=True)
    assert unkeyed.warnings
    assert {f.check for f in here.failures} >= {"revoked", "rules", "table", "chips", "key"}
    checked_here = verifying.check_share

    def sent(share: Any, *, every: bool = False) -> list[Any]:
        return pickle.loads(pickle.dumps(checked_here(share, every=every)))

    monkeypatch.setattr(verifying, "check_share", sent)
    assert verify(records, KEY.public_hex, chips=True).as_json() == here.as_json()
    assert (
        verify(records, None, chips=True, all_signatures=True).as_json()
        == (here_without_key := verify(records, None, chips=True, all_signatures=True)).as_json()
    )
    assert here_without_key.warnings


def test_a_move_a_table_recorded_twice_is_counted_twice() -> None:
    """Player 2 sits down at the first table with 535 and stands up with it,
    then does it again: the table records each move twice, as the account
    moves it."""
    log = copy.deepcopy(SIGNED)
    first = log[0]["id"]
    sat = next(i for i, r in enumerate(log) if r["type"] == "SatDown" and r["id"] == first)
    sat += 1  # player 2's, the second to sit down
    stood = log[sat + 1]
    assert (log[sat]["data"]["player"], log[sat]["data"]["buy_in"]) == ("player 2", 535)
    assert (stood["type"], stood["data"]["stack"]) == ("StoodUp", 535)
    log[sat + 2 : sat + 2] = copy.deepcopy(log[sat : sat + 2])
    table = renumbered([r for r in log if r["id"] == first])
    log = signed(table + [r for r in log if r["id"] != first])
    mine = accounts(log)
    assert [(r["type"], r["data"]["amount"]) for r in mine["player 2"][1:5]] == [
        ("BoughtIn", 535),
        ("Returned", 535),
    ] * 2
    report = verify(log + signed([r for a in mine.values() for r in a]), KEY.public_hex, chips=True)
    assert report.ok


def test_a_verifier_made_with_its_defaults_compares_no_chips() -> None:
    """As the server's VerifyHand makes it: its tables' moves are not
    compared with accounts it is not given."""
    report = verifying.Verifier(KEY.public_hex).run(verifying.line_shares(SIGNED))
    assert (report.ok, report.tables) == (True, 5)


def test_without_any_account_every_table_s_moves_are_moved_by_no_account() -> None:
    report = verify(copy.deepcopy(SIGNED), KEY.public_hex, chips=True)
    tables = sorted({r["id"] for r in SIGNED if r["kind"] == "table"})
    assert [(f.check, f.id) for f in report.failures] == [("chips", t) for t in tables]
    (first,) = [f for f in report.failures if f.id == SIGNED[0]["id"]]
    assert first.found == (
        "moved by the accounts, not at the table: none; at the table, moved by no account: "
        "back from seat 1, 930; to seat 1, 942; back from seat 2, 535; to seat 2, 535; "
        "to seat 2, 553; to seat 4, 924; to seat 6, 999"  # by seat, then amount
    )


def test_an_account_s_signatures_are_all_verified_only_when_asked() -> None:
    """A well-formed forged signature on an account's first record, which
    its last signature covers."""
    records = with_accounts({"player 12": ACCOUNTS["player 12"]})
    i = next(i for i, r in enumerate(records) if r["kind"] == "account")
    records[i]["signature"] = KEY.sign(b"something else").hex()
    assert verify(records, KEY.public_hex).ok
    report = verify(records, KEY.public_hex, all_signatures=True)
    assert [(f.check, f.kind, f.position) for f in report.failures] == [("signature", "account", 1)]


def test_an_account_s_last_signature_is_verified() -> None:
    records = with_accounts({"player 12": ACCOUNTS["player 12"]})
    records[-1]["signature"] = KEY.sign(b"something else").hex()
    report = verify(records, KEY.public_hex)
    last = records[-1]["position"]
    assert [(f.check, f.kind, f.position) for f in report.failures] == [
        ("signature", "account", last)
    ]


@pytest.mark.parametrize("stack", [0, 1])
def test_a_stand_up_with_no_chip_moves_none_and_one_with_a_chip_moves_it(stack: int) -> None:
    """Player 2 stands up from the first table before any hand, with
    ``stack`` chips: the account takes back only what there is."""
    log = copy.deepcopy(SIGNED)
    first = log[0]["id"]
    (stood,) = typed(log, first, "StoodUp")[:1]
    assert log[stood]["data"]["player"] == "player 2"
    log[stood]["data"]["stack"] = stack
    mine = copy.deepcopy(ACCOUNTS)
    (returned,) = [r for r in mine["player 2"] if r["data"].get("table") == first][1:]
    assert returned["type"] == "Returned"
    if stack:
        returned["data"]["amount"] = stack
    else:
        mine["player 2"].remove(returned)
    records = signed(log) + signed([r for a in mine.values() for r in renumbered(a)])
    assert [
        f for f in verify(records, KEY.public_hex, chips=True).failures if f.check == "chips"
    ] == []


def test_a_move_of_no_chips_is_none_in_either_stream() -> None:
    """Player 2 sits down at the first table with nothing and stands up
    with nothing, and the account's buy-in there is of nothing. No server
    writes any of these; forged with the key, none moves a chip, so none
    is compared (a move's sign is its way, which nothing has)."""
    log = copy.deepcopy(SIGNED)
    first = log[0]["id"]
    sat, stood = typed(log, first, "SatDown")[1], typed(log, first, "StoodUp")[0]
    assert log[sat]["data"]["player"] == log[stood]["data"]["player"] == "player 2"
    log[sat]["data"]["buy_in"] = log[stood]["data"]["stack"] = 0
    mine = copy.deepcopy(ACCOUNTS)
    bought, returned = [r for r in mine["player 2"] if r["data"].get("table") == first]
    bought["data"]["amount"] = 0
    mine["player 2"].remove(returned)
    records = signed(log) + signed([r for a in mine.values() for r in renumbered(a)])
    assert verify(records, KEY.public_hex, chips=True).failures == []
