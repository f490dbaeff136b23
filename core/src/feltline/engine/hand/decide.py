"""The hand decider: ``decide(hand, command) -> events``, ``evolve(hand, event) -> hand``.

``decide`` checks a command against the rules and returns the events it
causes, followed by everything the dealer then does on its own (dealing,
forced bets, collecting bets, awarding pots) until a player must act again.
It raises a :class:`RuleError` and changes nothing when the command is
illegal. ``evolve`` applies one event and never fails on an event that
``decide`` produced, so replaying a hand is ``functools.reduce(evolve, events,
NEW_HAND)``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from functools import reduce

from feltline.engine.cards.deck import (
    CONTRIBUTED_ALGORITHM,
    DECK_ALGORITHM,
    SEED_BYTES,
    commitment,
    deck_seed,
    shuffle,
)
from feltline.engine.errors import (
    IllegalAction,
    IllegalAmount,
    IllegalContribution,
    IllegalDraw,
    NotInHand,
    NotYourTurn,
    WrongPhase,
)
from feltline.engine.hand import betting, dealing, showdown, turn
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
from feltline.engine.hand.events import (
    Acted,
    Action,
    BetsCollected,
    ContributionCommitted,
    ContributionRevealed,
    ContributionsOpened,
    DeckShuffled,
    DeclarationsRevealed,
    Declared,
    Entropy,
    Event,
    HandEnded,
    HandStarted,
    PassedOut,
    Posted,
    RevealsOpened,
    SeedDrawn,
    StreetBegan,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.fast import (
    ANTE,
    BET_STEP,
    BETTING,
    BIG_BLIND,
    BOARD_STEP,
    BRING_IN,
    CALL,
    CHECK,
    COMMITTING,
    DEAL_STEP,
    DEALING,
    DECLARE_STEP,
    DECLARING,
    DRAW_STEP,
    DRAWING,
    ENDED,
    FOLD,
    FORCED_STEP,
    NOT_STARTED,
    REVEALING,
    SHOWDOWN_STEP,
    SMALL_BLIND,
)
from feltline.engine.hand.rules import Rules
from feltline.engine.hand.script import Step
from feltline.engine.hand.state import Hand, Player

NEW_HAND = Hand(rules=Rules.__new__(Rules), button=-1, players=())


def replay(events: Iterable[Event]) -> Hand:
    return reduce(evolve, events, NEW_HAND)


def decide(hand: Hand, command: Command) -> list[Event]:
    return play(hand, command)[0]


def play(hand: Hand, command: Command) -> tuple[list[Event], Hand]:
    """``decide`` and the hand after its events, for a caller that keeps the
    state: the events are evolved once, not once here and again there."""
    events = _command(hand, command)
    for event in events:
        hand = evolve(hand, event)
    more, hand = _run(hand)
    return events + more, hand


def advance(hand: Hand) -> list[Event]:
    """What the dealer does until a player must act or the hand is over."""
    return _run(hand)[0]


def _run(hand: Hand) -> tuple[list[Event], Hand]:
    """What the dealer does until a player must act or the hand is over, and
    the hand after it. Each event is evolved as it is made, once: the next
    one may depend on it. When all but one player have folded, nobody else
    acts, draws or declares: the last player wins uncontested at once."""
    events: list[Event] = []
    while True:
        phase = hand.phase
        if phase is BETTING:
            if hand.round.pending and not _nothing_to_decide(hand):
                return events, hand
            hand = _emit(hand, events, _collect(hand))
        elif phase is DEALING:
            hand = _finish(hand, events) if hand.live_count == 1 else _next_step(hand, events)
        elif phase is COMMITTING:
            if len(hand.commitments) < len(hand.contributors):
                return events, hand
            hand = _emit(hand, events, RevealsOpened(hand.contributors))
        elif phase is REVEALING:
            if len(hand.contributions) < len(hand.revealing):
                return events, hand
            hand = _emit(hand, events, _deck(hand))
        elif phase is DRAWING or phase is DECLARING:
            if hand.round.pending and hand.live_count > 1:
                return events, hand
            if phase is DECLARING:
                revealed = tuple((p.seat, p.choice) for p in hand.live if p.choice is not None)
                hand = _emit(hand, events, DeclarationsRevealed(revealed))
            elif hand.live_count == 1:
                hand = _finish(hand, events)
            else:
                hand = _next_step(hand, events)
        else:  # not started, or over
            return events, hand


def _emit(hand: Hand, events: list[Event], event: Event) -> Hand:
    """Add the dealer's ``event`` to ``events``: the hand after it."""
    events.append(event)
    return evolve(hand, event)


