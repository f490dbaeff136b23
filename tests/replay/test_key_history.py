"""The verifier's checks of the server's keys stream (docs/audit.md, The
server's keys), each shown to fire on its own, and what each says.

The stream is written here as the store writes it: chained from 32 zero
bytes under the kind ``server``, each record signed by the key the rotation
rules name. The fixture log (tests/replay/test_checks.py) is signed again
by whichever key a test needs, so only the key history decides whether its
signatures are trusted.
"""

from __future__ import annotations

import copy
from typing import Any
from uuid import UUID

import pytest

from feltline.audit import chain
from feltline.audit.keys import Signer
from feltline_replay.export import KEYS, hand_id
from feltline_replay.verify import Report, trusted_keys, verify

from .test_checks import KEY, OTHER, SIGNED, Record, alone, signed

NEW = Signer.generate()
NEWER = Signer.generate()
Entry = tuple[str, dict[str, Any], Signer | None]


def adopted(key: Signer, replaces: Signer | None, by: Signer | None) -> Entry:
    data = {"public_key": key.public_hex, "replaces": replaces.public_hex if replaces else ""}
    return "KeyAdopted", {**data, "reason": "rotated"}, by


def accepted(key: Signer) -> Entry:
    return "KeyAccepted", {"public_key": key.public_hex}, key


def revoked(key: Signer, since: int, by: Signer | None) -> Entry:
    return "KeyRevoked", {"public_key": key.public_hex, "since": since, "reason": "lost"}, by


def history(*entries: Entry) -> list[Record]:
    """The keys stream of ``entries``, each signed by its key (or not)."""
    records: list[Record] = []
    link = chain.GENESIS
    for position, (name, data, by) in enumerate(copy.deepcopy(entries), 1):
        link = chain.link(
            link,
            kind="server",
            stream=str(KEYS),
            position=position,
            name=name,
            version=1,
            data=data,
        )
        records.append(
            {
                "kind": "server",
                "id": str(KEYS),
                "position": position,
                "notification": position,
                "type": name,
                "version": 1,
                "data": data,
                "link": link.hex(),
                "signature": by.sign(link).hex() if by else "",
                "signed_by": by.public_hex if by else "",
            }
        )
    return records


ROTATED = (adopted(KEY, None, KEY), adopted(NEW, KEY, KEY), accepted(NEW))
"""KEY, then a rotation to NEW: the adoption signed by KEY, accepted by NEW."""


def table(signer: Signer) -> list[Record]:
    """The fixture's first table and its hands, signed by ``signer``."""
    return signed(alone(copy.deepcopy(SIGNED), SIGNED[0]["id"]), signer)


def checked(records: list[Record], trusted: str | None = KEY.public_hex) -> Report:
    return verify(records, trusted)


def said(report: Report) -> list[tuple[str, str, int | None, str, str]]:
    return [(f.check, f.kind, f.position, f.expected, f.found) for f in report.failures]


def signed_at(records: list[Record]) -> list[tuple[str, str, int]]:
    """Every signature outside the keys stream: its kind, stream and position
    (a seal's under its hand)."""
    return [
        ("hand" if r["kind"] == "seal" else r["kind"], r["id"], r["position"])
        for r in records
        if r["kind"] != "server" and r.get("signature")
    ]


def test_a_rotation_signed_by_the_old_key_brings_in_the_new_one() -> None:
    logged = table(NEW)
    assert checked(logged).failures != []  # NEW alone is no key of the server's
    report = checked(history(*ROTATED) + logged)
    assert said(report) == []
    assert report.tables == 1
    assert report.as_json()["signatures_verified"] == 3 + checked(table(KEY)).verified
    assert report.warnings == []


def test_a_history_trusted_from_its_newest_key_trusts_every_key_before_it() -> None:
    """NEW's KeyAccepted covers every link before it, KEY's adoption too."""
    report = checked(history(*ROTATED) + table(KEY), NEW.public_hex)
    assert said(report) == []


def test_a_key_the_history_never_adopted_is_named_against_the_trusted_key() -> None:
    logged = table(OTHER)
    report = checked(history(*ROTATED) + logged)
    expected = f"signed by a key the store's key history trusts from {KEY.public_hex}"
    assert said(report) == [
        ("key", kind, at, expected, OTHER.public_hex) for kind, _, at in (signed_at(logged))
    ]


