"""Five-card draw, high-low declare (docs/rules.md "Draw games" and "Five-card
draw, high-low declare"), one stacked deck per rule.

Every table here is a :class:`draw_table.Checked` table: after every command
the chips on the table are unchanged, replaying the events gives the state
the events were decided from, and deciding again gives the same events.

Choices where docs/rules.md leaves room, made here and by the engine:

- The reshuffled cards go into ``deck.shuffle(seed, pool, "reshuffle/N")``
  in this order: the bottom card (first reshuffle only), then the folded
  hands and discards in the order they reached the muck (a folded hand in
  the order it was dealt, a discard in the order the player named it).
- When every player but one has folded (also by a declaration that timed
  out), the hand ends at once: the last player is not asked to act or to
  declare, and wins every pot uncontested.
- A seat that already declared is "not on the clock": a time-out for it is
  refused.
"""

from __future__ import annotations

import pytest

from feltline.engine.cards.card import Card
from feltline.engine.cards.deck import shuffle
from feltline.engine.cards.values import System
from feltline.engine.errors import (
    IllegalAction,
    IllegalAmount,
    IllegalDraw,
    NotInHand,
    NotYourTurn,
    WrongPhase,
)
from feltline.engine.hand.commands import Act, Declare, TimeOut
from feltline.engine.hand.events import (
    EVERYONE,
    Action,
    BetsCollected,
    CardDealt,
    Choice,
    DeclarationsRevealed,
    Declared,
    Drew,
    HandEnded,
    PassedOut,
    Posted,
    Shown,
    StreetBegan,
    StubReshuffled,
)
from feltline.engine.hand.rules import Game, Rake, Rules
from feltline.engine.hand.script import Phase

from .draw_table import DECLARE, FIXED, SEED, Checked, cards, deal, top


def check_around(t: Checked) -> None:
    """Everyone checks until the betting round is over."""
    start = t.hand.rounds
    while t.hand.phase is Phase.BETTING and t.hand.rounds == start:
        seat = t.hand.to_act
        assert seat is not None
        t.act(seat, "check")


def stand_pat(t: Checked) -> None:
    while t.hand.phase is Phase.DRAWING:
        t.draw(t.hand.round.pending[0])


def to_declaration(t: Checked) -> None:
    check_around(t)
    stand_pat(t)
    check_around(t)
    assert t.hand.phase is Phase.DECLARING


def street(t: Checked, name: str) -> StreetBegan:
    found = [e for e in t.of(StreetBegan) if isinstance(e, StreetBegan) and e.name == name]
    assert len(found) == 1, f"{name} began {len(found)} times"
    return found[0]


def showdown(
    hands: dict[int, str],
    choices: dict[int, str],
    *,
    rules: Rules = DECLARE,
    button: int | None = None,
) -> Checked:
    """Deal ``hands``, check and stand pat throughout, declare ``choices``."""
    button = max(hands) if button is None else button
    t = deal(rules, dict.fromkeys(hands, 200), top(hands, button=button), button=button)
    to_declaration(t)
    for seat, choice in choices.items():
        t.declare(seat, choice)
    assert t.hand.phase is Phase.ENDED
    return t


# ---- dealing and the first round


def test_five_cards_one_at_a_time_clockwise_from_left_of_the_button() -> None:
    deck_top = "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2d 3d"
    t = deal(DECLARE, [200, 200, 200], deck_top, button=1)
    dealt = t.of(CardDealt)
    assert [(e.seat, e.position) for e in dealt if isinstance(e, CardDealt)] == [
        (seat, 3 * k + i) for k in range(5) for i, seat in enumerate((2, 0, 1))
    ]
    assert t.holding(2) == cards("2c 5c 8c Jc Ac")
    assert t.holding(0) == cards("3c 6c 9c Qc 2d")
    assert t.holding(1) == cards("4c 7c Tc Kc 3d")
    assert all(e.audience() == frozenset({e.seat}) for e in dealt if isinstance(e, CardDealt))
    assert all(e.redacted().card is None for e in dealt if isinstance(e, CardDealt))