# -- commands ---------------------------------------------------------------


def _command(hand: Hand, command: Command) -> list[Event]:
    if isinstance(command, StartHand):
        return _start(hand, command)
    if hand.phase is NOT_STARTED:
        raise WrongPhase("no hand has been dealt")
    if hand.phase is ENDED:
        raise WrongPhase("the hand is over")
    if isinstance(command, Cancel):
        return _cancel(hand)
    if isinstance(command, Act):
        return _act(hand, command)
    if isinstance(command, Draw):
        return _draw(hand, command)
    if isinstance(command, Declare):
        return _declare(hand, command)
    if isinstance(command, TimeOut):
        return _time_out(hand, command.seat)
    if isinstance(command, Commit):
        return _commit(hand, command)
    if isinstance(command, Reveal):
        return _reveal(hand, command)
    if isinstance(command, CloseContributions):
        return _close(hand)
    raise IllegalAction(f"unknown command {type(command).__name__}")


def _start(hand: Hand, c: StartHand) -> list[Event]:
    if hand.phase is not NOT_STARTED:
        raise WrongPhase("this hand has already been dealt")
    rules = c.rules.validate()
    deal = c.deal
    seats = [s.seat for s in deal.seats]
    if seats != sorted(set(seats)) or (seats and seats[0] < 0):
        raise IllegalAction("seats must be distinct, not negative, and in seat order")
    game = rules.variant
    if not 2 <= len(seats) <= game.max_seats:
        raise IllegalAction(
            f"{rules.game} is played by 2 to {game.max_seats} players, not {len(seats)}"
        )
    fixed = rules.fixed_seats
    if fixed and (seats[-1] > fixed or len({s % fixed for s in seats}) != len(seats)):
        raise IllegalAction(
            f"a duplicate table of {fixed} seats numbers them 0 to {fixed - 1} or 1 to {fixed}"
        )
    if any(s.stack < 0 or s.carried < 0 for s in deal.seats) or deal.dead < 0:
        raise IllegalAmount("stacks and carried chips cannot be negative")
    if deal.button not in seats:
        raise IllegalAction(f"the button must be at a seat dealt in, not seat {deal.button}")
    small, big, extra = deal.small_blind, deal.big_blind, deal.extra_big_blinds
    if game.blinds:
        if big not in seats or (small is not None and small not in seats):
            raise IllegalAction(
                f"{game.title} needs a big blind (and any small blind) at seats dealt in"
            )
        if small == big:
            raise IllegalAction("one seat cannot post both blinds")
        if not set(extra) <= set(seats) - {small, big} or len(set(extra)) != len(extra):
            raise IllegalAction(
                "an extra big blind is posted once, by a seat dealt in that posts no other blind"
            )
    elif small is not None or big is not None or extra:
        raise IllegalAction(f"{rules.game} has no blinds")
    if len(c.seed) != 32:
        raise IllegalAction("the deck seed must be 32 bytes")
    if c.entropy is Entropy.OFF:
        cards = dealing.fresh_deck(rules)
        return [
            HandStarted(rules, deal, commitment(c.seed), DECK_ALGORITHM),
            DeckShuffled(seed=c.seed, cards=shuffle(c.seed, cards)),
        ]
    if fixed:
        raise IllegalAction(
            "a duplicate match deals one deck at every table: its seats cannot contribute"
        )
    return [
        HandStarted(rules, deal, commitment(c.seed), CONTRIBUTED_ALGORITHM),
        SeedDrawn(c.seed),
        ContributionsOpened(tuple(seats), required=c.entropy is Entropy.REQUIRED),
    ]


_DIGEST = re.compile(r"[0-9a-f]{64}")


def _contributing(hand: Hand, seat: int) -> None:
    if not hand.contributors:
        raise WrongPhase(f"seat {seat} cannot contribute: this hand's deck is the server's alone")


def _commit(hand: Hand, c: Commit) -> list[Event]:
    _contributing(hand, c.seat)
    if c.seat not in hand.contributors:
        raise NotInHand(f"seat {c.seat} is not dealt in to contribute")
    if hand.phase is not COMMITTING:
        raise WrongPhase(f"seat {c.seat} cannot commit: it is time for {hand.phase}")
    if any(seat == c.seat for seat, _ in hand.commitments):
        raise IllegalAction(f"seat {c.seat} has already committed")
    if not _DIGEST.fullmatch(c.commitment):
        raise IllegalContribution(
            "a commitment is the SHA-256 of the contribution in 64 lowercase hex digits,"
            f" not {c.commitment[:80]!r}"
        )
    return [ContributionCommitted(c.seat, c.commitment)]


