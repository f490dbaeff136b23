"""A hand's events as the lines of a hand history a person reads."""

from __future__ import annotations

from feltline.engine.cards.card import format_cards
from feltline.engine.hand.events import (
    Acted,
    Action,
    BetsCollected,
    BoardDealt,
    CardDealt,
    ContributionCommitted,
    ContributionRevealed,
    ContributionsOpened,
    Deal,
    DeckShuffled,
    DeclarationsRevealed,
    Declared,
    Drew,
    Event,
    HandEnded,
    HandStarted,
    PassedOut,
    Posted,
    PotAwarded,
    RevealsOpened,
    SeedDrawn,
    Shown,
    StreetBegan,
    StubReshuffled,
)

VERBS = {
    Action.FOLD: "folds",
    Action.CHECK: "checks",
    Action.CALL: "calls",
    Action.BET: "bets",
    Action.RAISE: "raises",
    Action.BRING_IN: "brings in",
    Action.COMPLETE: "completes",
}
"""Each action as the line says it: ``seat 2 brings in 3``."""


def line(event: Event) -> str | None:
    """One line for an event, or None for one a reader need not see."""
    match event:
        case HandStarted(rules=rules, deal=Deal(button=button, seats=seats), commitment=commitment):
            players = ", ".join(f"seat {s.seat} ({s.stack})" for s in seats)
            return (
                f"{rules.game} {rules.stakes.structure}, button at seat {button}: {players}\n"
                f"  deck committed: sha256 {commitment[:16]}..."
            )
        case DeckShuffled() | StubReshuffled() | SeedDrawn() | ContributionsOpened():
            return None
        case ContributionCommitted(seat=seat):
            return f"seat {seat} commits to its share of the deck"
        case RevealsOpened(seats=seats) if not seats:
            return "nobody committed in time: the deck comes from the server's seed alone"
        case RevealsOpened():
            return None
        case ContributionRevealed(seat=seat, contribution=contribution):
            return f"seat {seat} reveals {contribution.hex()[:16]}..."
        case StreetBegan(name=name):
            return f"-- {name} --"
        case Posted(seat=seat, forced=forced, amount=amount, all_in=all_in):
            return f"seat {seat} posts {forced} {amount}" + (" (all in)" if all_in else "")
        case CardDealt(seat=seat, card=card, face_up=face_up):
            shown = str(card) if card is not None else "??"
            return f"seat {seat} gets {shown}" + ("" if face_up else " (down)")
        case BoardDealt(cards=cards):
            return f"board: {format_cards(cards)}"
        case Acted(seat=seat, action=action, amount=amount, total=total, all_in=all_in):
            what = {"bet": f" to {total}", "raise": f" to {total}", "complete": f" to {total}"}
            text = f"seat {seat} {VERBS[action]}" + what.get(action.value, "")
            if action.value in ("call", "bring-in"):
                text += f" {amount}"
            return text + (" (all in)" if all_in else "")
        case BetsCollected(returned_to=seat, returned=returned, pot=pot):
            back = f"; {returned} uncalled returned to seat {seat}" if seat is not None else ""
            return f"pot {pot}{back}"
        case Drew(seat=seat, count=count):
            return f"seat {seat} draws {count}" if count else f"seat {seat} stands pat"
        case Declared(seat=seat, timed_out=timed_out):
            return f"seat {seat} " + ("runs out of time and folds" if timed_out else "declares")
        case DeclarationsRevealed(choices=choices):
            return "declarations: " + ", ".join(f"seat {s} {c}" for s, c in choices)
        case Shown(seat=seat, cards=cards, set_aside=aside):
            extra = f" (set aside: {format_cards(aside)})" if aside else ""
            return f"seat {seat} shows {format_cards(cards)}{extra}"
        case PotAwarded(index=index, amount=amount, rake=rake, shares=shares):
            name = "main pot" if index == 0 else f"side pot {index}"
            won = "; ".join(
                f"seat {s.seat} wins {s.amount}" + (f" with {s.hand}" if s.hand else "")
                for s in shares
            )
            return f"{name} {amount}" + (f" (rake {rake})" if rake else "") + f": {won}"
        case PassedOut():
            return "nobody opens: the pot carries to the next deal"
        case HandEnded(stacks=stacks, seed=seed):
            final = ", ".join(f"seat {s}: {chips}" for s, chips in stacks)
            revealed = f"\n  seed revealed: {seed.hex()[:16]}..." if seed else ""
            return f"stacks: {final}{revealed}"
    return None
