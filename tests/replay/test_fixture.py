"""The Node verifier's fixtures are logs this verifier finds clean, so both
verifiers are held to the same real hands (reshuffled stubs included): one
written by tests/replay/make_fixture.py, one an older server wrote with
its deals' fields flat (``HandStarted`` version 2, ``HandDealt`` version 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from feltline_replay import log
from feltline_replay.verify import verify

FIXTURES = Path(__file__).resolve().parents[2] / "clients/node/test/fixtures"


@pytest.mark.parametrize(
    ("name", "versions"),
    [
        ("hands.log", ('"HandStarted","version":3', '"HandDealt","version":2')),
        ("hands-flat-deal.log", ('"HandStarted","version":2', '"HandDealt","version":1')),
    ],
)
def test_the_node_fixtures_verify_here_too(name: str, versions: tuple[str, ...]) -> None:
    fixture = FIXTURES / name
    with fixture.open() as file:
        head, lines = log.read(file)
        report = verify(lines, head["public_key"], complete=head["complete"])
    assert report.failures == []
    assert report.hands == head["selection"]["exported_hands"]
    text = fixture.read_text()
    assert "StubReshuffled" in text
    assert all(f'"type":{v}' in text for v in versions)
