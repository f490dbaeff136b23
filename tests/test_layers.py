"""The API calls the cardroom and nothing below it (DESIGN.md, Layers): no
module of ``feltline.api`` imports the store, reaches the Room's streams,
or catches the Room up itself (a read that must not lag asks the Room for
it ``fresh``)."""

from __future__ import annotations

import ast
from pathlib import Path

API = Path(__file__).parents[1] / "server" / "src" / "feltline" / "api"


def below_the_cardroom(source: str) -> list[str]:
    """Where ``source`` reaches under the cardroom: one line each."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            names = []
        found += [f"{node.lineno}: imports {n}" for n in names if n.startswith("feltline.store")]
        if isinstance(node, ast.Attribute) and node.attr == "streams":
            found.append(f"{node.lineno}: reads .streams")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "look"
        ):
            found.append(f"{node.lineno}: calls .look()")
    return sorted(found, key=lambda line: int(line.split(":")[0]))


def test_the_check_finds_each_way_under_the_cardroom() -> None:
    source = (
        "from feltline.store.faults import Unreadable\n"
        "import feltline.store.rows\n"
        "key = room.streams.signer\n"
        "room.look()\n"
    )
    assert below_the_cardroom(source) == [
        "1: imports feltline.store.faults",
        "2: imports feltline.store.rows",
        "3: reads .streams",
        "4: calls .look()",
    ]


def test_the_api_calls_the_cardroom_and_nothing_below() -> None:
    modules = sorted(API.glob("*.py"))
    assert len(modules) > 10
    found = {
        p.name: below
        for p in modules
        if (below := below_the_cardroom(p.read_text(encoding="utf-8")))
    }
    assert found == {}
