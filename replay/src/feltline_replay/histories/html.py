"""The HTML replayer: one self-contained page (CSS and script inline, no
network) to step through a hand or a set of hands in a browser.

Each hand is folded once by :func:`feltline_replay.show.frames`, the
terminal replayer's own stepping, so the page shows each step exactly as
``feltline-replay show`` does for the same viewer: a card the viewer may not
see never reaches the page. Each hand is checked on its own records by the
verifier (:func:`feltline_replay.verify.check_hand`) and the result shown
beside it; a non-auditor's page names the failed checks without the cards
their details could hold.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from functools import cache, partial
from importlib.resources import files
from typing import Any

from feltline.engine.games import VARIANTS
from feltline.engine.hand.events import PotAwarded
from feltline_replay.histories.format import Format, Unwritable
from feltline_replay.histories.hands import LoggedHand
from feltline_replay.show import Frame, Viewer, frames, steps
from feltline_replay.verify import check_hand

_MARK = "/*HANDS*/"

CHECKED = (
    "its chain, signatures and seal, the seed against its commitment, the deck and every "
    "card against the seed, and every action, pot and payout played again by the engine"
)
SCOPE = (
    "This hand was checked on its own records. Its tie to its table (hand numbers, "
    "starting stacks, the result the table took) is checked by feltline-replay verify "
    "over the whole log."
)


@cache
def _page() -> tuple[str, str]:
    """The page around the hands' JSON, read once from the package."""
    text = files("feltline_replay.histories").joinpath("replayer.html").read_text("utf-8")
    before, after = text.split(_MARK)
    return before, after


@cache
def inline_hashes() -> tuple[str, str]:
    """The Content-Security-Policy sources (``'sha256-...'``) of the page's
    own script and style, as ``script-src`` and ``style-src`` name them.

    A page that fetches a replayer and opens it (a ``blob:`` document)
    passes its own policy on to it, and a strict one would block the
    replayer's inline code: it allows these two by hash, and nothing else
    inline. They hash the page around the hands, which never changes with
    the hands."""
    before, after = _page()
    text = before + after

    def hashed(source: str) -> str:
        digest = hashlib.sha256(source.encode("utf-8")).digest()
        return f"'sha256-{base64.b64encode(digest).decode()}'"

    (script,) = re.findall(r"<script>(.*?)</script>", text, re.DOTALL)
    (style,) = re.findall(r"<style>(.*?)</style>", text, re.DOTALL)
    return hashed(script), hashed(style)


def refuses(hand: LoggedHand) -> str | None:
    """Every hand is written, given the records its verdict is checked on."""
    if not hand.records:
        return "HTML: the hand's records are needed to check it"
    return None


def _label(viewer: Viewer) -> str:
    return viewer.role if viewer.seat is None else f"seat {viewer.seat}"


def _frame(shot: Frame) -> dict[str, Any]:
    return {
        "said": shot.said,
        "board": shot.board,
        "pot": shot.pot,
        "seats": [
            {
                "seat": s.seat,
                "player": s.player,
                "stack": s.stack,
                "bet": s.bet,
                "cards": s.cards,
                "folded": s.folded,
                "to_act": s.to_act,
            }
            for s in shot.seats
        ],
    }


def _check(hand: LoggedHand, key: str | None) -> dict[str, Any]:
    """The verifier's findings; their details only for an auditor, since a
    failed card check names the card. Given the operator's public ``key``,
    a hand signed by any other fails: without it, the page can only name
    the key that signed it."""
    found = check_hand(list(hand.records))
    detailed = hand.viewer.role == "auditor"
    failures = []
    for check, position, expected, what in found.failures:
        failure: dict[str, Any] = {"check": check, "position": position}
        if detailed:
            failure |= {"expected": expected, "found": what}
        failures.append(failure)
    others = sorted(set(found.signers) - {key}) if key is not None else []
    if others:
        failures.append({"check": "key", "position": None, "expected": key, "found": others[0]})
    return {
        "ok": not failures,
        "checked": CHECKED,
        "scope": SCOPE,
        "signers": sorted(found.signers),
        "key": key,
        "failures": failures,
    }


