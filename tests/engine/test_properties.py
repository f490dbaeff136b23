"""Properties of every hand of every game, under random tables and players.

Hypothesis deals hands of each game under each betting structure, 2 to the
most players, with random stakes and stacks (tiny ones too, all in on the
forced bets), seeds, rake, joker, low and fixed-position dealing, and plays
them with random legal moves mixed with random commands of any kind. The
referee holds the engine to its promises after every event: chips are
conserved, every card is in one place, replay equals evolving, no face-down
card reaches a seat that may not see it; ``decide`` accepts exactly the legal
commands (bet sizes judged by ``judge.py``, written from docs/rules.md, not by
the engine's betting code), refuses the others with a ``RuleError`` and changes nothing, and
every hand ends within a bound. The players' randomness is Hypothesis's
own (``st.randoms()``), so a failure shrinks to a short hand and replays.
"""

from __future__ import annotations

import os
import pickle
import random
from dataclasses import fields, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from feltline.engine.cards.card import parse_cards
from feltline.engine.cards.values import System, high
from feltline.engine.errors import RuleError
from feltline.engine.games import VARIANTS
from feltline.engine.hand import turn
from feltline.engine.hand.commands import StartHand
from feltline.engine.hand.decide import NEW_HAND, decide, replay
from feltline.engine.hand.events import (
    Acted,
    Action,
    BoardDealt,
    DeckShuffled,
    Entropy,
    Event,
    HandEnded,
    PassedOut,
    PotAwarded,
    Shown,
    StubReshuffled,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import (
    Game,
    Rake,
    Rules,
    Stakes,
    Structure,
)
from feltline.engine.hand.script import Phase
from feltline.engine.hand.state import Hand

from .judge import Judge
from .players import (
    CALM,
    Style,
    legal,
    on_the_clock,
    passive,
    play,
    random_command,
    random_legal,
    rules,
    start,
)
from .referee import Referee, command_bound

# FELTLINE_EXAMPLES=10 runs ten times as many examples, to hunt for bugs.
SCALE = int(os.environ.get("FELTLINE_EXAMPLES", "1"))
EXAMPLES = settings(
    max_examples=300 * SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
LOWS = [System.ACE_TO_FIVE, System.DEUCE_TO_SEVEN, System.ACE_TO_SIX]


styles = st.builds(
    Style,
    folds=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
    raises=st.sampled_from([0.05, 0.3, 1.0, 3.0]),
    time_outs=st.sampled_from([0.0, 0.05, 0.2]),
    cancels=st.sampled_from([0.0, 0.002]),
    big_draws=st.booleans(),
)


@st.composite
def deals(draw: st.DrawFn, game: Game) -> StartHand:
    """A legal deal of ``game`` at a random table."""
    structure = draw(st.sampled_from(Structure))
    variant = VARIANTS[game]
    n = draw(st.integers(2, variant.max_seats))
    fixed = 0
    if variant.duplicate_seats >= n and draw(st.integers(0, 4)) == 0:
        fixed = draw(st.integers(n, variant.duplicate_seats))
    seats = sorted(
        draw(st.lists(st.integers(0, (fixed or 12) - 1), min_size=n, max_size=n, unique=True))
    )
    if fixed and draw(st.booleans()):  # a duplicate table may number its seats 1 to n
        seats = [seat + 1 for seat in seats]
    unit = draw(st.integers(1, 40))
    cap = None
    if structure is Structure.FIXED_LIMIT:
        cap = draw(st.one_of(st.none(), st.integers(0, 5)))  # None: the game's cap
    stakes = Stakes(
        structure,
        small_bet=unit,
        big_bet=draw(st.sampled_from([unit, 2 * unit, 3 * unit])),
        raise_cap=cap,
        uncapped_heads_up=draw(st.booleans()),
    )
    if variant.blinds:
        stakes = replace(stakes, small_blind=draw(st.integers(0, unit)), big_blind=unit)
    elif variant.bring_in:
        stakes = replace(
            stakes, ante=draw(st.integers(0, unit)), bring_in=draw(st.integers(1, unit))
        )
    else:
        stakes = replace(stakes, ante=draw(st.integers(1, unit)))
    limits = (5, 3)
    if not fixed:
        limit = st.integers(0, 5)
        limits = draw(st.sampled_from([(5, 3), (5, 5), (3, 2)]) | st.tuples(limit, limit))
    table = Rules(
        game,
        stakes,
        low=draw(st.sampled_from(LOWS)) if variant.chooses_low else System.ACE_TO_FIVE,
        joker=variant.joker and not fixed and draw(st.booleans()),
        draw_limit_small=limits[0],
        draw_limit_large=limits[1],
        rake=draw(
            st.one_of(st.none(), st.builds(Rake, st.integers(0, 9_999), st.integers(0, 200)))
        ),
        fixed_seats=fixed,
    )
    stack = st.one_of(st.integers(0, 3 * unit), st.integers(3 * unit, 300 * unit))
    stacks = {seat: draw(stack) for seat in seats}
    carried: dict[int, int] = {}
    dead = 0
    antes = True
    if variant.openers and draw(st.booleans()):
        carried = {seat: draw(st.integers(0, 3 * unit)) for seat in seats}
        dead = draw(st.integers(0, 2 * unit))
        antes = draw(st.booleans())
    return start(
        table,
        stacks,
        draw(st.binary(min_size=32, max_size=32)),
        button=draw(st.sampled_from(seats)),
        carried=carried,
        antes=antes,
        dead=dead,
        small_blind=draw(st.integers(0, 5)) > 0,
        entropy=Entropy.OFF if fixed else draw(st.sampled_from(Entropy)),
    )


def play_checked(
    command: StartHand, rng: random.Random, *, wild: float, style: Style = CALM
) -> list[Event]:
    """Play random legal moves in ``style``; with chance ``wild`` per move
    try a random command instead. Check every event, every refusal and the
    end."""
    referee = Referee(command)
    judge = Judge()
    bound = command_bound(command)
    hand, events, states = NEW_HAND, list[Event](), list[Hand]()
    decided = 0
    attempt = command
    while True:
        if hand.phase is not Phase.NOT_STARTED:
            offers_what_is_allowed(hand, judge)
        snapshot = _frozen(hand)
        try:
            got = decide(hand, attempt)
        except RuleError:
            assert not legal(hand, attempt, judge), f"a legal {attempt} was refused"
            assert _frozen(hand) == snapshot, f"refusing {attempt} changed the hand"
        else:
            assert legal(hand, attempt, judge), f"an illegal {attempt} was accepted"
            decided += 1
            assert decided <= bound, f"still going after {bound} commands"
            for event in got:
                before, hand = hand, evolve(hand, event)
                judge(before, event, hand)
                events.append(event)
                states.append(hand)
                referee(hand, event)
        if hand.phase is Phase.ENDED:
            break
        if rng.random() < wild:
            attempt = random_command(hand, rng, command)
        else:
            attempt = random_legal(hand, rng, style)
    referee.finish(events, hand, states)
    for i in rng.sample(range(len(states)), min(3, len(states))):
        assert replay(events[: i + 1]) == states[i], f"replay differs after event {i}"
    for _ in range(3):
        attempt = random_command(hand, rng, command)
        with pytest.raises(RuleError):
            decide(hand, attempt)
    return events


def offers_what_is_allowed(hand: Hand, judge: Judge) -> None:
    """The engine's turn (:func:`turn.choices`) waits on the seats the test
    players see on the clock and offers each exactly what the independent
    ``judge`` allows, with the same amounts."""
    clock = on_the_clock(hand)
    assert sorted(turn.waiting_on(hand)) == sorted(clock)
    for p in hand.players:
        offered = turn.choices(hand, p.seat)
        if p.seat not in clock:
            assert offered is None, f"seat {p.seat} is offered {offered} off the clock"
            continue
        assert offered is not None, f"seat {p.seat} is on the clock but offered nothing"
        if hand.phase is Phase.DRAWING:
            limit = hand.rules.draw_limit(hand.rules.fixed_seats or len(hand.players))
            assert offered == turn.Choices(draw=True, max_discards=limit)
        elif hand.phase is Phase.DECLARING:
            assert offered == turn.Choices(declare=True)
        else:
            allowed = judge.allowed(hand)
            raising = () if allowed.raising is None else (allowed.raising,)
            assert sorted(offered.actions) == sorted((*allowed.moves, *raising))
            staying = allowed.moves.get(Action.CALL, allowed.moves.get(Action.BRING_IN, p.bet))
            assert offered.call_amount == staying - p.bet
            assert (offered.min_to, offered.max_to) == (allowed.least, allowed.most)


def _frozen(hand: Hand) -> bytes:
    """The hand's every field, to tell if anything changed in place
    (the new hand's rules are a placeholder that cannot be pickled)."""
    return b"new" if hand is NEW_HAND else pickle.dumps(hand)


@pytest.mark.parametrize("game", list(Game))
@EXAMPLES
@given(data=st.data(), rng=st.randoms())
def test_random_hands_keep_every_promise(
    game: Game, data: st.DataObject, rng: random.Random
) -> None:
    command = data.draw(deals(game))
    events = play_checked(command, rng, wild=0.3, style=data.draw(styles))
    for kind in (PassedOut, StubReshuffled, Shown, BoardDealt):
        if any(isinstance(e, kind) for e in events):
            event(kind.__name__)
    if command.entropy is not Entropy.OFF:
        dealt = any(isinstance(e, DeckShuffled) for e in events)
        event(f"seat entropy {command.entropy}, {'dealt' if dealt else 'not dealt'}")
    ended = events[-1]
    assert isinstance(ended, HandEnded)
    event("cancelled" if ended.cancelled else f"{len(events) // 20 * 20}+ events")


# The least hand that opens a jackpot: a pair of jacks, the lowest kickers.
LEAST_OPENERS = high(parse_cards("Jc Jd 4h 3s 2c"))


@pytest.mark.parametrize("game", list(Game))
@pytest.mark.parametrize("structure", list(Structure))
@settings(max_examples=10 * SCALE, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), n=st.integers(2, 8))
def test_checking_and_calling_reaches_a_showdown(
    game: Game, structure: Structure, seed: bytes, n: int
) -> None:
    """Nobody folds, so every seat shows its cards and the pot is awarded;
    in jackpots only when somebody was dealt jacks or better to open with,
    the deal passing out otherwise."""
    command = start(rules(game, structure), dict.fromkeys(range(n), 1000), seed)
    referee = Referee(command)
    played = play(command, passive, bound=command_bound(command), each=referee)
    referee.finish(played.events, played.hand, played.states)
    shown = sorted(e.seat for e in played.events if isinstance(e, Shown))
    awarded = [e for e in played.events if isinstance(e, PotAwarded)]
    passed = [e for e in played.events if isinstance(e, PassedOut)]
    opens = True
    if VARIANTS[game].openers:
        first_bet = next(i for i, e in enumerate(played.events) if isinstance(e, Acted))
        dealt = played.states[first_bet - 1].players
        opens = any(high(p.cards) >= LEAST_OPENERS for p in dealt)
    event("showdown" if opens else "passed out")
    if opens:
        assert shown == list(range(n)), "not every seat showed down"
        assert awarded, "a showdown awarded nothing"
        assert all(len(a.eligible) == n for a in awarded)
        assert not passed
    else:
        assert (shown, awarded, len(passed)) == ([], [], 1)


@st.composite
def mutated_deals(draw: st.DrawFn) -> StartHand:
    """A legal deal with one or two settings made odd or wrong: negative or
    zero amounts, seats out of order or twice, a button or blind at a seat
    not dealt in, a short seed, a rake or draw limit out of range,
    fixed positions for too few seats, the joker or a low where none is."""
    command = draw(deals(draw(st.sampled_from(Game))))
    chips = st.integers(-3, 50)
    for _ in range(draw(st.integers(1, 2))):
        what = draw(st.integers(0, 9))
        table, stakes, seats = command.rules, command.rules.stakes, list(command.deal.seats)
        if what == 0:
            name = draw(st.sampled_from([f.name for f in fields(Stakes)][1:]))
            value = draw(chips | st.none()) if name == "raise_cap" else draw(chips)
            if name == "uncapped_heads_up":
                value = draw(st.booleans())
            changes: dict[str, Any] = {name: value}
            table = replace(table, stakes=replace(stakes, **changes))
        elif what == 1 and seats:
            i = draw(st.integers(0, len(seats) - 1))
            seat = replace(seats[i], seat=draw(st.integers(-2, 12)))
            seats[i] = replace(seat, stack=draw(st.integers(-2, 5)), carried=draw(chips))
            if draw(st.booleans()):
                seats = seats[::-1]
        elif what == 2:
            seats = seats[: draw(st.integers(0, 2))] + seats * draw(st.integers(0, 2))
        elif what == 3:
            button = draw(st.integers(-2, 12))
            command = replace(command, deal=replace(command.deal, button=button))
        elif what == 4:
            blind = st.none() | st.integers(-1, 12)
            blinds = replace(command.deal, small_blind=draw(blind), big_blind=draw(blind))
            command = replace(command, deal=blinds)
        elif what == 5:
            command = replace(command, seed=draw(st.binary(min_size=0, max_size=40)))
        elif what == 6:
            rake = st.builds(Rake, st.integers(-1, 10_001), st.integers(-1, 100))
            table = replace(table, rake=draw(rake))
        elif what == 7:
            table = replace(
                table,
                draw_limit_small=draw(st.integers(-1, 7)),
                draw_limit_large=draw(st.integers(-1, 7)),
            )
        elif what == 8:
            table = replace(table, fixed_seats=draw(st.integers(-1, 12)))
        else:
            table = replace(table, joker=draw(st.booleans()), low=draw(st.sampled_from(System)))
        dead = draw(chips) if what == 1 else command.deal.dead
        deal = replace(command.deal, seats=tuple(seats), dead=dead)
        command = replace(command, rules=table, deal=deal)
    return command


@settings(max_examples=300 * SCALE, deadline=None)
@given(command=mutated_deals(), rng=st.randoms())
def test_any_start_is_refused_with_a_rule_error_or_plays_out(
    command: StartHand, rng: random.Random
) -> None:
    try:
        decide(NEW_HAND, command)
    except RuleError as refused:
        event(f"refused: {type(refused).__name__}")
        return
    event("played")
    play_checked(command, rng, wild=0.1)
