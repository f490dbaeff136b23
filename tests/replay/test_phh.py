"""PHH exports replayed by PokerKit 0.7.7, one action at a time and without
its repairs (it would otherwise fold or check for a player whose line it
refuses): hundreds of random hands per variant code, short stacks, all-ins
and side pots among them, and the real hands of the session's store. Each
must reach Feltline's final stacks, unless :mod:`tests.replay.pokerkit_rules`
predicts a docs/rules.md difference: then PokerKit must refuse exactly the
predicted action, and nothing before it."""

from __future__ import annotations

import io
import re
import warnings
from collections import Counter
from contextlib import redirect_stdout
from dataclasses import dataclass, replace

import pytest
from pokerkit import HandHistory, State
from pokerkit.notation import parse_action

from feltline.engine.events import PotAwarded
from feltline.engine.rules import Game, Structure
from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.histories import LoggedHand, Unwritable, logged_hands, phh
from feltline_replay.show import Viewer

from .conftest import Played
from .pokerkit_rules import (
    COVERED,
    HALF_BET,
    LOW_CARD_ALL_IN,
    NO_LIMIT_SHORT,
    SB_OPTION,
    SHORT_FORCED,
    UNCAPPED,
    forecast,
)
from .random_hands import random_hands

HANDS = 300
VOLUNTARY = re.compile(r"^p\d+ (f|cc|cbr \d+|pb)$")


@dataclass
class Replayed:
    refused_at: int | None
    why: str
    state: State
    history: HandHistory


def replay(hand: LoggedHand, text: str) -> Replayed:
    history = HandHistory.loads(text)
    state = history.create_state()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns of a fold it would not make
        for at, action in enumerate(history.actions):
            while state.can_burn_card():
                state.burn_card("??")
            try:
                parse_action(state, action, history.parse_value)
            except ValueError as e:
                return Replayed(at, str(e), state, history)
    return Replayed(None, "", state, history)


def replay_to(text: str, line: int) -> State:
    """PokerKit's state after the given action line."""
    history = HandHistory.loads(text)
    state = history.create_state()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for action in history.actions[: line + 1]:
            while state.can_burn_card():
                state.burn_card("??")
            parse_action(state, action, history.parse_value)
    return state


def order_of(text: str) -> list[int]:
    """The Feltline seat of each PHH player, from the file's ``seats``."""
    return [int(s) for s in re.findall(r"\d+", text.split("seats = ")[1].splitlines()[0])]


def voluntary_lines(history: HandHistory) -> list[int]:
    """The index of each line that is one of Feltline's own actions."""
    return [n for n, line in enumerate(history.actions) if VOLUNTARY.match(line)]


def check(hand: LoggedHand, counts: Counter[str]) -> None:
    text = phh.one(hand)
    done = replay(hand, text)
    expected = forecast(hand.played)
    if expected.refusal is not None and expected.refusal.stack is not None:
        line = voluntary_lines(done.history)[expected.refusal.acted]
        assert done.refused_at is None or done.refused_at > line, (done.why, text)
        upto = replay_to(text, line)
        index = order_of(text).index(expected.refusal.seat)
        assert upto.stacks[index] != expected.refusal.stack, (expected.refusal, text)
        counts[expected.refusal.rule] += 1
        return
    if expected.refusal is not None:
        line = voluntary_lines(done.history)[expected.refusal.acted]
        assert done.refused_at == line, (
            f"{expected.refusal.rule}: PokerKit should refuse action {line} "
            f"({done.history.actions[line]}), refused {done.refused_at} ({done.why})\n{text}"
        )
        counts[expected.refusal.rule] += 1
        return
    assert done.refused_at is None, (
        f"refused {done.history.actions[done.refused_at]}: {done.why}\n{text}"
    )
    assert not done.state.status, f"PokerKit's hand is not over\n{text}"
    final = list(done.state.stacks)
    wanted = done.history.finishing_stacks
    assert wanted is not None
    if final == wanted:
        counts["same stacks"] += 1
        return
    # PokerKit is given no rake (it would rake pieces of pots it merges):
    # the house's take comes out of the stacks of raked pots' winners.
    order = order_of(text)
    moved = {order[i] for i, (a, b) in enumerate(zip(final, wanted, strict=True)) if a != b}
    raked = {s.seat for e in hand.events if isinstance(e, PotAwarded) and e.rake for s in e.shares}
    assert sum(final) - sum(wanted) == hand.ended.rake, f"stacks {final} != {wanted}\n{text}"
    allowed = raked | expected.odd_chips | expected.lowless
    assert moved <= allowed, f"stacks {final} != {wanted}\n{text}"
    if moved <= raked:
        counts["same stacks less the rake"] += 1
    else:
        counts["odd chips" if moved <= raked | expected.odd_chips else "PokerKit's low half"] += 1


