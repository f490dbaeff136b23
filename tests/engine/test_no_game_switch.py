"""The shared mechanics ask a game's description, never its name: no
shipped module outside ``feltline.engine.games`` compares a game with a
named one (``game is Game.JACKPOTS``, ``game in (Game.HOLDEM, ...)``,
``game == "holdem"``, ``case Game.HOLDEM:``). A format's own words for the
games stay in one table keyed by game, which this does not forbid."""

from __future__ import annotations

import ast
from pathlib import Path

from feltline.engine.hand.rules import Game

ROOT = Path(__file__).parents[2]
SHIPPED = ("core/src", "server/src", "replay/src", "clients/python/src")
GAMES = ROOT / "core/src/feltline/engine/games"
NAMES = {g.name for g in Game}
VALUES = {g.value for g in Game}


def _names_a_game(node: ast.expr | None, aliases: set[str]) -> bool:
    """``Game.HOLDEM``, ``common_pb2.GAME_HOLDEM``, ``"holdem"``, a name
    given one (``_HOLDEM = Game.HOLDEM``), or a collection holding one
    (``DRAW_GAMES = frozenset({...})``, a dict keyed by games)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_game(e, aliases) for e in node.elts)
    if isinstance(node, ast.Dict):
        return any(_names_a_game(k, aliases) for k in node.keys)
    if isinstance(node, ast.Call):
        return any(_names_a_game(a, aliases) for a in node.args)
    if isinstance(node, ast.Name):
        return node.id in aliases
    if isinstance(node, ast.Attribute):
        return node.attr in NAMES or node.attr.removeprefix("GAME_") in NAMES
    return isinstance(node, ast.Constant) and node.value in VALUES


def game_switches(source: str) -> list[int]:
    """The lines of ``source`` that compare something with a named game."""
    tree = ast.parse(source)
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and _names_a_game(node.value, aliases):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            aliases |= {t.id for t in targets if isinstance(t, ast.Name)}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
            _names_a_game(e, aliases) for e in (node.left, *node.comparators)
        ):
            lines.append(node.lineno)
        if isinstance(node, ast.MatchValue) and _names_a_game(node.value, aliases):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_check_finds_each_way_to_switch_on_a_game() -> None:
    source = (
        "if rules.game is Game.JACKPOTS: pass\n"
        "if game in (Game.DRAW_DECLARE, Game.JACKPOTS): pass\n"
        "ok = game != common_pb2.GAME_HOLDEM\n"
        'ok = args.game == "stud-hi-lo"\n'
        "match game:\n"
        "    case Game.HOLDEM: pass\n"
        "names = {Game.HOLDEM: 'T'}\n"  # a keyed table: allowed
        "ok = rules.variant.blinds and game is not None\n"
        "_STUD = Game.STUD_HI_LO\n"
        "if game is _STUD: pass\n"
        "DRAW_GAMES = frozenset({Game.DRAW_DECLARE, Game.JACKPOTS})\n"
        "if game not in DRAW_GAMES: pass\n"
    )
    assert game_switches(source) == [1, 2, 3, 4, 6, 10, 12]


def test_no_shipped_module_outside_the_games_switches_on_a_game() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for top in SHIPPED
        for path in sorted((ROOT / top).rglob("*.py"))
        if GAMES not in path.parents and not path.name.endswith(("_pb2.py", "_pb2_grpc.py"))
        for line in game_switches(path.read_text())
    ]
    assert found == []
