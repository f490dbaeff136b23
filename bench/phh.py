"""A minimal PHH export of a seven-card stud high-low hand, to compare its
size with what the store keeps.

PHH (https://github.com/uoftcprg/phh-std) is a TOML hand history: the game's
fields, the starting stacks and one short line per action (``d dh p1 AcKd7h``
deals cards to player 1, ``p3 pb`` posts the bring-in, ``p2 cbr 10``
completes, bets or raises to 10, ``p4 cc`` checks or calls, ``p5 f`` folds,
``p1 sm AcKd7h8c9s2d3c`` shows). Only the required fields and the player
names are written: no deck, no seed, no signature, nothing an auditor could
check the deal against.
"""

from __future__ import annotations

from collections.abc import Sequence

from feltline.engine.events import Acted, Action, BoardDealt, CardDealt, Event, HandStarted, Shown

MOVES = {
    Action.FOLD: "f",
    Action.CHECK: "cc",
    Action.CALL: "cc",
    Action.BRING_IN: "pb",
}


def stud_hi_lo(events: Sequence[Event]) -> str:
    started = events[0]
    if not isinstance(started, HandStarted):
        raise ValueError("a hand begins with HandStarted")
    stakes = started.rules.stakes
    name = {s.seat: f"p{n}" for n, s in enumerate(started.seats, 1)}
    actions: list[str] = []
    street: dict[int, str] = {}  # each seat's cards of the street being dealt

    def dealt() -> None:
        actions.extend(f"d dh {name[seat]} {cards}" for seat, cards in street.items())
        street.clear()

    for event in events:
        if isinstance(event, CardDealt):
            street[event.seat] = street.get(event.seat, "") + str(event.card)
            continue
        dealt()
        match event:
            case BoardDealt(cards=cards):
                actions.append("d db " + "".join(str(c) for c in cards))
            case Acted(seat=seat, action=action, total=total):
                move = MOVES.get(action, f"cbr {total}")
                actions.append(f"{name[seat]} {move}")
            case Shown(seat=seat, cards=cards):
                actions.append(f"{name[seat]} sm " + "".join(str(c) for c in cards))
    players = len(started.seats)
    lines = [
        "variant = 'F7S/8'",
        f"antes = {[stakes.ante] * players}",
        f"bring_in = {stakes.bring_in}",
        f"small_bet = {stakes.small_bet}",
        f"big_bet = {stakes.big_bet}",
        f"starting_stacks = {[s.stack for s in started.seats]}",
        "actions = [",
        *(f"  '{action}'," for action in actions),
        "]",
        f"players = {[s.player for s in started.seats]}",
    ]
    return "\n".join(lines) + "\n"
