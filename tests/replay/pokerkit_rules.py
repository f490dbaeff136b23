"""Where PokerKit's betting rules differ from Feltline's on purpose
(docs/rules.md), which action of a hand's PHH export PokerKit must refuse.

This is a model of PokerKit 0.7.7's checks, written from its documented
rules, walked over Feltline's events: the first action that breaks one of
them is named with the docs/rules.md difference that allows it. Nothing here
reads PokerKit or the PHH writer, so a test that PokerKit refuses exactly
there (and nowhere else) shows the writer faithful and the difference the
only cause. Split pots are noted too: PokerKit gives odd chips by its own
rule, so the stacks of the seats sharing an unevenly split pot may differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from feltline.engine.hand.events import (
    Acted,
    Action,
    BetsCollected,
    Event,
    Forced,
    HandStarted,
    Posted,
    PotAwarded,
    StreetBegan,
)
from feltline.engine.hand.rules import Game, Structure
from feltline.engine.hand.script import Kind

SB_OPTION = "the small blind's option facing a short big blind"
UNCAPPED = "uncapped heads-up raising"
HALF_BET = "fixed-limit short all-ins and the half-bet rule"
COVERED = "raising when every opponent is covered"
NO_LIMIT_SHORT = "completing a short all-in bet in no limit"
LOW_CARD_ALL_IN = "the stud low card all in from the ante"
LONE_ASKED = "a lone seat asked to act with nobody to bet against"
SHORT_FORCED = "a short blind or bring-in does not shrink the amount to call"

RAISE_CAP = 4
"""PokerKit's bets and raises in a fixed-limit round."""


@dataclass
class Refusal:
    """PokerKit refuses the ``acted``-th voluntary action (from 0), by
    ``rule``; or, when ``stack`` is given, takes it but leaves its seat
    ``seat`` a stack other than ``stack``, Feltline's, from then on."""

    acted: int
    rule: str
    seat: int | None = None
    stack: int | None = None


@dataclass
class Forecast:
    refusal: Refusal | None = None
    odd_chips: set[int] = field(default_factory=set)
    """Seats that shared a pot unevenly."""
    lowless: set[int] = field(default_factory=set)
    """Seats of a stud pot nobody in it has a low for, while another pot
    has one: PokerKit 0.7.7 still gives such a pot's low half away."""


@dataclass
class _Round:
    unit: int
    raised: int = 0  # the last full bet or raise in this round
    count: int = 0
    acted: set[int] = field(default_factory=set)
    short: list[int] = field(default_factory=list)  # short all-in raises since the last full one
    completing: bool = False
    started: bool = False
    asks: set[int] = field(default_factory=set)  # who PokerKit may ask to act


