"""``feltline-replay convert --to html``: a page opened in a real browser
(Debian's chromium, driven by Playwright) steps forward and back with its
buttons and the arrow keys, and at each step shows the pot the engine holds
and the cards the viewer may see; the verifier's result is on it; it needs
no network; and a card the viewer may not see is nowhere in the file."""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, sync_playwright

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.engine.cards.card import Card
from feltline.engine.hand.decide import NEW_HAND
from feltline.engine.hand.events import Acted, BetsCollected, CardDealt, Event, HandEnded, Shown
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.hand.state import Hand
from feltline.engine.table.house import Rotation, TableConfig
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.histories import FORMATS, logged_hands
from feltline_replay.show import load_hand, steps
from feltline_replay.verify import STREAMS
from tests.postgres import TRUE, required
from tests.store.players import CONFIGS, Players, finished

from .conftest import Played

CHROMIUM = Path("/usr/bin/chromium")


def _in_ci() -> bool:
    return required() or os.environ.get("CI", "").strip().lower() in TRUE


PLAYED = {c.rules.game.value for c in CONFIGS}
"""Every game the played store's tables deal (not yet the Omaha games)."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium. Without it the browser tests skip on a user's
    machine, and fail in CI (FELTLINE_REQUIRE_POSTGRES or CI set), where
    .ci/run installs it."""
    if not CHROMIUM.exists():
        reason = (
            f"no browser at {CHROMIUM}: install Debian's chromium "
            "(apt-get install --no-install-recommends chromium) to run the HTML replayer's tests"
        )
        if _in_ci():
            pytest.fail(f"in CI, but {reason}")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield chromium
        chromium.close()


@dataclass(frozen=True)
class Chosen:
    """A small log of two hands: a stud hand that went to a showdown, seen
    by ``seat``, who did not show, nor did another seat; and a hold'em hand.
    ``shower`` showed."""

    log: Path
    stud: str
    holdem: str
    seat: int
    shower: int
    records: list[log.Record]


def _hands(path: Path) -> dict[str, list[log.Record]]:
    with path.open() as file:
        _, lines = log.read(file)
        hands: dict[str, list[log.Record]] = {}
        for r in lines:
            if r["kind"] not in STREAMS:  # a hand's records, not a stream of another kind
                hands.setdefault(r["id"], []).append(r)
    return hands


