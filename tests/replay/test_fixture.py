"""The Node verifier's fixture is a log this verifier finds clean, so both
verifiers are held to the same real hands (reshuffled stubs included)."""

from __future__ import annotations

from pathlib import Path

from feltline_replay import log
from feltline_replay.verify import verify

FIXTURE = Path(__file__).resolve().parents[2] / "clients/node/test/fixtures/hands.log"


def test_the_node_fixture_verifies_here_too() -> None:
    with FIXTURE.open() as file:
        head, lines = log.read(file)
        report = verify(lines, head["public_key"], complete=head["complete"])
    assert report.failures == []
    assert report.hands == 14
    assert "StubReshuffled" in FIXTURE.read_text()
