"""``feltline-replay show`` steps through a hand with keys, forward and back,
showing each viewer only what that viewer may see."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from feltline.engine.hand.events import CardDealt, Shown
from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.show import Viewer, frame, load_hand, run, steps
from feltline_replay.verify import STREAMS

from .conftest import Played


@pytest.fixture(scope="module")
def exported(played: Played, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("show") / "hands.log"
    assert main(["export", "--store", str(played.path), "--output", str(path)]) == 0
    return path


def _stud_showdown(path: Path) -> tuple[str, list[log.Record]]:
    """A stud hand that went to a showdown, with a card face down to every seat."""
    with path.open() as file:
        _, lines = log.read(file)
        hands: dict[str, list[log.Record]] = {}
        for r in lines:
            if r["kind"] not in STREAMS:  # a hand's records, not a stream of another kind
                hands.setdefault(r["id"], []).append(r)
    for key, records in hands.items():
        types = [r.get("type") for r in records]
        game = records[0]["data"]["rules"]["game"]
        if game == "stud-hi-lo" and "Shown" in types:
            return key, records
    raise AssertionError("no stud showdown")


def _screen(out: str) -> list[str]:
    return out.split("-" * 40 + "\n")[1:]


def test_each_viewer_sees_only_what_they_may(exported: Path) -> None:
    _key, records = _stud_showdown(exported)
    events = load_hand(records)
    first_down = next(e for e in events if isinstance(e, CardDealt) and not e.face_up)
    seat, card = first_down.seat, str(first_down.card)
    step_of = {n: i for i, group in enumerate(steps(events)) for n in group}
    step = step_of[events.index(first_down)]
    row = re.compile(rf"^seat {seat} .*\[(.*)\]", re.M)

    def cards(viewer: str, at: int) -> str:
        match = row.search(frame(events, at, Viewer.parse(viewer)))
        assert match
        return match.group(1)

    assert card in cards("auditor", step).split()
    assert card in cards(f"seat {seat}", step).split()
    assert card not in cards("spectator", step).split()
    assert "??" in cards("spectator", step).split()
    other = next(s for s in (e.seat for e in events if isinstance(e, CardDealt)) if s != seat)
    assert card not in cards(f"seat {other}", step)
    shown = next((e for e in events if isinstance(e, Shown) and e.seat == seat), None)
    if shown is not None:  # once shown, everyone sees them
        at = step_of[events.index(shown)]
        assert set(map(str, shown.cards)) <= set(cards("spectator", at).split())


def test_keys_step_forward_and_back(exported: Path) -> None:
    _key, records = _stud_showdown(exported)
    events = load_hand(records)
    out = io.StringIO()
    last = run(events, Viewer("auditor"), io.StringIO("nnn\x1b[Cpxq"), out)
    screens = _screen(out.getvalue())
    assert last == 3
    total = len(steps(events))
    assert [s.splitlines()[0].split(", ")[-2] for s in screens] == [
        f"step {n} of {total}" for n in (1, 2, 3, 4, 5, 4)
    ]
    assert screens[3] == screens[5]
    out = io.StringIO()
    assert run(events, Viewer("auditor"), io.StringIO("Gnpg"), out) == 0
    assert f"step {total} of" in _screen(out.getvalue())[1]


def test_a_deal_is_one_step_the_shuffle_none(exported: Path) -> None:
    """A person reads a deal as one step, every seat's cards a line, and
    never an event's raw name."""
    _key, records = _stud_showdown(exported)
    events = load_hand(records)
    dealt = sum(isinstance(e, CardDealt) for e in events)
    deals = sum(
        isinstance(e, CardDealt) and not isinstance(events[n - 1], CardDealt)
        for n, e in enumerate(events)
    )
    total = len(events) - dealt + deals - 1  # each deal one step; the shuffle none
    out = io.StringIO()
    assert run(events, Viewer("spectator"), io.StringIO("n" * len(events)), out) == total - 1
    screens = _screen(out.getvalue())
    assert screens[0].splitlines()[0].endswith(f"step 1 of {total}, as spectator")
    said = [s.splitlines()[1] for s in screens]
    assert not [line for line in said if re.search(r"> [A-Z][a-z]+[A-Z]", line)]
    assert any(line.startswith("> seat ") and " gets " in line for line in said)


def test_show_reads_a_log_or_the_store(
    exported: Path, played: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    key, _ = _stud_showdown(exported)
    screens = []
    for source in ([str(exported)], ["--store", str(played.path)]):
        monkeypatch.setattr("sys.stdin", io.StringIO("G"))
        out = io.StringIO()
        with redirect_stdout(out):
            assert main(["show", key, *source, "--as", "spectator"]) == 0
        screens.append(out.getvalue())
    assert screens[0] == screens[1]
    assert "seed revealed" not in screens[0]