@pytest.fixture(scope="module")
def whole(played: Played, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The played store's every hand, exported."""
    path = tmp_path_factory.mktemp("html") / "all.log"
    assert main(["export", "--store", str(played.path), "--output", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def chosen(played: Played, whole: Path) -> Chosen:
    folder = whole.parent
    stud = holdem = None
    seat = shower = 0
    for key, records in _hands(whole).items():
        events = load_hand(records)
        game = records[0]["data"]["rules"]["game"]
        shown = {e.seat for e in events if isinstance(e, Shown)}
        dealt = {e.seat for e in events if isinstance(e, CardDealt)}
        if stud is None and game == "stud-hi-lo" and shown and len(dealt - shown) > 1:
            stud, seat, shower = key, min(dealt - shown), min(shown)
        elif holdem is None and game == "holdem" and shown:
            holdem = key
    assert stud is not None
    assert holdem is not None
    small = folder / "two.log"
    args = ["export", "--store", str(played.path), "--hand", stud, "--hand", holdem]
    assert main([*args, "--output", str(small)]) == 0
    return Chosen(small, stud, holdem, seat, shower, _hands(small)[stud])


def _convert(source: Path, out: Path, viewer: str) -> Path:
    assert main(["convert", str(source), "--to", "html", "--output", str(out), "--as", viewer]) == 0
    return out / "hands.html"


_DATA = '<script type="application/json" id="hands">'


def _embedded(page: Path | str) -> list[dict[str, Any]]:
    """The hands' JSON a page (a file, or its text) holds."""
    text = page.read_text() if isinstance(page, Path) else page
    start = text.index(_DATA) + len(_DATA)
    hands = json.loads(text[start : text.index("</script>", start)])
    assert isinstance(hands, list)
    return hands


def _engine(events: list[Event], step: int) -> tuple[Hand, dict[int, tuple[Card, ...]]]:
    """The engine's hand after ``events[:step + 1]``, and what was shown by then."""
    hand = NEW_HAND
    shown: dict[int, tuple[Card, ...]] = {}
    for event in events[: step + 1]:
        hand = evolve(hand, event)
        if isinstance(event, Shown):
            shown[event.seat] = event.cards
    return hand, shown


def _expected(events: list[Event], step: int, seat: int) -> tuple[int, dict[int, list[str]]]:
    """The pot, and each seat's cards as ``seat`` may see them ('' face down)."""
    hand, shown = _engine(events, step)
    cards = {
        p.seat: [
            str(c) if p.seat == seat or c in p.up or c in shown.get(p.seat, ()) else ""
            for c in p.cards
        ]
        for p in hand.players
    }
    return hand.pot + sum(p.bet for p in hand.players), cards


def _on_page(page: Page) -> tuple[int, dict[int, list[str]]]:
    pot = int(page.text_content("#pot") or "")
    seats = page.eval_on_selector_all(
        "#table .seat",
        "els => els.map(e => [Number(e.dataset.seat),"
        " [...e.querySelectorAll('.card')].map(c => c.dataset.card)])",
    )
    return pot, dict(seats)


def _open(browser: Browser, path: Path) -> tuple[Page, list[str]]:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    asked: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    assert errors == []
    return page, asked


def test_steps_show_the_engines_pot_and_the_viewers_cards(
    browser: Browser, chosen: Chosen, tmp_path: Path
) -> None:
    path = _convert(chosen.log, tmp_path, f"seat {chosen.seat}")
    events = load_hand(chosen.records)
    grouped = steps(events)
    step_of = {n: i for i, events_of in enumerate(grouped) for n in events_of}
    order = [h["id"] for h in _embedded(path)]
    page, asked = _open(browser, path)
    page.select_option("#hand", str(order.index(chosen.stud)))
    first_action = step_of[next(i for i, e in enumerate(events) if isinstance(e, Acted))]
    collected = step_of[
        next(
            i
            for i, e in enumerate(events)
            if isinstance(e, BetsCollected) and step_of[i] > first_action
        )
    ]
    last = len(grouped) - 1
    seen = {}

    def check(step: int) -> None:
        assert page.text_content("#step") == f"step {step + 1} of {len(grouped)}"
        expected = _expected(events, grouped[step][-1], chosen.seat)
        assert _on_page(page) == expected
        seen[step] = expected

    for _ in range(first_action):
        page.click("#forward")
    check(first_action)
    for _ in range(collected - first_action):
        page.keyboard.press("ArrowRight")
    check(collected)
    for _ in range(last - collected):
        page.keyboard.press("ArrowRight")
    check(last)
    page.keyboard.press("ArrowRight")  # the end holds
    check(last)
    for _ in range(last - collected):
        page.keyboard.press("ArrowLeft")
    check(collected)
    for _ in range(collected - first_action):
        page.click("#back")
    check(first_action)

    # The test saw what it means to: cards hidden from the viewer, its own
    # face-down cards, and at the end the cards shown at the showdown.
    _, first_cards = seen[first_action]
    assert any("" in cards for s, cards in first_cards.items() if s != chosen.seat)
    assert all(first_cards[chosen.seat])
    shown = next(e for e in events if isinstance(e, Shown) and e.seat == chosen.shower)
    _, end_cards = seen[last]
    assert set(map(str, shown.cards)) <= set(end_cards[chosen.shower])
    assert len({pot for pot, _ in seen.values()}) > 1
    assert all(url.startswith("file://") for url in asked), asked
    page.close()


def test_the_verdict_is_the_verifiers(browser: Browser, chosen: Chosen, played: Played) -> None:
    out = chosen.log.parent / "auditor"
    path = _convert(chosen.log, out, "auditor")
    page, _ = _open(browser, path)
    for index in range(2):
        page.select_option("#hand", str(index))
        assert page.get_attribute("#verdict", "data-ok") == "true"
        assert played.signer.public_hex in (page.text_content("#verdict") or "")
    page.close()


def _tampered(chosen: Chosen, folder: Path) -> tuple[Path, str]:
    """The log with one face-down card of the stud hand changed; that card."""
    lines = chosen.log.read_text().splitlines()
    for n, line in enumerate(lines):
        record = json.loads(line)
        data = record.get("data", {})
        if (
            record.get("id") == chosen.stud
            and record.get("type") == "CardDealt"
            and not data["face_up"]
            and data["seat"] != chosen.shower
        ):
            used = {json.loads(x).get("data", {}).get("card") for x in lines}
            spare = next(str(c) for c in map(Card, range(52)) if str(c) not in used)
            data["card"] = spare
            lines[n] = json.dumps(record, separators=(",", ":"))
            path = folder / "tampered.log"
            path.write_text("\n".join(lines) + "\n")
            return path, spare
    raise AssertionError("no face-down card")


def test_a_tampered_hand_fails_on_the_page_without_leaking_cards(
    browser: Browser, chosen: Chosen, tmp_path: Path
) -> None:
    source, spare = _tampered(chosen, tmp_path)
    page, _ = _open(browser, _convert(source, tmp_path / "auditor", "auditor"))
    order = [h["id"] for h in _embedded(tmp_path / "auditor" / "hands.html")]
    page.select_option("#hand", str(order.index(chosen.stud)))
    assert page.get_attribute("#verdict", "data-ok") == "false"
    verdict = page.text_content("#verdict") or ""
    assert "chain at position" in verdict
    assert f"found {spare}" in verdict
    page.select_option("#hand", str(order.index(chosen.holdem)))
    assert page.get_attribute("#verdict", "data-ok") == "true"
    page.close()

    spectator = _embedded(_convert(source, tmp_path / "spectator", "spectator"))
    check = next(h for h in spectator if h["id"] == chosen.stud)["check"]
    assert not check["ok"]
    assert {f["check"] for f in check["failures"]} >= {"chain", "card"}
    assert all(set(f) == {"check", "position"} for f in check["failures"])


def _tokens(hand: dict[str, Any]) -> set[str]:
    """Every card token anywhere in what the page holds of a hand: seats,
    board, log and verdict alike."""
    text = json.dumps(hand)
    return {str(c) for c in map(Card, range(53)) if re.search(rf"(?<!\w){c}(?!\w)", text)}


def _face_down(events: list[Event], seat: int | None) -> set[str]:
    """The face-down cards of every seat but ``seat`` never shown."""
    _, shown = _engine(events, len(events) - 1)
    return {
        str(e.card)
        for e in events
        if isinstance(e, CardDealt) and not e.face_up and e.seat != seat
        if e.card is not None and e.card not in shown.get(e.seat, ())
    }


def test_a_card_the_viewer_may_not_see_is_not_in_the_file(chosen: Chosen, tmp_path: Path) -> None:
    events = load_hand(chosen.records)
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    others = _face_down(events, chosen.seat)
    assert others
    assert _face_down(events, None) > others  # the seat's own are hidden from a spectator
    for viewer, seat in (("spectator", None), (f"seat {chosen.seat}", chosen.seat)):
        path = _convert(chosen.log, tmp_path / viewer.replace(" ", ""), viewer)
        assert ended.seed.hex()[:16] not in path.read_text()
        stud = next(h for h in _embedded(path) if h["id"] == chosen.stud)
        assert not _tokens(stud) & _face_down(events, seat)
        assert _tokens(stud) >= _face_down(events, None) - _face_down(events, seat)
    auditor = _convert(chosen.log, tmp_path / "auditor", "auditor")
    stud = next(h for h in _embedded(auditor) if h["id"] == chosen.stud)
    assert _tokens(stud) >= _face_down(events, None)
    assert ended.seed.hex()[:16] in auditor.read_text()


def test_each_hand_alone_is_the_same_page(chosen: Chosen, tmp_path: Path) -> None:
    path = _convert(chosen.log, tmp_path / "set", "spectator")
    each = tmp_path / "each"
    args = ["convert", str(chosen.log), "--to", "html", "--output", str(each)]
    assert main([*args, "--as", "spectator", "--each"]) == 0
    hands = _embedded(path)
    assert sorted(p.name for p in each.iterdir()) == sorted(f"{h['id']}.html" for h in hands)
    for hand in hands:
        assert _embedded(each / f"{hand['id']}.html") == [hand]
    text = path.read_text()
    assert "src=" not in text
    assert "href=" not in text
    assert "default-src 'none'" in text


def test_the_screenshot_is_not_blank(browser: Browser, chosen: Chosen, tmp_path: Path) -> None:
    path = _convert(chosen.log, tmp_path, "auditor")
    page, _ = _open(browser, path)
    page.keyboard.press("End")
    shot = tmp_path / "replayer.png"
    page.screenshot(path=str(shot))
    page.close()
    with Image.open(shot) as image:
        pixels = image.convert("RGB")
        colours = pixels.getcolors(maxcolors=1 << 24)
        assert colours is not None
        width, height = pixels.size
    assert len(colours) > 500
    most = max(count for count, _ in colours)
    assert most < 0.6 * width * height


def test_every_hand_of_every_game_is_written_and_verified(whole: Path, tmp_path: Path) -> None:
    sealed = sum('"kind":"seal"' in line for line in whole.open())
    for viewer in ("auditor", "seat 3"):
        hands = _embedded(_convert(whole, tmp_path / viewer.replace(" ", ""), viewer))
        assert len(hands) == sealed
        assert [h["id"] for h in hands if not h["check"]["ok"]] == []
        games = {h["title"].split()[0] for h in hands}
        assert games == PLAYED
        assert all(len(h["frames"]) > 1 for h in hands)


def test_a_name_cannot_break_out_of_the_page(
    browser: Browser, chosen: Chosen, tmp_path: Path
) -> None:
    """Table and player names are anyone's text: on the page they stay text."""
    name = "</script><script>document.title='owned'</script> & <b>"
    with chosen.log.open() as file:
        _, records = log.read(file)
        hand = next(logged_hands(records))
    assert hand.table is not None
    page_text = FORMATS["html"].one(replace(hand, table=replace(hand.table, name=name)))
    assert name not in page_text
    path = tmp_path / "named.html"
    path.write_text(page_text)
    assert _embedded(path)[0]["table"] == name
    page, _ = _open(browser, path)
    assert page.title() == "Feltline hands"
    assert name in (page.text_content("#hand") or "")
    page.close()


def _boxes(page: Page) -> list[dict[str, float]]:
    boxes: list[dict[str, float]] = page.eval_on_selector_all(
        "#table .seat",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.x, y: r.y, w: r.width, h: r.height}; })",
    )
    return boxes


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["w"]
        and b["x"] < a["x"] + a["w"]
        and a["y"] < b["y"] + b["h"]
        and b["y"] < a["y"] + a["h"]
    )


