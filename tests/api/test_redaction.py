"""Random hands of every game through the engine, each event viewed by every
role and seat: each viewer gets exactly the cards it may see ("Who sees
which cards" in docs/rules.md), judged here from the events' own meaning, not
from the engine's audience() that the code under test relies on."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from feltline.api.convert import Where
from feltline.api.redaction import Viewer, sees_down_cards, view, visible, withheld
from feltline.api.tokens import Caller
from feltline.engine.cards.card import Card
from feltline.engine.errors import RuleError
from feltline.engine.games import VARIANTS
from feltline.engine.hand.commands import StartHand
from feltline.engine.hand.decide import NEW_HAND, decide
from feltline.engine.hand.events import (
    BoardDealt,
    CardDealt,
    Deal,
    DeckShuffled,
    Declared,
    Drew,
    Event,
    HandEnded,
    SeatAtStart,
    Shown,
    StubReshuffled,
)
from feltline.engine.hand.evolve import evolve
from feltline.engine.hand.rules import Game
from feltline.engine.hand.script import Phase
from feltline_protos.v1 import auth_pb2, events_pb2
from tests.engine.players import choose
from tests.tables import TABLES

PLAYER, SPECTATOR, AUDITOR, ADMIN = (
    auth_pb2.ROLE_PLAYER,
    auth_pb2.ROLE_SPECTATOR,
    auth_pb2.ROLE_AUDITOR,
    auth_pb2.ROLE_ADMIN,
)


def play(game: Game, players: int, rng: random.Random) -> list[Event]:
    """A whole hand, the demo's random bots deciding (they fold now and then)."""
    holdem = VARIANTS[game].blinds
    seats = tuple(SeatAtStart(s, f"p{s}", 500) for s in range(1, players + 1))
    blinds = (1, 2) if holdem else (None, None)
    deal = Deal(players, seats, small_blind=blinds[0], big_blind=blinds[1])
    events = decide(NEW_HAND, StartHand(TABLES[game], deal, seed=rng.randbytes(32)))
    hand = NEW_HAND
    for event in events:
        hand = evolve(hand, event)
    while hand.phase is not Phase.ENDED:
        try:
            more = decide(hand, choose(hand, rng))
        except RuleError:  # e.g. a jackpots bet without openers: choose again
            continue
        for event in more:
            hand = evolve(hand, event)
        events.extend(more)
    return events


def cards_in(message: events_pb2.Event) -> list[str]:
    """Every card an Event message shows."""
    match message.WhichOneof("kind"):
        case "card_dealt":
            body = message.card_dealt
            return [body.card] if body.HasField("card") else []
        case "board_dealt":
            return list(message.board_dealt.cards)
        case "drew":
            return list(message.drew.discards.cards)
        case "deck_shuffled":
            return list(message.deck_shuffled.cards.cards)
        case "stub_reshuffled":
            return list(message.stub_reshuffled.cards.cards)
        case "shown":
            return [*message.shown.cards, *message.shown.set_aside]
    return []


def own(viewer: Viewer, seat: int) -> bool:
    return viewer.role == PLAYER and viewer.seat == seat


def allowed(viewer: Viewer, event: Event, *, ended: bool) -> tuple[list[str], bool]:
    """The cards ``viewer`` may see in ``event`` and whether anything of it
    is withheld, from what the event means."""
    everything = viewer.role == AUDITOR and ended
    match event:
        case CardDealt(seat=seat, card=card, face_up=face_up):
            seen = face_up or own(viewer, seat) or everything
            return ([str(card)] if seen else []), not seen
        case BoardDealt(cards=cards) | Shown(cards=cards, set_aside=()):
            return [str(c) for c in cards], False
        case Shown(cards=cards, set_aside=aside):
            return [str(c) for c in (*cards, *aside)], False
        case Drew(seat=seat, discards=discards):
            seen = own(viewer, seat) or everything
            return ([str(c) for c in discards or ()] if seen else []), not seen
        case DeckShuffled(cards=cards) | StubReshuffled(cards=cards):
            return ([str(c) for c in cards or ()] if everything else []), not everything
        case Declared(seat=seat):
            return [], not (own(viewer, seat) or everything)
        case HandEnded():  # the seed gives every card: auditors only
            return [], not everything
    return [], False


def viewers(players: int) -> list[Viewer]:
    return [
        *(Viewer(role, seat) for role in (SPECTATOR, ADMIN, AUDITOR) for seat in (None, 1)),
        Viewer(PLAYER),  # a player not dealt in
        *(Viewer(PLAYER, seat) for seat in range(1, players + 1)),
    ]


@dataclass
class Watched:
    """One viewer's stream of a hand."""

    viewer: Viewer
    messages: list[tuple[Event, events_pb2.Event]]


def watch(viewer: Viewer, events: list[Event], *, replay: bool) -> Watched:
    """Live (the hand ends with its last event) or replayed after the end."""
    messages = []
    for n, event in enumerate(events, 1):
        ended = replay or isinstance(event, HandEnded)
        where = Where(table_id="t", sequence=n, hand_number=7, hand_id="h")
        message = view(viewer, event, where, ended=ended)
        cards, withheld = allowed(viewer, event, ended=ended)
        assert sorted(cards_in(message)) == sorted(cards), (viewer, event)
        assert message.redacted is withheld, (viewer, event)
        assert (message.sequence, message.hand_number, message.hand_id) == (n, 7, "h")
        if isinstance(event, Declared):
            assert message.declared.HasField("choice") is not withheld
        if isinstance(event, HandEnded):
            assert message.hand_ended.HasField("seed") is not withheld
        messages.append((event, message))
    return Watched(viewer, messages)


