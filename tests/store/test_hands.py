import hashlib
import random
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from feltline.audit.keys import Signer
from feltline.domain.chained import TamperedError
from feltline.domain.hand import CommandIdReused
from feltline.engine import dealing
from feltline.engine.commands import Act
from feltline.engine.deck import shuffle
from feltline.engine.errors import NotYourTurn
from feltline.engine.events import (
    Action,
    BoardDealt,
    CardDealt,
    DeckShuffled,
    HandEnded,
    HandStarted,
    StubReshuffled,
)
from feltline.engine.hand import replay
from feltline.engine.rules import Game
from feltline.store.hands import Conflict

from .conftest import Store
from .play import play, start


@pytest.mark.parametrize("game", list(Game))
def test_a_stored_hand_replays_and_its_seed_explains_every_card(store: Store, game: Game) -> None:
    hands = store.open()
    hand_id = play(hands, game, random.Random(3))
    stream = store.open().get(hand_id)
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


def test_the_seed_is_drawn_afresh_and_only_its_commitment_shows_first(store: Store) -> None:
    hands = store.open()
    seeds = set()
    for _ in range(2):
        hand_id = uuid.uuid4()
        first = hands.execute(hand_id, "start", start(Game.HOLDEM), at=0)
        shuffled = first[1]
        assert isinstance(shuffled, DeckShuffled)
        assert len(shuffled.seed) == 32
        assert shuffled.audience() == frozenset()
        seeds.add(shuffled.seed)
    assert len(seeds) == 2


def test_the_same_command_id_returns_the_first_result_without_a_new_event(store: Store) -> None:
    hands = store.open()
    hand_id = uuid.uuid4()
    started = hands.execute(hand_id, "start", start(Game.HOLDEM), at=0)
    version = hands.get(hand_id).version
    assert hands.execute(hand_id, "start", start(Game.HOLDEM), at=0) == started
    seat = hands.get(hand_id).hand.to_act
    assert seat is not None
    called = hands.execute(hand_id, "a1", Act(seat, Action.CALL), at=0)
    assert hands.execute(hand_id, "a1", Act(seat, Action.CALL), at=0) == called
    assert hands.get(hand_id).version == version + len(called)
    with pytest.raises(CommandIdReused):
        hands.execute(hand_id, "a1", Act(seat, Action.FOLD), at=0)


def test_two_writers_on_one_hand_cannot_both_succeed(store: Store) -> None:
    one, two = store.open(), store.open()
    hand_id = uuid.uuid4()
    one.execute(hand_id, "start", start(Game.HOLDEM), at=0)
    seen_by_one, seen_by_two = one.get(hand_id), two.get(hand_id)
    seat = seen_by_one.hand.to_act
    assert seat is not None
    one.decide(seen_by_one, "fold", Act(seat, Action.FOLD), at=0)
    with pytest.raises(Conflict, match="run it again"):
        two.decide(seen_by_two, "call", Act(seat, Action.CALL), at=0)
    with pytest.raises(NotYourTurn):  # the retry decides against the new state
        two.execute(hand_id, "call", Act(seat, Action.CALL), at=0)


def test_writers_racing_in_threads_store_one_action(store: Store) -> None:
    writers = [store.open() for _ in range(4)]
    hand_id = uuid.uuid4()
    writers[0].execute(hand_id, "start", start(Game.HOLDEM), at=0)
    seat = writers[0].get(hand_id).hand.to_act
    assert seat is not None
    barrier = threading.Barrier(len(writers))

    def race(n: int) -> str:
        barrier.wait()
        try:
            writers[n].execute(hand_id, f"w{n}", Act(seat, Action.CALL), at=0)
        except (Conflict, NotYourTurn) as e:
            return type(e).__name__
        return "stored"

    with ThreadPoolExecutor(len(writers)) as pool:
        outcomes = list(pool.map(race, range(len(writers))))
    assert outcomes.count("stored") == 1
    acted = [e for e in writers[0].get(hand_id).commands.items() if e[0].startswith("w")]
    assert len(acted) == 1


def test_tampering_with_one_stored_byte_is_detected(store: Store) -> None:
    hands = store.open()
    hand_id = play(hands, Game.STUD_HI_LO, random.Random(5))
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
        store.open().get(hand_id)


def test_a_forged_chain_fails_the_signature(store: Store) -> None:
    hands = store.open()
    hand_id = play(hands, Game.HOLDEM, random.Random(6))
    stream = hands.get(hand_id)
    assert stream.seal is not None
    forged = replace(stream.seal, signature=Signer.generate().sign(stream.link).hex())
    with pytest.raises(TamperedError, match="signature"):
        replace(stream, version=stream.version - 1, seal=None).apply(forged)


def test_a_hand_resealed_with_another_key_is_not_trusted(store: Store) -> None:
    hand_id = play(store.open(), Game.HOLDEM, random.Random(6))
    store.signer = Signer.generate()
    with pytest.raises(TamperedError, match="not by this server's key"):
        store.open().get(hand_id)
