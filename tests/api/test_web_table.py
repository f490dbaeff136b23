"""The web table that `feltline serve --web-port` serves at `/`, in Debian's
chromium: a live lobby, and a spectator's view of a table over whole hands
whose page, and every message it received, hold no face-down card that was
not shown; drawn at a desktop's size and a phone's."""

from __future__ import annotations

import http.client
import json
import os
import random
import struct
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from PIL import Image, ImageStat
from playwright.sync_api import Browser, Page, Response

from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.engine.hand.events import CardDealt, Shown
from feltline.engine.hand.rules import Game
from feltline_client import Client
from feltline_protos.v1 import auth_pb2, common_pb2
from tests.replay.test_html import browser

from .conftest import Live, open_store, serving
from .test_live import _play, _seat, _table
from .test_match import calls, create, folds, join, play_deal
from .test_mixed import HORSE, horse

__all__ = ["browser"]  # the fixture: Debian's chromium, as the HTML replayer's tests drive it

ADMIN, PLAYER, SPECTATOR = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR
CARD_FIELDS = {"card", "cards", "board", "upCards", "downCards", "discards", "setAside"}
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with serving(tmp_path / "web.db", web=True) as running:
        yield running


def _open(browser: Browser, live: Live, route: str = "#", player: str = "") -> Page:
    """The page, signed in by its link as a spectator, or as ``player``."""
    width, height = SIZES["desktop"]
    page = browser.new_page(viewport={"width": width, "height": height})
    role = PLAYER if player else SPECTATOR
    now = datetime.now(UTC)
    token = tokens.mint(live.signer, role, now=now, ttl=timedelta(hours=1), player_id=player)
    separator = "&" if route != "#" else ""
    page.goto(f"http://127.0.0.1:{live.server.web_port}/{route}{separator}token={token}")
    return page


def _rows(page: Page) -> list[str]:
    return page.locator(".lobby tbody tr[data-table] td:first-child").all_inner_texts()


def test_the_lobby_lists_the_open_tables_live(browser: Browser, live: Live) -> None:
    _table(live, Game.HOLDEM)
    page = _open(browser, live)
    page.wait_for_selector(".lobby tbody tr[data-table]")
    assert _rows(page) == [f"test {Game.HOLDEM}"]
    # A table opened while the page is open shows without a reload.
    _table(live, Game.STUD_HI_LO)
    page.locator(".lobby tbody tr[data-table]").nth(1).wait_for()
    assert sorted(_rows(page)) == sorted([f"test {Game.HOLDEM}", f"test {Game.STUD_HI_LO}"])
    # The token left the address at once: it is in no link a person copies.
    assert "token" not in page.url
    page.close()


def test_a_mixed_table_shows_the_game_being_played_and_the_next(
    browser: Browser, live: Live
) -> None:
    """Not the first game of its rotation: the lobby's row, and the table's
    heading as hands are dealt, follow the rotation."""
    table = live.client(ADMIN).create_table(horse(hands=1, games=HORSE[:2]), "mixed").table_id
    page = _open(browser, live)
    game = page.locator(".lobby tbody tr[data-table] td:nth-child(2)")
    game.wait_for()
    assert game.inner_text() == "holdem (mixed; next omaha hi lo)"
    page.goto(page.url.split("#")[0] + f"#/table/{table}")
    heading = page.locator("h1")
    heading.wait_for()
    bots = _seat(live, table, 3, random.Random(5))
    playing = threading.Thread(target=_play, args=(bots, 3))  # hold'em, Omaha, hold'em
    playing.start()
    seen = set()
    while playing.is_alive():
        seen.add(heading.inner_text().split(" · ")[1])
        page.wait_for_timeout(50)
    playing.join()
    assert "omaha hi lo (mixed; next holdem)" in seen, seen
    page.close()


def _cards(value: Any, found: set[tuple[int, str]], hand: int = 0) -> set[tuple[int, str]]:
    """Every card in a message as the page receives it (protobuf JSON), with
    the number of the hand it is of (a card may be a hole card in one hand
    and on the board in the next)."""
    if isinstance(value, dict):
        hand = int(value.get("handNumber", hand))
        for key, item in value.items():
            if key in CARD_FIELDS:
                found.update((hand, card) for card in ([item] if isinstance(item, str) else item))
            else:
                _cards(item, found, hand)
    elif isinstance(value, list):
        for item in value:
            _cards(item, found, hand)
    return found