def test_antes_from_left_of_the_button_and_the_first_round_starts_there() -> None:
    t = deal(DECLARE, [200, 200, 200], button=1)
    posted = [(e.seat, e.amount) for e in t.of(Posted) if isinstance(e, Posted)]
    assert posted == [(2, 5), (0, 5), (1, 5)]
    assert t.hand.pot == 15
    assert street(t, "first betting round").order == (2, 0, 1)
    assert t.hand.to_act == 2
    with pytest.raises(IllegalAmount, match="seat 2 cannot bet to 20: bet to 10"):
        t.act(2, "bet", 20)
    t.act(2, "bet", 10)


def test_a_player_all_in_from_the_ante_is_dealt_in_and_skipped_in_the_betting() -> None:
    t = deal(DECLARE, {0: 200, 1: 5, 2: 200}, button=2)
    assert [e.all_in for e in t.of(Posted) if isinstance(e, Posted)] == [False, True, False]
    assert len(t.holding(1)) == 5
    assert street(t, "first betting round").order == (0, 2)
    check_around(t)
    assert street(t, "the draw").order == (0, 1, 2)  # all in, still drawing


def test_everyone_checking_the_first_round_leads_to_the_draw() -> None:
    t = deal(DECLARE, [200, 200, 200], button=2)
    check_around(t)
    assert t.hand.phase is Phase.DRAWING
    assert street(t, "the draw").order == (0, 1, 2)
    assert not t.of(PassedOut)
    assert t.hand.pot == 15


def test_the_betting_cap_is_a_bet_and_four_raises() -> None:
    t = deal(DECLARE, [500, 500, 500], button=2)
    t.act(0, "bet", 10)
    t.act(1, "raise", 20)
    t.act(2, "raise", 30)
    t.act(0, "raise", 40)
    t.act(1, "raise", 50)
    with pytest.raises(IllegalAction, match="seat 2 cannot raise: the betting is capped"):
        t.act(2, "raise", 60)
    t.act(2, "call")


# ---- the draw


def test_the_draw_goes_round_from_left_of_the_button_and_serves_from_the_top() -> None:
    hands = {0: "2c 3c 4c 5c 6c", 1: "2d 3d 4d 5d 6d", 2: "2h 3h 4h 5h 6h"}
    t = deal(DECLARE, [200, 200, 200], top(hands, button=1, then="Ks Qs Js Ts 9s 8s"), button=1)
    check_around(t)
    assert street(t, "the draw").order == (2, 0, 1)
    with pytest.raises(NotYourTurn, match="seat 0 cannot draw: it is seat 2's turn"):
        t.draw(0, "2c")
    t.draw(2, "3h 5h")
    assert t.holding(2) == cards("2h 4h 6h Ks Qs")
    drew = t.of(Drew)[-1]
    assert isinstance(drew, Drew)
    assert (drew.discards, drew.count, drew.set_aside) == (cards("3h 5h"), 2, False)
    assert drew.audience() == frozenset({2})
    assert drew.redacted() == Drew(2, None, 2)
    t.draw(0)  # stands pat
    assert t.holding(0) == cards("2c 3c 4c 5c 6c")
    t.draw(1, "6d 2d 4d")
    assert t.holding(1) == cards("3d 5d Js Ts 9s")
    served = [(e.seat, e.position) for e in t.of(CardDealt) if isinstance(e, CardDealt)][15:]
    assert served == [(2, 15), (2, 16), (1, 17), (1, 18), (1, 19)]
    assert t.hand.phase is Phase.BETTING


def test_up_to_five_cards_with_fewer_than_six_players() -> None:
    t = deal(DECLARE, [200] * 5, button=4)
    check_around(t)
    t.draw(0, " ".join(str(c) for c in t.holding(0)))
    assert len(t.holding(0)) == 5
    assert [e.position for e in t.dealt(0)][5:] == [25, 26, 27, 28, 29]


def test_up_to_three_cards_with_six_players_even_after_a_fold() -> None:
    t = deal(DECLARE, [200] * 6, button=5)
    t.act(0, "fold")
    check_around(t)
    assert len(t.hand.live) == 5
    held = t.holding(1)
    before = list(t.events)
    with pytest.raises(IllegalDraw, match=r"^seat 1 cannot draw 4 cards: the limit is 3$"):
        t.draw(1, " ".join(str(c) for c in held[:4]))
    assert t.events == before
    t.draw(1, " ".join(str(c) for c in held[:3]))
    assert len(t.holding(1)) == 5


