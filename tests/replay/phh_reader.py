"""Feltline's own reader of the PHH it writes, for every game, those
PokerKit cannot replay included: it reads a file back, from the file
alone, into the actions, draws and declarations of the hand and each
player's chips at the end (what they started with, less what they put in,
plus any uncalled bet handed back and what they won), so a test compares
them with the hand's events and the file's ``finishing_stacks``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field

SKIPPED = "not asked by Feltline"
"""The comment on a check written only for PokerKit's sake."""


@dataclass
class Read:
    """A PHH file read back; seats are Feltline's (the ``seats`` field)."""

    variant: str
    actions: list[tuple[int, str, int]] = field(default_factory=list)
    """(seat, ``f`` / ``cc`` / ``pb`` / ``cbr``, the total of a ``cbr``)."""
    draws: list[tuple[int, str]] = field(default_factory=list)
    declarations: dict[int, str] = field(default_factory=dict)
    stacks: dict[int, int] = field(default_factory=dict)
    """Each seat's chips at the end, added up from the file."""
    written: dict[int, int] = field(default_factory=dict)
    """The file's ``finishing_stacks``."""
    user: dict[str, object] = field(default_factory=dict)


def read(text: str) -> Read:
    fields = tomllib.loads(text)
    seats: list[int] = fields["seats"]
    players = len(seats)
    done = Read(fields["variant"])
    done.user = {k: v for k, v in fields.items() if k.startswith("_")}
    stacks = dict(zip(seats, fields["starting_stacks"], strict=True))
    bets = dict.fromkeys(seats, 0)
    for seat, ante in zip(seats, fields["antes"], strict=True):
        stacks[seat] -= min(ante, stacks[seat])
    blinds = fields.get("blinds_or_straddles", [0] * players)
    if players == 2:  # PHH lists the blinds reversed heads up
        blinds = blinds[::-1]
    for seat, blind in zip(seats, blinds, strict=True):
        posted = min(blind, stacks[seat])
        stacks[seat] -= posted
        bets[seat] += posted
    acted = False
    level = max(blinds)  # a short blind does not shrink the amount to call (RULES.md)

    def collect() -> None:
        """A betting round ends: the uncalled part of the top bet goes back."""
        nonlocal acted, level
        ranked = sorted(bets.values(), reverse=True)
        if len(ranked) > 1 and ranked[0] > ranked[1]:
            top = next(s for s, b in bets.items() if b == ranked[0])
            stacks[top] += ranked[0] - ranked[1]
        bets.update(dict.fromkeys(seats, 0))
        acted, level = False, 0

    for line in fields["actions"]:
        if SKIPPED in line:
            continue
        words = line.split("#")[0].split()
        if words[0] == "d":
            if acted:
                collect()
            continue
        seat = seats[int(words[0][1:]) - 1]
        move = words[1]
        if move == "sd":  # the draw ends a betting round
            if acted:
                collect()
            done.draws.append((seat, words[2] if len(words) > 2 else ""))
            continue
        if move == "sm":
            continue
        acted = True
        match move:
            case "cc":
                put = min(level - bets[seat], stacks[seat])
            case "pb":
                put = min(fields["bring_in"], stacks[seat])
                level = fields["bring_in"]
            case "cbr":
                put = int(words[2]) - bets[seat]
                level = max(level, int(words[2]))
            case _:
                put = 0
        stacks[seat] -= put
        bets[seat] += put
        done.actions.append((seat, move, bets[seat] if move == "cbr" else 0))
    collect()
    for seat, won in zip(seats, fields["_won"], strict=True):
        stacks[seat] += won
    for seat, said in zip(seats, fields.get("_declarations", []), strict=False):
        if said:
            done.declarations[seat] = said
    done.stacks = stacks
    done.written = dict(zip(seats, fields["finishing_stacks"], strict=True))
    return done