def test_an_adoption_only_its_own_key_signed_is_not_trusted_from_the_old_key() -> None:
    """``--new-key``: nothing KEY signed introduces OTHER."""
    keys = history(adopted(KEY, None, KEY), adopted(OTHER, KEY, OTHER))
    report = checked(keys + table(OTHER))
    assert {f.check for f in report.failures} == {"key"}
    assert {f.found for f in report.failures} == {OTHER.public_hex}
    assert said(checked(keys + table(OTHER), OTHER.public_hex)) == []
    assert trusted_keys([(1, "KeyAdopted", KEY.public_hex, KEY.public_hex, 0)], KEY.public_hex) == (
        frozenset({KEY.public_hex}),
        {},
    )


def test_a_rotation_chain_is_followed_key_by_key() -> None:
    """KEY to NEW to NEWER: NEWER is trusted from KEY through NEW's
    signature, and NEW's through KEY's."""
    keys = history(*ROTATED, adopted(NEWER, NEW, NEW), accepted(NEWER))
    assert said(checked(keys + table(NEWER))) == []
    assert said(checked(keys + table(NEW), NEWER.public_hex)) == []


def test_an_adoption_signed_later_by_a_trusted_key_is_covered_by_that_signature() -> None:
    """A record left unsigned is vouched for by the next signature after it."""
    keys = history(adopted(KEY, None, KEY), adopted(NEW, KEY, None), accepted(KEY))
    assert said(checked(keys + table(NEW))) == []
    assert trusted_keys(
        [
            (1, "KeyAdopted", KEY.public_hex, KEY.public_hex, 0),
            (2, "KeyAdopted", NEW.public_hex, KEY.public_hex, 0),
        ],
        KEY.public_hex,
    )[0] == {KEY.public_hex, NEW.public_hex}


def test_without_a_public_key_the_history_s_first_key_is_trusted_with_a_warning() -> None:
    report = checked(history(*ROTATED) + table(NEW), None)
    assert said(report) == []
    assert report.warnings == [
        f"no public key given: trusting {KEY.public_hex}, the first key of the store's key "
        "history. This shows only that the records agree with one another, not that the key "
        "is your server's: give --public-key to know."
    ]
    report = checked(history(*ROTATED) + table(OTHER), None)
    assert {f.found for f in report.failures} == {OTHER.public_hex}


def test_an_empty_key_history_leaves_the_first_signer_trusted() -> None:
    """A keys stream whose records all fail as records adds no key."""
    keys = history(*ROTATED)
    for record in keys:
        del record["data"]["public_key"]
    report = checked(keys + table(NEW), None)
    assert said(report) == [
        ("record", "server", at, "a key record", "'public_key'") for at in (1, 2, 3)
    ]
    (warning,) = report.warnings
    assert warning.startswith(f"no public key given: trusting {NEW.public_hex}, the key that ")


# -- the keys stream's own records ----------------------------------------


def test_record_a_key_record_without_its_key_fails_and_is_left_out() -> None:
    keys = history(*ROTATED)
    del keys[1]["data"]["public_key"]
    report = checked(keys + table(NEW))
    assert said(report)[0] == ("record", "server", 2, "a key record", "'public_key'")
    assert [f.check for f in report.failures if f.kind == "server"] == [
        "record",
        "chain",  # the next record chained from the one before the missing key's
        "signature",
    ]
    assert {f.check for f in report.failures if f.kind != "server"} == {"key"}


def test_chain_a_key_record_whose_data_changed() -> None:
    keys = history(*ROTATED)
    keys[1]["data"]["reason"] = "forged"
    true = chain.link(
        bytes.fromhex(keys[0]["link"]),
        kind="server",
        stream=str(KEYS),
        position=2,
        name="KeyAdopted",
        version=1,
        data=keys[1]["data"],
    )
    assert said(checked(keys + table(KEY))) == [
        ("chain", "server", 2, true.hex(), keys[1]["link"]),
        ("signature", "server", 2, "a valid signature", keys[1]["signature"]),
    ]