GAMES = st.sampled_from(list(TABLES))


@settings(max_examples=60, deadline=None)
@given(game=GAMES, players=st.integers(2, 8), seed=st.integers(0, 2**32))
# Hands random play seldom reaches (see the next test): a reshuffled stub,
# and a jackpots opener showing discards set aside.
@example(game=Game.DRAW_DECLARE, players=8, seed=0)
@example(game=Game.JACKPOTS, players=8, seed=16)
# Seven-card stud and razz at a full table, whatever else is drawn.
@example(game=Game.STUD, players=8, seed=1)
@example(game=Game.RAZZ, players=8, seed=2)
def test_each_viewer_gets_exactly_the_cards_it_may_see(game: Game, players: int, seed: int) -> None:
    players = min(players, VARIANTS[game].max_seats)
    events = play(game, players, random.Random(seed))
    assert isinstance(events[-1], HandEnded)
    deck = events[1]
    assert isinstance(deck, DeckShuffled)
    for viewer in viewers(players):
        live = watch(viewer, events, replay=False)
        replayed = watch(viewer, events, replay=True)
        # Until the showdown, no stream but the auditor's replay shows a card
        # that is not face up, nor dealt to the viewer's own seat.
        known = {
            str(card)
            for e in events
            if (isinstance(e, CardDealt) and (e.face_up or own(viewer, e.seat)))
            or isinstance(e, BoardDealt)
            for card in ((e.card,) if isinstance(e, CardDealt) else e.cards)
        }
        for stream in (live, replayed):
            if viewer.role == AUDITOR and stream is replayed:
                continue
            for event, message in stream.messages:
                if isinstance(event, Shown):
                    break
                assert set(cards_in(message)) <= known, (viewer, event)
        if viewer.role == AUDITOR:
            seen = {card for _, message in replayed.messages for card in cards_in(message)}
            assert {str(c) for c in deck.cards} <= seen


def test_the_examples_reach_the_rare_events() -> None:
    stub = play(Game.DRAW_DECLARE, 8, random.Random(0))
    assert any(isinstance(e, StubReshuffled) for e in stub)
    opener = play(Game.JACKPOTS, 8, random.Random(16))
    assert any(isinstance(e, Shown) and e.set_aside for e in opener)


def test_a_player_views_as_its_seat_others_as_nobody() -> None:
    seats = (SeatAtStart(1, "alice", 100), SeatAtStart(4, "bob", 100))
    later = datetime(2030, 1, 1, tzinfo=UTC)
    assert Viewer.of(Caller(PLAYER, "bob", "t", later), seats) == Viewer(PLAYER, 4)
    assert Viewer.of(Caller(PLAYER, "carol", "t", later), seats) == Viewer(PLAYER, None)
    assert Viewer.of(Caller(ADMIN, "", "t", later), seats) == Viewer(ADMIN, None)


def test_only_a_player_sees_as_its_seat() -> None:
    dealt = CardDealt(seat=2, card=Card.parse("As"), face_up=False, position=3)
    hidden = CardDealt(seat=2, card=None, face_up=False, position=3)
    assert visible(Viewer(PLAYER, 2), dealt, ended=False) == dealt
    for role in (SPECTATOR, ADMIN, AUDITOR):
        assert visible(Viewer(role, 2), dealt, ended=False) == hidden
    assert visible(Viewer(ADMIN), dealt, ended=True) == hidden
    assert visible(Viewer(AUDITOR), dealt, ended=True) == dealt


def _caller(role: int, player: str = "") -> Caller:
    return Caller(role, player, "t", datetime(2030, 1, 1, tzinfo=UTC))  # type: ignore[arg-type]


def test_face_down_cards_are_their_seat_s_and_an_auditor_s_once_the_hand_ended() -> None:
    player = Viewer(auth_pb2.ROLE_PLAYER, 2)
    assert [sees_down_cards(player, seat, ended=False) for seat in (1, 2, 3)] == [
        False,
        True,
        False,
    ]
    auditor = Viewer(auth_pb2.ROLE_AUDITOR)
    assert (sees_down_cards(auditor, 2, ended=False), sees_down_cards(auditor, 2, ended=True)) == (
        False,
        True,
    )
    for role in (auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_SPECTATOR):
        assert not sees_down_cards(Viewer(role), 2, ended=True)
    assert not sees_down_cards(Viewer(auth_pb2.ROLE_PLAYER), 2, ended=True)  # not dealt in


def test_an_unrevealed_match_deal_is_withheld_from_all_but_its_seats() -> None:
    seats = [SeatAtStart(1, "ann", 100), SeatAtStart(2, "bob", 100)]
    ann, cid = _caller(auth_pb2.ROLE_PLAYER, "ann"), _caller(auth_pb2.ROLE_PLAYER, "cid")
    auditor = _caller(auth_pb2.ROLE_AUDITOR)
    assert [withheld(c, seats, unrevealed=True) for c in (ann, cid, auditor)] == [
        False,
        True,
        True,
    ]
    assert not any(withheld(c, seats, unrevealed=False) for c in (ann, cid, auditor))