@pytest.mark.parametrize("width", [800, 1280])
def test_the_page_as_a_person_reads_it(
    browser: Browser, whole: Path, played: Played, tmp_path: Path, width: int
) -> None:
    """At 800 and 1280 px: no two seats overlap; the last step shows on
    the table who won what with which hand; stud has no dealer button; the
    verification is one line until opened, and says the key it checked;
    the log reads as sentences (``brings in 3``, no raw event names); a
    spectator's page draws no card with the own-card edge. A screenshot
    of each width is kept."""
    key = played.signer.public_hex
    args = ["convert", str(whole), "--to", "html", "--as", "spectator", "--public-key", key]
    assert main([*args, "--output", str(tmp_path)]) == 0
    path = tmp_path / "hands.html"
    hands = _embedded(path)
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(path.as_uri())
    picked: dict[str, int] = {}
    for index, hand in enumerate(hands):
        game = hand["title"].split()[0]
        if picked.get(game, 0) < 6:
            picked[game] = picked.get(game, 0) + 1
            page.select_option("#hand", str(index))
            for end in ("Home", "End"):
                page.keyboard.press(end)
                boxes = _boxes(page)
                assert len(boxes) == len(hand["frames"][0]["seats"])
                for n, a in enumerate(boxes):
                    for b in boxes[n + 1 :]:
                        assert not _overlap(a, b), (width, hand["id"], end, a, b)
            won = page.eval_on_selector_all(
                "#table .seat.winner", "els => els.map(e => [Number(e.dataset.seat), e.innerText])"
            )
            winners = {w["seat"] for w in hand["winners"]}
            assert {seat for seat, _ in won} == winners
            for w in hand["winners"]:
                text = dict(won)[w["seat"]]
                assert f"wins {w['amount']}" in text
                assert not w["hand"] or f"with {w['hand']}" in text
            assert page.locator(".card.hole").count() == 0  # a spectator owns no card
            discs = page.locator(".button-disc").count()
            assert discs == (0 if game == "stud-hi-lo" else 1), (game, discs)
            log_text = page.text_content("#log") or ""
            assert "bring-ins" not in log_text
            assert not re.search(r"\b[A-Z][a-z]+[A-Z]\w+\b", log_text), log_text  # DeckShuffled
    assert set(picked) == PLAYED
    verdict = page.locator("#verdict")
    assert verdict.get_attribute("open") is None
    line = page.locator("#verdict-line").bounding_box()
    closed = verdict.bounding_box()
    assert line is not None
    assert closed is not None
    assert closed["height"] < 2.2 * line["height"]
    assert f"Verified against key {key[:16]}" in (page.text_content("#verdict-line") or "")
    page.click("#verdict-line")
    opened = verdict.bounding_box()
    assert opened is not None
    assert opened["height"] > 2 * closed["height"]
    assert key in (page.text_content("#verdict-body") or "")
    shot = tmp_path / f"replayer-{width}.png"
    showdown = next(i for i, h in enumerate(hands) if any(w["hand"] for w in h["winners"]))
    page.select_option("#hand", str(showdown))
    page.keyboard.press("End")
    page.screenshot(path=str(shot), full_page=True)
    page.close()
    with Image.open(shot) as image:
        assert image.size[0] == width