def _reveal(hand: Hand, c: Reveal) -> list[Event]:
    _contributing(hand, c.seat)
    if c.seat not in hand.contributors:
        raise NotInHand(f"seat {c.seat} is not dealt in to contribute")
    if hand.phase is not REVEALING:
        raise WrongPhase(f"seat {c.seat} cannot reveal: it is time for {hand.phase}")
    if c.seat not in hand.revealing:
        raise IllegalAction(f"seat {c.seat} made no commitment in time: nothing to reveal")
    if any(seat == c.seat for seat, _ in hand.contributions):
        raise IllegalAction(f"seat {c.seat} has already revealed")
    if len(c.contribution) != SEED_BYTES:
        raise IllegalContribution(
            f"a contribution is exactly {SEED_BYTES} bytes, not {len(c.contribution)}"
        )
    committed = dict(hand.commitments)[c.seat]
    if hashlib.sha256(c.contribution).hexdigest() != committed:
        raise IllegalContribution(
            f"seat {c.seat}'s contribution does not hash to its commitment {committed}"
        )
    return [ContributionRevealed(c.seat, c.contribution)]


def _close(hand: Hand) -> list[Event]:
    """The window ran out. Commitments: go on to the reveals with the seats
    that committed, or, when every seat must contribute and one did not,
    cancel the hand (no chip has moved). Reveals: derive the deck from the
    contributions revealed; a seat that committed and did not reveal is
    left out."""
    if hand.phase is COMMITTING:
        committed = {seat for seat, _ in hand.commitments}
        if hand.contributions_required and committed != set(hand.contributors):
            return _cancel(hand)
        return [RevealsOpened(tuple(s for s in hand.contributors if s in committed))]
    if hand.phase is REVEALING:
        return [_deck(hand)]
    raise WrongPhase(f"no contributions are being collected: it is time for {hand.phase}")


def _deck(hand: Hand) -> DeckShuffled:
    """The v2 deck: the server's seed mixed with the contributions revealed."""
    mixed = deck_seed(hand.seed, dict(hand.contributions))
    return DeckShuffled(seed=mixed, cards=shuffle(mixed, dealing.fresh_deck(hand.rules)))


def _cancel(hand: Hand) -> list[Event]:
    return [
        HandEnded(
            stacks=tuple((p.seat, p.stack + p.paid) for p in hand.players),
            seed=hand.seed,
            rake=0,
            cancelled=True,
        )
    ]


def _seat(hand: Hand, seat: int) -> Player:
    try:
        return hand.player(seat)
    except KeyError:
        raise NotInHand(f"seat {seat} is not in this hand") from None


def _act(hand: Hand, c: Act) -> list[Event]:
    p = _seat(hand, c.seat)
    if hand.phase is not BETTING:
        raise WrongPhase(f"seat {c.seat} cannot {c.action}: it is time for {hand.phase}")
    pending = hand.round.pending  # in betting, hand.to_act is the first of them
    if not pending or pending[0] != c.seat:
        raise NotYourTurn(f"seat {c.seat} cannot act: it is seat {hand.to_act}'s turn")
    action, amount = c.action, c.amount
    if action in _STAYING:
        # Options weighs the raises too; checking, calling and folding need less.
        to_call, bring_in = betting.owed(hand, p)
        if action is CALL:
            total = p.bet + to_call
        elif action is BRING_IN:
            total = p.bet + bring_in
        else:
            total = p.bet
        if amount not in (0, total):
            raise IllegalAmount(
                f"seat {c.seat} cannot {action} for {amount}: leave the amount out"
                + (f" or give {total}" if total else "")
            )
        if bring_in and action not in (BRING_IN, FOLD):
            raise IllegalAction(f"seat {c.seat} must bring in for {bring_in} or complete")
        if bring_in and action is FOLD and p.seat == turn.bring_in_seat(hand):
            raise IllegalAction(f"seat {c.seat} must bring in for {bring_in} or complete")
        if action is BRING_IN and not bring_in:
            raise IllegalAction(f"seat {c.seat} cannot bring in: the bring-in is not due")
        if action is CHECK and (to_call or bring_in):
            raise IllegalAction(
                f"seat {c.seat} cannot check: {to_call} to call"
                if to_call
                else f"seat {c.seat} cannot check: bring in or complete"
            )
        if action is CALL and to_call == 0:
            raise IllegalAction(f"seat {c.seat} cannot call: nothing to call, check instead")
        return _proving(hand, _acted(hand, p, action, total))
    o = betting.options(hand)
    if o.raise_action is None:
        raise IllegalAction(f"seat {c.seat} cannot {action}: {_why_no_raise(hand, p)}")
    if action is not o.raise_action:
        raise IllegalAction(f"seat {c.seat} cannot {action}: {o.raise_action} instead")
    if not o.least <= amount <= o.most:
        span = f"to {o.least}" if o.least == o.most else f"to {o.least} to {o.most}"
        raise IllegalAmount(f"seat {c.seat} cannot {action} to {amount}: {action} {span}")
    return [_acted(hand, p, action, amount)]


