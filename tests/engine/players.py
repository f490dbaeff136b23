"""Players for tests and benchmarks: table settings, a deal, and three policies.

A policy looks at a hand and returns the command of whoever the hand waits
on. :func:`random_legal` chooses at random among every legal move (any
legal amount, any legal discards, any declaration, a time-out now and then);
:func:`choose` plays like a cautious bot, mostly checking and calling;
:func:`passive` checks or calls to the showdown. :func:`legal` says whether a
command is one of the moves :func:`random_legal` could choose, so a test can
hold ``decide`` to accept exactly those; it judges bet sizes by the
independent :class:`tests.engine.judge.Judge`, never by the engine's
betting code. The policies choose from
:func:`feltline.engine.hand.betting.options` and the hand's state.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from feltline.engine.cards.card import ALL_CARDS
from feltline.engine.cards.values import System
from feltline.engine.games import VARIANTS
from feltline.engine.hand import betting, turn
from feltline.engine.hand.commands import (
    Act,
    Cancel,
    CloseContributions,
    Command,
    Commit,
    Declare,
    Draw,
    Reveal,
    StartHand,
    TimeOut,
)
from feltline.engine.hand.decide import NEW_HAND, decide
from feltline.engine.hand.decide import play as play_command
from feltline.engine.hand.events import Action, Choice, Deal, Entropy, Event, SeatAtStart
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.hand.script import Phase
from feltline.engine.hand.state import Hand

from .judge import Judge

Policy = Callable[[Hand], Command]


def stakes(game: Game, structure: Structure, *, unit: int = 10) -> Stakes:
    """The usual stakes of a game: blinds in a blind game, antes elsewhere, a
    bring-in in stud; in fixed limit, the game's cap."""
    variant = VARIANTS[game]
    if variant.blinds:
        return Stakes(
            structure,
            small_bet=unit,
            big_bet=2 * unit,
            small_blind=unit // 2,
            big_blind=unit,
        )
    bring_in = max(1, unit * 3 // 10) if variant.bring_in else 0
    return Stakes(
        structure,
        small_bet=unit,
        big_bet=2 * unit,
        ante=max(1, unit // 5),
        bring_in=bring_in,
    )


def rules(
    game: Game,
    structure: Structure,
    *,
    unit: int = 10,
    rake: Rake | None = None,
    joker: bool = False,
    low: System = System.ACE_TO_FIVE,
) -> Rules:
    return Rules(game, stakes(game, structure, unit=unit), low=low, joker=joker, rake=rake)


def start(
    rules: Rules,
    stacks: Mapping[int, int],
    seed: bytes,
    *,
    button: int | None = None,
    carried: Mapping[int, int] | None = None,
    antes: bool = True,
    dead: int = 0,
    small_blind: bool = True,
    entropy: Entropy = Entropy.OFF,
) -> StartHand:
    """Deal ``stacks`` (seat to chips) in, the button at ``button`` (the
    first seat by default); in hold'em the blinds follow the button, the
    button posting the small blind heads-up."""
    seats = sorted(stacks)
    button = seats[0] if button is None else button
    carried = carried or {}
    sb = bb = None
    if rules.variant.blinds:
        i = seats.index(button)
        if len(seats) == 2:
            sb, bb = button, seats[(i + 1) % 2]
        else:
            sb, bb = seats[(i + 1) % len(seats)], seats[(i + 2) % len(seats)]
        if not small_blind:
            sb = None
    deal = Deal(
        button=button,
        seats=tuple(SeatAtStart(s, f"player {s}", stacks[s], carried.get(s, 0)) for s in seats),
        antes=antes,
        small_blind=sb,
        big_blind=bb,
        dead=dead,
    )
    return StartHand(rules, deal, seed, entropy)


# -- who the hand waits on -------------------------------------------------


def on_the_clock(hand: Hand) -> tuple[int, ...]:
    """The seats that may act now: the one to bet or draw, or every live
    seat that has not declared yet."""
    if hand.phase is Phase.BETTING:
        return (hand.round.pending[0],)
    if hand.phase is Phase.DRAWING:
        return (hand.round.pending[0],)
    if hand.phase is Phase.DECLARING:
        return tuple(p.seat for p in hand.players if p.live and p.choice is None)
    return ()


# -- seats contributing to the deck (feltline-deck-v2) ---------------------


def contribution(seat: int) -> bytes:
    """The 32 bytes a test seat contributes: fixed, so it reveals what it
    committed to."""
    return hashlib.sha256(b"seat %d" % seat).digest()


def to_commit(hand: Hand) -> tuple[int, ...]:
    """The seats that may still commit (in the committing phase)."""
    done = {s for s, _ in hand.commitments}
    if hand.phase is not Phase.COMMITTING:
        return ()
    return tuple(s for s in hand.contributors if s not in done)


def to_reveal(hand: Hand) -> tuple[int, ...]:
    """The seats that committed and may still reveal (in the revealing phase)."""
    done = {s for s, _ in hand.contributions}
    if hand.phase is not Phase.REVEALING:
        return ()
    return tuple(s for s in hand.revealing if s not in done)


def may_fold(hand: Hand, o: betting.Options) -> bool:
    """Anyone may fold, even when they could check, except the seat that
    owes the bring-in."""
    return not (o.bring_in and o.seat == turn.bring_in_seat(hand))


def _amounts(hand: Hand, o: betting.Options) -> dict[Action, int]:
    """The legal non-raising actions, each with the total it puts in front
    of the seat (the amount an ``Act`` may name besides 0)."""
    bet = hand.player(o.seat).bet
    moves: dict[Action, int] = {}
    if may_fold(hand, o):
        moves[Action.FOLD] = bet
    if o.bring_in:
        moves[Action.BRING_IN] = bet + o.bring_in
    elif o.to_call:
        moves[Action.CALL] = o.call_total
    else:
        moves[Action.CHECK] = bet
    return moves


def legal(hand: Hand, command: Command, judge: Judge) -> bool:
    """Whether ``command`` is a legal move in ``hand``, bet sizes as the
    independent ``judge`` (which has seen every event so far) reads docs/rules.md."""
    if isinstance(command, StartHand):
        return hand.phase is Phase.NOT_STARTED
    if hand.phase in (Phase.NOT_STARTED, Phase.ENDED):
        return False
    if isinstance(command, Cancel):
        return True
    if isinstance(command, CloseContributions):
        return hand.phase in (Phase.COMMITTING, Phase.REVEALING)
    if isinstance(command, Commit):
        digest = command.commitment
        hexadecimal = len(digest) == 64 and set(digest) <= set("0123456789abcdef")
        return command.seat in to_commit(hand) and hexadecimal
    if isinstance(command, Reveal):
        committed = dict(hand.commitments).get(command.seat)
        return (
            command.seat in to_reveal(hand)
            and hashlib.sha256(command.contribution).hexdigest() == committed
            and len(command.contribution) == 32
        )
    if isinstance(command, TimeOut):
        return command.seat in on_the_clock(hand)
    if isinstance(command, Act):
        if hand.phase is not Phase.BETTING or command.seat != hand.to_act:
            return False
        allowed = judge.allowed(hand)
        if command.action is allowed.raising:
            return allowed.least <= command.amount <= allowed.most
        total = allowed.moves.get(command.action)
        return total is not None and command.amount in (0, total)
    if isinstance(command, Draw):
        if hand.phase is not Phase.DRAWING or command.seat != hand.round.pending[0]:
            return False
        held = hand.player(command.seat).cards
        thrown = command.discards
        return (
            len(set(thrown)) == len(thrown)
            and set(thrown) <= set(held)
            and len(thrown) <= hand.rules.draw_limit(hand.rules.fixed_seats or len(hand.players))
        )
    if isinstance(command, Declare):
        return hand.phase is Phase.DECLARING and command.seat in on_the_clock(hand)
    return False


# -- policies ---------------------------------------------------------------


@dataclass(frozen=True)
class Style:
    """How a random player leans: the weights of folding and of betting or
    raising against 1 for checking or calling, the chances of letting the
    clock run out and of the table closing mid-hand, and whether draws
    throw as many cards as allowed (to run the deck out)."""

    folds: float = 1.0
    raises: float = 1.0
    time_outs: float = 0.05
    cancels: float = 0.0
    big_draws: bool = False


CALM = Style()


@dataclass
class RandomPlayer:
    """A policy of random legal moves in a given style."""

    rng: random.Random
    style: Style = CALM

    def __call__(self, hand: Hand) -> Command:
        return random_legal(hand, self.rng, self.style)


def random_legal(hand: Hand, rng: random.Random, style: Style = CALM) -> Command:
    """A legal move chosen at random for a seat the hand waits on."""
    seats = on_the_clock(hand)
    if rng.random() < style.cancels:
        return Cancel()
    if hand.phase in (Phase.COMMITTING, Phase.REVEALING):
        # The window closes now and then before every seat has kept up.
        if rng.random() < style.time_outs * 2:
            return CloseContributions()
        if hand.phase is Phase.COMMITTING:
            seat = rng.choice(to_commit(hand))
            return Commit(seat, hashlib.sha256(contribution(seat)).hexdigest())
        seat = rng.choice(to_reveal(hand))
        return Reveal(seat, contribution(seat))
    seat = rng.choice(seats)
    if rng.random() < style.time_outs:
        return TimeOut(seat)
    if hand.phase is Phase.DRAWING:
        held = list(hand.player(seat).cards)
        limit = min(hand.rules.draw_limit(hand.rules.fixed_seats or len(hand.players)), len(held))
        count = limit if style.big_draws else rng.randint(0, limit)
        return Draw(seat, tuple(rng.sample(held, count)))
    if hand.phase is Phase.DECLARING:
        return Declare(seat, rng.choice(list(Choice)))
    o = betting.options(hand)
    moves = _amounts(hand, o)
    if o.raise_action is not None:
        moves[o.raise_action] = -1
    weights = {Action.FOLD: style.folds, o.raise_action: style.raises}
    action = rng.choices(list(moves), [weights.get(m, 1.0) for m in moves])[0]
    if action is o.raise_action:
        # Favour the smallest and the largest amounts, which are the edges.
        pick = rng.random()
        if pick < 0.3:
            amount = o.least
        elif pick < 0.5:
            amount = o.most
        else:
            amount = rng.randint(o.least, o.most)
        return Act(seat, action, amount)
    return Act(seat, action, rng.choice((0, moves[action])))


def random_command(hand: Hand, rng: random.Random, start: StartHand) -> Command:
    """Any command at all, mostly illegal: a seat that is not on the clock
    or not in the hand, the wrong phase, any amount (negative, huge, one
    off a limit), cards not held, held twice or beyond the draw limit."""
    seats = [p.seat for p in hand.players] or [0]
    waiting = on_the_clock(hand)
    seat = rng.choice([rng.choice(waiting or seats), rng.choice(seats), rng.randint(-3, 12), 10**9])
    kind = rng.randrange(9)
    if kind == 6:  # legal while contributing: rarely, so that some hands get dealt
        return CloseContributions() if rng.random() < 0.2 else Commit(seat, "")
    if kind == 7:
        digest = rng.choice(
            [hashlib.sha256(contribution(seat)).hexdigest(), "ab" * 31, "AB" * 32, "", "x" * 64]
        )
        return Commit(seat, digest)
    if kind == 8:
        made = rng.choice([contribution(seat), contribution(seat + 1), b"", bytes(33)])
        return Reveal(seat, made)
    if kind == 0:
        return TimeOut(seat)
    if kind == 1:
        return start
    if kind == 2:
        return Declare(seat, rng.choice(list(Choice)))
    if kind == 3:
        held = list(hand.player(seat).cards) if seat in seats else []
        pool = held + list(ALL_CARDS)
        discards = [rng.choice(pool) for _ in range(rng.randint(0, 7))]
        if held and rng.random() < 0.5:
            discards = rng.sample(held, rng.randint(0, len(held)))
        return Draw(seat, tuple(discards))
    return Act(seat, rng.choice(list(Action)), _any_amount(hand, rng))


def _any_amount(hand: Hand, rng: random.Random) -> int:
    near = [0, 1, -1, 10**18, -(10**18), rng.randint(-1000, 10_000)]
    if hand.phase is Phase.BETTING:
        o = betting.options(hand)
        p = hand.player(o.seat)
        for x in (o.least, o.most, o.call_total, p.bet, p.bet + p.stack, o.bring_in):
            near += [x - 1, x, x + 1]
    return rng.choice(near)


def passive(hand: Hand) -> Command:
    """Check or call to the showdown: bring in when due, stand pat, declare
    high; in jackpots, open with jacks or better, as only an opened pot
    reaches a showdown."""
    if hand.phase is Phase.BETTING:
        r = hand.round
        if r.bring_in_due or (hand.rules.variant.openers and hand.first_bettor is None):
            o = betting.options(hand)
            if o.bring_in:
                return Act(o.seat, Action.BRING_IN)
            if o.raise_action:
                return Act(o.seat, o.raise_action, o.least)
            return Act(o.seat, Action.CALL if o.to_call else Action.CHECK)
        # A seat to act is never all in: it has something to call exactly
        # when the bet is above its own (asking betting.options would do,
        # but would weigh on the benchmark, which times the engine).
        seat = r.pending[0]
        return Act(seat, Action.CALL if r.level > hand.player(seat).bet else Action.CHECK)
    seat = on_the_clock(hand)[0]
    if hand.phase is Phase.DRAWING:
        return Draw(seat, ())
    return Declare(seat, Choice.HIGH)


def choose(hand: Hand, rng: random.Random) -> Command:
    """A cheap random move: a raise now and then, rarely a fold, up to three
    discards. Hands end soon and stay typical, which the store's tests and
    benchmarks want; a jackpots bet without openers is refused, so callers
    choose again."""
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


# -- playing a hand -----------------------------------------------------------


@dataclass
class Played:
    """A hand played out: its events, the commands that made them and the
    state after each event (``states[i]`` follows ``events[i]``)."""

    events: list[Event] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    states: list[Hand] = field(default_factory=list)

    @property
    def hand(self) -> Hand:
        return self.states[-1] if self.states else NEW_HAND


def play(
    command: StartHand,
    policy: Policy,
    *,
    bound: int = 10_000,
    each: Callable[[Hand, Event], None] | None = None,
) -> Played:
    """Deal with ``command`` and let ``policy`` act until the hand ends or
    ``bound`` commands have been decided. ``each`` sees every state after
    its event."""
    played = Played()
    hand = NEW_HAND
    pending: Command = command
    while True:
        played.commands.append(pending)
        for event in decide(hand, pending):
            hand = evolve(hand, event)
            played.events.append(event)
            played.states.append(hand)
            if each is not None:
                each(hand, event)
        if hand.phase is Phase.ENDED or len(played.commands) >= bound:
            return played
        pending = policy(hand)


def play_fast(command: StartHand, policy: Policy) -> Hand:
    """As :func:`play`, keeping nothing but the state: for benchmarks."""
    hand = NEW_HAND
    pending: Command = command
    while True:
        hand = play_command(hand, pending)[1]
        if hand.phase is Phase.ENDED:
            return hand
        pending = policy(hand)