def forecast(events: tuple[Event, ...]) -> Forecast:
    out = Forecast()
    started = events[0]
    assert isinstance(started, HandStarted)
    rules = started.rules
    stakes = rules.stakes
    script = rules.variant.steps
    fixed = stakes.structure is Structure.FIXED_LIMIT
    stacks = {s.seat: s.stack for s in started.deal.seats}
    bets = dict.fromkeys(stacks, 0)
    live = set(stacks)
    rnd = _Round(unit=0)
    first_round = True
    acted_count = -1
    pots: list[tuple[tuple[int, ...], bool]] = []

    level = 0  # the bet to call as Feltline has it: a short blind counts in full

    def refuse(rule: str, *, sized: bool = True) -> Forecast:
        """``sized``: a bet's size is refused, which a short blind explains."""
        out.refusal = Refusal(acted_count, SHORT_FORCED if sized and level > top else rule)
        return out

    for event in events:
        match event:
            case Posted(seat=seat, forced=forced, amount=amount):
                stacks[seat] -= amount
                if forced is not Forced.ANTE:
                    bets[seat] += amount
                    nominal = (
                        stakes.small_blind if forced is Forced.SMALL_BLIND else stakes.big_blind
                    )
                    level = max(level, nominal)
            case StreetBegan(step=step) if script[step].kind is Kind.BET:
                big = script[step].big
                unit = (stakes.big_bet if big else stakes.small_bet) if fixed else stakes.big_blind
                stud_first = rules.variant.bring_in and first_round
                rnd = _Round(unit=unit, completing=stud_first)
                first_round = False
            case Acted(seat=seat, action=action, total=total):
                acted_count += 1
                top = max(bets.values())
                if action is Action.BRING_IN:
                    level = max(level, stakes.bring_in)
                first = not rnd.started
                if first:
                    rnd.started = True
                    can = [s for s in live if stacks[s] > 0 and _exposed(s, live, stacks, bets)]
                    rnd.asks = set(can)
                    if not can or (len(can) == 1 and bets[can[0]] >= top):
                        rnd.asks = set()
                if seat not in rnd.asks:
                    return refuse(
                        SB_OPTION if rules.game is Game.HOLDEM else LONE_ASKED, sized=False
                    )
                if first and rnd.completing and action not in (Action.BRING_IN, Action.COMPLETE):
                    return refuse(LOW_CARD_ALL_IN, sized=False)
                rnd.asks.discard(seat)
                if action in (Action.BET, Action.RAISE, Action.COMPLETE):
                    short_rule = HALF_BET if fixed else NO_LIMIT_SHORT
                    call = min(top - bets[seat], stacks[seat])
                    if fixed and rnd.count == RAISE_CAP:
                        active = sum(stacks[s] > 0 for s in live)
                        return refuse(UNCAPPED if active <= 2 else "raise cap")
                    if call < rnd.raised:
                        return refuse(short_rule)
                    if rnd.short and sum(rnd.short) < rnd.raised and seat in rnd.acted:
                        return refuse(short_rule)
                    if not any(stacks[s] + bets[s] > top for s in live if s != seat):
                        return refuse(COVERED)
                    most = stacks[seat] + bets[seat]
                    least = min(most, max(rnd.raised, rnd.unit) + (0 if rnd.completing else top))
                    if total < least or (fixed and total != least) or total > most:
                        return refuse(short_rule)
                    size = total - top
                    rnd.asks = {s for s in live if stacks[s] > 0 and s != seat}
                    if size >= rnd.raised:
                        rnd.acted = set()
                    rnd.raised = max(rnd.raised, size)
                    rnd.count += 1
                    rnd.completing = False
                    stacks[seat] -= total - bets[seat]
                    bets[seat] = total
                    if stacks[seat]:
                        rnd.short.clear()
                    else:
                        rnd.short.append(size)
                    if sum(rnd.short) >= rnd.raised:
                        rnd.short.clear()
                else:
                    stacks[seat] -= total - bets[seat]
                    bets[seat] = total
                    if action is Action.FOLD:
                        live.discard(seat)
                    if action is Action.CALL and total > top:
                        # PokerKit calls only the short blind: the seat keeps chips.
                        out.refusal = Refusal(acted_count, SHORT_FORCED, seat, stacks[seat])
                        return out
                level = max(level, total)
                rnd.acted.add(seat)
            case BetsCollected(returned_to=back, returned=returned):
                if back is not None:
                    stacks[back] += returned
                bets = dict.fromkeys(bets, 0)
                level = 0
            case PotAwarded(shares=shares, eligible=eligible):
                amounts = {s.amount for s in shares}
                if len(shares) > 1 and len(amounts) > 1:
                    out.odd_chips |= {s.seat for s in shares}
                pots.append((eligible, any(s.half == "low" for s in shares)))
    if any(low for _, low in pots):
        out.lowless = {s for eligible, low in pots if not low for s in eligible}
    return out


def _exposed(seat: int, live: set[int], stacks: dict[int, int], bets: dict[int, int]) -> bool:
    """The seat has an effective stack: it could lose more than its bet, the
    second biggest live total being above what it has put in."""
    totals = sorted(stacks[s] + bets[s] for s in live)
    return len(totals) > 1 and min(stacks[seat], totals[-2] - bets[seat]) > 0
