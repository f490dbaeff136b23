"""Jackpots (docs/rules.md "Draw games" and "Jackpots"), one stacked deck per
rule, inside one hand: carrying a passed pot to the next deal is the
table's business; here a passed deal ends with ``PassedOut``, and a deal of
a carried pot starts with ``carried`` chips per seat, ``dead`` chips and
perhaps no antes.

Every table here is a :class:`draw_table.Checked` table: after every command
the chips on the table are unchanged, replaying the events gives the state
the events were decided from, and deciding again gives the same events.

Choices where docs/rules.md leaves room, made here and by the engine:

- "Jacks or better" is judged on the five cards held: a pair of jacks or
  better, two pair, trips, a straight or better. The opening combination is
  the cards that make it (both pairs of two pair, all five of a straight).
- Only the opening bet needs openers; raising an opened pot does not.
- The opener's discards are set aside when the cards kept no longer hold
  jacks or better, judged like openers (keeping a lower pair is not enough).
- Openers are proved whenever the opener folds (facing a raise in the first
  round, or a bet after the draw), at the moment of the fold, before the
  folded cards can be reshuffled into the stub; and when the opener wins
  without a showdown. At a showdown the set-aside cards are shown with the
  opener's hand, and nothing else is proved.
- Folding is allowed when a check is possible; if everyone but one player
  folds before the pot is opened, that player wins the pot uncontested
  (it is not passed out). If some fold and the rest check, the deal is
  passed out and ``PassedOut`` lists every seat's chips in the pot, folded
  seats included: who stays entitled is the table's decision.
"""

from __future__ import annotations

import pytest

from feltline.engine.cards.card import Card
from feltline.engine.cards.deck import shuffle
from feltline.engine.errors import IllegalAction, IllegalDraw
from feltline.engine.hand import betting
from feltline.engine.hand.events import (
    EVERYONE,
    Acted,
    Action,
    Drew,
    HandEnded,
    PassedOut,
    Posted,
    PotAwarded,
    Shown,
    StreetBegan,
    StubReshuffled,
)
from feltline.engine.hand.rules import Game, Rake, Rules
from feltline.engine.hand.script import Phase

from .draw_table import JACKPOTS, SEED, Checked, cards, deal, top


def check_around(t: Checked) -> None:
    start = t.hand.rounds
    while t.hand.phase is Phase.BETTING and t.hand.rounds == start:
        seat = t.hand.to_act
        assert seat is not None
        t.act(seat, "check")


def call_around(t: Checked) -> None:
    start = t.hand.rounds
    while t.hand.phase is Phase.BETTING and t.hand.rounds == start:
        seat = t.hand.to_act
        assert seat is not None
        t.act(seat, "call")


def stand_pat(t: Checked) -> None:
    while t.hand.phase is Phase.DRAWING:
        t.draw(t.hand.round.pending[0])


def street(t: Checked, name: str) -> StreetBegan:
    found = [e for e in t.of(StreetBegan) if isinstance(e, StreetBegan) and e.name == name]
    assert len(found) == 1, f"{name} began {len(found)} times"
    return found[0]


def shown(t: Checked) -> list[Shown]:
    return [e for e in t.events if isinstance(e, Shown)]


JUNK = {0: "2c 4d 7h 9s Kd", 1: "3c 5d 8h Ts Ad", 2: "2d 6c 9h Qs 4c"}


# ---- opening


@pytest.mark.parametrize(
    ("held", "combination"),
    [
        ("Jc 2d 5h Js 8c", "Jc Js"),
        ("Ac 2d 5h 8s Ad", "Ac Ad"),
        ("3c 2d 3h 2s 8c", "3c 2d 3h 2s"),
        ("2c 2d 2h 5s 8c", "2c 2d 2h"),
        ("4c 5d 6h 7s 8c", "4c 5d 6h 7s 8c"),
        ("Ac 2d 3h 4s 5c", "Ac 2d 3h 4s 5c"),
        ("2h 5h 8h Th Kh", "2h 5h 8h Th Kh"),
        ("9c 9d 9h 5s 5c", "9c 9d 9h 5s 5c"),
    ],
)
def test_jacks_or_better_open(held: str, combination: str) -> None:
    t = deal(JACKPOTS, [200, 200, 200], top({0: held}, button=2, seats=(1, 2)), button=2)
    t.act(0, "bet", 10)
    assert (t.hand.opener, t.hand.first_bettor) == (0, 0)
    assert t.hand.openers == cards(combination)