def _secret(live: Live, table: str, hands: set[int]) -> set[tuple[int, str]]:
    """Each hand's face-down cards, from the store, less those shown at its
    showdown: what no spectator may ever see."""
    secret = set()
    for number in hands:
        down, shown = set(), set()
        for _, event in live.room.hand_events(UUID(table), number):
            if isinstance(event, CardDealt) and not event.face_up and event.card is not None:
                down.add(str(event.card))
            elif isinstance(event, Shown):
                shown.update(str(c) for c in event.cards)
        secret |= {(number, card) for card in down - shown}
    return secret


def _on_page(page: Page) -> set[tuple[int, str]]:
    """Every card the page draws, with the hand it draws it for."""
    drawn = page.locator("[data-card]").evaluate_all(
        "cards => cards.map(c => [c.closest('[data-hand]')?.dataset.hand ?? '0', c.dataset.card])"
    )
    return {(int(hand), card) for hand, card in drawn}


def _messages(body: bytes, streamed: bool) -> list[Any]:
    if not streamed:
        return [json.loads(body)]
    messages = []
    while body:
        _, size = struct.unpack(">BI", body[:5])
        messages.append(json.loads(body[5 : 5 + size]))
        body = body[5 + size :]
    return messages


def test_a_spectator_sees_whole_hands_and_never_a_face_down_card(
    browser: Browser, live: Live, tmp_path: Path
) -> None:
    table = _table(live, Game.HOLDEM, seats=4)
    responses: list[Response] = []
    page = _open(browser, live, f"#/table/{table}")
    # Playwright takes no built-in method as a handler.
    page.on("response", lambda response: responses.append(response))  # noqa: PLW0108
    page.wait_for_selector(".seats")

    played = _play(_seat(live, table, 3, random.Random(7)), 3)
    # Two sit again: a hand is dealt and waits on the first to act, so the
    # page shows a hand in progress, its hole cards as backs.
    again = _seat(live, table, 2, random.Random(8))
    # Waited for as a whole: the page may first draw the three's last hand
    # (more backs) and then the table between hands (none).
    for _ in range(300):  # the page's CSP allows no wait_for_function
        drawn = (page.locator(".card.back").count(), page.locator(".seat .who").count())
        if drawn == (4, 2):
            break
        page.wait_for_timeout(100)
    assert drawn == (4, 2)
    assert page.locator(".seat.turn .clock").count() == 1
    log = page.locator(".log").inner_text()
    assert "hand over" in log
    assert "wins" in log
    artefacts = Path(os.environ.get("FELTLINE_ARTEFACTS", tmp_path))
    artefacts.mkdir(parents=True, exist_ok=True)
    for name, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        shot = artefacts / f"web-table-{name}.png"
        page.screenshot(path=str(shot), full_page=True)
        spread = ImageStat.Stat(Image.open(shot).convert("L")).stddev[0]
        assert spread > 10, f"the {name} page looks blank"
    # The hand in progress: its hole cards are nowhere on the page.
    current = live.client(ADMIN).get_table(table).current_hand.hand_number
    secret_now = _secret(live, table, {current})
    assert len(secret_now) == 4
    assert not _on_page(page) & secret_now
    played |= _play(again, 1)

    secret = _secret(live, table, played)
    assert len(secret) >= 8  # at least the hands that ended without a showdown
    drawn = _on_page(page)
    assert not drawn & secret, drawn & secret

    # The table closes: the watch ends, and the page's whole traffic is read.
    live.client(ADMIN).close_table(table)
    page.locator("#status", has_text="closed").wait_for()
    received: set[tuple[int, str]] = set()
    calls = 0
    for response in responses:
        if "/feltline.v1." not in response.url or response.request.method != "POST":
            continue
        calls += 1
        streamed = "WatchTable" in response.url
        for message in _messages(response.body(), streamed):
            _cards(message, received)
    assert calls > 3
    assert received, "the page received no card at all: nothing was checked"
    assert not received & secret, received & secret
    page.close()