def test_a_page_checked_against_another_key_fails(whole: Path, tmp_path: Path) -> None:
    other = Signer.generate().public_hex
    args = ["convert", str(whole), "--to", "html", "--public-key", other]
    assert main([*args, "--output", str(tmp_path)]) == 0
    checks = [h["check"] for h in _embedded(tmp_path / "hands.html")]
    assert checks
    assert not any(c["ok"] for c in checks)
    assert all(c["failures"][-1]["check"] == "key" for c in checks)
    with pytest.raises(SystemExit, match="--public-key is for --to html"):
        main(
            ["convert", str(whole), "--to", "ohh", "--output", str(tmp_path), "--public-key", other]
        )


def test_a_deal_is_one_step_and_bring_ins_read_as_english(chosen: Chosen) -> None:
    events = load_hand(chosen.records)
    grouped = steps(events)
    assert len(grouped) < len(events)
    dealt = [r for r in grouped if any(isinstance(events[n], CardDealt) for n in r)]
    for r in dealt:  # every card of a street in one step
        assert all(isinstance(events[n], CardDealt) for n in r)
    frames = [f["said"] for f in _embedded_of(chosen)[0]["frames"]]
    assert not any("DeckShuffled" in said or "bring-ins" in said for said in frames)
    assert any(" brings in " in said for said in frames)