@pytest.mark.parametrize(
    "held",
    ["Tc Td 2h 5s 8c", "Ac Kd Qh Js 9c", "2h 5h 8h Th Kc", "4c 5d 6h 7s 9c", "Ac 2d 3h 4s 6c"],
)
def test_opening_without_jacks_or_better_is_refused(held: str) -> None:
    t = deal(JACKPOTS, [200, 200, 200], top({0: held}, button=2, seats=(1, 2)), button=2)
    assert betting.options(t.hand).raise_action is None
    before = list(t.events)
    refused = r"^seat 0 cannot bet: it takes jacks or better to open$"
    with pytest.raises(IllegalAction, match=refused):
        t.act(0, "bet", 10)
    assert t.events == before
    assert t.hand.to_act == 0
    t.act(0, "check")
    assert t.hand.to_act == 1


def test_anyone_may_check_and_only_the_opener_needs_openers() -> None:
    hands = {0: "Jc Jd 3h 6s 9c", 1: "Tc Td 2h 5s 8c", 2: JUNK[2]}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    t.act(0, "check")  # holds openers, checks
    t.act(1, "check")
    with pytest.raises(IllegalAction, match="seat 2 cannot bet: it takes jacks or better"):
        t.act(2, "bet", 10)
    t.act(2, "check")
    assert t.hand.phase is Phase.ENDED  # passed out: seat 0 never comes round again
    t2 = deal(JACKPOTS, [200, 200, 200], top(hands, button=1), button=1)
    t2.act(2, "check")
    t2.act(0, "bet", 10)  # seat 0 opens
    assert t2.hand.opener == 0
    t2.act(1, "raise", 20)  # no openers needed to raise
    with pytest.raises(IllegalAction, match="seat 2 cannot check: 20 to call"):
        t2.act(2, "check")
    t2.act(2, "call")


def test_the_opener_may_re_raise() -> None:
    hands = {0: "Jc Jd 3h 6s 9c", 1: JUNK[1], 2: JUNK[2]}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    t.act(1, "raise", 20)
    t.act(2, "call")
    t.act(0, "raise", 30)
    assert t.hand.round.level == 30
    assert t.hand.opener == 0
    call_around(t)
    assert t.hand.phase is Phase.DRAWING


def test_a_player_all_in_from_the_ante_cannot_open() -> None:
    hands = {0: JUNK[0], 1: "Ac Ah 3h 6s 9c", 2: JUNK[2]}
    t = deal(JACKPOTS, {0: 200, 1: 5, 2: 200}, top(hands, button=2), button=2)
    assert street(t, "first betting round").order == (0, 2)
    check_around(t)
    assert t.of(PassedOut) == [PassedOut(carried=((0, 5), (1, 5), (2, 5)), dead=0)]


def test_a_time_out_before_the_opening_checks() -> None:
    t = deal(JACKPOTS, [200, 200, 200], button=2)
    t.time_out(0)
    assert t.of(Acted)[-1] == Acted(0, Action.CHECK, 0, 0, timed_out=True)


# ---- passing out


def test_everyone_checks_and_the_deal_is_passed_out() -> None:
    hands = {0: "Jc Jd 3h 6s 9c", 1: JUNK[1], 2: JUNK[2]}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    check_around(t)
    assert t.hand.phase is Phase.ENDED
    passed = t.of(PassedOut)
    assert passed == [PassedOut(carried=((0, 5), (1, 5), (2, 5)), dead=0)]
    ended = t.events[-1]
    assert isinstance(ended, HandEnded)
    assert dict(ended.stacks) == {0: 195, 1: 195, 2: 195}
    assert (ended.rake, ended.cancelled) == (0, False)
    assert t.events.index(passed[0]) == len(t.events) - 2
    assert t.hand.pot == 15  # the pot stays for the next deal
    assert not t.of(PotAwarded)
    assert not shown(t)
    assert [e.name for e in t.of(StreetBegan) if isinstance(e, StreetBegan)] == [
        "forced bets",
        "the deal",
        "first betting round",
    ]