def test_draw_limits_are_a_table_setting() -> None:
    rules = Rules(Game.DRAW_DECLARE, FIXED, draw_limit_small=3, draw_limit_large=2)
    t = deal(rules, [200, 200], button=1)
    check_around(t)
    held = t.holding(0)
    with pytest.raises(IllegalDraw, match="seat 0 cannot draw 4 cards: the limit is 3"):
        t.draw(0, " ".join(str(c) for c in held[:4]))


def test_a_draw_must_throw_cards_held_each_once() -> None:
    hands = {0: "2c 3c 4c 5c 6c", 1: "2d 3d 4d 5d 6d"}
    t = deal(DECLARE, [200, 200], top(hands, button=1), button=1)
    with pytest.raises(WrongPhase, match="seat 0 cannot draw: it is time for betting"):
        t.draw(0, "2c")
    check_around(t)
    before = list(t.events)
    with pytest.raises(IllegalDraw, match=r"^seat 0 does not hold As 2d$"):
        t.draw(0, "2c As 2d")
    with pytest.raises(IllegalDraw, match=r"^seat 0 cannot throw the same card twice$"):
        t.draw(0, "2c 3c 2c")
    with pytest.raises(NotInHand, match="seat 7 is not in this hand"):
        t.draw(7, "2c")
    with pytest.raises(WrongPhase, match="seat 0 cannot check: it is time for drawing"):
        t.act(0, "check")
    assert t.events == before
    assert t.hand.round.pending == (0, 1)
    t.draw(0, "2c")
    assert t.hand.round.pending == (1,)


def test_a_draw_not_made_in_time_is_a_stand_pat() -> None:
    t = deal(DECLARE, [200, 200], button=1)
    check_around(t)
    held = t.holding(0)
    t.time_out(0)
    drew = t.of(Drew)[-1]
    assert isinstance(drew, Drew)
    assert (drew.seat, drew.count, drew.timed_out) == (0, 0, True)
    assert t.holding(0) == held
    with pytest.raises(NotYourTurn, match="seat 0 is not on the clock"):
        t.time_out(0)


# ---- duplicate deals


def test_a_duplicate_deal_draws_from_each_seat_s_reserved_positions() -> None:
    """In a match of six-seat tables each seat draws from its own part of
    the deck, after the 30 positions of the deal: seat s from 30 + 3s, so a
    seat gets the same cards whatever the others do. The limit is that of
    the full table (three) even with five players dealt in: there is room
    for no more, and a seat must draw alike at every table."""
    rules = Rules(Game.DRAW_DECLARE, FIXED, fixed_seats=6)
    for folder in (None, 1):
        t = deal(rules, [200] * 5, button=4)
        stub = t.hand.stub
        if folder is not None:
            t.act(0, "check")
            t.act(folder, "fold")
        check_around(t)
        first = t.hand.round.pending[0]
        with pytest.raises(IllegalDraw, match=f"seat {first} cannot draw 4 cards: the limit is 3"):
            t.draw(first, " ".join(str(c) for c in t.holding(first)[:4]))
        for seat in t.hand.round.pending:
            kept = t.holding(seat)[3:]
            t.draw(seat, " ".join(str(c) for c in t.holding(seat)[:3]))
            assert t.holding(seat) == (*kept, *stub[30 + 3 * seat : 33 + 3 * seat])
            assert [e.position for e in t.dealt(seat)] == [
                *(6 * k + seat for k in range(5)),
                *range(30 + 3 * seat, 33 + 3 * seat),
            ]
        held = [c for p in t.hand.players if p.live for c in p.cards]
        assert len(set(held)) == len(held)
        assert not t.of(StubReshuffled)


# ---- running out of cards