_STAYING = frozenset({FOLD, CHECK, CALL, BRING_IN})


def _acted(hand: Hand, p: Player, action: Action, total: int, *, timed_out: bool = False) -> Acted:
    added = total - p.bet
    all_in = added == p.stack and added > 0
    return Acted(p.seat, action, added, total, all_in, timed_out)  # by keyword: 240 ns more


def _proving(hand: Hand, acted: Acted) -> list[Event]:
    """A jackpots opener who folds proves openers there and then (seed 003:
    the opener who drops out shows the opening combination), before the
    folded hand goes to the muck and perhaps into a reshuffled stub."""
    if acted.action is FOLD and acted.seat == hand.opener:
        return [acted, showdown.openers_shown(hand, acted.seat)]
    return [acted]


def _why_no_raise(hand: Hand, p: Player) -> str:
    if not betting.others_active(hand, p):
        return "no other player can call"
    if hand.round.bring_in_due and p.stack <= hand.rules.stakes.bring_in:
        return "not enough chips to complete"
    if p.stack <= max(0, hand.round.level - p.bet):
        return "not enough chips behind to raise"
    if betting.lacks_openers(hand, p):
        return "it takes jacks or better to open"
    if betting.capped(hand):
        return "the betting is capped"
    return "the betting was not reopened since this seat acted"


def _draw(hand: Hand, c: Draw) -> list[Event]:
    p = _seat(hand, c.seat)
    if hand.phase is not DRAWING:
        raise WrongPhase(f"seat {c.seat} cannot draw: it is time for {hand.phase}")
    if hand.round.pending[0] != c.seat:
        raise NotYourTurn(f"seat {c.seat} cannot draw: it is seat {hand.round.pending[0]}'s turn")
    discards = c.discards
    if len(set(discards)) != len(discards):
        raise IllegalDraw(f"seat {c.seat} cannot throw the same card twice")
    if not set(discards) <= set(p.cards):
        strangers = " ".join(str(card) for card in discards if card not in p.cards)
        raise IllegalDraw(f"seat {c.seat} does not hold {strangers}")
    limit = turn.discard_limit(hand)
    if len(discards) > limit:
        raise IllegalDraw(f"seat {c.seat} cannot draw {len(discards)} cards: the limit is {limit}")
    return dealing.draw(hand, p, discards)


def _declare(hand: Hand, c: Declare) -> list[Event]:
    p = _seat(hand, c.seat)
    if hand.phase is not DECLARING:
        raise WrongPhase(f"seat {c.seat} cannot declare: it is time for {hand.phase}")
    if p.folded:
        raise IllegalAction(f"seat {c.seat} has folded")
    if p.choice is not None:
        raise IllegalAction(f"seat {c.seat} has already declared")
    return [Declared(seat=c.seat, choice=c.choice)]


def _time_out(hand: Hand, seat: int) -> list[Event]:
    p = _seat(hand, seat)
    if hand.phase is BETTING and hand.to_act == seat:
        o = betting.options(hand)
        # The low card may not fold, so it brings in; a player left of an
        # all-in low card may, so it folds.
        if o.bring_in and seat == turn.bring_in_seat(hand):
            return [_acted(hand, p, BRING_IN, p.bet + o.bring_in, timed_out=True)]
        action = CHECK if o.can_check else FOLD
        return _proving(hand, _acted(hand, p, action, p.bet, timed_out=True))
    if hand.phase is DRAWING and hand.round.pending[0] == seat:
        return dealing.draw(hand, p, (), timed_out=True)
    if hand.phase is DECLARING and p.live and p.choice is None:
        return [Declared(seat=seat, choice=None, timed_out=True)]
    raise NotYourTurn(f"seat {seat} is not on the clock")


# -- the dealer ----------------------------------------------------------------