def test_a_passed_out_deal_is_not_raked() -> None:
    raked = Rules(Game.JACKPOTS, JACKPOTS.stakes, rake=Rake(basis_points=1000, cap=3))
    t = deal(raked, [200, 200, 200], button=2)
    check_around(t)
    assert len(t.of(PassedOut)) == 1
    ended = t.events[-1]
    assert isinstance(ended, HandEnded)
    assert ended.rake == 0
    assert t.hand.pot == 15


def test_a_fold_before_the_opening_leaves_the_deal_passed_out_for_the_rest() -> None:
    t = deal(JACKPOTS, [200, 200, 200], button=2)
    t.act(0, "fold")
    t.act(1, "check")
    t.act(2, "check")
    assert t.of(PassedOut) == [PassedOut(carried=((0, 5), (1, 5), (2, 5)), dead=0)]


def test_everyone_folding_to_one_player_before_the_opening_gives_that_player_the_pot() -> None:
    t = deal(JACKPOTS, [200, 200, 200], button=2, carried={0: 5, 1: 5, 2: 5})
    t.act(0, "fold")
    t.act(1, "fold")
    assert t.hand.phase is Phase.ENDED
    assert not t.of(PassedOut)
    assert t.shares() == [(2, 30, "all")]
    assert not shown(t)


# ---- split openers


@pytest.mark.parametrize(
    ("held", "thrown", "set_aside"),
    [
        ("Jc Jd 3h 6s 9c", "Jd 6s 9c", True),  # splits the jacks
        ("Jc Jd 3h 6s 9c", "3h 6s 9c", False),  # keeps them
        ("Jc Jd 3h 3s 9c", "3s 9c", False),  # two pair, keeps the jacks
        ("Jc Jd 3h 3s 9c", "Jd 3s", True),
        ("3c 3d 2h 2s 8c", "2s", True),  # two small pair: one small pair is no opener
        ("Qc Qd Qh 3s 9c", "Qh 3s 9c", False),  # still a pair of queens
        ("4c 5d 6h 7s 8c", "8c", True),  # a broken straight
        ("4c 5d 6h 7s 8c", "", False),  # pat
    ],
)
def test_an_opener_who_breaks_openers_has_the_discards_set_aside(
    held: str, thrown: str, set_aside: bool
) -> None:
    t = deal(JACKPOTS, [200, 200, 200], top({0: held}, button=2, seats=(1, 2)), button=2)
    t.act(0, "bet", 10)
    call_around(t)
    t.draw(0, thrown)
    drew = t.of(Drew)[-1]
    assert isinstance(drew, Drew)
    assert drew.set_aside is set_aside
    assert drew.redacted() == Drew(0, None, len(cards(thrown)), set_aside=set_aside)
    assert t.hand.set_aside == (cards(thrown) if set_aside else ())
    assert t.hand.muck == (() if set_aside else cards(thrown))
    stand_pat(t)
    check_around(t)
    opener = [e for e in shown(t) if e.seat == 0]
    assert len(opener) == 1
    assert opener[0].cards == t.holding(0)
    assert opener[0].set_aside == (cards(thrown) if set_aside else ())
    assert all(e.set_aside == () for e in shown(t) if e.seat != 0)


def test_only_the_opener_s_discards_are_set_aside() -> None:
    hands = {0: "Qc Qd 3h 6s 9c", 1: "Jc Jd 4h 7s Tc", 2: JUNK[2]}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    call_around(t)
    t.draw(0, "3h 6s 9c")
    t.draw(1, "Jd 4h 7s")  # seat 1 breaks its jacks but did not open
    drew = t.of(Drew)[-1]
    assert isinstance(drew, Drew)
    assert drew.set_aside is False
    assert t.hand.set_aside == ()
    assert t.hand.muck == cards("3h 6s 9c Jd 4h 7s")