def test_the_bottom_card_is_never_dealt_and_goes_into_the_reshuffle() -> None:
    """Seven players, 35 cards dealt: 16 can be drawn above the bottom card.
    Seat 0 folds; seats 1-5 draw 15, seat 6 takes the last card above the
    bottom one, then the bottom card, seat 0's folded hand and the others'
    discards (not seat 6's own) are reshuffled."""
    t = deal(DECLARE, [200] * 7, button=6)
    stub = t.hand.stub
    folded = t.holding(0)
    t.act(0, "fold")
    check_around(t)
    thrown: dict[int, tuple[Card, ...]] = {}
    for seat in range(1, 7):
        thrown[seat] = t.holding(seat)[:3]
        t.draw(seat, " ".join(str(c) for c in thrown[seat]))
    deck_served = [e for e in t.of(CardDealt) if isinstance(e, CardDealt) and e.stub == 0]
    assert [e.position for e in deck_served][35:] == list(range(35, 51))
    assert stub[51] not in [e.card for e in deck_served]
    reshuffled = t.of(StubReshuffled)
    assert len(reshuffled) == 1
    event = reshuffled[0]
    assert isinstance(event, StubReshuffled)
    pool = (stub[51], *folded, *(c for seat in range(1, 6) for c in thrown[seat]))
    assert event.purpose == "reshuffle/1"
    assert event.count == 21
    assert event.cards == shuffle(SEED, pool, "reshuffle/1")
    assert event.audience() == frozenset()
    assert event.redacted() == StubReshuffled(None, 21, "reshuffle/1")
    assert event.cards is not None
    assert t.holding(6)[2:] == (stub[50], *event.cards[:2])
    assert [(e.stub, e.position) for e in t.dealt(6)][-3:] == [(0, 50), (1, 0), (1, 1)]
    assert not set(thrown[6]) & set(event.cards)


def test_reshuffles_repeat_as_needed_and_every_reshuffled_card_may_be_dealt() -> None:
    """Eight players draw three each: 24 cards, 11 above the bottom one.
    Seat 3 takes two, then reshuffle 1 (the bottom card and the discards of
    seats 0-2) gives it one more and serves seats 4-6 to its last card;
    seat 7 gets reshuffle 2: the discards since, seat 3's among them, not
    its own, and no bottom card any more."""
    t = deal(DECLARE, [200] * 8, button=7)
    stub = t.hand.stub
    check_around(t)
    thrown: dict[int, tuple[Card, ...]] = {}
    for seat in range(8):
        thrown[seat] = t.holding(seat)[:3]
        t.draw(seat, " ".join(str(c) for c in thrown[seat]))
    first, second = (e for e in t.of(StubReshuffled) if isinstance(e, StubReshuffled))
    pool1 = (stub[51], *thrown[0], *thrown[1], *thrown[2])
    pool2 = (*thrown[3], *thrown[4], *thrown[5], *thrown[6])
    assert (first.purpose, first.count) == ("reshuffle/1", 10)
    assert first.cards == shuffle(SEED, pool1, "reshuffle/1")
    assert (second.purpose, second.count) == ("reshuffle/2", 12)
    assert second.cards == shuffle(SEED, pool2, "reshuffle/2")
    assert first.cards is not None
    assert second.cards is not None
    assert t.holding(3)[2:] == (stub[49], stub[50], first.cards[0])
    assert t.holding(4)[2:] == first.cards[1:4]
    assert t.holding(6)[2:] == first.cards[7:10]
    assert t.holding(7)[2:] == second.cards[:3]
    assert [(e.stub, e.position) for e in t.dealt(7)][-3:] == [(2, 0), (2, 1), (2, 2)]
    assert stub[51] in {c for p in t.hand.players for c in p.cards}
    assert t.hand.muck == thrown[7]  # waits for a next reshuffle
    # every card is somewhere, once
    places = [c for p in t.hand.players for c in p.cards] + list(t.hand.muck)
    places += list(second.cards[3:])
    assert sorted(places) == sorted(stub)


# ---- the second betting round


def test_second_round_left_of_the_button_when_nobody_bet() -> None:
    t = deal(DECLARE, [200, 200, 200], button=0)
    check_around(t)
    stand_pat(t)
    assert street(t, "second betting round").order == (1, 2, 0)
    with pytest.raises(IllegalAmount, match="seat 1 cannot bet to 10: bet to 20"):
        t.act(1, "bet", 10)
    t.act(1, "bet", 20)  # the big bet


def test_second_round_left_of_the_button_skips_a_folded_seat() -> None:
    t = deal(DECLARE, [200, 200, 200], button=0)
    t.act(1, "fold")  # allowed although a check was possible
    check_around(t)
    stand_pat(t)
    assert street(t, "second betting round").order == (2, 0)


def test_second_round_starts_with_the_first_bettor_not_the_last_raiser() -> None:
    t = deal(DECLARE, [200, 200, 200, 200], button=0)
    t.act(1, "check")
    t.act(2, "bet", 10)
    t.act(3, "raise", 20)
    t.act(0, "call")
    t.act(1, "call")
    t.act(2, "call")
    stand_pat(t)
    assert street(t, "second betting round").order == (2, 3, 0, 1)
    assert t.hand.to_act == 2