def test_order_a_key_record_out_of_its_place() -> None:
    keys = history(*ROTATED)
    keys[2]["position"] = 7
    assert said(checked(keys + table(KEY)))[0] == ("order", "server", 3, "3", "7")


def test_signature_a_key_record_signed_over_other_bytes_vouches_for_nothing() -> None:
    keys = history(*ROTATED)
    keys[1]["signature"] = KEY.sign(b"something else").hex()
    keys[2]["signature"] = keys[2]["signed_by"] = ""
    report = checked(keys + table(NEW))
    assert said(report)[:2] == [
        ("signature", "server", 2, "a valid signature", keys[1]["signature"]),
        ("signature", "server", 3, "the last record signed", "unsigned"),
    ]
    assert {f.check for f in report.failures[2:]} == {"key"}


def test_record_a_damaged_key_record_fails_alone() -> None:
    keys = history(*ROTATED)
    keys[0] = {"kind": "server", "id": str(KEYS), "position": 1, "damaged": "bad bytes"}
    report = checked(keys + table(KEY))
    assert said(report)[0] == (
        "record",
        "server",
        1,
        "a stored record the store can read",
        "bad bytes",
    )


def test_every_signature_of_the_keys_stream_is_verified() -> None:
    keys = history(*ROTATED)
    report = checked(keys)
    assert (report.ok, report.verified, report.formed) == (True, 3, 0)


# -- revocation -------------------------------------------------------------


def numbered(records: list[Record], first: int) -> list[Record]:
    """Each record's place in the store's whole log, from ``first`` on."""
    return [{**r, "notification": first + n} for n, r in enumerate(records)]