def _winners(hand: LoggedHand) -> list[dict[str, Any]]:
    """Who won what, with which hand, and the step each pot is awarded at:
    every viewer sees the pots awarded."""
    at = {n: step for step, indexes in enumerate(steps(hand.played)) for n in indexes}
    return [
        {"step": at[n], "seat": s.seat, "amount": s.amount, "hand": s.hand, "half": s.half}
        for n, event in enumerate(hand.played)
        if isinstance(event, PotAwarded)
        for s in event.shares
    ]


def _rotation(hand: LoggedHand) -> str | None:
    """A mixed table's hand: "mixed table: razz, hand 2 of 4; next seven-card stud"."""
    turn = hand.turn
    if turn is None:
        return None
    game, after = VARIANTS[turn.game].title, VARIANTS[turn.next].title
    return f"mixed table: {game}, hand {turn.hand} of {turn.hands}; next {after}"


def _stage(hand: LoggedHand) -> str | None:
    """A tournament's hand: "Tournament Turbo, level 3, blinds 20/40"."""
    stage = hand.stage
    if stage is None:
        return None
    stakes = hand.started.rules.stakes
    if stakes.small_blind or stakes.big_blind:
        stakes_said = f"blinds {stakes.small_blind}/{stakes.big_blind}"
    else:
        stakes_said = f"bets {stakes.small_bet}/{stakes.big_bet}"
    if stakes.ante:
        stakes_said += f", ante {stakes.ante}"
    return f"Tournament {stage.name}, level {stage.level}, {stakes_said}"


def data(hand: LoggedHand, key: str | None = None) -> dict[str, Any]:
    """What the page knows of one hand: every frame as the viewer sees it."""
    reason = refuses(hand)
    if reason is not None:
        raise Unwritable(reason)
    shots = [_frame(f) for f in frames(hand.played, hand.viewer)]
    started = hand.started
    seated = max(s.seat for s in started.deal.seats)
    return {
        "id": hand.id,
        "table": hand.table.name if hand.table else None,
        "table_id": hand.table.id if hand.table else None,
        "seats": max(hand.table.seats if hand.table else 0, seated),
        "number": hand.number,
        "at": datetime.fromtimestamp(hand.at, UTC).isoformat() if hand.at is not None else None,
        "title": f"{started.rules.game} {started.rules.stakes.structure}",
        "rotation": _rotation(hand),
        "tournament": _stage(hand),
        "button": started.deal.button if started.rules.variant.button_shown else None,
        "viewer": _label(hand.viewer),
        "own": hand.viewer.seat,
        "winners": _winners(hand),
        "check": _check(hand, key),
        "frames": shots,
    }


def _json(value: object) -> str:
    """JSON safe inside a script element: no ``<``, ``>`` or ``&`` that
    could close it (they occur only inside strings, so escaping keeps it JSON)."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def many(hands: Iterable[LoggedHand], key: str | None = None) -> Iterator[str]:
    """One page for all the hands, in pieces as each is folded."""
    before, after = _page()
    yield before + "["
    for n, hand in enumerate(hands):
        yield ("," if n else "") + _json(data(hand, key))
    yield "]" + after


def one(hand: LoggedHand, key: str | None = None) -> str:
    """A page for one hand (``convert --each``)."""
    before, after = _page()
    return before + "[" + _json(data(hand, key)) + "]" + after


FORMAT = Format("html", "a replayer page for a browser", ".html", one, many, ".html", refuses)


def verified_by(key: str) -> Format:
    """The format checking every hand's signatures against the operator's
    public ``key`` (64 hex digits)."""
    return replace(FORMAT, one=partial(one, key=key), many=partial(many, key=key))