@pytest.mark.parametrize(
    ("game", "structure", "code", "seed"),
    [
        (Game.HOLDEM, Structure.NO_LIMIT, "NT", 1),
        (Game.HOLDEM, Structure.FIXED_LIMIT, "FT", 2),
        (Game.STUD_HI_LO, Structure.FIXED_LIMIT, "F7S/8", 3),
    ],
)
def test_pokerkit_replays_random_hands_to_feltlines_stacks(
    game: Game, structure: Structure, code: str, seed: int
) -> None:
    counts: Counter[str] = Counter()
    hands = 0
    for hand in random_hands(game, structure, HANDS, seed):
        assert phh.refuses(hand) is None
        assert f'variant = "{code}"' in phh.one(hand)
        check(hand, counts)
        hands += 1
    assert hands == HANDS
    # Most hands need no difference at all; the rest are named, none skipped.
    assert counts["same stacks"] >= HANDS * 3 // 4, counts
    assert sum(counts.values()) == HANDS, counts


@pytest.mark.parametrize(
    ("game", "structure"),
    [(Game.HOLDEM, Structure.NO_LIMIT), (Game.STUD_HI_LO, Structure.FIXED_LIMIT)],
)
def test_a_spectators_phh_hides_the_hole_cards_and_still_replays(
    game: Game, structure: Structure
) -> None:
    counts: Counter[str] = Counter()
    spectator = Viewer("spectator")
    for whole in random_hands(game, structure, 100, 12):
        hand = replace(
            whole, events=tuple(spectator.sees(e) for e in whole.played), viewer=spectator
        )
        assert "????" in phh.one(hand)
        check(hand, counts)
    assert counts["same stacks"] >= 75, counts


def test_the_differences_are_met_and_refused_where_predicted() -> None:
    """Each docs/rules.md difference the random players reach is seen at least
    once across the codes, so the predictions are exercised."""
    counts: Counter[str] = Counter()
    for game, structure in (
        (Game.HOLDEM, Structure.NO_LIMIT),
        (Game.HOLDEM, Structure.FIXED_LIMIT),
        (Game.STUD_HI_LO, Structure.FIXED_LIMIT),
    ):
        for seed in (7, 8):
            for hand in random_hands(game, structure, 300, seed):
                check(hand, counts)
    for rule in (
        SB_OPTION,
        HALF_BET,
        COVERED,
        UNCAPPED,
        SHORT_FORCED,
        LOW_CARD_ALL_IN,
        NO_LIMIT_SHORT,
        "odd chips",
    ):
        assert counts[rule] > 0, (rule, counts)


def test_the_real_hands_of_a_store_replay_in_pokerkit(played: Played) -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["export", "--store", str(played.path)]) == 0
    _, records = log.read(io.StringIO(out.getvalue()))
    counts: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    for hand in logged_hands(records):
        reason = phh.refuses(hand)
        if reason is not None:
            refused[reason] += 1
            with pytest.raises(Unwritable, match="PHH"):
                phh.one(hand)
            continue
        check(hand, counts)
    assert counts["same stacks"] + counts["same stacks less the rake"] >= 100, counts
    assert refused["PHH has no variant code for fixed-limit draw-declare"] > 0
    assert refused["PHH has no variant code for fixed-limit jackpots"] > 0


@pytest.mark.parametrize(
    ("game", "structure", "joker", "reason"),
    [
        (Game.HOLDEM, Structure.POT_LIMIT, False, "PHH has no variant code for pot-limit holdem"),
        (Game.STUD_HI_LO, Structure.FIXED_LIMIT, True, "PHH has no variant code for stud with"),
        (
            Game.DRAW_DECLARE,
            Structure.FIXED_LIMIT,
            False,
            "PHH has no variant code for fixed-limit draw-declare",
        ),
        (
            Game.JACKPOTS,
            Structure.FIXED_LIMIT,
            False,
            "PHH has no variant code for fixed-limit jackpots",
        ),
    ],
)
def test_games_without_a_phh_code_are_refused_with_the_reason(
    game: Game, structure: Structure, joker: bool, reason: str
) -> None:
    hand = next(random_hands(game, structure, 1, 5, joker=joker))
    refusal = phh.refuses(hand)
    assert refusal is not None
    assert refusal.startswith(reason)
    with pytest.raises(Unwritable, match=re.escape(reason)):
        phh.one(hand)
