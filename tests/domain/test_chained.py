"""One stored record's link and signature, checked alone: a failure names
the stream and the record, and the upcasts give records stored before
chaining or signing no link and no signature."""

from __future__ import annotations

import re
from dataclasses import dataclass
from uuid import uuid4

import pytest

from feltline.audit import chain
from feltline.audit.keys import Signer
from feltline.domain.chained import Signed, TamperedError, follow

STREAM = uuid4()
DATA = {"chips": 5}


@dataclass(frozen=True)
class Record(Signed):
    pass


def _link(previous: bytes) -> bytes:
    return chain.link(
        previous, kind="hand", stream=str(STREAM), position=3, name="Bet", version=1, data=DATA
    )


def _follow(record: Record, link: str) -> bytes:
    return follow(
        chain.GENESIS,
        record,
        link,
        kind="hand",
        stream=STREAM,
        position=3,
        name="Bet",
        version=1,
        data=DATA,
    )


def test_a_record_follows_its_link_signed_or_not() -> None:
    link = _link(chain.GENESIS)
    signer = Signer.generate()
    signed = Record(signature=signer.sign(link).hex(), signed_by=signer.public_hex)
    for record in (Record(), signed):
        assert _follow(record, link.hex()) == link


def test_a_link_or_a_signature_that_does_not_hold_names_the_record() -> None:
    link = _link(chain.GENESIS)
    with pytest.raises(
        TamperedError, match=f"^hand {STREAM}: event 3 does not match its chain link$"
    ):
        _follow(Record(), _link(link).hex())
    signer, other = Signer.generate(), Signer.generate()
    forged = Record(signature=other.sign(link).hex(), signed_by=signer.public_hex)
    said = f"hand {STREAM}: the signature of event 3 does not verify"
    with pytest.raises(TamperedError, match=f"^{re.escape(said)}$"):
        _follow(forged, link.hex())


def test_records_stored_before_signing_or_chaining_upcast_to_none() -> None:
    old = {"chips": 5}
    Signed.unsigned(old)
    assert old == {"chips": 5, "signature": "", "signed_by": ""}
    signed = {"signature": "ab", "signed_by": "cd"}
    Signed.unsigned(signed)
    assert signed == {"signature": "ab", "signed_by": "cd"}
    older = {"chips": 5, "link": "ff"}
    Signed.unchained(older)
    assert older == {"chips": 5, "link": "", "signature": "", "signed_by": ""}
