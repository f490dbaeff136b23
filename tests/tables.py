"""The tests' tables: every game at its house stakes, which its module in
``feltline.engine.games`` states, so that no test leans on the demo's."""

from __future__ import annotations

from feltline.engine.hand.rules import Game, Rules

TABLES = {game: Rules.house(game) for game in Game}