def _embedded_of(chosen: Chosen) -> list[dict[str, Any]]:
    with chosen.log.open() as file:
        _, records = log.read(file)
        hand = next(h for h in logged_hands(records) if h.id == chosen.stud)
    return _embedded(FORMATS["html"].one(hand))


HORSE = (Game.HOLDEM, Game.OMAHA_HI_LO, Game.RAZZ, Game.STUD, Game.STUD_HI_LO)


@pytest.fixture(scope="module")
def four_cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of an Omaha table's hands and a mixed table's (H.O.R.S.E., a
    hand of each game in turn), played by random players."""
    folder = tmp_path_factory.mktemp("four-cards")
    store = folder / "store.db"
    room = Room(
        Streams(Signer.generate(), env=StoreConfig.from_env({"SQLITE_DBNAME": str(store)}).env)
    )
    stakes = Stakes(Structure.FIXED_LIMIT, 10, 20, ante=2, small_blind=5, big_blind=10, bring_in=3)
    mixed = TableConfig(Rules(Game.HOLDEM, stakes), 6, rotation=Rotation(HORSE, 1))
    tables = [
        room.open_table("omaha", TableConfig(Rules.house(Game.OMAHA), 6), at=0),
        room.open_table("horse", mixed, at=0),
    ]
    players = [Players(room, t, random.Random(n)) for n, t in enumerate(tables)]
    while finished(room, tables) < 16:
        for p in players:
            p.step()
    room.close()
    path = folder / "hands.log"
    assert main(["export", "--store", str(store), "--output", str(path)]) == 0
    return path


def _first_of(path: Path, game: str) -> tuple[str, list[log.Record]]:
    """The first hand of ``game`` in the log that was played past its first bet."""
    for key, records in _hands(path).items():
        events = load_hand(records)
        if records[0]["data"]["rules"]["game"] == game and any(
            isinstance(e, Acted) for e in events
        ):
            return key, records
    raise AssertionError(f"no {game} hand")


def _step_to(page: Page, hands: list[str], key: str, step: int) -> None:
    page.select_option("#hand", str(hands.index(key)))
    for _ in range(step):
        page.keyboard.press("ArrowRight")


@pytest.mark.parametrize(("game", "held"), [("omaha", 4), ("stud", 3), ("razz", 3)])
def test_a_seat_sees_its_four_omaha_cards_and_studs_up_and_down_cards(
    browser: Browser, four_cards: Path, tmp_path: Path, game: str, held: int
) -> None:
    """At the first action, the viewer's own cards face up (four in Omaha,
    two down and one up on stud's third street), each other seat's as many
    face down but for stud's up card: the engine's cards, as the seat may
    see them."""
    key, records = _first_of(four_cards, game)
    events = load_hand(records)
    seat = min(e.seat for e in events if isinstance(e, CardDealt))
    path = _convert(four_cards, tmp_path, f"seat {seat}")
    grouped = steps(events)
    first = next(
        i for i, group in enumerate(grouped) if any(isinstance(events[n], Acted) for n in group)
    )
    page, _ = _open(browser, path)
    _step_to(page, [h["id"] for h in _embedded(path)], key, first)
    pot, cards = _on_page(page)
    assert (pot, cards) == _expected(events, grouped[first][-1], seat)
    assert len(cards[seat]) == held
    assert all(cards[seat])
    others = [c for s, c in cards.items() if s != seat]
    assert others
    assert all(len(c) == held for c in others)
    up = sum(1 for c in others for card in c if card)
    assert up == (0 if game == "omaha" else len(others))  # stud shows one up card each
    page.close()


def test_a_mixed_tables_hand_says_its_game_and_the_next(
    browser: Browser, four_cards: Path, tmp_path: Path
) -> None:
    path = _convert(four_cards, tmp_path, "spectator")
    hands = _embedded(path)
    said = {h["title"]: h["rotation"] for h in hands}
    assert said["razz fixed-limit"] == "mixed table: razz, hand 1 of 1; next seven-card stud"
    assert said["stud-hi-lo fixed-limit"] == (
        "mixed table: stud high-low, hand 1 of 1; next hold'em"
    )
    assert said["omaha pot-limit"] is None  # the Omaha table deals one game
    ids = [h["id"] for h in hands]
    page, _ = _open(browser, path)
    _step_to(page, ids, next(h["id"] for h in hands if h["title"].startswith("razz")), 0)
    assert page.text_content("#rotation") == said["razz fixed-limit"]
    _step_to(page, ids, next(h["id"] for h in hands if h["title"].startswith("omaha ")), 0)
    assert page.text_content("#rotation") == ""
    page.close()


def test_the_mixed_tables_log_verifies_and_converts(
    four_cards: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each hand of a mixed table is its own game's, so the verifier re-runs
    it and the histories write it as any hand of that game (PHH is left
    out: it cannot write the big blind a newcomer posts out of position,
    which these random players do; tests/replay/test_phh.py says so)."""
    assert main(["verify", str(four_cards), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["hands"] == 16
    for name in ("ohh", "pokerstars", "html"):
        out = tmp_path / name
        assert main(["convert", str(four_cards), "--to", name, "--output", str(out)]) == 0
