"""``feltline-replay convert``: the files it writes for each format, the
hands it leaves out and why, and that no face-down card reaches a viewer
who may not see it."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from feltline.engine.hand.events import CardDealt, Drew, Event, HandStarted, Shown
from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.histories import FORMATS, LoggedHand, logged_hands

from .conftest import Played

CARD = r"(?:[2-9TJQKA][cdhs]|Jk)"


@pytest.fixture(scope="module")
def exported(played: Played, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("convert") / "hands.log"
    with redirect_stderr(io.StringIO()):
        assert main(["export", "--store", str(played.path), "--output", str(path)]) == 0
    return path


def hands_of(path: Path) -> Iterator[LoggedHand]:
    with path.open(encoding="utf-8") as file:
        _, records = log.read(file)
        yield from logged_hands(records)


def convert(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main(["convert", *args])
    return code, err.getvalue()


def test_hands_come_one_at_a_time_as_the_log_is_read(exported: Path) -> None:
    """The first hand is out before the log's end is read: nothing waits
    for the whole log, so memory does not grow with it."""
    read = 0

    def records() -> Iterator[log.Record]:
        nonlocal read
        with exported.open(encoding="utf-8") as file:
            _, lines = log.read(file)
            for record in lines:
                read += 1
                yield record

    hands = logged_hands(records())
    first = next(hands)
    assert first.events[0].__class__.__name__ == "HandStarted"
    at_first = read
    second = next(hands)
    assert second.id != first.id
    with exported.open(encoding="utf-8") as file:
        total = sum(1 for _ in log.read(file)[1])
    assert at_first < total // 10
    assert read > at_first


def test_the_registry_offers_the_three_formats() -> None:
    assert {"phh", "ohh", "pokerstars"} <= set(FORMATS)
    for name, form in FORMATS.items():
        assert form.name == name
        assert form.suffix.startswith(".")


def test_a_set_format_writes_one_file_of_every_hand(exported: Path, tmp_path: Path) -> None:
    total = sum(1 for _ in hands_of(exported))
    code, said = convert(str(exported), "--to", "ohh", "--output", str(tmp_path))
    assert code == 0
    assert f"converted {total} hands to ohh in 1 file" in said
    text = (tmp_path / "hands.ohh").read_text()
    objects = [json.loads(part) for part in text.split("\n\n") if part.strip()]
    assert len(objects) == total
    assert [o["ohh"]["game_number"] for o in objects] == [h.id for h in hands_of(exported)]


def test_each_writes_a_file_per_hand_named_by_its_id(exported: Path, tmp_path: Path) -> None:
    code, _ = convert(str(exported), "--to", "pokerstars", "--output", str(tmp_path), "--each")
    assert code == 0
    ids = [h.id for h in hands_of(exported)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{i}.txt" for i in ids)
    one = (tmp_path / f"{ids[0]}.txt").read_text()
    assert one.startswith("PokerStars Hand #")
    assert one.count("PokerStars Hand #") == 1


def test_phh_writes_every_game_and_names_what_it_leaves_out(exported: Path, tmp_path: Path) -> None:
    hands = list(hands_of(exported))
    left_out = {h.id: FORMATS["phh"].refuses(h) for h in hands if FORMATS["phh"].refuses(h)}
    code, said = convert(str(exported), "--to", "phh", "--output", str(tmp_path))
    assert code == (1 if left_out else 0)
    for hand_id, reason in left_out.items():
        assert f"hand {hand_id} left out: {reason}" in said
    assert "PHH has no variant code" not in said
    written = (tmp_path / "hands.phhs").read_text()
    assert written.count('variant = "') == len(hands) - len(left_out)
    for variant in ("NT", "F7S/8", "F5D/D", "F5DJ"):
        assert f'variant = "{variant}"' in written


def test_an_unknown_format_is_refused(exported: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_:
        convert(str(exported), "--to", "xml", "--output", str(tmp_path))
    assert exit_.value.code == 2
    assert not any(tmp_path.iterdir())


def visible(events: tuple[Event, ...], seat: int | None) -> set[str]:
    """Every card the viewer may see: face-up cards and those shown, and a
    seat's own (its discards too); reading the events whole."""
    cards: set[str] = set()
    for event in events:
        match event:
            case CardDealt(seat=to, card=card, face_up=up) if card is not None:
                if up or to == seat:
                    cards.add(str(card))
            case Drew(seat=to, discards=discards) if to == seat and discards:
                cards |= {str(c) for c in discards}
            case Shown(cards=shown, set_aside=aside):
                cards |= {str(c) for c in shown + aside}
            case _ if hasattr(event, "cards") and not isinstance(event, HandStarted):
                if type(event).__name__ == "BoardDealt":
                    cards |= {str(c) for c in event.cards}  # type: ignore[attr-defined]
    return cards