def test_set_aside_cards_are_never_reshuffled() -> None:
    """Eight players, 11 cards above the bottom one. Seat 0 opens, breaks
    its jacks drawing three (set aside), seats 1 and 2 draw three; seat 3
    takes the last two above the bottom card and reshuffle 1 holds the bottom
    card and seats 1-2's discards only; reshuffle 2 (seat 6) holds seats
    3-5's discards."""
    t = deal(JACKPOTS, [200] * 8, top({0: "Jc Jd 3h 6s 9c"}, button=7, seats=range(8)), button=7)
    stub = t.hand.stub
    t.act(0, "bet", 10)
    call_around(t)
    thrown: dict[int, tuple[Card, ...]] = {0: cards("Jd 6s 9c")}
    t.draw(0, "Jd 6s 9c")
    for seat in range(1, 8):
        thrown[seat] = t.holding(seat)[:3]
        t.draw(seat, " ".join(str(c) for c in thrown[seat]))
    assert t.hand.set_aside == thrown[0]
    first, second = (e for e in t.of(StubReshuffled) if isinstance(e, StubReshuffled))
    assert first.cards == shuffle(SEED, (stub[51], *thrown[1], *thrown[2]), "reshuffle/1")
    assert second.cards == shuffle(SEED, (*thrown[3], *thrown[4], *thrown[5]), "reshuffle/2")
    assert first.cards is not None
    assert second.cards is not None
    assert t.holding(3)[2:] == (stub[49], stub[50], first.cards[0])
    assert t.holding(5)[2:] == first.cards[4:7]
    assert t.holding(7)[2:] == second.cards[3:6]
    assert not set(thrown[0]) & {c for p in t.hand.players for c in p.cards}
    assert street(t, "second betting round").order == tuple(range(8))
    check_around(t)
    proof = [e for e in shown(t) if e.seat == 0]
    assert [e.set_aside for e in proof] == [thrown[0]]


# ---- the second betting round


def test_the_opener_acts_first_after_the_draw() -> None:
    hands = {0: JUNK[0], 1: JUNK[1], 2: "Kc Kh 4h 6s 9c", 3: "3d 5c 8d Tc Qh"}
    t = deal(JACKPOTS, [200] * 4, top(hands, button=3), button=3)
    t.act(0, "check")
    t.act(1, "check")
    t.act(2, "bet", 10)
    call_around(t)
    assert street(t, "the draw").order == (0, 1, 2, 3)
    stand_pat(t)
    assert street(t, "second betting round").order == (2, 3, 0, 1)
    t.act(2, "bet", 20)  # the big bet


def test_after_the_draw_the_next_active_player_acts_when_the_opener_folded() -> None:
    hands = {0: JUNK[0], 1: JUNK[1], 2: "Kc Kh 4h 6s 9c", 3: "3d 5c 8d Tc Qh"}
    t = deal(JACKPOTS, [200] * 4, top(hands, button=3), button=3)
    t.act(0, "check")
    t.act(1, "check")
    t.act(2, "bet", 10)
    t.act(3, "raise", 20)
    t.act(0, "call")
    t.act(1, "call")
    t.act(2, "fold")
    stand_pat(t)
    assert street(t, "second betting round").order == (3, 0, 1)
    t.act(3, "bet", 20)  # after the draw, betting needs no openers


def test_after_the_draw_the_next_active_player_acts_when_the_opener_is_all_in() -> None:
    hands = {0: JUNK[0], 1: JUNK[1], 2: "Kc Kh 4h 6s 9c", 3: "3d 5c 8d Tc Qh"}
    t = deal(JACKPOTS, {0: 200, 1: 200, 2: 15, 3: 200}, top(hands, button=3), button=3)
    t.act(0, "check")
    t.act(1, "check")
    t.act(2, "bet", 10)  # all in
    call_around(t)
    stand_pat(t)
    assert street(t, "second betting round").order == (3, 0, 1)


def test_draw_limit_is_three_with_six_players() -> None:
    t = deal(JACKPOTS, [200] * 6, top({0: "Ac Ad 3h 6s 9c"}, button=5, seats=range(6)), button=5)
    t.act(0, "bet", 10)
    call_around(t)
    with pytest.raises(IllegalDraw, match=r"^seat 0 cannot draw 4 cards: the limit is 3$"):
        t.draw(0, "3h 6s 9c Ad")
    t.draw(0, "3h 6s 9c")


