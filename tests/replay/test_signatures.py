"""Which signatures ``verify`` verifies: by default each stream's last (a
hand's seal, a table's last record), which the chain makes cover every
record before it; with ``--all-signatures`` every one. Either way every
signature must be well formed and by the trusted key (docs/replay.md)."""

from __future__ import annotations

import re
from pathlib import Path
from uuid import UUID

import pytest

from feltline.audit.keys import Signer

from .conftest import Played
from .test_tamper import State, find, put, rows, run, table_of, tables


def _intermediate(db: Path) -> tuple[UUID, list[tuple[str, State]], int]:
    """A hand with a signed record before its last: its id, its records and
    that record's index."""
    hand, recs = find(db, lambda s: any(x.get("signature") for x in s[:-2]))
    return hand, recs, next(i for i, (t, s) in enumerate(recs[:-2]) if s.get("signature"))


def _verify(
    played: Played, db: Path, hand: UUID, *more: str
) -> tuple[int, list[dict[str, object]]]:
    table, key = table_of(played.path, hand), played.signer.public_hex
    code, report = run("--store", str(db), "--table", str(table), "--public-key", key, *more)
    return code, report["failures"]


def test_a_forged_intermediate_signature_is_caught_only_with_all_signatures(
    played: Played, store_copy: Path
) -> None:
    """Well formed and naming the right key, but not a signature of its
    link: the records are still the server's (the seal covers them), so
    the default passes it; --all-signatures finds it."""
    hand, recs, i = _intermediate(store_copy)
    recs[i][1]["signature"] = Signer.generate().sign(b"something else").hex()
    put(store_copy, hand, recs)
    assert _verify(played, store_copy, hand) == (0, [])
    code, failures = _verify(played, store_copy, hand, "--all-signatures")
    assert code == 1
    assert [(f["check"], f["id"], f["position"]) for f in failures] == [
        ("signature", str(hand), i + 1)
    ]


def test_an_intermediate_signature_by_another_key_is_caught_by_default(
    played: Played, store_copy: Path
) -> None:
    hand, recs, i = _intermediate(store_copy)
    other = Signer.generate()
    recs[i][1]["signature"] = other.sign(bytes.fromhex(recs[i][1]["link"])).hex()
    recs[i][1]["signed_by"] = other.public_hex
    put(store_copy, hand, recs)
    for more in ((), ("--all-signatures",)):
        code, failures = _verify(played, store_copy, hand, *more)
        assert code == 1
        assert [(f["check"], f["id"], f["position"], f["found"]) for f in failures] == [
            ("key", str(hand), i + 1, other.public_hex)
        ]


def test_a_malformed_intermediate_signature_is_caught_by_default(
    played: Played, store_copy: Path
) -> None:
    hand, recs, i = _intermediate(store_copy)
    recs[i][1]["signature"] = recs[i][1]["signature"][:-2]
    put(store_copy, hand, recs)
    code, failures = _verify(played, store_copy, hand)
    assert code == 1
    assert [(f["check"], f["id"], f["position"]) for f in failures] == [
        ("signature", str(hand), i + 1)
    ]


def test_without_its_seal_a_hand_s_last_signature_is_verified(
    played: Played, store_copy: Path
) -> None:
    """The seal gone, the last signed record holds the final signature."""
    hand, recs = find(store_copy, lambda s: True)
    body = recs[:-1]
    last = max(i for i, (_, s) in enumerate(body) if s.get("signature"))
    body[last][1]["signature"] = Signer.generate().sign(b"something else").hex()
    put(store_copy, hand, body)
    code, failures = _verify(played, store_copy, hand)
    assert code == 1
    assert [(f["check"], f["position"]) for f in failures] == [
        ("signature", last + 1),
        ("seal", len(body)),
    ]


def test_a_table_s_last_signature_is_verified(played: Played, store_copy: Path) -> None:
    table = tables(store_copy)[0]
    recs = [(t, s) for _, t, s in rows(store_copy, table)]
    recs[-1][1]["signature"] = Signer.generate().sign(b"something else").hex()
    put(store_copy, table, recs)
    key = played.signer.public_hex
    code, report = run("--store", str(store_copy), "--table", str(table), "--public-key", key)
    assert code == 1
    assert [(f["check"], f["kind"], f["position"]) for f in report["failures"]] == [
        ("signature", "table", len(recs))
    ]


def test_the_report_says_how_many_signatures_were_verified_and_how_many_only_read(
    played: Played, store_copy: Path
) -> None:
    """So that nobody reads "ok" as more than it is: by default the earlier
    signatures are only checked for form; with --all-signatures none is."""
    key = played.signer.public_hex
    code, default = run("--store", str(store_copy), "--public-key", key)
    assert code == 0
    assert default["signatures_verified"] > 0
    assert default["signatures_checked_for_form"] > 0
    code, every = run("--store", str(store_copy), "--public-key", key, "--all-signatures")
    assert code == 0
    assert every["signatures_checked_for_form"] == 0
    assert every["signatures_verified"] == (
        default["signatures_verified"] + default["signatures_checked_for_form"]
    )


def test_the_report_line_names_both_counts(
    played: Played, store_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from feltline_replay.cli import main

    key = played.signer.public_hex
    assert main(["verify", "--store", str(store_copy), "--public-key", key]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(
        r"[1-9]\d* signatures verified, [1-9]\d* checked for form only; \d+ tables, \d+ hands: ok",
        line,
    ), line
