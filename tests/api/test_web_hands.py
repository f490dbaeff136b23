"""Finished hands on the web table, in Debian's chromium: a player's recent
hands open in the HTML replayer as the server writes it for that player;
an auditor pages through every finished hand, opens one, and exports those
listed as the portable log."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID

import pytest
from playwright.sync_api import Browser, Locator, Page

from feltline.api import tokens
from feltline.engine.hand.events import CardDealt, Shown
from feltline.engine.hand.rules import Game
from feltline_protos.v1 import auth_pb2, replay_pb2
from tests.replay.test_html import browser

from .conftest import Live, serving
from .test_live import _play, _seat, _table

__all__ = ["browser"]  # the fixture: Debian's chromium, as the HTML replayer's tests drive it

AUDITED_PAGE = 20  # the hands an auditor's page lists at a time (app.js)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with serving(tmp_path / "web.db", web=True) as running:
        yield running


def _signed_in(
    browser: Browser, live: Live, role: auth_pb2.Role.ValueType, player: str = ""
) -> Page:
    token = tokens.mint(
        live.signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
    )
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{live.server.web_port}/#token={token}")
    return page


def _opened(page: Page, row: Locator) -> tuple[str, list[str]]:
    """The replayer a row's Replay button opens: the hands' JSON it holds,
    once its script has drawn them, and what its console said."""
    said: list[str] = []
    with page.context.expect_page() as opening:
        row.get_by_role("button", name="Replay").click()
    tab = opening.value
    tab.on("console", lambda message: said.append(message.text))
    # Its script ran (under the page's policy, which a blob: document takes):
    # the hand is chosen and its first step drawn.
    tab.locator("#hand option").first.wait_for(state="attached")
    tab.locator("#log li").first.wait_for()
    hands = tab.locator("#hands").text_content() or ""
    tab.close()
    return hands, said


def _hands_json(written: str) -> str:
    """The hands' JSON of a replayer page as ExportHands wrote it."""
    return written.partition('<script type="application/json" id="hands">')[2].partition(
        "</script>"
    )[0]


def test_a_players_recent_hands_open_in_the_replayer_as_the_server_writes_them(
    browser: Browser, live: Live
) -> None:
    table = _table(live, Game.HOLDEM)
    played = _play(_seat(live, table, 2, random.Random(7)), 3)
    page = _signed_in(browser, live, auth_pb2.ROLE_PLAYER, "p1")
    rows = page.locator(".recent tbody tr[data-hand-id]")
    rows.nth(len(played) - 1).wait_for()
    recalled = live.client(auth_pb2.ROLE_PLAYER, "p1").recall_hands()
    # Newest first, each with what p1 won or lost in it.
    assert rows.count() == len(recalled)
    newest = recalled[-1]
    assert rows.first.get_attribute("data-hand-id") == newest.hand.hand_id
    gained = newest.result.final_stack - newest.result.starting_stack
    assert rows.first.locator(".net").inner_text() == (f"+{gained}" if gained > 0 else str(gained))
    hands, said = _opened(page, rows.first)
    # The very page the server writes p1 over gRPC: p1's own cards, others'
    # only where shown.
    written = io.StringIO()
    live.client(auth_pb2.ROLE_PLAYER, "p1").export_history(
        replay_pb2.EXPORT_FORMAT_HTML, written, hand_ids=[newest.hand.hand_id]
    )
    assert json.loads(hands) == json.loads(_hands_json(written.getvalue()))
    assert json.loads(hands)[0]["viewer"] == f"seat {newest.seat}"
    # And so no face-down card of another seat but those shown.
    theirs, shown = set(), set()
    for _, event in live.room.hand_events(UUID(table), newest.hand.hand_number):
        if isinstance(event, CardDealt) and not event.face_up and event.seat != newest.seat:
            theirs.add(str(event.card))
        elif isinstance(event, Shown):
            shown.update(str(card) for card in event.cards)
    assert theirs
    assert not {card for card in theirs - shown if f'"{card}"' in hands}
    assert not [line for line in said if "Content Security Policy" in line]
    page.close()
    # A spectator has no hands of its own to recall.
    page = _signed_in(browser, live, auth_pb2.ROLE_SPECTATOR)
    page.locator(".lobby tbody tr[data-table]").wait_for()
    assert not page.locator(".recent tr").count()
    page.close()