# ---- proving openers


def test_openers_are_proved_when_the_opener_wins_without_a_showdown() -> None:
    hands = {0: "Jc 4d Jh 6s 9c", 1: JUNK[1], 2: JUNK[2]}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    t.act(1, "fold")
    t.act(2, "fold")
    assert shown(t) == [Shown(0, cards("Jc Jh"), ())]
    assert shown(t)[0].audience() is EVERYONE
    assert t.shares() == [(0, 15, "all")]


def test_openers_and_set_aside_cards_are_proved_after_the_draw_too() -> None:
    hands = {0: "Jc 4d Jh 6s 9c", 1: JUNK[1], 2: JUNK[2]}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    call_around(t)
    t.draw(0, "Jh 6s 9c")
    stand_pat(t)
    t.act(0, "bet", 20)
    t.act(1, "fold")
    t.act(2, "fold")
    assert shown(t) == [Shown(0, cards("Jc Jh"), cards("Jh 6s 9c"))]


def test_an_opener_who_folds_to_a_raise_proves_openers_at_once() -> None:
    hands = {0: "Jc 4d Jh 6s 9c", 1: "Ac Ad 3h 5s 8d", 2: JUNK[2]}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    t.act(1, "raise", 20)
    t.act(2, "call")
    new = t.act(0, "fold")
    assert new[:2] == [Acted(0, Action.FOLD, 0, 10), Shown(0, cards("Jc Jh"), ())]
    stand_pat(t)
    check_around(t)
    assert [e.seat for e in shown(t)] == [0, 1, 2]  # the proof, then the showdown
    assert t.shares() == [(1, 65, "all")]


def test_the_opener_s_folded_hand_is_proved_before_it_can_be_reshuffled() -> None:
    """Eight players: the opener folds to a raise; its hand goes to the muck
    and into reshuffle 1. The proof came with the fold, before the draw."""
    t = deal(JACKPOTS, [200] * 8, top({0: "Jc Jd 3h 6s 9c"}, button=7, seats=range(8)), button=7)
    stub = t.hand.stub
    t.act(0, "bet", 10)
    t.act(1, "raise", 20)
    for seat in range(2, 8):
        t.act(seat, "call")
    t.act(0, "fold")
    thrown: dict[int, tuple[Card, ...]] = {}
    for seat in range(1, 8):
        thrown[seat] = t.holding(seat)[:3]
        t.draw(seat, " ".join(str(c) for c in thrown[seat]))
    reshuffled = t.of(StubReshuffled)[0]
    assert isinstance(reshuffled, StubReshuffled)
    pool = (stub[51], *cards("Jc Jd 3h 6s 9c"), *thrown[1], *thrown[2], *thrown[3])
    assert reshuffled.cards == shuffle(SEED, pool, "reshuffle/1")
    proofs = [i for i, e in enumerate(t.events) if isinstance(e, Shown)]
    assert len(proofs) == 1
    assert proofs[0] < t.events.index(reshuffled)
    assert t.events[proofs[0]] == Shown(0, cards("Jc Jd"), ())


def test_an_opener_timed_out_facing_a_bet_folds_and_proves_openers() -> None:
    hands = {0: "Jc 4d Jh 6s 9c", 1: JUNK[1], 2: JUNK[2]}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    t.act(1, "raise", 20)
    t.act(2, "fold")
    new = t.time_out(0)
    assert new[:2] == [
        Acted(0, Action.FOLD, 0, 10, timed_out=True),
        Shown(0, cards("Jc Jh"), ()),
    ]
    assert t.shares() == [(1, 35, "all")]
    assert len(shown(t)) == 1


def test_no_proof_is_needed_when_a_non_opener_folds() -> None:
    hands = {0: "Jc 4d Jh 6s 9c", 1: JUNK[1], 2: JUNK[2]}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    t.act(1, "raise", 20)
    t.act(2, "fold")
    t.act(0, "call")
    stand_pat(t)
    check_around(t)
    assert [(e.seat, e.set_aside) for e in shown(t)] == [(0, ()), (1, ())]
    assert shown(t)[0].cards == cards("Jc 4d Jh 6s 9c")