def cards_in(name: str, text: str) -> set[str]:
    """The cards a file names, read the way its format writes them."""
    if name == "ohh":
        found: set[str] = set()
        ohh = json.loads(text)["ohh"]
        for round_ in ohh["rounds"]:
            found |= set(round_.get("cards", []))
            for action in round_["actions"]:
                found |= set(action.get("cards", []))
                found |= set(action.get("feltline_set_aside", []))
        return found
    if name == "phh":
        actions = re.findall(r'^  "(.*)",$', text, flags=re.MULTILINE)
        dealt = [a.split()[-1] for a in actions if " dh " in a or " db " in a or " sm " in a]
        return {c for cards in dealt for c in re.findall(CARD, cards)}
    brackets = re.findall(r"\[([^\]]*)\]", text)
    return {c for inside in brackets for c in re.findall(CARD, inside)}


@pytest.mark.parametrize("name", ["phh", "ohh", "pokerstars"])
@pytest.mark.parametrize("viewer", ["spectator", "seat 1", "auditor"])
def test_a_viewer_sees_only_the_cards_they_may(
    exported: Path, tmp_path: Path, name: str, viewer: str
) -> None:
    out = str(tmp_path)
    code, _ = convert(str(exported), "--to", name, "--output", out, "--each", "--as", viewer)
    assert code in (0, 1)
    seat = int(viewer.split()[1]) if viewer.startswith("seat") else None
    checked = 0
    for hand in hands_of(exported):
        path = tmp_path / f"{hand.id}{FORMATS[name].suffix}"
        if not path.exists():
            continue  # left out: a game PHH has no code for
        named = cards_in(name, path.read_text())
        dealt = {str(e.card) for e in hand.played if isinstance(e, CardDealt)}
        if viewer == "auditor":
            assert dealt <= named, (hand.id, dealt - named)
        else:
            may = visible(hand.played, seat)
            assert named <= may, (hand.id, named - may)
        checked += 1
    assert checked > 100


def test_without_as_a_conversion_is_a_spectators_and_help_says_so(
    exported: Path, tmp_path: Path
) -> None:
    """An operator publishing a conversion must not publish folded cards
    by leaving out ``--as``: the default is a spectator's view."""
    code, _ = convert(str(exported), "--to", "pokerstars", "--output", str(tmp_path / "plain"))
    assert code == 0
    args = ["--to", "pokerstars", "--output", str(tmp_path / "spectator"), "--as", "spectator"]
    assert convert(str(exported), *args)[0] == 0
    plain = (tmp_path / "plain" / "hands.txt").read_text()
    assert plain == (tmp_path / "spectator" / "hands.txt").read_text()
    hidden = set()
    for hand in hands_of(exported):
        dealt = {str(e.card) for e in hand.played if isinstance(e, CardDealt)}
        hidden |= {f"{hand.id}:{c}" for c in dealt - visible(hand.played, None)}
    assert hidden  # folded and unshown cards exist, and none is written
    for text, hand in zip(plain.split("\n\n\n"), hands_of(exported), strict=True):
        named = cards_in("pokerstars", text)
        assert not {f"{hand.id}:{c}" for c in named} & hidden, hand.id
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["convert", "--help"])
    assert "spectator (the default" in " ".join(out.getvalue().split())
    assert "auditor" in out.getvalue()
