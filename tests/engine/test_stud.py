"""Seven-card stud high-low, eight or better (docs/rules.md), one scenario per rule.

Every hand is dealt from a stacked deck (``stacked.py``): :func:`stack` puts
each seat's cards where the dealer will take them (third street down, down,
up; fourth to sixth street up; seventh down; one card at a time clockwise
from the first seat left of the button). Every command goes through
:class:`Checked`, which asserts after each one that the chips are conserved,
that no stack is negative and that deciding the same command on the same
replayed state gives the same events again.

Stakes: ante 1, bring-in 2, small bet 4, big bet 8, a bet and three raises.

Choices made where docs/rules.md leaves room (see the report):

- The cap is a table setting (``Stakes.raise_cap``); these tables leave it
  unset, so docs/rules.md's default applies: a bet and three raises.
- The bring-in seat that times out brings in (it may neither check nor
  fold); any other seat with the bring-in due (left of an all-in low card)
  may fold, so it folds.
- Odd chips among tied hands: the common card belongs to every tied hand,
  so it cannot tell them apart; the tied hands' cards are compared highest
  first (high) or lowest first (low) until one differs, which for hands
  without a common card is just the highest / lowest card. The joker
  counts as the highest card for the high odd chip (as for the bring-in)
  and never as the lowest for the low one (the engine's choice, untested).
- A player who cannot cover the bring-in may only bring in for what they
  have: there is nothing left to complete with.
- "A player facing a short all-in bet may call it or complete it" is read
  with RRoP: a player who checked before the short all-in bet has already
  acted, so may only call (or fold).
- The bring-in is a player's choice (bring in or complete), so it is an
  ``Acted`` event of its own, not a ``Posted`` forced bet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import pytest

from feltline.engine.cards.card import JOKER_TOKEN, deck, parse_cards
from feltline.engine.errors import (
    ConfigError,
    IllegalAction,
    IllegalAmount,
    NotYourTurn,
    RuleError,
    WrongPhase,
)
from feltline.engine.hand import betting, turn
from feltline.engine.hand.commands import Act, Cancel, Command, TimeOut
from feltline.engine.hand.decide import decide, replay
from feltline.engine.hand.events import (
    Acted,
    Action,
    BetsCollected,
    BoardDealt,
    CardDealt,
    Event,
    Forced,
    HandEnded,
    Posted,
    PotAwarded,
    Shown,
    StreetBegan,
)
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.hand.script import Phase

from .stacked import Table, deal

STUD = Rules(
    Game.STUD_HI_LO,
    Stakes(
        Structure.FIXED_LIMIT,
        small_bet=4,
        big_bet=8,
        ante=1,
        bring_in=2,
    ),
)
JOKER = replace(STUD, joker=True)


# -- stacking and playing -----------------------------------------------------


def stack(hands: dict[int, str], *, button: int, common: str = "") -> str:
    """The top of the deck that deals ``hands`` (each seat's cards in the
    order it gets them) with the button at ``button``; a seat given fewer
    cards has folded. ``common`` is the card dealt in the middle on seventh
    street."""
    order = sorted(hands, key=lambda seat: (seat <= button, seat))
    cards = {seat: hands[seat].split() for seat in hands}
    top: list[str] = []
    for street in range(7):
        if street == 6 and common:
            top.append(common)
        top += [cards[seat][street] for seat in order if street < len(cards[seat])]
    assert len(set(top)) == len(top), f"a card is dealt twice: {top}"
    return " ".join(top)


def showing(ups: dict[int, str], *, joker: bool = False, common: str = "") -> dict[int, str]:
    """Hands with these up cards (third street on), over two spare down cards each."""
    used = set(" ".join(ups.values()).split()) | {common}
    spare = [str(c) for c in deck(joker=joker) if str(c) not in used and str(c) != JOKER_TOKEN]
    return {
        seat: f"{spare[2 * i]} {spare[2 * i + 1]} {up}" for i, (seat, up) in enumerate(ups.items())
    }


@dataclass
class Checked(Table):
    """A table that checks the chips and the replay after every command."""

    total: int = 0
    commands: list[Command] = field(default_factory=list)

    def do(self, *commands: Command) -> list[Event]:
        new: list[Event] = []
        for command in commands:
            before = self.hand
            got = decide(before, command)
            assert decide(replay(self.events), command) == got
            self.events.extend(got)
            self.commands.append(command)
            new.extend(got)
            after = self.hand
            assert after.chips == self.total
            assert all(p.stack >= 0 for p in after.players)
        return new


def play(
    rules: Rules,
    stacks: dict[int, int],
    hands: dict[int, str] | None = None,
    *,
    button: int,
    common: str = "",
) -> Checked:
    top = stack(hands, button=button, common=common) if hands else ""
    t = deal(rules, stacks, top, button=button)
    checked = Checked(t.events, total=sum(stacks.values()))
    assert checked.hand.chips == checked.total
    return checked


def passive(
    t: Checked, *, rounds: int | None = None, fold: frozenset[tuple[int, int]] = frozenset()
) -> None:
    """Bring in, call or check for whoever is to act, until ``rounds`` betting
    rounds are over (None: until the hand ends); ``fold`` lists
    (round, seat) pairs that fold instead (round 0 is third street)."""
    while (seat := t.hand.to_act) is not None and (rounds is None or t.hand.rounds < rounds):
        o = betting.options(t.hand)
        if (t.hand.rounds, seat) in fold:
            t.act(seat, "fold")
        elif o.bring_in:
            t.act(seat, "bring-in")
        else:
            t.act(seat, "call" if o.to_call else "check")


def stacks_at_end(t: Table) -> dict[int, int]:
    ended = t.of(HandEnded)
    assert len(ended) == 1
    assert isinstance(ended[0], HandEnded)
    return dict(ended[0].stacks)


def shares(t: Table) -> list[tuple[int, int, int, str, str]]:
    """(pot, seat, chips, half, hand) for every share of every pot."""
    return [
        (a.index, s.seat, s.amount, s.half, s.hand)
        for a in t.of(PotAwarded)
        if isinstance(a, PotAwarded)
        for s in a.shares
    ]


def acts(t: Table) -> list[tuple[int, Action, int]]:
    return [(e.seat, e.action, e.total) for e in t.of(Acted) if isinstance(e, Acted)]


def began(t: Table, name: str) -> StreetBegan:
    streets = [e for e in t.of(StreetBegan) if isinstance(e, StreetBegan) and e.name == name]
    assert len(streets) == 1
    return streets[0]


def rejects(t: Table, command: Command, error: type[RuleError], message: str) -> None:
    """The command fails with exactly ``message`` and leaves the hand as it was."""
    events, hand = list(t.events), t.hand
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        t.do(command)
    assert t.events == events
    assert t.hand == hand


def act(seat: int, action: str, amount: int = 0) -> Act:
    return Act(seat, Action(action), amount)


HUNDREDS = {0: 100, 1: 100, 2: 100}


# -- antes and the deal ---------------------------------------------------------


def test_everyone_antes_before_the_deal_which_goes_clockwise_from_left_of_the_button() -> None:
    t = play(STUD, HUNDREDS, showing({0: "Kc", 1: "3d", 2: "Qh"}), button=1)
    antes = [e for e in t.events if isinstance(e, Posted)]
    assert [(e.seat, e.forced, e.amount, e.all_in) for e in antes] == [
        (2, Forced.ANTE, 1, False),
        (0, Forced.ANTE, 1, False),
        (1, Forced.ANTE, 1, False),
    ]
    first_card = next(i for i, e in enumerate(t.events) if isinstance(e, CardDealt))
    assert max(t.events.index(e) for e in antes) < first_card
    dealt = [e for e in t.events if isinstance(e, CardDealt)]
    assert [e.seat for e in dealt] == [2, 0, 1] * 3
    assert [e.face_up for e in dealt] == [False] * 6 + [True] * 3
    assert [e.position for e in dealt] == list(range(9))
    # down cards are seen by their owner only, up cards by everyone
    assert [e.audience() for e in dealt[:3]] == [frozenset({2}), frozenset({0}), frozenset({1})]
    assert all(e.audience() is None for e in dealt[6:])
    assert [t.hand.player(s).up for s in (0, 1, 2)] == [parse_cards(c) for c in ("Kc", "3d", "Qh")]
    assert t.hand.pot == 3
    assert [p.stack for p in t.hand.players] == [99, 99, 99]


def test_a_player_short_of_the_ante_posts_what_they_have_and_is_all_in() -> None:
    rules = replace(STUD, stakes=replace(STUD.stakes, ante=3))
    t = play(rules, {0: 100, 1: 2, 2: 100}, showing({0: "Kc", 1: "Qh", 2: "3d"}), button=2)
    antes = [(e.seat, e.amount, e.all_in) for e in t.events if isinstance(e, Posted)]
    assert antes == [(0, 3, False), (1, 2, True), (2, 3, False)]
    assert t.hand.pot == 8
    assert t.hand.player(1).live
    assert not t.hand.player(1).active
    assert t.hand.round.pending == (2, 0)  # the bring-in (3d) then clockwise, skipping seat 1


def test_heads_up_with_one_player_all_in_from_the_ante_nobody_bets() -> None:
    """Nobody may bet when no other player is active: the cards are dealt out."""
    hands = {0: "Ac 2c 3c 4c 5c 9d Td", 1: "Kd Ks Kh 7s 8s Qd Jd"}
    t = play(STUD, {0: 100, 1: 1}, hands, button=1)
    assert t.hand.phase is Phase.ENDED
    assert acts(t) == []
    bets = [e for e in t.of(StreetBegan) if isinstance(e, StreetBegan) and "betting" in e.name]
    assert [e.order for e in bets] == [()] * 5
    # seat 0: straight flush and a wheel for low; seat 1 paid 1, seat 0 1
    assert shares(t) == [
        (0, 0, 1, "high", "straight flush, five high"),
        (0, 0, 1, "low", "5-4-3-2-A low"),
    ]
    assert stacks_at_end(t) == {0: 101, 1: 0}


# -- the bring-in -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ups", "bring_in"),
    [
        ("Ac 3d Kh", 1),  # the ace counts high
        ("2s 2h 2d", 2),  # diamonds below hearts and spades
        ("2h 2c 2s", 1),  # clubs lowest
        ("4s 4h 5c", 1),  # hearts below spades
        ("Jk As Ah", 2),  # the joker counts highest, above any ace
    ],
)
def test_the_lowest_up_card_brings_in(ups: str, bring_in: int) -> None:
    rules = JOKER if JOKER_TOKEN in ups else STUD
    cards = ups.split()
    t = play(rules, HUNDREDS, showing(dict(enumerate(cards)), joker=rules.joker), button=2)
    assert turn.bring_in_seat(t.hand) == bring_in
    assert t.hand.to_act == bring_in
    assert t.hand.round.pending == tuple((bring_in + k) % 3 for k in range(3))
    o = betting.options(t.hand)
    assert (o.bring_in, o.raise_action, o.least, o.most) == (2, Action.COMPLETE, 4, 4)
    t.act(bring_in, "bring-in")
    assert acts(t) == [(bring_in, Action.BRING_IN, 2)]
    assert t.hand.player(bring_in).stack == 97


THREE = showing({0: "Kc", 1: "3d", 2: "Qh"})  # seat 1 brings in


def test_the_bring_in_may_complete_and_the_completion_is_the_bet() -> None:
    t = play(STUD, HUNDREDS, THREE, button=2)
    t.act(1, "complete", 4)
    assert acts(t) == [(1, Action.COMPLETE, 4)]
    assert t.hand.round.bets == 1
    assert t.hand.round.pending == (2, 0)
    o = betting.options(t.hand)
    assert (o.to_call, o.raise_action, o.least) == (4, Action.RAISE, 8)
    t.act(2, "raise", 8)
    t.act(0, "call")
    assert t.hand.to_act == 1  # raised: the completer acts again
    assert betting.options(t.hand).to_call == 4


def test_if_nobody_completes_the_bring_in_has_no_option() -> None:
    t = play(STUD, HUNDREDS, THREE, button=2)
    t.act(1, "bring-in")
    assert t.hand.round.pending == (2, 0)
    t.act(2, "call")
    t.act(0, "call")
    assert t.hand.rounds == 1
    assert acts(t) == [(1, Action.BRING_IN, 2), (2, Action.CALL, 2), (0, Action.CALL, 2)]
    assert t.hand.pot == 9
    assert t.of(StreetBegan)[-1] == began(t, "fourth street betting")


def test_a_completion_after_the_bring_in_gives_the_bring_in_a_turn() -> None:
    t = play(STUD, HUNDREDS, THREE, button=2)
    t.act(1, "bring-in")
    o = betting.options(t.hand)
    assert (o.to_call, o.raise_action, o.least, o.most) == (2, Action.COMPLETE, 4, 4)
    t.act(2, "complete", 4)
    t.act(0, "call")
    assert t.hand.to_act == 1
    o = betting.options(t.hand)
    assert (o.to_call, o.raise_action, o.least) == (2, Action.RAISE, 8)


def test_third_street_mistakes_are_refused_with_their_reason_and_change_nothing() -> None:
    t = play(STUD, HUNDREDS, THREE, button=2)
    must = "seat 1 must bring in for 2 or complete"
    rejects(t, act(0, "call", 0), NotYourTurn, "seat 0 cannot act: it is seat 1's turn")
    rejects(t, act(1, "fold", 0), IllegalAction, must)
    rejects(t, act(1, "check", 0), IllegalAction, must)
    rejects(t, act(1, "call", 0), IllegalAction, must)
    rejects(  # nothing is owed but the bring-in: no amount makes a call
        t, act(1, "call", 2), IllegalAmount, "seat 1 cannot call for 2: leave the amount out"
    )
    rejects(t, act(1, "complete", 3), IllegalAmount, "seat 1 cannot complete to 3: complete to 4")
    rejects(t, act(1, "complete", 8), IllegalAmount, "seat 1 cannot complete to 8: complete to 4")
    rejects(t, act(1, "raise", 4), IllegalAction, "seat 1 cannot raise: complete instead")
    rejects(t, act(1, "bet", 4), IllegalAction, "seat 1 cannot bet: complete instead")
    rejects(
        t,
        act(1, "bring-in", 3),
        IllegalAmount,
        "seat 1 cannot bring-in for 3: leave the amount out or give 2",
    )
    t.act(1, "bring-in")
    rejects(t, act(1, "call", 0), NotYourTurn, "seat 1 cannot act: it is seat 2's turn")
    rejects(t, act(2, "complete", 6), IllegalAmount, "seat 2 cannot complete to 6: complete to 4")
    rejects(t, act(2, "raise", 8), IllegalAction, "seat 2 cannot raise: complete instead")
    rejects(
        t, act(2, "bring-in", 0), IllegalAction, "seat 2 cannot bring in: the bring-in is not due"
    )
    rejects(t, act(2, "check", 0), IllegalAction, "seat 2 cannot check: 2 to call")
    assert acts(t) == [(1, Action.BRING_IN, 2)]


FOUR = showing({0: "Kc", 1: "2c", 2: "Qh", 3: "Jd"})  # seat 1 has the low card


def test_low_card_all_in_from_the_ante_the_player_to_its_left_may_fold() -> None:
    t = play(STUD, {0: 100, 1: 1, 2: 100, 3: 100}, FOUR, button=3)
    assert [(e.seat, e.all_in) for e in t.events if isinstance(e, Posted)][1] == (1, True)
    assert t.hand.to_act == 2
    o = betting.options(t.hand)
    assert (o.bring_in, o.raise_action, o.least) == (2, Action.COMPLETE, 4)
    t.act(2, "fold")
    assert t.hand.to_act == 3  # the next player has the same choice
    assert betting.options(t.hand).bring_in == 2
    rejects(t, act(3, "check", 0), IllegalAction, "seat 3 must bring in for 2 or complete")
    t.act(3, "bring-in")
    t.act(0, "call")
    assert t.hand.rounds == 1  # seat 3 brought in and nobody completed: no option
    assert acts(t) == [(2, Action.FOLD, 0), (3, Action.BRING_IN, 2), (0, Action.CALL, 2)]


def test_low_card_all_in_from_the_ante_the_player_to_its_left_may_bring_in() -> None:
    t = play(STUD, {0: 100, 1: 1, 2: 100, 3: 100}, FOUR, button=3)
    t.act(2, "bring-in")
    assert t.hand.round.pending == (3, 0)
    t.act(3, "call")
    t.act(0, "call")
    assert t.hand.rounds == 1
    assert t.hand.pot == 4 + 6


def test_low_card_all_in_from_the_ante_the_player_to_its_left_may_complete() -> None:
    t = play(STUD, {0: 100, 1: 1, 2: 100, 3: 100}, FOUR, button=3)
    t.act(2, "complete", 4)
    assert t.hand.round.bets == 1
    o = betting.options(t.hand)
    assert (o.seat, o.to_call, o.least) == (3, 4, 8)
    t.act(3, "raise", 8)
    t.act(0, "call")
    t.act(2, "call")
    assert t.hand.rounds == 1
    assert t.hand.pot == 4 + 24


def test_low_card_all_in_from_the_ante_a_lone_active_player_is_not_asked_to_act() -> None:
    """Nobody may bet when no other player is active: once seat 2 folds,
    seat 0 faces only the all-in low card with nothing to call, so the
    round closes at once and the cards are dealt out."""
    hands = {0: "Kc Kd Ks 9c 9d Qh Jh", 1: "Ac 2d 2c 3s 4h 6d 7c", 2: "Qc Qd Qs"}
    t = play(STUD, {0: 100, 1: 1, 2: 100}, hands, button=2)
    assert t.hand.to_act == 2
    t.act(2, "fold")
    assert t.hand.phase is Phase.ENDED
    rejects(t, act(0, "check"), WrongPhase, "the hand is over")
    assert acts(t) == [(2, Action.FOLD, 0)]
    assert shares(t) == [
        (0, 0, 2, "high", "full house, kings full of nines"),
        (0, 1, 1, "low", "6-4-3-2-A low"),
    ]
    assert stacks_at_end(t) == {0: 101, 1: 1, 2: 99}


def test_a_short_bring_in_does_not_shrink_the_amount_to_call() -> None:
    t = play(STUD, {0: 100, 1: 2, 2: 100}, THREE, button=2)
    o = betting.options(t.hand)
    assert (o.bring_in, o.raise_action) == (1, None)  # all it has behind the ante
    rejects(
        t,
        act(1, "complete", 1),
        IllegalAction,
        "seat 1 cannot complete: not enough chips to complete",
    )
    t.act(1, "bring-in")
    assert t.events[-1] == Acted(1, Action.BRING_IN, 1, 1, all_in=True)
    o = betting.options(t.hand)
    assert (o.to_call, o.call_total, o.least) == (2, 2, 4)


@pytest.mark.parametrize(
    ("stack", "offered"),
    [
        (2, betting.Options(1, 0, 0, None, 0, 0, bring_in=1)),
        (3, betting.Options(1, 0, 0, None, 0, 0, bring_in=2)),
        (100, betting.Options(1, 0, 0, Action.COMPLETE, 4, 4, bring_in=2)),
    ],
)
def test_the_bring_in_is_offered_with_nothing_to_call_and_completes_only_beyond_it(
    stack: int, offered: betting.Options
) -> None:
    """Behind the ante, less than the bring-in or exactly it: all in to bring
    in, nothing left to complete. With more, the completion to a small bet."""
    t = play(STUD, {0: 100, 1: stack, 2: 100}, THREE, button=2)
    assert betting.options(t.hand) == offered


def test_a_short_stack_may_complete_all_in_for_more_than_the_bring_in() -> None:
    """All in for 3 of a 4 completion is at least half a bet: a full completion."""
    t = play(STUD, {0: 100, 1: 4, 2: 100}, THREE, button=2)
    o = betting.options(t.hand)
    assert (o.bring_in, o.raise_action, o.least, o.most) == (2, Action.COMPLETE, 3, 3)
    t.act(1, "complete", 3)
    o = betting.options(t.hand)
    assert (o.to_call, o.raise_action, o.least) == (3, Action.RAISE, 7)


# -- fourth street on: the best hand showing acts first -------------------------------


@pytest.mark.parametrize(
    ("ups", "button", "first"),
    [
        # fourth street: two up cards each
        (("Ac Kc", "5s 5h", "7d 8d"), 2, 1),  # a pair beats ace-king
        (("Kc Qc", "Ad 2h", "7d 8d"), 2, 1),  # ace-deuce beats king-queen
        (("Kc Jc", "Kd Qd", "7d 8d"), 2, 1),  # the second card decides
        (("Kc 9c", "Qs 3s", "Kd 9d"), 2, 0),  # a tie: first such seat left of the button
        (("Kc 9c", "Qs 3s", "Kd 9d"), 1, 2),
        (("Jk Ah", "Kc Kd", "7d 8d"), 2, 0),  # the joker is an ace: a pair of aces
        (("Jk 7h", "Ac Kd", "2d 8d"), 2, 1),  # ... an ace, nothing higher
        # fifth street
        (("As Ac Kd", "5s 5c 5d", "7d 8s Js"), 2, 1),  # trips beat a pair of aces
        (("Ks Kc Ad", "As Ac Kd", "7d 8s Js"), 2, 1),
        # sixth street
        (("As Ac Kd Qh", "5s 5c 9d 9h", "7d 8s Js 6c"), 2, 1),  # two pair beat aces
        (("5s 5c 9d 9h", "7d 7s 7h 2c", "As Ac Kd Qh"), 2, 1),  # trips beat two pair
        (("Ts Tc 3d 3h", "Kd Ks 2c 2h", "Qh Qs Jh Jd"), 2, 1),  # kings up
        (("4s 5c 6d 7h", "2c 2d 9s Th", "Ac Kd Qs 3s"), 2, 1),  # no straight under five
        (("2h 5h 9h Jh", "Ac Kd Qs 3s", "4c 6c 8d Td"), 2, 1),  # no flush under five
        (("Jk Ah Ad 2c", "Ks Kc Kd Qh", "7d 8s Js 6c"), 2, 0),  # joker makes trip aces
    ],
)
def test_from_fourth_street_the_best_hand_showing_acts_first(
    ups: tuple[str, str, str], button: int, first: int
) -> None:
    rules = JOKER if any(JOKER_TOKEN in u for u in ups) else STUD
    streets = len(ups[0].split()) - 1
    t = play(rules, HUNDREDS, showing(dict(enumerate(ups)), joker=rules.joker), button=button)
    passive(t, rounds=streets)
    assert t.hand.rounds == streets
    assert turn.best_showing_seat(t.hand) == first
    assert t.hand.to_act == first
    assert t.hand.round.pending == tuple((first + k) % 3 for k in range(3))


def test_an_all_in_best_hand_passes_first_action_clockwise() -> None:
    hands = showing({0: "3c 9d", 1: "Kh Ks", 2: "Qd Jd"})
    t = play(STUD, {0: 100, 1: 3, 2: 100}, hands, button=2)
    t.act(0, "bring-in")
    t.act(1, "call")
    assert t.events[-1] == Acted(1, Action.CALL, 2, 2, all_in=True)
    t.act(2, "call")
    assert turn.best_showing_seat(t.hand) == 1
    assert began(t, "fourth street betting").order == (2, 0)
    assert t.hand.to_act == 2


# -- bet sizes and the cap ----------------------------------------------------------


def test_small_bet_on_third_and_fourth_street_big_bet_from_fifth() -> None:
    hands = {0: "Ah Ad Kc 2h 7c 8d 9d", 1: "Tc Td 3d 3s 9s Js Qs"}
    t = play(STUD, {0: 200, 1: 200}, hands, button=1)
    assert t.hand.to_act == 1
    t.act(1, "bring-in")
    o = betting.options(t.hand)
    assert (o.raise_action, o.least, o.most) == (Action.COMPLETE, 4, 4)
    t.act(0, "complete", 4)
    o = betting.options(t.hand)
    assert (o.raise_action, o.least, o.most) == (Action.RAISE, 8, 8)
    t.act(1, "call")
    for name, size in [("fourth", 4), ("fifth", 8), ("sixth", 8), ("seventh", 8)]:
        assert t.of(StreetBegan)[-1] == began(t, f"{name} street betting")
        assert t.hand.to_act == 1  # the pair of threes showing
        # an open pair on fourth street does not double the bet in this game
        o = betting.options(t.hand)
        assert (o.raise_action, o.least, o.most) == (Action.BET, size, size)
        if size == 8:
            rejects(t, act(1, "bet", 4), IllegalAmount, "seat 1 cannot bet to 4: bet to 8")
        t.act(1, "bet", size)
        o = betting.options(t.hand)
        assert (o.raise_action, o.least, o.most) == (Action.RAISE, 2 * size, 2 * size)
        t.act(0, "call")
    assert t.hand.phase is Phase.ENDED
    assert t.hand.pot == 0
    assert sum(a.amount for a in t.of(PotAwarded) if isinstance(a, PotAwarded)) == 2 * (
        1 + 4 + 4 + 3 * 8
    )


def test_a_bet_and_three_raises_with_the_completion_as_the_bet() -> None:
    t = play(STUD, HUNDREDS, THREE, button=2)
    t.act(1, "bring-in")
    t.act(2, "complete", 4)
    t.act(0, "raise", 8)
    t.act(1, "raise", 12)
    t.act(2, "raise", 16)
    assert betting.options(t.hand).raise_action is None
    rejects(t, act(0, "raise", 20), IllegalAction, "seat 0 cannot raise: the betting is capped")
    t.act(0, "call")
    t.act(1, "call")
    assert t.hand.rounds == 1
    assert t.hand.pot == 3 + 48


def test_heads_up_the_raising_is_unlimited() -> None:
    t = play(STUD, {0: 100, 1: 100}, showing({0: "Kc", 1: "3d"}), button=1)
    t.act(1, "bring-in")
    t.act(0, "complete", 4)
    for k, seat in enumerate([1, 0, 1, 0, 1, 0], start=2):
        t.act(seat, "raise", 4 * k)
    t.act(1, "call")
    assert t.hand.rounds == 1
    assert t.hand.pot == 2 + 2 * 28


def test_the_raising_is_unlimited_once_two_players_are_left_before_the_cap() -> None:
    t = play(STUD, HUNDREDS, THREE, button=2)
    t.act(1, "bring-in")
    t.act(2, "complete", 4)
    t.act(0, "fold")
    for k, seat in enumerate([1, 2, 1, 2], start=2):
        t.act(seat, "raise", 4 * k)
    assert betting.options(t.hand).least == 24  # a sixth bet is still open
    t.act(1, "call")
    assert t.hand.pot == 3 + 2 * 20


def test_a_cap_reached_with_three_players_stays_when_one_folds() -> None:
    t = play(STUD, HUNDREDS, THREE, button=2)
    t.act(1, "bring-in")
    t.act(2, "complete", 4)
    t.act(0, "raise", 8)
    t.act(1, "raise", 12)
    t.act(2, "raise", 16)
    t.act(0, "fold")
    rejects(t, act(1, "raise", 20), IllegalAction, "seat 1 cannot raise: the betting is capped")
    t.act(1, "call")
    assert t.hand.rounds == 1


def test_an_all_in_raise_of_half_a_bet_reopens_the_betting() -> None:
    hands = showing({0: "Kc Kd", 1: "3d 5s", 2: "Qh 7h"})
    t = play(STUD, {0: 100, 1: 100, 2: 9}, hands, button=2)
    passive(t, rounds=1)
    assert t.hand.to_act == 0  # the kings
    t.act(0, "bet", 4)
    t.act(1, "call")
    assert betting.options(t.hand).least == 6  # all seat 2 has
    t.act(2, "raise", 6)
    assert t.events[-1] == Acted(2, Action.RAISE, 6, 6, all_in=True)
    o = betting.options(t.hand)
    assert (o.seat, o.to_call, o.raise_action, o.least) == (0, 2, Action.RAISE, 10)
    t.act(0, "raise", 10)
    t.act(1, "call")
    assert t.hand.rounds == 2


def test_a_short_all_in_bet_may_be_called_or_completed() -> None:
    hands = showing({0: "Kc Kd Ah", 1: "3d 5s 6s", 2: "Qh 7h 8c"})
    t = play(STUD, {0: 10, 1: 100, 2: 100}, hands, button=2)
    passive(t, rounds=1)
    t.act(0, "bet", 4)
    t.act(1, "call")
    t.act(2, "call")
    assert t.hand.player(0).stack == 3
    assert t.hand.to_act == 0  # kings and an ace showing
    t.act(0, "bet", 3)  # all in, less than half the big bet
    o = betting.options(t.hand)
    assert (o.seat, o.to_call, o.raise_action, o.least, o.most) == (1, 3, Action.COMPLETE, 8, 8)
    rejects(t, act(1, "complete", 6), IllegalAmount, "seat 1 cannot complete to 6: complete to 8")
    rejects(t, act(1, "raise", 8), IllegalAction, "seat 1 cannot raise: complete instead")
    t.act(1, "complete", 8)
    o = betting.options(t.hand)
    assert (o.seat, o.to_call, o.raise_action, o.least) == (2, 8, Action.RAISE, 16)
    t.act(2, "call")
    assert t.hand.rounds == 3


def test_a_short_all_in_bet_does_not_reopen_the_betting_for_a_player_who_checked() -> None:
    """docs/rules.md lets "a player facing a short all-in bet" complete it; read with
    RRoP (an all-in under half a bet does not reopen the betting for a player
    who has already acted), a player who checked before it may only call."""
    hands = showing({0: "Kc Kd Ah", 1: "3d 5s 6s", 2: "Qh 7h 8c"})
    t = play(STUD, {0: 100, 1: 100, 2: 10}, hands, button=2)
    passive(t, rounds=1)
    t.act(0, "bet", 4)
    t.act(1, "call")
    t.act(2, "call")
    t.act(0, "check")
    t.act(1, "check")
    t.act(2, "bet", 3)  # all in, less than half the big bet
    o = betting.options(t.hand)
    assert (o.seat, o.to_call, o.raise_action) == (0, 3, None)
    rejects(
        t,
        act(0, "complete", 8),
        IllegalAction,
        "seat 0 cannot complete: the betting was not reopened since this seat acted",
    )
    t.act(0, "call")
    t.act(1, "call")
    assert t.hand.rounds == 3


# -- the common card ----------------------------------------------------------------

EIGHT = {
    0: "7c 8c Th Jh Qh Kh",
    1: "Ac 2d 3s 4c 5d Kd",
    2: "2c 2h 2s 3c 3d 3h",
    3: "4d 4h 4s 5c 5h 5s",
    4: "6c 6d 6h 6s 7d 7h",
    5: "7s 8d 8h 8s 9c 9d",
    6: "9s Tc Td Ts Jc Jd",
    7: "Js Qc Qd Qs Kc Ks",
}


def test_eight_players_to_seventh_street_share_a_common_card() -> None:
    t = play(STUD, dict.fromkeys(range(8), 100), EIGHT, button=7, common="9h")
    passive(t, rounds=3)
    assert t.hand.to_act == 3  # sixth street: trip fives showing are best
    passive(t, rounds=4)
    seventh = began(t, "seventh street")
    after = t.events[t.events.index(seventh) + 1 :]
    assert after[0] == BoardDealt(cards=parse_cards("9h"), positions=(48,))
    assert not any(isinstance(e, CardDealt) for e in after)
    assert t.hand.board == parse_cards("9h")
    assert all(len(p.cards) == 6 for p in t.hand.players)
    # the common card is part of every hand showing: Th Jh Qh Kh 9h
    assert turn.best_showing_seat(t.hand) == 0
    assert t.hand.to_act == 0
    passive(t)
    shown = [e for e in t.events if isinstance(e, Shown)]
    assert [(e.seat, len(e.cards)) for e in shown] == [(s, 6) for s in range(8)]
    assert shares(t) == [
        (0, 0, 12, "high", "straight flush, king high"),
        (0, 1, 12, "low", "5-4-3-2-A low"),
    ]


def test_with_five_cards_showing_the_joker_is_the_bug_not_just_an_ace() -> None:
    """Eight players and the joker: 53 - 48 leaves 5 cards for 8 players.
    On sixth street Jk 5c 6d 7s is ace-high (the joker an ace) behind trip
    kings; with the common 8h it shows a nine-high straight and acts first."""
    ups = {
        0: "Jk 5c 6d 7s",
        1: "Kc Kd Ks 2c",
        2: "Ac Qd 3s 2d",
        3: "Ah Qc 3d 2s",
        4: "As Jc 4d 2h",
        5: "Kh Jd 4s 3c",
        6: "Tc Td 9c 4c",
        7: "Js Ts 9s 5s",
    }
    hands = showing(ups, joker=True, common="8h")
    t = play(JOKER, dict.fromkeys(range(8), 100), hands, button=7, common="8h")
    passive(t, rounds=3)
    assert t.hand.to_act == 1
    passive(t, rounds=4)
    assert t.hand.board == parse_cards("8h")
    assert t.hand.to_act == 0
    assert turn.showing(t.hand.player(0).up + t.hand.board) > turn.showing(
        t.hand.player(1).up + t.hand.board
    )


def test_the_last_card_of_the_deck_may_be_dealt() -> None:
    t = play(STUD, dict.fromkeys(range(8), 100), button=7)
    passive(t, fold=frozenset({(0, 3)}))
    dealt = [e for e in t.events if isinstance(e, CardDealt)]
    assert len(dealt) == 24 + 7 * 4
    assert dealt[-1].position == 51
    assert t.of(BoardDealt) == []
    assert t.hand.phase is Phase.ENDED


# -- showdown ------------------------------------------------------------------------


def test_high_and_low_split_the_pot_the_odd_chip_goes_high() -> None:
    hands = {
        0: "Kc Kd Ks Qh Qs 9d Tc",  # kings full
        1: "Ac 2d 3h 5s 7c 9h Jd",  # 7-5-3-2-A
        2: "4c 4d 6h 8s Td Jh Qc",  # no low
    }
    t = play(STUD, HUNDREDS, hands, button=2)
    passive(t)
    assert shares(t) == [
        (0, 0, 5, "high", "full house, kings full of queens"),
        (0, 1, 4, "low", "7-5-3-2-A low"),
    ]
    assert stacks_at_end(t) == {0: 102, 1: 101, 2: 97}


def test_with_no_qualifying_low_the_high_hand_takes_all() -> None:
    hands = {
        0: "Kc Kd Ks Qh Qs 9d Tc",
        1: "Ac 2d 3h 5s 9c Th Jd",  # 9-5-3-2-A does not qualify
        2: "4c 4d 6h 8s Td Jh Qc",
    }
    t = play(STUD, HUNDREDS, hands, button=2)
    passive(t)
    assert shares(t) == [(0, 0, 9, "all", "full house, kings full of queens")]


def test_a_wheel_scoops_with_the_same_five_cards() -> None:
    hands = {
        0: "Kc Kd Qs Qh 9d Tc 7h",
        1: "Ac 2d 3h 4s 5c 9h Jd",
        2: "4c 4d 6h 8s Td Jh Qc",
    }
    t = play(STUD, HUNDREDS, hands, button=2)
    passive(t)
    assert shares(t) == [
        (0, 1, 5, "high", "straight, five high"),
        (0, 1, 4, "low", "5-4-3-2-A low"),
    ]
    assert stacks_at_end(t) == {0: 97, 1: 106, 2: 97}


def test_a_flush_and_a_low_from_different_cards_scoop() -> None:
    hands = {
        0: "Kc Kd Qs Qc 9d Tc 7s",
        1: "Ah 2h 3c 4h 6d 9h Jh",  # hearts A J 9 4 2; low 6-4-3-2-A
        2: "4c 4d 6h 8s Td Jd Qh",
    }
    t = play(STUD, HUNDREDS, hands, button=2)
    passive(t)
    assert shares(t) == [
        (0, 1, 5, "high", "flush, ace high"),
        (0, 1, 4, "low", "6-4-3-2-A low"),
    ]


def test_tied_high_hands_odd_chip_to_the_highest_card_by_rank_then_suit() -> None:
    hands = {
        0: "8c 9d Th Jc Qs 2c Ah",  # queen-high straight, and the ace of hearts
        1: "8d 9c Tc Jd Qc 3d As",  # the same, and the ace of spades
        2: "4c 4d 6h 8s Ts Js 3h",
    }
    t = play(STUD, HUNDREDS, hands, button=2)
    passive(t)
    assert shares(t) == [
        (0, 1, 5, "all", "straight, queen high"),
        (0, 0, 4, "all", "straight, queen high"),
    ]


def test_tied_low_hands_odd_chip_to_the_lowest_card_and_who_shows() -> None:
    hands = {
        0: "Ad 2c 3c 4c 6c Kh Kd",  # 6-4-3-2-A, lowest card the ace of diamonds
        1: "Ac 2d 3d 4h 6h Qh Qs",  # 6-4-3-2-A, the ace of clubs
        2: "Jc Jd Js 9h 9s Th 8d",  # jacks full
        3: "Tc Ts 5s",  # folds on third street
    }
    t = play(STUD, {0: 100, 1: 100, 2: 100, 3: 100}, hands, button=3)
    passive(t, fold=frozenset({(0, 3)}))
    assert shares(t) == [
        (0, 2, 5, "high", "full house, jacks full of nines"),
        (0, 1, 3, "low", "6-4-3-2-A low"),
        (0, 0, 2, "low", "6-4-3-2-A low"),
    ]
    # every live hand is shown, all its cards, and the folded one is not
    shown = [(e.seat, e.cards) for e in t.events if isinstance(e, Shown)]
    assert shown == [(s, parse_cards(hands[s])) for s in (0, 1, 2)]


RAKE_ONE = replace(STUD, rake=Rake(basis_points=500, cap=10))  # 5 %: 1 chip of 24


def test_tied_high_hands_sharing_the_common_card_odd_chip_to_the_next_highest_card() -> None:
    """Both straights use the common ace of spades, the highest card of
    both hands: the king of hearts beats the king of diamonds."""
    hands = {
        0: "Kd Qc Jc Td 2c 9s",  # A-K-Q-J-T with the common card
        1: "Kh Qd Jd Tc 3c 9h",  # the same, with the king of hearts
        2: "Ks Kc 4d 4h 5s 6d",
        3: "Qh Qs 7c 7d 8h 9c",
        4: "Jh Js 5c 5d 6h 8c",
        5: "2d 2h 2s 3d 3h 3s",
        6: "4c 4s 5h 6c 6s 7h",
        7: "7s 8d 8s 9d Th Ts",
    }
    t = play(RAKE_ONE, dict.fromkeys(range(8), 100), hands, button=7, common="As")
    passive(t, fold=frozenset({(3, 5), (3, 6), (3, 7)}))
    assert t.hand.board == parse_cards("As")
    awarded = [(a.amount, a.rake) for a in t.of(PotAwarded) if isinstance(a, PotAwarded)]
    assert awarded == [(24, 1)]
    assert shares(t) == [
        (0, 1, 12, "all", "straight, ace high"),
        (0, 0, 11, "all", "straight, ace high"),
    ]


def test_tied_low_hands_sharing_the_common_card_odd_chip_to_the_next_lowest_card() -> None:
    """Both wheels use the common ace of clubs, the lowest card of both
    hands: the deuce of clubs beats the deuce of diamonds."""
    hands = {
        0: "2d 3c 4c 5h Kd Qs",  # 5-4-3-2-A with the common card
        1: "2c 3d 4d 5s Kh Qh",  # the same, with the deuce of clubs
        2: "9c 9d 9s Js Jd Th",  # nines full
        3: "6c 6d 7c 7d 8c Ts",
        4: "Tc Td Jc Jh Qc Qd",
        5: "2h 2s 3h 3s 4h 4s",
        6: "5c 5d 6h 6s 7h 7s",
        7: "8d 8h 8s 9h Ad Ah",
    }
    t = play(RAKE_ONE, dict.fromkeys(range(8), 100), hands, button=7, common="Ac")
    passive(t, fold=frozenset({(3, 5), (3, 6), (3, 7)}))
    assert t.hand.board == parse_cards("Ac")
    assert shares(t) == [
        (0, 2, 12, "high", "full house, nines full of jacks"),
        (0, 1, 6, "low", "5-4-3-2-A low"),
        (0, 0, 5, "low", "5-4-3-2-A low"),
    ]


def test_side_pots_are_each_split_high_and_low_among_their_players() -> None:
    hands = {
        0: "Ac 2c 3d 4d 6h Kc Qd",  # 6-4-3-2-A, all in on third street
        1: "Ks Kd Kh 9s 9d Tc Jc",  # kings full
        2: "Ad 2d 3h 5c 7d Qh Js",  # 7-5-3-2-A
    }
    t = play(STUD, {0: 5, 1: 100, 2: 100}, hands, button=2)
    assert t.hand.to_act == 0  # 3d
    t.act(0, "complete", 4)
    assert t.events[-1] == Acted(0, Action.COMPLETE, 4, 4, all_in=True)
    t.act(1, "call")
    t.act(2, "call")
    assert t.hand.to_act == 1  # Kh, the all-in 3d 4d left out
    t.act(1, "bet", 4)
    t.act(2, "call")
    t.act(1, "bet", 8)
    t.act(2, "call")
    passive(t)
    awards = [(a.amount, a.eligible) for a in t.of(PotAwarded) if isinstance(a, PotAwarded)]
    assert awards == [(15, (0, 1, 2)), (24, (1, 2))]
    assert shares(t) == [
        (0, 1, 8, "high", "full house, kings full of nines"),
        (0, 0, 7, "low", "6-4-3-2-A low"),
        (1, 1, 12, "high", "full house, kings full of nines"),
        (1, 2, 12, "low", "7-5-3-2-A low"),
    ]
    assert stacks_at_end(t) == {0: 7, 1: 103, 2: 95}


# -- the joker ------------------------------------------------------------------------


def test_the_joker_completes_a_straight_and_is_the_lowest_card_for_low() -> None:
    hands = {
        0: "Jk 5c 6d 7h 8s Kc 2d",  # 5-6-7-8-Jk: nine high; Jk 2 5 6 7: the joker is the ace
        1: "Qc Qd Qh 3s 4s 9d Th",
        2: "Kd Ks 2h 3h Jc Js 4c",
    }
    t = play(JOKER, HUNDREDS, hands, button=2)
    passive(t)
    assert shares(t) == [
        (0, 0, 5, "high", "straight, nine high"),
        (0, 0, 4, "low", "7-6-5-2-A low"),
    ]


def test_the_joker_completes_a_flush_as_its_best_missing_card() -> None:
    hands = {
        0: "Jk 2h 5h 9h Jh Kc Qc",  # the joker is the ace of hearts
        1: "Kd Qd Td 8d 3d 4c 6s",  # a king-high flush
        2: "Tc Ts 7c 7s Jc Js 9c",
    }
    t = play(JOKER, HUNDREDS, hands, button=2)
    passive(t)
    assert shares(t) == [(0, 0, 9, "all", "flush, ace high")]


def test_the_joker_makes_five_aces_the_best_hand() -> None:
    hands = {
        0: "Jk As Ah Ad Ac 2c 3c",  # the low would need a fifth rank: none
        1: "9h Th Jh Qh Kh 4d 5d",  # king-high straight flush
        2: "Ks Kd 6c 7c 8c Td Tc",
    }
    t = play(JOKER, HUNDREDS, hands, button=2)
    passive(t)
    assert shares(t) == [(0, 0, 9, "all", "five aces")]


# -- winning without a showdown, rake, cancel --------------------------------------------

RAKED = replace(STUD, rake=Rake(basis_points=5000, cap=100))


def test_uncontested_the_uncalled_bring_in_comes_back_nothing_is_shown_or_raked() -> None:
    t = play(RAKED, HUNDREDS, THREE, button=2)
    t.act(1, "bring-in")
    t.act(2, "fold")
    t.act(0, "fold")
    collected = [e for e in t.events if isinstance(e, BetsCollected)]
    assert [(e.returned_to, e.returned) for e in collected] == [(1, 2)]
    assert t.of(Shown) == []
    assert [(a.amount, a.rake) for a in t.of(PotAwarded) if isinstance(a, PotAwarded)] == [(3, 0)]
    assert stacks_at_end(t) == {0: 99, 1: 102, 2: 99}


def test_a_hand_that_deals_fourth_street_is_raked() -> None:
    t = play(RAKED, HUNDREDS, THREE, button=2)
    passive(t, rounds=1)
    first = t.hand.to_act
    assert first is not None
    t.act(first, "bet", 4)
    for seat in t.hand.round.pending:
        t.act(seat, "fold")
    assert [(a.amount, a.rake) for a in t.of(PotAwarded) if isinstance(a, PotAwarded)] == [(9, 4)]
    assert stacks_at_end(t)[first] == 97 + 5


def test_a_cancelled_hand_returns_every_chip() -> None:
    t = play(STUD, HUNDREDS, THREE, button=2)
    passive(t, rounds=1)
    first = t.hand.to_act
    assert first is not None
    t.act(first, "bet", 4)
    t.do(Cancel())
    assert stacks_at_end(t) == HUNDREDS
    assert t.hand.phase is Phase.ENDED


# -- the clock ---------------------------------------------------------------------------


def test_the_bring_in_seat_out_of_time_brings_in_others_check_or_fold() -> None:
    t = play(STUD, HUNDREDS, THREE, button=2)
    t.do(TimeOut(1))
    assert t.events[-1] == Acted(1, Action.BRING_IN, 2, 2, timed_out=True)
    t.do(TimeOut(2))
    assert t.events[-1] == Acted(2, Action.FOLD, 0, 0, timed_out=True)
    t.act(0, "call")
    seat = t.hand.to_act
    assert seat is not None
    other = 1 - seat  # seat 2 has folded
    with pytest.raises(NotYourTurn, match=f"^seat {other} is not on the clock$"):
        t.do(TimeOut(other))
    t.do(TimeOut(seat))
    assert t.events[-1] == Acted(seat, Action.CHECK, 0, 0, timed_out=True)


def test_left_of_an_all_in_low_card_a_player_out_of_time_folds() -> None:
    """They may fold, so the clock folds them; the next player brings in."""
    t = play(STUD, {0: 100, 1: 1, 2: 100, 3: 100}, FOUR, button=3)
    t.do(TimeOut(2))
    assert t.events[-1] == Acted(2, Action.FOLD, 0, 0, timed_out=True)
    assert t.hand.to_act == 3
    t.do(TimeOut(3))
    assert acts(t)[-1] == (3, Action.FOLD, 0)
    # seat 0 is alone against the all-in low card: nothing to decide, the
    # cards are dealt out without asking it
    assert t.hand.phase is Phase.ENDED
    assert [a.seat for a in t.of(Acted)] == [2, 3]


# -- table and replay ----------------------------------------------------------------------


def test_stud_is_for_two_to_eight_players_with_a_bring_in_up_to_the_small_bet() -> None:
    with pytest.raises(IllegalAction, match=r"^stud-hi-lo is played by 2 to 8 players, not 9$"):
        deal(STUD, [100] * 9)
    with pytest.raises(IllegalAction, match=r"^stud-hi-lo is played by 2 to 8 players, not 1$"):
        deal(STUD, [100])
    too_big = replace(STUD, stakes=replace(STUD.stakes, bring_in=5))
    with pytest.raises(ConfigError, match="at most the small bet"):
        deal(too_big, [100, 100])
    assert deal(STUD, [100] * 8).hand.phase is Phase.BETTING


def test_replaying_the_events_and_commands_gives_the_same_hand() -> None:
    hands = {
        0: "Ac 2c 3d 4d 6h Kc Qd",
        1: "Ks Kd Kh 9s 9d Tc Jc",
        2: "Ad 2d 3h 5c 7d Qh Js",
    }
    stacks = {0: 5, 1: 100, 2: 100}
    t = play(STUD, stacks, hands, button=2)
    t.act(0, "complete", 4)
    passive(t, rounds=1)
    t.act(1, "bet", 4)
    t.act(2, "raise", 8)
    passive(t)
    assert t.hand.phase is Phase.ENDED
    # every prefix replays to a hand with the same chips
    for k in range(1, len(t.events) + 1):
        assert replay(t.events[:k]).chips == 205
    final = replay(t.events)
    assert {p.seat: p.stack for p in final.players} == stacks_at_end(t)
    # the same commands on the same deck give the same events
    again = play(STUD, stacks, hands, button=2)
    again.do(*t.commands)
    assert again.events == t.events
    assert again.hand == final