def test_second_round_skips_a_first_bettor_who_folded() -> None:
    t = deal(DECLARE, [200, 200, 200, 200], button=3)
    t.act(0, "check")
    t.act(1, "bet", 10)
    t.act(2, "raise", 20)
    t.act(3, "call")
    t.act(0, "call")
    t.act(1, "fold")
    stand_pat(t)
    assert street(t, "second betting round").order == (2, 3, 0)


def test_second_round_skips_a_first_bettor_who_is_all_in() -> None:
    t = deal(DECLARE, {0: 200, 1: 15, 2: 200, 3: 200}, button=3)
    t.act(0, "check")
    t.act(1, "bet", 10)  # all in
    t.act(2, "call")
    t.act(3, "call")
    t.act(0, "call")
    stand_pat(t)
    assert street(t, "second betting round").order == (2, 3, 0)


# ---- the declaration


def test_declarations_stay_secret_until_the_last_is_in() -> None:
    t = deal(DECLARE, [200, 200, 200], button=2)
    to_declaration(t)
    assert street(t, "declaration").order == (0, 1, 2)
    with pytest.raises(WrongPhase, match="seat 0 cannot check: it is time for declaring"):
        t.act(0, "check")
    new = t.declare(1, "both")
    assert new == [Declared(1, Choice.BOTH)]
    assert new[0].audience() == frozenset({1})
    assert new[0].redacted() == Declared(1, None)
    before = list(t.events)
    with pytest.raises(IllegalAction, match=r"^seat 1 has already declared$"):
        t.declare(1, "low")
    with pytest.raises(NotInHand, match="seat 9 is not in this hand"):
        t.declare(9, "low")
    with pytest.raises(NotYourTurn, match="seat 1 is not on the clock"):
        t.time_out(1)
    assert t.events == before
    t.declare(2, "low")
    assert not t.of(DeclarationsRevealed)
    assert t.hand.round.pending == (0,)
    t.declare(0, "high")
    revealed = t.of(DeclarationsRevealed)
    assert revealed == [DeclarationsRevealed(((0, Choice.HIGH), (1, Choice.BOTH), (2, Choice.LOW)))]
    assert revealed[0].audience() is EVERYONE
    kinds = [type(e) for e in t.events]
    assert kinds.index(DeclarationsRevealed) > max(i for i, k in enumerate(kinds) if k is Declared)
    assert kinds.index(DeclarationsRevealed) < kinds.index(Shown)
    assert [e.seat for e in t.of(Shown) if isinstance(e, Shown)] == [0, 1, 2]


def test_no_declaration_before_its_time_nor_by_a_folded_player() -> None:
    t = deal(DECLARE, [200, 200, 200], button=2)
    with pytest.raises(WrongPhase, match="seat 0 cannot declare: it is time for betting"):
        t.declare(0, "low")
    t.act(0, "fold")
    check_around(t)
    stand_pat(t)
    check_around(t)
    with pytest.raises(IllegalAction, match=r"^seat 0 has folded$"):
        t.declare(0, "low")
    assert street(t, "declaration").order == (1, 2)


def test_an_all_in_player_declares_too() -> None:
    t = deal(DECLARE, {0: 200, 1: 15, 2: 200}, button=2)
    t.act(0, "bet", 10)
    t.act(1, "call")  # all in
    t.act(2, "call")
    stand_pat(t)
    t.act(0, "bet", 20)
    t.act(2, "call")
    assert street(t, "declaration").order == (0, 1, 2)
    t.declare(0, "high")
    t.declare(2, "low")
    assert t.hand.phase is Phase.DECLARING
    assert t.hand.round.pending == (1,)
    t.declare(1, "high")
    assert t.hand.phase is Phase.ENDED


