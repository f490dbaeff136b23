"""A player's turn at the web table, in Debian's chromium, as a person
meets it: a double click sends one action, an action on a turn another tab
has already taken is the server's to refuse and the page says so and
carries on, and the chips drawn once a hand is over are the store's."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID

import pytest
from playwright.sync_api import Browser, Page, Request

from feltline.api import tokens
from feltline.engine.hand.events import Acted
from feltline.engine.hand.rules import Game
from feltline_client import Seen
from feltline_protos.v1 import auth_pb2, common_pb2, tables_pb2
from tests.replay.test_html import browser

from .conftest import Live, serving
from .test_live import _table

__all__ = ["browser"]  # the fixture: Debian's chromium, as the HTML replayer's tests drive it

ADMIN, PLAYER = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_PLAYER
ME, OTHER = 1, 2  # webby's seat, bob's
BUY_IN = 500

# Holds what the page hears of the table (its watch's messages and its
# GetTable answers) while `window.feltHold` is set, as a slow network
# would: the page still offers a turn the table has moved past.
HOLD = """
window.feltHold = null;
const fetched = window.fetch.bind(window);
const held = async () => { while (window.feltHold) await window.feltHold.promise; };
window.fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input.url;
  if (!/WatchTable|GetTable/.test(url)) return fetched(input, init);
  await held();
  const response = await fetched(input, init);
  await held();
  if (!/WatchTable/.test(url) || !response.body) return response;
  const body = response.body.pipeThrough(new TransformStream({
    async transform(chunk, out) { await held(); out.enqueue(chunk); },
  }));
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
};
"""
HOLD_ON = """() => {
  let open;
  const promise = new Promise((r) => { open = r; });
  window.feltHold = { promise, open };
}"""
HOLD_OFF = "() => { const hold = window.feltHold; window.feltHold = null; hold.open(); }"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with serving(tmp_path / "web.db", web=True) as running:
        yield running


@pytest.fixture
def table(live: Live) -> str:
    """A heads-up hold'em table: webby in seat 1 (played through the page
    or, as their other tab, the SDK), bob in seat 2 (the SDK)."""
    table = _table(live, Game.HOLDEM, seats=2)
    for player, seat in (("webby", ME), ("bob", OTHER)):
        live.client(ADMIN).mint_chips(player, 5_000)
        live.client(PLAYER, player).sit_down(table, seat, BUY_IN)
    return table


def _open(browser: Browser, live: Live, table: str) -> Page:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.add_init_script(HOLD)
    token = tokens.mint(
        live.signer, PLAYER, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id="webby"
    )
    page.goto(f"http://127.0.0.1:{live.server.web_port}/#/table/{table}&token={token}")
    return page


def _hand(live: Live, table: str, player: str = "") -> tables_pb2.HandView:
    client = live.client(PLAYER, player) if player else live.client(ADMIN)
    return client.get_table(table).current_hand


def _my_turn(live: Live, table: str) -> tables_pb2.HandView:
    """The hand once it waits on webby; bob checks or calls until it does."""
    bob = live.client(PLAYER, "bob")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        hand = _hand(live, table, "bob")
        if hand.HasField("turn") and hand.turn.seat == ME:
            return hand
        if hand.HasField("turn") and hand.turn.seat == OTHER:
            if common_pb2.ACTION_KIND_CHECK in hand.turn.options.actions:
                bob.check(table, Seen.of(hand))
            else:
                bob.call(table, Seen.of(hand))
        else:
            time.sleep(0.05)
    raise AssertionError("the hand never came to webby")


def _acted(live: Live, table: str, number: int, seat: int) -> int:
    events = live.room.hand_events(UUID(table), number)
    return sum(1 for _, e in events if isinstance(e, Acted) and e.seat == seat)


def _ready(page: Page, key: str) -> None:
    page.locator(f'.controls button[data-key="{key}"]:not([disabled])').wait_for()


def test_a_double_click_or_a_doubled_key_sends_one_action(
    browser: Browser, live: Live, table: str
) -> None:
    acts: list[Request] = []
    page = _open(browser, live, table)
    page.on("request", lambda r: acts.append(r) if "PlayService/Act" in r.url else None)
    for how in ("double click", "key twice"):
        hand = _my_turn(live, table)
        _ready(page, "c")
        before = _acted(live, table, hand.hand_number, ME)
        sent = len(acts)
        if how == "double click":
            page.locator('.controls button[data-key="c"]').dblclick()
        else:
            page.keyboard.press("c")
            page.keyboard.press("c")
        deadline = time.monotonic() + 10
        while _acted(live, table, hand.hand_number, ME) == before:
            assert time.monotonic() < deadline, f"the {how} was not applied"
            time.sleep(0.05)
        page.wait_for_timeout(500)  # time for a second request, were one sent
        assert len(acts) - sent == 1, how
        assert _acted(live, table, hand.hand_number, ME) == before + 1, how
        assert not page.locator("#status.error").count(), page.locator("#status").inner_text()
    page.close()


def _drawn(page: Page) -> tuple[dict[int, int], int]:
    """The stacks and the pot as the page draws them."""
    stacks = {}
    for seat in page.locator(".seat[data-seat]:not(.empty)").all():
        found = re.search(r"stack (\d+)", seat.inner_text())
        assert found, seat.inner_text()
        stacks[int(seat.get_attribute("data-seat") or 0)] = int(found[1])
    found = re.search(r"pot (\d+)", page.locator(".pot").inner_text())
    return stacks, int(found[1]) if found else 0


def _stored(live: Live, table: str) -> tuple[dict[int, int], int]:
    """The stacks and the pot (with this round's bets) as the server has them."""
    hand = _hand(live, table)
    stacks = {s.seat: s.stack for s in hand.seats}
    return stacks, hand.pot + sum(s.bet for s in hand.seats)


def test_a_stale_turn_is_refused_shown_and_the_page_carries_on(
    browser: Browser, live: Live, table: str
) -> None:
    page = _open(browser, live, table)
    hand = _my_turn(live, table)
    _ready(page, "f")
    # Webby's other tab acts first; this page has not heard of it yet.
    page.evaluate(HOLD_ON)
    options = hand.turn.options.actions
    webby = live.client(PLAYER, "webby")
    if common_pb2.ACTION_KIND_CHECK in options:
        webby.check(table, Seen.of(hand))
    else:
        webby.call(table, Seen.of(hand))
    moved = _hand(live, table)
    page.locator('.controls button[data-key="f"]').click()
    page.locator("#status.error").wait_for()
    said = page.locator("#status").inner_text()
    assert f"not at hand {hand.hand_number}, sequence {hand.sequence}" in said
    assert "look again" in said
    # The fold changed nothing: no seat folded, nothing appended.
    after = _hand(live, table)
    assert after.sequence == moved.sequence
    assert not any(s.folded for s in after.seats)

    # The page hears again: it draws the table as it is, and the refusal
    # stays said until the person does something else.
    page.evaluate(HOLD_OFF)
    page.locator(".log li", has_text=f"seat {ME} c").first.wait_for()
    assert page.locator("#status").get_attribute("class") == "error"
    assert page.locator("#status").inner_text() == said
    hand = _my_turn(live, table)
    _ready(page, "f")
    page.keyboard.press("f")
    page.locator("#status.error").wait_for(state="detached")
    page.locator(".log li", has_text="hand over").first.wait_for()

    # The next hand is dealt and waits on a seat: what the page draws is
    # the store's, and the chips add up to the buy-ins.
    deadline = time.monotonic() + 10
    while (drawn := _drawn(page)) != (stored := _stored(live, table)):
        assert time.monotonic() < deadline, (drawn, stored)
        page.wait_for_timeout(100)
    stacks, pot = drawn
    assert _hand(live, table).hand_number > hand.hand_number
    assert sum(stacks.values()) + pot == 2 * BUY_IN
    page.close()
