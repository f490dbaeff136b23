"""``evolve(hand, event) -> hand``: one event applied, no rule checked.

``decide`` has already checked everything, so these functions only move
chips and cards. They must never fail on an event ``decide`` produced.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import singledispatch

from feltline.engine.cards import openers
from feltline.engine.hand import betting
from feltline.engine.hand.events import (
    Acted,
    BetsCollected,
    BoardDealt,
    CardDealt,
    ContributionCommitted,
    ContributionRevealed,
    ContributionsOpened,
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
from feltline.engine.hand.fast import (
    ANTE,
    BET,
    BET_STEP,
    BETTING,
    BOARD_STEP,
    BRING_IN,
    COMPLETE,
    DEAL_STEP,
    DEALING,
    DECLARE_STEP,
    DECLARING,
    DRAW_STEP,
    DRAWING,
    ENDED,
    FIXED_LIMIT,
    FOLD,
    HIGH_CARD,
    LOW_CARD,
    RAISE,
    by_class,
    replace,
)
from feltline.engine.hand.rules import Rules
from feltline.engine.hand.script import Phase
from feltline.engine.hand.state import Hand, Player, Round

# Between betting rounds: nobody to act, nothing bet. Records are immutable,
# so every hand may share this one.
_BETWEEN_ROUNDS = Round(bet_size=0)
# Blank records that new ones copy with their own fields over the defaults:
# a frozen dataclass's __init__ sets its fields one call at a time, three
# times slower than one copy (see state.replace).
_NO_HAND = Hand(rules=Rules.__new__(Rules), button=-1, players=())
_NO_PLAYER = Player(seat=-1, player="", stack=0)


def evolve(hand: Hand, event: Event) -> Hand:
    """Hand first, event second, as ``functools.reduce`` calls it."""
    try:
        rule = _RULES[event.__class__]
    except KeyError:  # not an event class of this module: singledispatch decides
        rule = _mutate.dispatch(event.__class__)
    return rule(event, hand)


@singledispatch
def _mutate(event: Event, hand: Hand) -> Hand:
    raise TypeError(f"no rule applies {type(event).__name__}")


@_mutate.register
def _started(e: HandStarted, hand: Hand) -> Hand:
    deal = e.deal
    players = tuple(
        replace(_NO_PLAYER, seat=s.seat, player=s.player, stack=s.stack, paid=s.carried)
        for s in deal.seats
    )
    live_count, active_count = _counts(players)
    return replace(
        _NO_HAND,
        rules=e.rules,
        button=deal.button,
        players=players,
        phase=DEALING,
        antes=deal.antes,
        small_blind_seat=deal.small_blind,
        big_blind_seat=deal.big_blind,
        extra_big_blinds=deal.extra_big_blinds,
        pot=sum(s.carried for s in deal.seats) + deal.dead,
        dead=deal.dead,
        live_count=live_count,
        active_count=active_count,
        seats=tuple(p.seat for p in players),
    )


@_mutate.register
def _seed_drawn(e: SeedDrawn, hand: Hand) -> Hand:
    return replace(hand, seed=e.seed)


@_mutate.register
def _contributions_opened(e: ContributionsOpened, hand: Hand) -> Hand:
    return replace(
        hand, phase=Phase.COMMITTING, contributors=e.seats, contributions_required=e.required
    )


@_mutate.register
def _committed(e: ContributionCommitted, hand: Hand) -> Hand:
    return replace(hand, commitments=(*hand.commitments, (e.seat, e.commitment)))


@_mutate.register
def _reveals_opened(e: RevealsOpened, hand: Hand) -> Hand:
    return replace(hand, phase=Phase.REVEALING, revealing=e.seats)


@_mutate.register
def _revealed_one(e: ContributionRevealed, hand: Hand) -> Hand:
    return replace(hand, contributions=(*hand.contributions, (e.seat, e.contribution)))


@_mutate.register
def _shuffled(e: DeckShuffled, hand: Hand) -> Hand:
    # Under v1 the deck's seed is the server's; under v2 SeedDrawn set the
    # server's seed before the contributions, and the deck's is the mix.
    seed = hand.seed or e.seed
    return replace(hand, seed=seed, deck_seed=e.seed, stub=e.cards, next=0, phase=DEALING)


@_mutate.register
def _began(e: StreetBegan, hand: Hand) -> Hand:
    step = hand.rules.variant.steps[e.step]
    kind = step.kind
    raked = hand.raked or (hand.rounds > 0 and kind in (DEAL_STEP, BOARD_STEP, DRAW_STEP))
    stakes = hand.rules.stakes
    if kind is BET_STEP:
        fixed = stakes.structure is FIXED_LIMIT
        size = (stakes.big_bet if step.big else stakes.small_bet) if fixed else stakes.minimum_bet
        if hand.blind_round:
            bb = hand.opening_level
            r = replace(
                _BETWEEN_ROUNDS,
                bet_size=size,
                level=bb,
                full=bb,
                increment=bb,
                bets=1,
                pending=e.order,
            )
        else:
            r = replace(
                _BETWEEN_ROUNDS,
                bet_size=size,
                increment=size,
                pending=e.order,
                bring_in_due=bool(e.order)
                and (step.opening is LOW_CARD or step.opening is HIGH_CARD),
            )
        players = tuple(
            p if p.acted_at is None else replace(p, acted_at=None) for p in hand.players
        )
        return replace(hand, step=e.step, phase=BETTING, raked=raked, round=r, players=players)
    phase = DRAWING if kind is DRAW_STEP else DECLARING if kind is DECLARE_STEP else DEALING
    r = hand.round
    if r.pending != e.order:  # a step that deals or forces bets waits on nobody, as before
        r = replace(r, pending=e.order)
    return replace(hand, step=e.step, phase=phase, raked=raked, round=r)


@_mutate.register
def _posted(e: Posted, hand: Hand) -> Hand:
    before = hand.player(e.seat)
    if e.forced is ANTE:
        p = replace(before, stack=before.stack - e.amount, paid=before.paid + e.amount)
        pot = hand.pot + e.amount
    else:
        p = replace(
            before,
            stack=before.stack - e.amount,
            paid=before.paid + e.amount,
            bet=before.bet + e.amount,
        )
        pot = hand.pot
    live_count, active_count = _counts_after(hand, before, p)
    return replace(
        hand,
        players=hand.players_with(p),
        pot=pot,
        live_count=live_count,
        active_count=active_count,
    )


@_mutate.register
def _dealt(e: CardDealt, hand: Hand) -> Hand:
    p = hand.player(e.seat)
    card = hand.stub[e.position] if e.card is None else e.card
    # Concatenation: twice as fast as unpacking into a new tuple.
    cards = p.cards + (card,)  # noqa: RUF005
    up = p.up + (card,) if e.face_up else p.up  # noqa: RUF005
    p = replace(p, cards=cards, up=up)
    return replace(hand, players=hand.players_with(p), next=e.position + 1)


@_mutate.register
def _board(e: BoardDealt, hand: Hand) -> Hand:
    return replace(hand, board=hand.board + e.cards, next=max(e.positions) + 1)


@_mutate.register
def _acted(e: Acted, hand: Hand) -> Hand:
    before = p = hand.player(e.seat)
    r = hand.round
    pending = _without(r.pending, e.seat)
    if e.action is FOLD:
        p = replace(p, folded=True)
        live_count, active_count = _counts_after(hand, before, p)
        return replace(
            hand,
            players=hand.players_with(p),
            muck=hand.muck + p.cards,
            round=replace(r, pending=pending),
            live_count=live_count,
            active_count=active_count,
        )
    # The round and who must act next are read from the hand before the
    # action: only the acting seat changes, and it is never among them.
    opens = False
    if e.action is BRING_IN:
        r = replace(r, level=hand.rules.stakes.bring_in, bring_in_due=False)
        pending = _others(hand, e.seat)
    elif e.total > r.level and e.action in (BET, RAISE, COMPLETE):
        r = _raised(hand, e.total)
        pending = _others(hand, e.seat)
        opens = hand.rounds == 0 and hand.first_bettor is None
    p = replace(p, stack=p.stack - e.amount, bet=e.total, paid=p.paid + e.amount, acted_at=r.level)
    if p.stack:  # still live and active
        live_count, active_count = hand.live_count, hand.active_count
    else:
        live_count, active_count = _counts_after(hand, before, p)
    hand = replace(
        hand,
        players=hand.players_with(p),
        round=replace(r, pending=pending),
        live_count=live_count,
        active_count=active_count,
    )
    return _opened(hand, p) if opens else hand


def _raised(hand: Hand, total: int) -> Round:
    r = hand.round
    if not betting.counts_in_full(hand, total):
        return replace(r, level=total, bring_in_due=False)
    increment = total - (r.level if r.bets else r.full)
    bets = r.bets + 1
    cap = hand.rules.raise_cap if hand.rules.stakes.structure is FIXED_LIMIT else None
    crowded = hand.active_count > 2
    capped = r.capped or (cap is not None and bets >= 1 + cap and crowded)
    return replace(
        r,
        level=total,
        full=total,
        increment=increment,
        bets=bets,
        capped=capped,
        bring_in_due=False,
    )


def _opened(hand: Hand, p: Player) -> Hand:
    if hand.rules.variant.openers:
        return replace(
            hand,
            first_bettor=p.seat,
            opener=p.seat,
            openers=openers.combination(p.cards) or (),
        )
    return replace(hand, first_bettor=p.seat)


def _others(hand: Hand, seat: int) -> tuple[int, ...]:
    """Every other active seat, clockwise from the one after ``seat``."""
    return tuple(p.seat for p in hand.clockwise(seat) if p.active and p.seat != seat)


@_mutate.register
def _collected(e: BetsCollected, hand: Hand) -> Hand:
    players = tuple(replace(p, bet=0) if p.bet else p for p in hand.players)
    live_count, active_count = hand.live_count, hand.active_count
    if e.returned_to in hand.seats:  # the uncalled bet goes back: the one stack that changes
        i = hand.seats.index(e.returned_to)
        before = players[i]
        back = replace(before, stack=before.stack + e.returned, paid=before.paid - e.returned)
        players = (*players[:i], back, *players[i + 1 :])
        live_count, active_count = _counts_after(hand, before, back)
    return replace(
        hand,
        players=players,
        live_count=live_count,
        active_count=active_count,
        pot=e.pot,
        phase=DEALING,
        rounds=hand.rounds + 1,
        round=_BETWEEN_ROUNDS,
    )


@_mutate.register
def _drew(e: Drew, hand: Hand) -> Hand:
    p = hand.player(e.seat)
    thrown = e.discards or ()
    p = replace(p, cards=tuple(c for c in p.cards if c not in thrown), drawn=True)
    pending = _without(hand.round.pending, e.seat)
    return replace(
        hand,
        players=hand.players_with(p),
        set_aside=hand.set_aside + thrown if e.set_aside else hand.set_aside,
        muck=hand.muck if e.set_aside else hand.muck + thrown,
        round=replace(hand.round, pending=pending),
    )


@_mutate.register
def _reshuffled(e: StubReshuffled, hand: Hand) -> Hand:
    cards = e.cards or ()
    return replace(
        hand,
        stub=cards,
        next=0,
        guarded=False,
        reshuffles=hand.reshuffles + 1,
        muck=tuple(c for c in hand.muck if c not in cards),
    )


@_mutate.register
def _declared(e: Declared, hand: Hand) -> Hand:
    before = hand.player(e.seat)
    p = replace(before, choice=e.choice, folded=e.choice is None)
    muck = hand.muck + p.cards if p.folded else hand.muck
    pending = _without(hand.round.pending, e.seat)
    live_count, active_count = _counts_after(hand, before, p)
    return replace(
        hand,
        players=hand.players_with(p),
        muck=muck,
        round=replace(hand.round, pending=pending),
        live_count=live_count,
        active_count=active_count,
    )


@_mutate.register
def _revealed(e: DeclarationsRevealed, hand: Hand) -> Hand:
    return replace(hand, phase=DEALING)


@_mutate.register
def _shown(e: Shown, hand: Hand) -> Hand:
    return hand


@_mutate.register
def _awarded(e: PotAwarded, hand: Hand) -> Hand:
    won: dict[int, int] = {}
    for share in e.shares:
        won[share.seat] = won.get(share.seat, 0) + share.amount
    players = tuple(
        replace(p, stack=p.stack + won[p.seat]) if p.seat in won else p for p in hand.players
    )
    live_count, active_count = _counts(players)
    return replace(
        hand,
        players=players,
        pot=hand.pot - e.amount,
        rake=hand.rake + e.rake,
        live_count=live_count,
        active_count=active_count,
    )


@_mutate.register
def _passed(e: PassedOut, hand: Hand) -> Hand:
    return replace(hand, phase=ENDED)


@_mutate.register
def _ended(e: HandEnded, hand: Hand) -> Hand:
    if not e.cancelled:
        return replace(hand, phase=ENDED)
    stacks = dict(e.stacks)
    players = tuple(replace(p, stack=stacks[p.seat], bet=0, paid=0) for p in hand.players)
    live_count, active_count = _counts(players)
    return replace(
        hand,
        players=players,
        pot=hand.dead,
        phase=ENDED,
        live_count=live_count,
        active_count=active_count,
    )


def _counts(players: tuple[Player, ...]) -> tuple[int, int]:
    """How many players are live, and how many active."""
    return sum(1 for p in players if p.live), sum(1 for p in players if p.active)


def _counts_after(hand: Hand, before: Player, after: Player) -> tuple[int, int]:
    """The hand's counts of live and active players once ``after`` replaces
    ``before`` (Player.live and Player.active, read from the fields)."""
    return (
        hand.live_count + before.folded - after.folded,
        hand.active_count
        + (not after.folded and after.stack > 0)
        - (not before.folded and before.stack > 0),
    )


def _without(pending: tuple[int, ...], seat: int) -> tuple[int, ...]:
    """The seats still to act once ``seat`` has: nearly always the first."""
    if pending and pending[0] == seat:
        return pending[1:]
    return tuple(s for s in pending if s != seat)


_RULES: dict[type, Callable[..., Hand]] = by_class(_mutate)
