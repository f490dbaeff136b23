import hashlib
import logging
from pathlib import Path
from types import MappingProxyType

import pytest

from feltline.audit.chain import GENESIS, link
from feltline.audit.codec import canonical
from feltline.audit.keys import KeyFileError, Signer, verify


def test_the_key_is_made_once_logged_and_then_reused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "feltline.key"
    with pytest.raises(KeyFileError) as refused:
        Signer.load(path)  # reading a key never makes one
    assert str(refused.value) == (
        f"there is no key file at {path}: run `feltline serve` with the same "
        "FELTLINE_KEY_FILE first, or point FELTLINE_KEY_FILE at the server's key"
    )
    assert not path.exists()
    with caplog.at_level(logging.WARNING):
        made = Signer.create(path)
    assert caplog.messages == [
        f"generated a new Ed25519 signing key at {path} (public key {made.public_hex})"
    ]
    assert path.stat().st_mode & 0o777 == 0o600
    assert Signer.load(path).public_hex == made.public_hex
    with pytest.raises(FileExistsError):
        Signer.create(path)
    assert made.public_pem.startswith("-----BEGIN PUBLIC KEY-----")


def test_a_file_without_an_ed25519_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "feltline.key"
    path.write_text("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n")
    with pytest.raises(KeyFileError) as refused:
        Signer.load(path)
    assert str(refused.value) == f"{path} does not hold an Ed25519 private key"


def test_a_signature_verifies_only_for_its_digest_and_key() -> None:
    signer = Signer.generate()
    digest = link(
        GENESIS, kind="hand", stream="h", position=1, name="Acted", version=1, data={"seat": 1}
    )
    signature = signer.sign(digest).hex()
    assert verify(signer.public_hex, digest, signature)
    assert not verify(signer.public_hex, GENESIS, signature)
    assert not verify(Signer.generate().public_hex, digest, signature)
    assert not verify(signer.public_hex, digest, "zz")


def test_every_field_of_a_record_changes_its_link() -> None:
    base = {
        "kind": "hand",
        "stream": "h",
        "position": 1,
        "name": "Acted",
        "version": 1,
        "data": {"seat": 1},
    }
    first = link(GENESIS, **base)  # type: ignore[arg-type]
    for key, value in [
        ("kind", "table"),
        ("stream", "g"),
        ("position", 2),
        ("name", "Posted"),
        ("version", 2),
        ("data", {"seat": 2}),
        ("at", 1_700_000_000),
    ]:
        assert link(GENESIS, **{**base, key: value}) != first  # type: ignore[arg-type]
    assert link(bytes(31) + b"\x01", **base) != first  # type: ignore[arg-type]
    timed = link(GENESIS, **base, at=1_700_000_000)  # type: ignore[arg-type]
    assert link(GENESIS, **base, at=1_700_000_001) != timed  # type: ignore[arg-type]


def test_a_link_hashes_the_canonical_record_of_docs_audit() -> None:
    data = {"seat": 1, "player": "Zoë \u2028", "cards": ["As", "Kd"], "all_in": False}
    record = {"hand": "h-é", "position": 12, "type": "Acted", "version": 3, "data": data}
    expected = hashlib.sha256(GENESIS + canonical(record)).digest()
    assert (
        link(GENESIS, kind="hand", stream="h-é", position=12, name="Acted", version=3, data=data)
        == expected
    )


@pytest.mark.parametrize("kind", ["hand", "table", "account"])
def test_each_kind_of_stream_names_its_id_under_its_kind(kind: str) -> None:
    data = {"amount": 5, "by": "admin"}
    record = {kind: "s-1", "position": 2, "type": "Minted", "version": 1, "data": data}
    expected = hashlib.sha256(GENESIS + canonical(record)).digest()
    got = link(GENESIS, kind=kind, stream="s-1", position=2, name="Minted", version=1, data=data)
    assert got == expected


def test_a_timed_record_hashes_its_time_under_at() -> None:
    data = {"seat": 1}
    record = {"hand": "h", "position": 3, "type": "Acted", "version": 1, "data": data, "at": 99}
    expected = hashlib.sha256(GENESIS + canonical(record)).digest()
    got = link(
        GENESIS, kind="hand", stream="h", position=3, name="Acted", version=1, data=data, at=99
    )
    assert got == expected


def test_data_read_as_any_mapping_links_as_a_dict_does() -> None:
    data = {"seat": 1, "cards": ["As"]}
    same = {"kind": "hand", "stream": "h", "position": 1, "name": "Shown", "version": 1}
    read = link(GENESIS, **same, data=MappingProxyType(data))  # type: ignore[arg-type]
    assert read == link(GENESIS, **same, data=data)  # type: ignore[arg-type]


def test_a_stream_of_no_known_kind_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"^no kind of stream 'pit'$"):
        link(GENESIS, kind="pit", stream="p", position=1, name="Acted", version=1, data={})