def test_the_page_is_served_with_its_files_and_a_strict_policy(live: Live) -> None:
    assert live.server.web_port is not None
    connection = http.client.HTTPConnection("127.0.0.1", live.server.web_port, timeout=10)
    for path, kind in (
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/app.css", "text/css"),
    ):
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200, path
        assert response.getheader("content-type", "").startswith(kind)
        assert "default-src 'self'" in response.getheader("content-security-policy", "")
        assert body
    connection.request("GET", "/nothing-here")
    response = connection.getresponse()
    response.read()
    assert response.status == 404


@pytest.mark.parametrize("game", [Game.HOLDEM, Game.DRAW_DECLARE])
def test_a_player_sits_plays_with_keys_and_buttons_and_stands_up(
    browser: Browser, live: Live, game: Game
) -> None:
    table = _table(live, game, seats=4)
    live.client(ADMIN).mint_chips("webby", 5_000)
    bots = _seat(live, table, 2, random.Random(11))
    page = _open(browser, live, f"#/table/{table}", player="webby")
    buy_in = page.locator(".buy-in")
    most = buy_in.get_attribute("max")
    buy_in.fill(most or "")
    page.get_by_role("button", name="seat 3").click()
    page.locator(".seat.mine").wait_for()
    assert f"stack {most}" in page.locator(".seat.mine").inner_text()

    finished: list[set[int]] = []
    playing = threading.Thread(target=lambda: finished.append(_play(bots, 3)), daemon=True)
    playing.start()
    done: set[str] = set()
    controls = page.locator(".controls")
    while playing.is_alive():
        amount = controls.locator(".amount")
        if "refused" not in done and amount.count():
            # Bad input from the page: an amount outside the range is the
            # server's to refuse, shown to the person, and changes nothing.
            before = live.client(ADMIN).get_table(table).current_hand.sequence
            amount.fill("1")
            amount.press("Enter")
            page.locator("#status.error").wait_for()
            assert "to 1: " in page.locator("#status").inner_text()  # e.g. cannot raise to 1
            assert live.client(ADMIN).get_table(table).current_hand.sequence == before
            done.add("refused")
        elif controls.locator("button.draw:not([disabled])").count():
            page.locator(".seat.mine .card[data-card]").first.click()  # throw one
            assert "Draw 1" in controls.locator("button.draw").inner_text()
            page.keyboard.press("d")
            done.add("drew")
        elif controls.locator("button:not([disabled])", has_text="Declare").count():
            controls.locator("button", has_text="Declare").first.click()
            done.add("declared")
        elif controls.locator('button[data-key="c"]:not([disabled])').count():
            page.keyboard.press("c")  # check or call
            done.add("called")
        page.wait_for_timeout(50)
    playing.join()
    assert finished, "the bots did not finish their hands"
    expected = {"refused", "called"} | ({"drew"} if game is Game.DRAW_DECLARE else set())
    assert expected <= done, done

    # The bots have stood up: the page's stack is the store's.
    seat = next(s for s in live.client(ADMIN).get_table(table).seats if s.seat == 3)
    assert seat.player_id == "webby"
    page.locator(".seat.mine", has_text=f"stack {seat.stack}").wait_for()
    page.get_by_role("button", name="Sit out").click()
    page.get_by_role("button", name="Sit in").wait_for()
    seat = next(s for s in live.client(ADMIN).get_table(table).seats if s.seat == 3)
    assert seat.status == common_pb2.SEAT_STATUS_SITTING_OUT
    page.get_by_role("button", name="Sit in").click()
    page.get_by_role("button", name="Sit out").wait_for()
    seat = next(s for s in live.client(ADMIN).get_table(table).seats if s.seat == 3)
    assert seat.status != common_pb2.SEAT_STATUS_SITTING_OUT
    page.get_by_role("button", name="Stand up").click()
    page.locator(".seat.mine").wait_for(state="detached")
    assert all(s.player_id != "webby" for s in live.client(ADMIN).get_table(table).seats)
    page.close()


def _chips_agree(page: Page, admin: Client, table: str) -> int:
    """At a page's turn (the hand waits on it, so nothing moves): its pot
    and every seat's stack and bet are the store's; the hand's number."""
    hand = admin.get_table(table).current_hand
    assert page.locator(".felt").get_attribute("data-hand") == str(hand.hand_number)
    bets = sum(seat.bet for seat in hand.seats)
    assert page.locator(".pot").inner_text() == f"pot {hand.pot + bets}"
    for seat in hand.seats:
        chips = page.locator(f'.seat[data-seat="{seat.seat}"] .chips').inner_text()
        assert chips == f"stack {seat.stack}" + (f" · bet {seat.bet}" if seat.bet else "")
    return hand.hand_number


