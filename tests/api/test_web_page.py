"""docs/api.md's page that lists the tables, with the committed browser
library (clients/web/bundle), runs as written in Debian's chromium against a
real server's web port, from an origin the server lists; from one it does
not list, the browser gets nothing."""

from __future__ import annotations

import functools
import http.server
import re
import textwrap
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser

from feltline.api import convert, tokens
from feltline.api.app import Feltline
from feltline.audit.keys import Signer
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client import Client
from feltline_protos.v1 import auth_pb2
from tests.replay.test_html import browser
from tests.tables import TABLES

from .conftest import open_room

__all__ = ["browser"]  # the fixture: Debian's chromium, as the HTML replayer's tests drive it

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs" / "api.md"
BUNDLE = ROOT / "clients" / "web" / "bundle" / "feltline-web.js"


def _page() -> str:
    """The indented block that starts ``<!doctype html>`` in docs/api.md."""
    found = re.search(r"^\n((?:    <!doctype html>\n)(?:    .*\n)+)", DOCS.read_text(), re.M)
    assert found, "docs/api.md has no page"
    return textwrap.dedent(found[1])


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(params=["connect", "grpc-web"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The page and the bundle, served from a port (an origin) of their own;
    the page as written (Connect), and with gRPC-Web's transport instead."""
    page = _page()
    if request.param == "grpc-web":
        assert page.count("createConnectTransport") == 2
        page = page.replace("createConnectTransport", "createGrpcWebTransport")
    (tmp_path / "tables.html").write_text(page)
    (tmp_path / "feltline-web.js").write_bytes(BUNDLE.read_bytes())
    handler = functools.partial(Quiet, directory=str(tmp_path))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as serving:
        thread = threading.Thread(target=serving.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{serving.server_address[1]}"
        serving.shutdown()


def _serve(tmp_path: Path, origins: list[str]) -> tuple[Feltline, Signer]:
    signer = Signer.generate()
    server = Feltline(
        open_room(tmp_path / "page.db", signer), signer.public_key, web_port=0, web_origins=origins
    ).start()
    admin = Client(server.target, _token(signer, auth_pb2.ROLE_ADMIN))
    for game, name in ((Game.HOLDEM, "the big game"), (Game.STUD_HI_LO, "stud eight")):
        admin.create_table(convert.table_config(TableConfig(TABLES[game], 6)), name)
    admin.close()
    return server, signer


def _token(signer: Signer, role: auth_pb2.Role.ValueType) -> str:
    return tokens.mint(signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1))


def _open(browser: Browser, site: str, server: Feltline, token: str) -> tuple[list[str], list[str]]:
    """The page's list once it is drawn, and what its console said."""
    page = browser.new_page()
    said: list[str] = []
    # The page server has no favicon: the browser's 404 for it is no failure.
    page.on("console", lambda m: None if "404" in m.text else said.append(m.text))
    page.on("pageerror", lambda error: said.append(str(error)))
    query = urlencode({"server": f"http://127.0.0.1:{server.web_port}", "token": token})
    page.goto(f"{site}/tables.html?{query}")
    items: list[str] = []
    for _ in range(100):  # until it draws or fails, at most 10 s
        items = page.locator("#tables li").all_inner_texts()
        if items or said:
            break
        page.wait_for_timeout(100)
    page.close()
    return items, said


def test_the_docs_page_lists_the_tables(browser: Browser, site: str, tmp_path: Path) -> None:
    server, signer = _serve(tmp_path, [site])
    try:
        items, said = _open(browser, site, server, _token(signer, auth_pb2.ROLE_SPECTATOR))
        assert sorted(items) == ["stud eight: 0 of 6 seated", "the big game: 0 of 6 seated"], said
    finally:
        server.stop()
        server.room.close()


def test_from_an_origin_not_listed_the_page_gets_nothing(
    browser: Browser, site: str, tmp_path: Path
) -> None:
    server, signer = _serve(tmp_path, ["https://elsewhere.example"])
    try:
        items, said = _open(browser, site, server, _token(signer, auth_pb2.ROLE_SPECTATOR))
        assert items == []
        assert any("CORS" in line or "Failed to fetch" in line for line in said), said
    finally:
        server.stop()
        server.room.close()