def test_a_declaration_not_made_in_time_is_a_fold() -> None:
    hands = {0: "Kc Kd Kh 7s 8c", 1: "Ac 2d 3h 4s 6c", 2: "Qc Qd 9h 8s 7d"}
    t = deal(DECLARE, {0: 200, 1: 15, 2: 200}, top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    t.act(1, "call")  # all in: the clock still runs for the declaration
    t.act(2, "call")
    stand_pat(t)
    check_around(t)
    t.declare(0, "high")
    t.time_out(1)
    assert t.of(Declared)[-1] == Declared(1, None, timed_out=True)
    assert t.hand.player(1).folded
    t.declare(2, "low")
    assert t.of(DeclarationsRevealed) == [DeclarationsRevealed(((0, Choice.HIGH), (2, Choice.LOW)))]
    assert [e.seat for e in t.of(Shown) if isinstance(e, Shown)] == [0, 2]
    # seat 1's chips stay in the pot; seat 1 is eligible for nothing
    assert t.shares() == [(0, 23, "high"), (2, 22, "low")]
    assert t.hand.player(1).stack == 0


def test_everyone_else_timing_out_of_the_declaration_ends_the_hand() -> None:
    t = deal(DECLARE, [200, 200, 200], button=2)
    to_declaration(t)
    t.declare(2, "both")
    t.time_out(0)
    assert t.hand.phase is Phase.DECLARING
    t.time_out(1)
    assert t.hand.phase is Phase.ENDED
    assert t.shares() == [(2, 15, "all")]
    assert not t.of(Shown)
    with pytest.raises(WrongPhase, match="the hand is over"):
        t.do(Declare(2, Choice.LOW))


def test_two_players_both_timing_out_leave_the_pot_to_the_one_still_in() -> None:
    t = deal(DECLARE, [200, 200], button=1)
    to_declaration(t)
    t.time_out(1)
    assert t.hand.phase is Phase.ENDED
    assert t.shares() == [(0, 10, "all")]
    with pytest.raises(WrongPhase, match="the hand is over"):
        t.do(TimeOut(0))


# ---- folding out


def test_a_bet_nobody_calls_wins_without_a_declaration_or_a_showdown() -> None:
    t = deal(DECLARE, [200, 200, 200], button=2)
    t.act(0, "bet", 10)
    t.act(1, "fold")
    t.act(2, "fold")
    collected = t.of(BetsCollected)[-1]
    assert collected == BetsCollected(returned_to=0, returned=10, pot=15)
    assert t.shares() == [(0, 15, "all")]
    assert not t.of(Shown)
    assert not t.of(Declared)
    assert t.stack(0) == 210


def test_the_last_player_left_is_not_asked_to_act() -> None:
    t = deal(DECLARE, [200, 200, 200], button=2)
    t.act(0, "fold")
    t.act(1, "fold")
    assert t.hand.phase is Phase.ENDED
    assert t.shares() == [(2, 15, "all")]
    ended = t.of(HandEnded)[0]
    assert isinstance(ended, HandEnded)
    assert dict(ended.stacks) == {0: 195, 1: 195, 2: 210}
    with pytest.raises(WrongPhase, match="the hand is over"):
        t.do(Act(2, Action.FOLD))


# ---- the award


def test_both_scoops_by_beating_every_high_and_every_low_declarer() -> None:
    t = showdown(
        {0: "Ac 2d 3h 4s 5c", 1: "Kc Kd 7h 8s 9c", 2: "2c 3d 4h 6s 7c"},
        {0: "both", 1: "high", 2: "low"},
    )
    assert t.shares() == [(0, 15, "scoop")]


def test_both_need_only_beat_each_side_s_declarers_on_that_side() -> None:
    """Seat 1 (HIGH) has a better low than seat 0 and seat 2 (LOW) a better
    high, but seat 0 beats seat 1 for high and seat 2 for low."""
    t = showdown(
        {0: "Kc Kd 2h 3s 5c", 1: "Ac 2d 3h 4s 6c", 2: "Qc Qd Qh 9s 8c"},
        {0: "both", 1: "high", 2: "low"},
    )
    assert t.shares() == [(0, 15, "scoop")]


def test_the_seed_example_with_another_low_declarer() -> None:
    """Seat 0 has the clearly lowest hand of the low declarers but ties seat
    1 for high (same ranks: a high tie is also a low tie, but seat 1 declared
    HIGH). Seat 0 wins nothing, seat 1 the high half, seat 2 the low half."""
    t = showdown(
        {0: "Ac 2d 3h 4s 6c", 1: "Ad 2c 3s 4h 6d", 2: "2h 3c 4d 5h 7s"},
        {0: "both", 1: "high", 2: "low"},
    )
    assert t.shares() == [(1, 8, "high"), (2, 7, "low")]
    assert t.won().get(0) is None
    assert (t.stack(0), t.stack(1), t.stack(2)) == (195, 203, 202)


def test_the_seed_example_without_another_low_declarer() -> None:
    t = showdown(
        {0: "Ac 2d 3h 4s 6c", 1: "Ad 2c 3s 4h 6d", 2: "2h 3c 4d 5h 7s"},
        {0: "both", 1: "high", 2: "high"},
    )
    assert t.shares() == [(1, 15, "all")]


def test_the_seed_example_heads_up() -> None:
    t = showdown({0: "Ac 2d 3h 4s 6c", 1: "Ad 2c 3s 4h 6d"}, {0: "both", 1: "high"})
    assert t.shares() == [(1, 10, "all")]


def test_both_tying_for_low_wins_nothing() -> None:
    """Seat 0's flush beats seat 2 for high, but ties seat 1 for low (the
    flush does not count in ace-to-five)."""
    t = showdown(
        {0: "2h 4h 6h 8h Th", 1: "2c 4d 6s 8c Td", 2: "Qc Qd 9s 7c 5d"},
        {0: "both", 1: "low", 2: "high"},
    )
    assert t.shares() == [(2, 8, "high"), (1, 7, "low")]


def test_a_failed_both_leaves_the_pot_to_one_side() -> None:
    t = showdown(
        {0: "Ac 2d 3h 4s 6c", 1: "Kc Kd 7h 8s 9c", 2: "Qc Qd 9h 8c 7d"},
        {0: "both", 1: "high", 2: "high"},
    )
    assert t.shares() == [(1, 15, "all")]


def test_when_every_player_fails_both_the_cards_alone_split_the_pot() -> None:
    t = showdown(
        {0: "Kc Kd Kh 7s 8c", 1: "Ac 2d 3h 4s 6c", 2: "Qc Qd 9h 8s 7d"},
        {0: "both", 1: "both", 2: "both"},
    )
    assert t.shares() == [(0, 8, "high"), (1, 7, "low")]


def test_all_low_the_best_low_takes_the_whole_pot() -> None:
    t = showdown(
        {0: "Kc Kd Kh 7s 8c", 1: "2c 3d 4h 5s 7d", 2: "Ac 2d 3h 4s 6c"},
        {0: "low", 1: "low", 2: "low"},
    )
    assert t.shares() == [(2, 15, "all")]


def test_all_high_the_best_high_takes_the_whole_pot() -> None:
    t = showdown(
        {0: "Kc Kd Kh 7s 8c", 1: "2c 3d 4h 5s 7d", 2: "Ac 2d 3h 4s 6c"},
        {0: "high", 1: "high", 2: "high"},
    )
    assert t.shares() == [(0, 15, "all")]


def test_there_is_no_qualifier_for_low() -> None:
    t = showdown(
        {0: "Kc Kd Kh Qs Jc", 1: "Ac Ad 2h 3s 4c", 2: "Qc Qd 9h 8s 7d"},
        {0: "low", 1: "high", 2: "high"},
    )
    assert t.shares() == [(1, 8, "high"), (0, 7, "low")]


def test_tied_hands_share_a_half_odd_chip_clockwise_from_left_of_the_button() -> None:
    hands = {0: "Kc Kd Kh 7s 8c", 1: "Ac 2d 3h 4s 6c", 2: "Ad 2c 3s 4h 6d"}
    choices = {0: "high", 1: "low", 2: "low"}
    assert showdown(hands, choices, button=1).shares() == [
        (0, 8, "high"),
        (2, 4, "low"),
        (1, 3, "low"),
    ]
    assert showdown(hands, choices, button=0).shares() == [
        (0, 8, "high"),
        (1, 4, "low"),
        (2, 3, "low"),
    ]


def test_each_pot_is_judged_alone() -> None:
    """Seat 0 (BOTH) loses high in the main pot to seat 1, all in for HIGH,
    so it is out of the main pot; it still scoops the side pot against seat
    2 (LOW), whose low it beats."""
    hands = {0: "Ac Ad 2h 3s 4c", 1: "Kc Kd Kh 7s 8c", 2: "Qc Qd 9h 8s 7d"}
    t = deal(DECLARE, {0: 200, 1: 25, 2: 200}, top(hands, button=2), button=2)
    t.act(0, "bet", 10)
    t.act(1, "call")
    t.act(2, "call")
    stand_pat(t)
    t.act(0, "bet", 20)
    t.act(1, "call")  # all in for 10 more
    t.act(2, "call")
    t.declare(0, "both")
    t.declare(1, "high")
    t.declare(2, "low")
    main, side = t.awards()
    assert (main.amount, main.eligible) == (75, (0, 1, 2))
    assert (side.amount, side.eligible) == (20, (0, 2))
    assert t.shares(0) == [(1, 38, "high"), (2, 37, "low")]
    assert t.shares(1) == [(0, 20, "scoop")]


@pytest.mark.parametrize(
    ("system", "hands", "winner"),
    [
        # ace-to-five: straights and flushes ignored, the wheel is best
        (System.ACE_TO_FIVE, {0: "Ac 2d 3h 4s 5c", 1: "Ad 2c 3s 4h 6d"}, 0),
        (System.ACE_TO_FIVE, {0: "2h 3h 4h 5h 7h", 1: "2c 3d 4s 5d 8c"}, 0),
        (System.ACE_TO_FIVE, {0: "Ac Ad 2h 3s 4c", 1: "Kc Kd 2c 3d 4d"}, 0),
        # deuce-to-seven: the ace is high, straights and flushes count
        (System.DEUCE_TO_SEVEN, {0: "Ac 2d 3h 4s 5c", 1: "7c 5d 4h 3s 2c"}, 1),
        (System.DEUCE_TO_SEVEN, {0: "2d 3h 4s 5c 6d", 1: "8c 6h 5s 4d 2h"}, 1),
        (System.DEUCE_TO_SEVEN, {0: "2h 3h 4h 5h 7h", 1: "8c 6d 5s 4d 2c"}, 1),
        # ace-to-six: the ace is low, straights and flushes count
        (System.ACE_TO_SIX, {0: "Ac 2d 3h 4s 5c", 1: "Ad 2c 3s 4h 6d"}, 1),
        (System.ACE_TO_SIX, {0: "2h 3h 4h 6h 7h", 1: "2c 3d 4s 6d 8c"}, 1),
        (System.ACE_TO_SIX, {0: "Ac Kd Qh Js Tc", 1: "9d Th Jc Qs Kc"}, 0),
    ],
)
def test_the_low_follows_the_table_s_low_system(
    system: System, hands: dict[int, str], winner: int
) -> None:
    rules = Rules(Game.DRAW_DECLARE, FIXED, low=system)
    t = showdown(hands, {0: "low", 1: "low"}, rules=rules)
    assert t.shares() == [(winner, 10, "all")]


def test_no_betting_after_the_draw_when_only_one_player_can_bet() -> None:
    hands = {0: "Kc Kd Kh 7s 8c", 1: "Ac 2d 3h 4s 6c"}
    t = deal(DECLARE, {0: 200, 1: 15}, top(hands, button=1), button=1)
    t.act(0, "bet", 10)
    t.act(1, "call")  # all in
    stand_pat(t)
    assert street(t, "second betting round").order == ()
    assert t.hand.phase is Phase.DECLARING
    t.declare(0, "both")  # fails: seat 1 declared low and has the better low
    t.declare(1, "low")
    assert t.shares() == [(1, 30, "all")]


# ---- rake (a table setting)


RAKED = Rules(Game.DRAW_DECLARE, FIXED, rake=Rake(basis_points=1000, cap=3))


def test_no_rake_when_the_hand_ends_before_the_draw() -> None:
    t = deal(RAKED, [200, 200, 200], button=2)
    t.act(0, "bet", 10)
    t.act(1, "fold")
    t.act(2, "fold")
    assert [a.rake for a in t.awards()] == [0]
    assert t.shares() == [(0, 15, "all")]


def test_a_hand_that_reaches_the_draw_is_raked_before_the_split() -> None:
    hands = {0: "Kc Kd Kh 7s 8c", 1: "Ac 2d 3h 4s 6c", 2: "Qc Qd 9h 8s 7d"}
    t = deal(RAKED, [200, 200, 200], top(hands, button=2), button=2)
    to_declaration(t)
    t.declare(0, "high")
    t.declare(1, "low")
    t.declare(2, "high")
    (award,) = t.awards()
    assert (award.amount, award.rake) == (15, 1)
    assert t.shares() == [(0, 7, "high"), (1, 7, "low")]
    ended = t.events[-1]
    assert isinstance(ended, HandEnded)
    assert ended.rake == 1