def _listed(page: Page) -> list[str | None]:
    rows = page.locator(".recent tbody tr[data-hand-id]")
    return [rows.nth(n).get_attribute("data-hand-id") for n in range(rows.count())]


def _recalled(live: Live, player: str) -> list[str]:
    """The player's recent hands as RecallHands gives them, newest first."""
    return [
        h.hand.hand_id for h in reversed(live.client(auth_pb2.ROLE_PLAYER, player).recall_hands())
    ]


def test_a_players_recent_hands_refresh_as_hands_end_in_the_lobby_and_at_the_table(
    browser: Browser, live: Live
) -> None:
    table = _table(live, Game.HOLDEM)
    lobby = _signed_in(browser, live, auth_pb2.ROLE_PLAYER, "p1")
    lobby.locator(".lobby tbody tr[data-table]").wait_for()
    at_table = _signed_in(browser, live, auth_pb2.ROLE_PLAYER, "p1")
    at_table.locator(".lobby tbody tr[data-table]").click()
    at_table.locator(".felt").wait_for()
    for page in (lobby, at_table):
        page.evaluate("window.stayed = true")  # gone, were the page loaded again
        assert not page.locator(".recent tr").count()
    for round in range(2):
        bots = _seat(live, table, 2, random.Random(11 + round))
        # The lobby has seen p1 sit: it watches that table's hands.
        lobby.locator(".lobby td.players", has_text="p1").wait_for()
        _play(bots, 2)
        recalled = _recalled(live, "p1")
        assert len(recalled) >= 2 * (round + 1)
        for page in (lobby, at_table):
            page.wait_for_function(
                "n => document.querySelectorAll('.recent tbody tr[data-hand-id]').length === n",
                arg=len(recalled),
                timeout=15_000,
            )
            assert _listed(page) == recalled
            assert page.evaluate("window.stayed") is True
    assert at_table.url.endswith(f"#/table/{table}")
    lobby.close()
    at_table.close()


def test_an_auditor_pages_through_the_hands_opens_one_and_exports_them(
    browser: Browser, live: Live, tmp_path: Path
) -> None:
    table = _table(live, Game.HOLDEM)
    _play(_seat(live, table, 2, random.Random(3)), AUDITED_PAGE + 2)
    summaries = list(live.client(auth_pb2.ROLE_AUDITOR).list_hands())
    every = [hand.hand_id for hand in summaries]
    assert len(every) > AUDITED_PAGE
    page = _signed_in(browser, live, auth_pb2.ROLE_AUDITOR)
    rows = page.locator(".audit tbody tr[data-hand-id]")
    rows.nth(AUDITED_PAGE - 1).wait_for()
    page.wait_for_timeout(300)  # a second page would have come by now
    assert rows.count() == AUDITED_PAGE
    page.get_by_role("button", name="More hands").click()
    rows.nth(len(every) - 1).wait_for()
    assert [rows.nth(n).get_attribute("data-hand-id") for n in range(rows.count())] == every
    assert page.get_by_role("button", name="More hands").is_hidden()

    # An auditor's replay holds every card: the server's auditor page.
    hands, said = _opened(page, rows.first)
    dealt = {
        str(event.card)
        for _, event in live.room.hand_events(UUID(table), summaries[0].hand_number)
        if isinstance(event, CardDealt) and not event.face_up
    }
    assert dealt
    assert all(f'"{card}"' in hands for card in dealt)
    written = io.StringIO()
    live.client(auth_pb2.ROLE_AUDITOR).export_history(
        replay_pb2.EXPORT_FORMAT_HTML, written, hand_ids=[every[0]]
    )
    assert json.loads(hands) == json.loads(_hands_json(written.getvalue()))
    assert not [line for line in said if "Content Security Policy" in line]

    with page.expect_download() as saving:
        page.get_by_role("button", name="Export the hands listed (feltline log)").click()
    saved = tmp_path / "saved.jsonl"
    saving.value.save_as(saved)
    assert saving.value.suggested_filename == "feltline-log.jsonl"
    header, *records = [json.loads(line) for line in saved.read_text().splitlines()]
    expected, *stored = [
        json.loads(line) for line in live.client(auth_pb2.ROLE_AUDITOR).export_hands(hand_ids=every)
    ]
    assert records == stored
    assert header["selection"] == expected["selection"]  # every hand listed, and no other
    assert header["selection"]["exported_hands"] == len(every)
    page.close()