@pytest.mark.parametrize("game", [Game.HOLDEM, Game.DRAW_DECLARE])
def test_two_browser_players_and_two_bots_play_whole_hands_with_the_stores_chips(
    browser: Browser, live: Live, game: Game
) -> None:
    table = _table(live, game, seats=4)
    bots = _seat(live, table, 2, random.Random(23))
    pages: list[Page] = []
    for seat, player in ((3, "webby"), (4, "webster")):
        live.client(ADMIN).mint_chips(player, 5_000)
        page = _open(browser, live, f"#/table/{table}", player=player)
        page.get_by_role("button", name=f"seat {seat}").click()
        page.locator(".seat.mine").wait_for()
        pages.append(page)
    finished: list[set[int]] = []
    playing = threading.Thread(target=lambda: finished.append(_play(bots, 5)), daemon=True)
    playing.start()
    admin = live.client(ADMIN)
    checked: set[int] = set()
    done: set[str] = set()
    while playing.is_alive():
        for page in pages:
            controls = page.locator(".controls")
            draw = controls.locator("button.draw:not([disabled])")
            declare = controls.locator("button:not([disabled])", has_text="Declare")
            call = controls.locator('button[data-key="c"]:not([disabled])')
            if not (draw.count() or declare.count() or call.count()):
                continue
            checked.add(_chips_agree(page, admin, table))
            if draw.count():
                page.locator(".seat.mine .card[data-card]").first.click()
                page.keyboard.press("d")
                done.add("drew")
            elif declare.count():
                declare.first.click()
                done.add("declared")
            else:
                page.keyboard.press("c")  # check or call
                done.add("called")
        pages[0].wait_for_timeout(50)
    playing.join()
    assert finished, "the bots did not finish their hands"
    # Newcomers wait for the big blind, and a hand the bots end before a
    # page's turn has nothing to check: of five hands, most are checked.
    assert len(checked) >= 3, checked
    expected = {"called"} | ({"drew", "declared"} if game is Game.DRAW_DECLARE else set())
    assert expected <= done, done
    for page in pages:
        page.close()


def test_the_page_resumes_its_watch_when_the_server_restarts(browser: Browser, live: Live) -> None:
    table = _table(live, Game.HOLDEM, seats=4)
    port = live.server.web_port
    page = _open(browser, live, f"#/table/{table}")
    page.locator(".seats").wait_for()
    live.server.stop()
    page.locator("#status.error", has_text="reconnecting").wait_for()
    # The same store and web port, a new process's server: the page's
    # watch resumes from its cursor, and what happens next reaches it.
    live.room.close()
    live.room = open_store(live.env, live.signer)
    live.server = Feltline(live.room, live.signer.public_key, tick=0.1, web_port=port).start()
    live.client(ADMIN).mint_chips("after", 1_000)
    live.client(PLAYER, "after").sit_down(table, 2, 500)
    page.locator(".log li", has_text="after sits in seat 2").wait_for()
    assert page.locator(".seat", has_text="after").count() == 1
    assert not page.locator("#status.error").count()
    page.close()


def test_a_duplicate_matchs_standings_page_follows_it_to_its_end(
    browser: Browser, live: Live
) -> None:
    match = create(live, deals=1)
    page = _open(browser, live, f"#/match/{match.match_id}")
    page.locator("h1", has_text="seating").wait_for()
    assert page.locator("a[href^='#/table/']").count() == 2
    players = join(live, match)
    play_deal(live, players, match.match_id, t=0, deal=1, policy=calls)
    play_deal(live, players, match.match_id, t=1, deal=1, policy=folds)
    page.locator("h1", has_text="ended · 1 of 1 deals").wait_for()
    standings = live.client(ADMIN).get_match(match.match_id).standings
    rows = page.locator(".standings tbody tr").all_inner_texts()
    assert len(rows) == len(standings) == 4
    for row, standing in zip(rows, standings, strict=True):
        assert row.split("\t")[:2] == [str(standing.rank), standing.player_id]
        assert row.split("\t")[3] == str(standing.score)
    page.close()
