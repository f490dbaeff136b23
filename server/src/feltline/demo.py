"""``feltline demo``: bots play a hand of every game, watched as a spectator.

The bots choose at random among the legal choices; each line is what a
spectator is allowed to see, so hole cards stay hidden until the showdown.
"""

from __future__ import annotations

import random
import secrets

from feltline import history
from feltline.engine import betting
from feltline.engine.commands import Act, Command, Declare, Draw, StartHand
from feltline.engine.errors import RuleError
from feltline.engine.events import EVERYONE, Action, Choice, Event, SeatAtStart
from feltline.engine.hand import NEW_HAND
from feltline.engine.hand import play as play_hand
from feltline.engine.rules import Game, Rules, Stakes, Structure
from feltline.engine.state import Hand, Phase

TABLES = {
    Game.HOLDEM: Rules(
        Game.HOLDEM, Stakes(Structure.NO_LIMIT, small_bet=10, small_blind=5, big_blind=10)
    ),
    Game.STUD_HI_LO: Rules(
        Game.STUD_HI_LO,
        Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=2, bring_in=3, raise_cap=3),
    ),
    Game.DRAW_DECLARE: Rules(
        Game.DRAW_DECLARE,
        Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5, raise_cap=4),
    ),
    Game.JACKPOTS: Rules(
        Game.JACKPOTS,
        Stakes(Structure.FIXED_LIMIT, small_bet=10, big_bet=20, ante=5, raise_cap=4),
    ),
}


def choose(hand: Hand, rng: random.Random) -> Command:
    """A random legal move for whoever the hand waits on."""
    if hand.phase is Phase.DRAWING:
        seat = hand.round.pending[0]
        cards = list(hand.player(seat).cards)
        limit = hand.rules.draw_limit(len(hand.players))
        return Draw(seat, tuple(rng.sample(cards, rng.randint(0, min(limit, 3)))))
    if hand.phase is Phase.DECLARING:
        return Declare(hand.round.pending[0], rng.choice(list(Choice)))
    o = betting.options(hand)
    if o.bring_in:
        return Act(o.seat, Action.BRING_IN)
    roll = rng.random()
    if o.raise_action is not None and roll < 0.2:
        return Act(o.seat, o.raise_action, rng.randint(o.least, min(o.most, 4 * o.least)))
    if o.to_call and roll > 0.85:
        return Act(o.seat, Action.FOLD)
    return Act(o.seat, Action.CALL if o.to_call else Action.CHECK)


def spectate(event: Event) -> Event:
    return event if event.audience() is EVERYONE else event.redacted()


def play(rules: Rules, rng: random.Random, out: list[str]) -> Hand:
    seats = tuple(SeatAtStart(s, f"bot {s}", 500) for s in range(4))
    holdem = rules.game is Game.HOLDEM
    start = StartHand(
        rules,
        button=3,
        seats=seats,
        seed=secrets.token_bytes(32),
        small_blind=0 if holdem else None,
        big_blind=1 if holdem else None,
    )
    events, hand = play_hand(NEW_HAND, start)
    while True:
        for event in events:
            text = history.line(spectate(event))
            if text:
                out.append(text)
        if hand.phase is Phase.ENDED:
            return hand
        while True:
            try:
                events, hand = play_hand(hand, choose(hand, rng))
                break
            except RuleError:  # e.g. a bet without openers in jackpots: choose again
                continue


def main(seed: int | None = None) -> int:
    rng = random.Random(seed)
    for game, rules in TABLES.items():
        lines: list[str] = []
        print(f"\n=== {game} ===")
        hand = play(rules, rng, lines)
        print("\n".join(lines))
        print(f"chips on the table: {hand.chips} (every chip accounted for)")
    return 0