# ---- showdown


def test_best_high_hand_wins_and_ties_split_clockwise_from_the_button() -> None:
    hands = {0: "Jc Jd 3h 6s 9c", 1: "2h 5h 8h Th Kh", 2: "Jh Js 3c 6d 9d"}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    call_around(t)
    stand_pat(t)
    check_around(t)
    assert t.shares() == [(1, 45, "all")]
    hands = {0: "Jc Jd 3h 6s 9c", 1: "2h 5h 8h Td Kh", 2: "Jh Js 3c 6d 9d"}
    t = deal(JACKPOTS, [200, 200, 200], top(hands, button=0), button=0)
    t.act(1, "check")
    t.act(2, "bet", 10)
    call_around(t)
    stand_pat(t)
    check_around(t)
    assert t.shares() == [(2, 23, "all"), (0, 22, "all")]


# ---- carried pots and dead money


def test_a_carried_pot_without_antes() -> None:
    hands = {0: "Jc Jd 3h 6s 9c", 1: "Kc Kd 4h 7s Tc", 2: JUNK[2]}
    t = deal(
        JACKPOTS,
        [200, 200, 200],
        top(hands, button=2),
        button=2,
        carried={0: 15, 1: 15, 2: 15},
        dead=10,
        antes=False,
    )
    assert not t.of(Posted)
    assert t.hand.pot == 55
    assert [p.paid for p in t.hand.players] == [15, 15, 15]
    t.act(0, "bet", 10)
    t.act(1, "call")
    t.act(2, "fold")
    stand_pat(t)
    check_around(t)
    (award,) = t.awards()
    assert (award.amount, award.eligible) == (75, (0, 1))
    assert t.shares() == [(1, 75, "all")]
    assert t.stack(1) == 265


def test_a_carried_pot_passed_out_again() -> None:
    t = deal(
        JACKPOTS,
        [200, 200, 200],
        button=1,
        carried={0: 15, 1: 15, 2: 15},
        dead=10,
        antes=False,
    )
    check_around(t)
    assert t.of(PassedOut) == [PassedOut(carried=((0, 15), (1, 15), (2, 15)), dead=10)]
    ended = t.events[-1]
    assert isinstance(ended, HandEnded)
    assert dict(ended.stacks) == {0: 200, 1: 200, 2: 200}
    assert t.hand.pot == 55


def test_antes_on_top_of_a_carried_pot() -> None:
    t = deal(JACKPOTS, [200, 200, 200], button=1, carried={0: 5, 1: 5, 2: 5})
    assert [(e.seat, e.amount) for e in t.of(Posted) if isinstance(e, Posted)] == [
        (2, 5),
        (0, 5),
        (1, 5),
    ]
    check_around(t)
    assert t.of(PassedOut) == [PassedOut(carried=((0, 10), (1, 10), (2, 10)), dead=0)]


def test_carried_chips_count_toward_side_pots_and_dead_money_goes_to_the_main_pot() -> None:
    """Seat 0 brings 10 carried chips and has 10 behind: it opens all in.
    Everyone has 20 in the main pot, plus 5 dead chips; seats 1 and 2 play a
    side pot."""
    hands = {0: "Ac Ad 3h 6s 9c", 1: "Kc Kd 4h 7s Tc", 2: "Qc Qd 5h 8s Jc"}
    t = deal(
        JACKPOTS,
        {0: 10, 1: 200, 2: 200},
        top(hands, button=2),
        button=2,
        carried={0: 10, 1: 10, 2: 10},
        dead=5,
        antes=False,
    )
    t.act(0, "bet", 10)  # all in
    t.act(1, "raise", 20)
    t.act(2, "call")
    stand_pat(t)
    assert street(t, "second betting round").order == (1, 2)
    t.act(1, "bet", 20)
    t.act(2, "call")
    main, side = t.awards()
    assert (main.amount, main.eligible) == (65, (0, 1, 2))
    assert (side.amount, side.eligible) == (60, (1, 2))
    assert t.shares(0) == [(0, 65, "all")]
    assert t.shares(1) == [(1, 60, "all")]
