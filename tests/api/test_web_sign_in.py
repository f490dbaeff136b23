"""Signing in to the web table by a link, in Debian's chromium: a link's
token signs the page in; an expired or altered one is turned away with the
server's reason, forgotten, and the page asks for another."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from playwright.sync_api import Browser

from feltline import cli
from feltline.api import tokens
from feltline.engine.hand.rules import Game
from feltline_protos.v1 import auth_pb2, auth_pb2_grpc, common_pb2, tables_pb2, tables_pb2_grpc
from tests.replay.test_html import browser

from .conftest import Live, serving
from .test_live import _play, _seat, _table
from .test_web_table import SIZES

__all__ = ["browser"]  # the fixture: Debian's chromium, as the HTML replayer's tests drive it


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with serving(tmp_path / "web.db", web=True) as running:
        yield running


def _altered(token: str) -> str:
    """The token with one character of its signature changed."""
    last = token[-2]
    return token[:-2] + ("A" if last != "A" else "B") + token[-1]


@pytest.mark.parametrize(
    ("link", "reason"),
    [
        ("good", ""),
        ("expired", "the token expired at "),
        ("altered", "the token's signature does not verify"),
    ],
)
def test_a_link_signs_in_and_a_bad_one_is_turned_away_saying_why(
    browser: Browser, live: Live, link: str, reason: str
) -> None:
    _table(live, Game.HOLDEM)
    now = datetime.now(UTC)
    born = now - timedelta(hours=2) if link == "expired" else now
    token = tokens.mint(
        live.signer, auth_pb2.ROLE_PLAYER, now=born, ttl=timedelta(hours=1), player_id="alice"
    )
    token = _altered(token) if link == "altered" else token
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{live.server.web_port}/#token={token}")
    if not reason:
        page.locator(".lobby tbody tr[data-table]").wait_for()
        assert page.evaluate("sessionStorage.getItem('feltline-token')") == token
        page.close()
        return
    page.locator("input[aria-label=token]").wait_for()
    said = page.locator("#status.error").inner_text()
    assert reason in said
    assert "open a new link" in said
    assert not page.locator(".lobby").count()
    # Forgotten: a reload asks again rather than trying it once more.
    assert page.evaluate("sessionStorage.getItem('feltline-token')") is None
    # A good link opened in the same tab signs it in.
    good = tokens.mint(live.signer, auth_pb2.ROLE_SPECTATOR, now=now, ttl=timedelta(hours=1))
    page.goto(f"http://127.0.0.1:{live.server.web_port}/#token={good}")
    page.locator(".lobby tbody tr[data-table]").wait_for()
    assert not page.locator("#status.error").count()
    page.close()


def test_the_invite_commands_link_signs_the_player_in(
    browser: Browser,
    live: Live,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = _table(live, Game.HOLDEM)
    monkeypatch.setattr(cli, "_key", lambda _: live.signer)  # the server's key, not a file's
    url = f"http://127.0.0.1:{live.server.web_port}"
    assert cli.main(["invite", "alice", "--url", url, "--ttl", "600"]) == 0
    link = capsys.readouterr().out.splitlines()[-1]  # after the server's log lines
    assert link.startswith(f"{url}/#token=")
    invite = link.partition("#token=")[2]
    assert tokens.verify(invite, live.signer.public_key, now=datetime.now(UTC)).invite
    # The invite's token does nothing but sign in.
    with grpc.insecure_channel(live.server.target) as channel:
        tables = tables_pb2_grpc.TableServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            tables.ListTables(
                tables_pb2.ListTablesRequest(), metadata=[("authorization", f"Bearer {invite}")]
            )
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert "an invite's token only signs in" in str(refused.value.details())
    page = browser.new_page()
    page.goto(link)
    page.locator(".lobby tbody tr[data-table]").click()
    # Signed in as alice, a player: the page offers her the free seats.
    page.get_by_role("button", name="seat 1").wait_for()
    # The page keeps a session's token, not the link's.
    kept = page.evaluate("sessionStorage.getItem('feltline-token')")
    assert kept != invite
    caller = tokens.verify(kept, live.signer.public_key, now=datetime.now(UTC))
    assert (caller.role, caller.player_id, caller.invite) == (auth_pb2.ROLE_PLAYER, "alice", False)
    assert caller.expires > datetime.now(UTC) + timedelta(hours=11)
    assert page.url.endswith(f"#/table/{table}")
    page.close()
    # The link is used: opened again, it is turned away, saying so.
    page = browser.new_page()
    page.goto(link)
    page.locator("#status.error", has_text="this invite link was used already").wait_for()
    assert page.evaluate("sessionStorage.getItem('feltline-token')") is None
    assert not page.locator(".lobby").count()
    page.close()
    # And a session's token is no invite to exchange again.
    with grpc.insecure_channel(live.server.target) as channel:
        sessions = auth_pb2_grpc.SessionServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            sessions.CreateSession(
                auth_pb2.CreateSessionRequest(), metadata=[("authorization", f"Bearer {kept}")]
            )
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert "a session's already" in str(refused.value.details())


def test_an_operators_link_mints_chips_and_closes_tables_and_a_players_offers_neither(
    browser: Browser, live: Live
) -> None:
    table = _table(live, Game.HOLDEM)
    now = datetime.now(UTC)
    player = tokens.mint(
        live.signer, auth_pb2.ROLE_PLAYER, now=now, ttl=timedelta(hours=1), player_id="alice"
    )
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{live.server.web_port}/#token={player}")
    page.locator(".lobby tbody tr[data-table]").wait_for()
    assert not page.locator(".floor").count()
    assert not page.get_by_role("button", name="Close").count()
    page.close()

    admin = tokens.mint(live.signer, auth_pb2.ROLE_ADMIN, now=now, ttl=timedelta(hours=1))
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{live.server.web_port}/#token={admin}")
    page.locator(".lobby tbody tr[data-table]").wait_for()
    page.locator(".mint-amount").fill("750")
    page.locator(".mint-player").fill("alice")
    page.get_by_role("button", name="Mint").click()
    page.locator(".minted", has_text="alice has 750 chips").wait_for()
    assert live.client(auth_pb2.ROLE_ADMIN).get_account("alice").balance == 750
    # The server's refusal of a bad player id is shown, and mints nothing.
    page.locator(".mint-player").fill("not a name")
    page.get_by_role("button", name="Mint").click()
    page.locator("#status.error", has_text="player_id").wait_for()
    page.get_by_role("button", name="Close").click()
    page.locator(".lobby td.empty").wait_for()
    closed = live.client(auth_pb2.ROLE_ADMIN).get_table(table)
    assert closed.state == tables_pb2.TABLE_STATE_CLOSED
    assert page.url.endswith("#/")  # closing did not also open the table
    page.close()


def test_an_auditors_link_lists_finished_hands_and_verifies_each(
    browser: Browser, live: Live
) -> None:
    table = _table(live, Game.HOLDEM)
    played = _play(_seat(live, table, 2, random.Random(5)), 2)
    now = datetime.now(UTC)
    auditor = tokens.mint(live.signer, auth_pb2.ROLE_AUDITOR, now=now, ttl=timedelta(hours=1))
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{live.server.web_port}/#token={auditor}")
    rows = page.locator(".audit tbody tr[data-hand-id]")
    rows.nth(len(played) - 1).wait_for()
    assert rows.count() >= len(played)
    first = rows.first
    assert f"#{min(played)}" in first.inner_text()
    first.get_by_role("button", name="Verify").click()
    first.locator(".verified", has_text="ok (key ").wait_for()
    page.close()
    # A spectator's lobby has no such part.
    spectator = tokens.mint(live.signer, auth_pb2.ROLE_SPECTATOR, now=now, ttl=timedelta(hours=1))
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{live.server.web_port}/#token={spectator}")
    page.locator(".lobby tbody tr[data-table]").wait_for()
    assert not page.locator(".audit").count()
    page.close()


def test_an_operators_link_opens_a_table_and_a_bad_one_is_the_servers_refusal(
    browser: Browser, live: Live, tmp_path: Path
) -> None:
    admin = tokens.mint(
        live.signer, auth_pb2.ROLE_ADMIN, now=datetime.now(UTC), ttl=timedelta(hours=1)
    )
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{live.server.web_port}/#token={admin}")
    form = page.locator(".opening")
    # Buy-ins the wrong way round: the server's words, and no table.
    form.get_by_label("table name").fill("Friday stud")
    form.get_by_label("game").select_option(label="stud")
    form.get_by_label("structure").select_option(label="fixed limit")
    for label, value in (("small blind", ""), ("big blind", ""), ("small bet", "10")):
        form.get_by_label(label, exact=True).fill(value)
    for label, value in (("big bet", "20"), ("ante", "2"), ("bring-in", "3"), ("seats", "7")):
        form.get_by_label(label, exact=True).fill(value)
    form.get_by_label("minimum buy-in").fill("500")
    form.get_by_label("maximum buy-in").fill("100")
    form.get_by_role("button", name="Open table").click()
    page.locator("#status.error", has_text="min_buy_in must not exceed max_buy_in").wait_for()
    assert not list(live.client(auth_pb2.ROLE_ADMIN).list_tables())
    # Put right, it opens: the lobby lists it, and the server holds what was asked.
    form.get_by_label("maximum buy-in").fill("1000")
    form.get_by_role("button", name="Open table").click()
    page.locator(".lobby tbody tr[data-table]", has_text="Friday stud").wait_for()
    assert not page.locator("#status.error").count()
    (opened,) = live.client(auth_pb2.ROLE_ADMIN).list_tables()
    assert opened.display_name == "Friday stud"
    assert opened.config.rules.game == common_pb2.GAME_STUD
    stakes = opened.config.rules.stakes
    assert (stakes.small_bet, stakes.big_bet, stakes.ante, stakes.bring_in) == (10, 20, 2, 3)
    assert (opened.config.seats, opened.config.min_buy_in, opened.config.max_buy_in) == (
        7,
        500,
        1000,
    )
    assert opened.config.action_clock.seconds == 30
    # The operator's lobby fits a phone's width as a desktop's: kept as artefacts.
    artefacts = Path(os.environ.get("FELTLINE_ARTEFACTS", tmp_path))
    artefacts.mkdir(parents=True, exist_ok=True)
    for name, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(artefacts / f"web-operator-{name}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, name
    page.close()


def test_an_invites_token_pasted_is_exchanged_once_as_a_links_is(
    browser: Browser, live: Live
) -> None:
    _table(live, Game.HOLDEM)
    invite = tokens.mint(
        live.signer,
        auth_pb2.ROLE_PLAYER,
        now=datetime.now(UTC),
        ttl=timedelta(minutes=10),
        player_id="alice",
        invite=True,
    )
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{live.server.web_port}/")
    page.locator("input[aria-label=token]").fill(invite)
    page.get_by_role("button", name="Enter").click()
    page.locator(".lobby tbody tr[data-table]").wait_for()
    kept = page.evaluate("sessionStorage.getItem('feltline-token')")
    assert kept != invite
    caller = tokens.verify(kept, live.signer.public_key, now=datetime.now(UTC))
    assert (caller.player_id, caller.invite) == ("alice", False)
    page.close()
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{live.server.web_port}/")
    page.locator("input[aria-label=token]").fill(invite)
    page.get_by_role("button", name="Enter").click()
    page.locator("#status.error", has_text="this invite link was used already").wait_for()
    assert page.evaluate("sessionStorage.getItem('feltline-token')") is None
    page.close()