def _next_step(hand: Hand, events: list[Event]) -> Hand:
    """Begin the game's next step, and do it when it waits on nobody."""
    step_no = hand.step + 1
    game = hand.rules.variant
    step = game.steps[step_no]
    kind = step.kind
    if kind is DRAW_STEP and hand.first_bettor is None and game.openers:
        more = _pass_out(hand)
    else:
        hand = _emit(hand, events, StreetBegan(step_no, step.name, _order(hand, step)))
        if kind is FORCED_STEP:
            more = _forced(hand)
        elif kind is DEAL_STEP:
            more = dealing.deal_street(hand, step)
        elif kind is BOARD_STEP:
            more = dealing.deal_board(hand, step.board)
        elif kind is SHOWDOWN_STEP:
            for shown in showdown.show(hand):
                hand = _emit(hand, events, shown)
            return _finish(hand, events)
        else:  # players act
            return hand
    for event in more:
        hand = _emit(hand, events, event)
    return hand


def _nothing_to_decide(hand: Hand) -> bool:
    """The round is over though seats are pending: all but one have folded
    (the last player wins without acting), or the one player who could bet
    has nothing to call and nobody to bet against."""
    return hand.live_count == 1 or _alone_and_called(hand, hand.round.level)


def _alone_and_called(hand: Hand, level: int) -> bool:
    """One player could bet, and with ``level`` the bet to call it has
    nothing to call: nobody is left to bet against."""
    return hand.active_count == 1 and _active_one(hand).bet >= level


def _active_one(hand: Hand) -> Player:
    """The first active player: the only one, when the count is one."""
    return next(p for p in hand.players if p.active)


def _order(hand: Hand, step: Step) -> tuple[int, ...]:
    if step.kind is BET_STEP:
        return betting_order(hand, step)
    if step.kind is DRAW_STEP:
        return tuple(p.seat for p in hand.clockwise(hand.button) if p.live)
    if step.kind is DECLARE_STEP:
        return tuple(p.seat for p in hand.live)
    return ()


def betting_order(hand: Hand, street: Step) -> tuple[int, ...]:
    """Who must act when the betting round ``street`` opens, first actor
    first; nobody when no one could bet against anyone."""
    if not hand.active_count or _alone_and_called(hand, hand.opening_level):
        return ()
    first = turn.first_to_act(hand, street)
    return tuple(p.seat for p in hand.clockwise(first - 1) if p.active)


def _forced(hand: Hand) -> list[Event]:
    events: list[Event] = []
    stakes = hand.rules.stakes
    stacks = {p.seat: p.stack for p in hand.players}
    if hand.antes and stakes.ante:
        for p in hand.clockwise(hand.button):
            amount = min(stakes.ante, stacks[p.seat])
            if amount:
                stacks[p.seat] -= amount
                events.append(Posted(p.seat, ANTE, amount, stacks[p.seat] == 0))
    for seat, forced, due in (
        (hand.small_blind_seat, SMALL_BLIND, stakes.small_blind),
        (hand.big_blind_seat, BIG_BLIND, stakes.big_blind),
        *((s, BIG_BLIND, stakes.big_blind) for s in hand.extra_big_blinds),
    ):
        if seat is not None and due:
            amount = min(due, stacks[seat])
            if amount:
                stacks[seat] -= amount
                events.append(Posted(seat, forced, amount, stacks[seat] == 0))
    return events


def _collect(hand: Hand) -> BetsCollected:
    """The bets into the pot, but for the part of the top bet nobody matched."""
    bets = [p.bet for p in hand.players]
    pot = hand.pot + sum(bets)
    top = max(bets)
    first = bets.index(top)  # the first seat with the top bet
    returned = top - max(bets[:first] + bets[first + 1 :], default=0)
    if returned == 0:
        return BetsCollected(returned_to=None, returned=0, pot=pot)
    return BetsCollected(returned_to=hand.seats[first], returned=returned, pot=pot - returned)


def _pass_out(hand: Hand) -> list[Event]:
    return [
        PassedOut(carried=tuple((p.seat, p.paid) for p in hand.players), dead=hand.dead),
        HandEnded(
            stacks=tuple((p.seat, p.stack) for p in hand.players),
            seed=hand.seed,
            rake=0,
        ),
    ]


def _finish(hand: Hand, events: list[Event]) -> Hand:
    """Collect the last bets, prove openers, award the pots and end the hand."""
    if any(p.bet for p in hand.players):
        hand = _emit(hand, events, _collect(hand))
    proof = showdown.prove_openers(hand)
    awards = showdown.award(hand)
    stacks = {p.seat: p.stack for p in hand.players}
    for award in awards:
        for share in award.shares:
            stacks[share.seat] += share.amount
    rake = sum(a.rake for a in awards)
    ended = HandEnded(stacks=tuple(stacks.items()), seed=hand.seed, rake=rake)
    for event in (*proof, *awards, ended):
        hand = _emit(hand, events, event)
    return hand
