"""Hands as the Room stores them: replayable, explained by their seed,
written exactly once per request, and refused when tampered with."""

import hashlib
import random
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.domain.chained import TamperedError
from feltline.domain.hand import CommandIdReused
from feltline.engine.cards.deck import shuffle
from feltline.engine.errors import NotYourTurn
from feltline.engine.hand import dealing
from feltline.engine.hand.decide import replay
from feltline.engine.hand.events import (
    Acted,
    Action,
    BoardDealt,
    CardDealt,
    DeckShuffled,
    HandEnded,
    HandStarted,
    StubReshuffled,
)
from feltline.engine.hand.rules import Game
from feltline.engine.hand.turn import waiting_on
from feltline.store.faults import Unreadable
from feltline.store.streams import Conflict

from .conftest import Store
from .play import play, play_out
from .test_room import seated


@pytest.mark.parametrize("game", list(Game))
def test_a_stored_hand_replays_and_its_seed_explains_every_card(store: Store, game: Game) -> None:
    _, hand_id = play(store.room(), game, random.Random(3))
    stream = store.streams().get(hand_id)
    events = [e for _, done in stream.commands.values() for e in done]
    assert stream.seal is not None
    assert stream.hand == replay(events)
    started, shuffled, ended = events[0], events[1], events[-1]
    assert isinstance(started, HandStarted)
    assert isinstance(shuffled, DeckShuffled)
    assert isinstance(ended, HandEnded)
    assert hashlib.sha256(ended.seed).hexdigest() == started.commitment
    stubs = [shuffle(ended.seed, dealing.fresh_deck(started.rules))]
    assert shuffled.cards == stubs[0]
    for event in events:
        if isinstance(event, StubReshuffled):
            assert event.cards is not None
            stubs.append(event.cards)
        if isinstance(event, CardDealt):
            assert event.card == stubs[event.stub][event.position]
        if isinstance(event, BoardDealt):
            assert event.cards == tuple(stubs[event.stub][i] for i in event.positions)


def test_the_seed_is_drawn_afresh_and_only_its_commitment_shows_first(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[bytes] = []
    csprng = secrets.token_bytes

    def token_bytes(n: int) -> bytes:
        drawn.append(csprng(n))
        return drawn[-1]

    monkeypatch.setattr(secrets, "token_bytes", token_bytes)  # watch the OS CSPRNG
    room = store.room()
    table = seated(room, 2)
    seeds = []
    for number in (1, 2):
        shuffled = room.deal(table, f"d{number}", at=0).hand[1]
        assert isinstance(shuffled, DeckShuffled)
        assert len(shuffled.seed) == 32
        assert shuffled.audience() == frozenset()
        seeds.append(shuffled.seed)
        play_out(room, table, number, random.Random(number))
    assert len(set(seeds)) == 2
    assert seeds == [seed for seed in drawn if len(seed) == 32]  # each deal's, from the OS


def test_the_same_command_id_returns_the_first_result_without_a_new_event(store: Store) -> None:
    room = store.room()
    table = seated(room, 3)
    dealt = room.deal(table, "start", at=0)
    version = room.hand(table, 1).version
    assert room.deal(table, "start", at=0) == dealt
    seat = waiting_on(room.hand(table, 1).hand)[0]
    called = room.act(table, 1, "a1", seat, Action.CALL, at=0)
    assert room.act(table, 1, "a1", seat, Action.CALL, at=0) == called
    assert store.room().hand(table, 1).version == version + len(called.hand)
    with pytest.raises(CommandIdReused):
        room.act(table, 1, "a1", seat, Action.FOLD, at=0)


def test_two_writers_on_one_hand_cannot_both_succeed(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = store.room(), store.room()
    table = seated(one, 3)
    two.deal(table, "start", at=0)  # two holds the hand it dealt
    one.look()
    seat = waiting_on(one.hand(table, 1).hand)[0]
    one.act(table, 1, "fold", seat, Action.FOLD, at=0)
    with monkeypatch.context() as m:
        m.setattr(two, "look", lambda: None)  # two decides on the hand as it last saw it
        two.retries = 1
        with pytest.raises(Conflict, match="kept changing under this request; try again"):
            two.act(table, 1, "call", seat, Action.CALL, at=0)
    two.retries = 5
    with pytest.raises(NotYourTurn):  # the retry decides against the new state
        two.act(table, 1, "call", seat, Action.CALL, at=0)


def test_writers_racing_in_threads_store_one_action(store: Store) -> None:
    rooms = [store.room() for _ in range(4)]
    table = seated(rooms[0], 3)
    rooms[0].deal(table, "start", at=0)
    seat = waiting_on(rooms[0].hand(table, 1).hand)[0]
    barrier = threading.Barrier(len(rooms))

    def race(n: int) -> str:
        barrier.wait()
        try:
            rooms[n].act(table, 1, f"w{n}", seat, Action.CALL, at=0)
        except (Conflict, NotYourTurn) as e:
            return type(e).__name__
        return "stored"

    with ThreadPoolExecutor(len(rooms)) as pool:
        outcomes = list(pool.map(race, range(len(rooms))))
    assert outcomes.count("stored") == 1
    stored = store.room().hand(table, 1).commands
    acted = [k for k, (_, made) in stored.items() if any(isinstance(e, Acted) for e in made)]
    assert len(acted) == 1


def test_tampering_with_one_stored_byte_is_detected(store: Store) -> None:
    _, hand_id = play(store.room(), Game.STUD_HI_LO, random.Random(5))
    rows = store.sql("SELECT originator_id, originator_version, state FROM {events}")
    ours = [r for r in rows if str(r[0]).replace("-", "") == hand_id.hex]
    ended = next(r for r in ours if b'"type":"HandEnded"' in bytes(r[2]))  # type: ignore[arg-type]
    state = bytearray(bytes(ended[2]))  # type: ignore[arg-type]
    at = state.index(b'"stacks":[[') + len(b'"stacks":[[') + 2  # a digit of a stack
    state[at] = ord("7") if state[at] != ord("7") else ord("8")
    store.sql(
        "UPDATE {events} SET state = ? WHERE originator_id = ? AND originator_version = ?",
        bytes(state),
        ended[0],
        ended[1],
    )
    with pytest.raises(TamperedError, match="chain link"):
        store.streams().get(hand_id)


def test_a_forged_chain_fails_the_signature(store: Store) -> None:
    room = store.room()
    table, _ = play(room, Game.HOLDEM, random.Random(6))
    stream = room.hand(table, 1)
    assert stream.seal is not None
    forged = replace(stream.seal, signature=Signer.generate().sign(stream.link).hex())
    with pytest.raises(TamperedError, match="signature"):
        replace(stream, version=stream.version - 1, seal=None).apply(forged)


def test_a_hand_resealed_with_another_key_is_not_trusted(store: Store) -> None:
    _, hand_id = play(store.room(), Game.HOLDEM, random.Random(6))
    store.signer = Signer.generate()
    with pytest.raises(TamperedError, match="not by this server's key"):
        store.streams().get(hand_id)


def test_a_room_opened_with_another_key_does_not_serve_the_hand(store: Store) -> None:
    table, _ = play(store.room(), Game.HOLDEM, random.Random(7))
    store.signer = Signer.generate()
    with pytest.raises(Unreadable, match="not by this server's key"):  # nor is its table
        Room(store.streams()).hand(table, 1)
