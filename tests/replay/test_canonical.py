"""The verifier's fast canonical form is the codec's, byte for byte, for
every record of a real store and for the values orjson writes otherwise."""

from __future__ import annotations

import json

import pytest

from feltline.audit import chain
from feltline.audit.codec import JSON, canonical
from feltline_replay import log
from feltline_replay.canonical import canonical as fast
from feltline_replay.export import Selection, export
from feltline_replay.store import open_rows

from .conftest import Played


@pytest.mark.parametrize(
    "value",
    [
        {"b": 1, "a": [True, False, None], "B": {"z": "", "y": -3}},
        {"name": "Zoë", "city": "Łódź"},
        {"quote": 'a "b" \\ c', "tab": "\t", "nul": "\x00", "us": "\x1f"},
        {"del": "\x7f", "line": "\u2028", "emoji": "\U0001f0a1"},
        {"é": 1, "e": 2},
        {"big": 2**64, "bigger": -(2**70), "edge": 2**63 - 1, "low": -(2**63)},
        [[], {}, "", 0, -0],
    ],
)
def test_the_fast_form_is_the_codec_s(value: JSON) -> None:
    assert fast(value) == canonical(value)


def test_every_record_of_a_store_chains_alike_both_ways(played: Played) -> None:
    rows = open_rows(str(played.path))
    try:
        records = [r for r in export(rows, Selection()) if r.get("kind") in ("table", "hand")]
    finally:
        rows.close()
    assert len(records) > 10_000
    for record in records:
        # As the verifier reads it: a log line parsed by orjson.
        again = log.parse(json.dumps(record))
        args = {
            "kind": again["kind"],
            "stream": again["id"],
            "position": again["position"],
            "name": again["type"],
            "version": again["version"],
            "data": again["data"],
        }
        link = chain.link(chain.GENESIS, **args, encode=fast)
        assert link == chain.link(chain.GENESIS, **args)
