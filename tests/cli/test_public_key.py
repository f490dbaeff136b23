from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from feltline.audit.keys import Signer
from feltline.cli import main


def test_public_key_exports_the_key_that_seals_hands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = tmp_path / "server.key"
    Signer.create(key_file)
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key_file))
    assert main(["public-key"]) == 0
    exported = load_pem_public_key(capsys.readouterr().out.encode())
    assert isinstance(exported, Ed25519PublicKey)
    signer = Signer.load(key_file)
    assert exported.public_bytes_raw() == signer.public_key.public_bytes_raw()
    link = bytes(range(32))
    exported.verify(signer.sign(link), link)  # raises if the keys differ