def test_a_revoked_key_fails_what_it_signed_from_its_revocation_on() -> None:
    logged = numbered(table(NEW), 10)
    since = logged[len(logged) // 2]["notification"]
    keys = history(*ROTATED, adopted(NEWER, NEW, NEW), accepted(NEWER), revoked(NEW, since, NEWER))
    report = checked(keys + logged)
    expected = f"signed by key {NEW.public_hex} before notification {since}, its revocation"
    late = [r for r in logged if r["notification"] >= since]
    assert said(report) == [
        ("revoked", kind, at, expected, f"notification {n}")
        for (kind, _, at), n in zip(
            signed_at(late), [r["notification"] for r in late if r.get("signature")], strict=True
        )
    ]
    assert said(report) != []


@pytest.mark.parametrize("notification", [None, "7"])
def test_a_revoked_key_s_record_without_a_notification_fails(notification: str | None) -> None:
    """A notification missing, or one that is no number, is none."""
    logged = table(NEW)
    for record in logged:
        record.pop("notification", None)
        if notification is not None:
            record["notification"] = notification
    keys = history(*ROTATED, revoked(NEW, 5, KEY))
    expected = f"signed by key {NEW.public_hex} before notification 5, its revocation"
    assert {(f.check, f.expected, f.found) for f in checked(keys + logged).failures} == {
        ("revoked", expected, "no notification")
    }


@pytest.mark.parametrize("sinces", [(10_000, 100), (100, 10_000)])
def test_a_key_revoked_twice_is_revoked_from_the_earlier_notification(
    sinces: tuple[int, int],
) -> None:
    logged = numbered(table(NEW), 100)
    keys = history(*ROTATED, *(revoked(NEW, since, KEY) for since in sinces))
    report = checked(keys + logged)
    assert {f.check for f in report.failures} == {"revoked"}
    assert len(report.failures) == len(signed_at(logged))
    assert report.failures[0].expected.endswith("before notification 100, its revocation")


def test_a_revocation_no_trusted_key_signed_revokes_nothing() -> None:
    logged = numbered(table(NEW), 100)
    keys = history(*ROTATED, revoked(NEW, 1, OTHER))
    assert said(checked(keys + logged)) == []


def test_a_revoked_key_cannot_bring_in_a_key_after_its_revocation() -> None:
    keys = history(*ROTATED, revoked(NEW, 1_000_000, KEY), adopted(NEWER, NEW, NEW))
    report = checked(keys + table(NEWER))
    assert report.failures != []
    assert {f.check for f in report.failures} == {"key"}
    assert {f.found for f in report.failures} == {NEWER.public_hex}


def test_a_revoked_key_signs_what_came_before_its_revocation() -> None:
    logged = numbered(table(NEW), 100)
    keys = history(*ROTATED, revoked(NEW, 100 + len(logged), KEY))
    assert said(checked(keys + logged)) == []


def test_a_seal_by_a_revoked_key_fails_at_its_notification() -> None:
    logged = numbered(table(NEW), 1)
    seal = logged[-1]
    assert seal["kind"] == "seal"
    hand = seal["id"]
    keys = history(*ROTATED, revoked(NEW, seal["notification"], KEY))
    (failure,) = checked(keys + logged).failures
    assert (failure.check, failure.kind, failure.id, failure.position, failure.found) == (
        "revoked",
        "hand",
        hand,
        seal["position"],
        f"notification {seal['notification']}",
    )
    dealt = [r for r in logged if r.get("type") == "HandDealt"]
    number = max(
        r["data"]["hand"] for r in dealt if str(hand_id(UUID(r["id"]), r["data"]["hand"])) == hand
    )
    assert str(failure).startswith(f"hand {number} of table {logged[0]['id']} ({hand}) at ")


@pytest.mark.parametrize("kind", ["KeyAdopted", "KeyRevoked"])
def test_trusted_keys_reads_each_kind_of_record_by_its_name(kind: str) -> None:
    entries = [(1, "KeyAdopted", KEY.public_hex, KEY.public_hex, 0)]
    entries.append((2, kind, NEW.public_hex, KEY.public_hex, 7))
    keyring, revoked_from = trusted_keys(entries, KEY.public_hex)
    if kind == "KeyAdopted":
        assert (keyring, revoked_from) == (frozenset({KEY.public_hex, NEW.public_hex}), {})
    else:
        assert (keyring, revoked_from) == (frozenset({KEY.public_hex}), {NEW.public_hex: 7})


def test_a_first_adoption_no_trusted_key_signed_brings_in_nothing() -> None:
    """A history that begins with another key adopting itself: nothing the
    trusted key signed covers it."""
    keys = history(adopted(OTHER, None, OTHER), adopted(NEW, OTHER, OTHER))
    report = checked(keys + table(OTHER))
    assert {(f.check, f.found) for f in report.failures} == {("key", OTHER.public_hex)}


def test_the_trusted_key_stays_trusted_though_the_history_never_adopted_it() -> None:
    """A history begun by a key that signed the store before its keys were
    recorded, adopting the next: both are trusted from the first, and a
    revocation the first signed holds."""
    entries = [
        (1, "KeyAdopted", NEW.public_hex, KEY.public_hex, 0),
        (2, "KeyRevoked", OTHER.public_hex, KEY.public_hex, 5),
    ]
    assert trusted_keys(entries, KEY.public_hex) == (
        frozenset({KEY.public_hex, NEW.public_hex}),
        {OTHER.public_hex: 5},
    )


def test_without_a_public_key_the_first_key_adopted_is_trusted_whoever_vouched_for_it() -> None:
    """The first record left unsigned and covered by the next key's
    signature: the key trusted is the one adopted first, not its voucher."""
    report = checked(history(adopted(KEY, None, None), adopted(NEW, KEY, NEW)), None)
    assert report.warnings[0].startswith(f"no public key given: trusting {KEY.public_hex}, ")


def test_order_is_checked_past_a_damaged_key_record() -> None:
    keys = history(*ROTATED)
    keys[0] = {"kind": "server", "id": str(KEYS), "position": 1, "damaged": "bad bytes"}
    keys[2]["position"] = 9
    found = said(checked(keys + table(KEY)))
    assert found[0] == ("record", "server", 1, "a stored record the store can read", "bad bytes")
    assert ("order", "server", 3, "3", "9") in found


def test_a_revocation_without_a_notification_revokes_from_notification_0() -> None:
    logged = numbered(table(NEW), 1)
    name, data, by = revoked(NEW, 0, KEY)
    del data["since"]
    report = checked(history(*ROTATED, (name, data, by)) + logged)
    assert {f.expected for f in report.failures} == {
        f"signed by key {NEW.public_hex} before notification 0, its revocation"
    }
