"""A mixed table end to end, on SQLite and PostgreSQL: opened through
CreateTable, played by bots through its rotation, every hand naming its
game and replaying from the store, chips conserved, no face-down card to a
spectator; and a schedule no table could deal refused with its reason."""

from __future__ import annotations

import random
from uuid import UUID

import grpc
import pytest

from feltline.api import convert
from feltline.audit.rerun import replays
from feltline.engine.hand.rules import Game, Rules, Stakes, Structure
from feltline.engine.table.house import Rotation, TableConfig
from feltline.store.check import check
from feltline_client import FeltlineError
from feltline_protos.v1 import auth_pb2, common_pb2

from .conftest import ON_BOTH_STORES, Live
from .test_live import _events, _play, _seat, _until_quiet

ADMIN, SPECTATOR = auth_pb2.ROLE_ADMIN, auth_pb2.ROLE_SPECTATOR
HORSE = (Game.HOLDEM, Game.OMAHA_HI_LO, Game.RAZZ, Game.STUD, Game.STUD_HI_LO)
STAKES = Stakes(
    Structure.FIXED_LIMIT, small_bet=10, big_bet=20, small_blind=5, big_blind=10, ante=2, bring_in=3
)
pytestmark = pytest.mark.usefixtures("no_error_logs")


def horse(hands: int = 1, games: tuple[Game, ...] = HORSE) -> common_pb2.TableConfig:
    config = TableConfig(Rules(games[0], STAKES), 4, action_clock=30)
    return convert.table_config(TableConfig(config.rules, 4, rotation=Rotation(games, hands)))


@ON_BOTH_STORES
def test_bots_play_a_mixed_table_through_its_rotation(live: Live) -> None:
    admin = live.client(ADMIN)
    table = admin.create_table(horse(hands=1), "H.O.R.S.E.")
    assert list(table.config.rotation.games) == [convert.game(g) for g in HORSE]
    assert table.turn.game == common_pb2.GAME_HOLDEM
    assert table.turn.next_game == common_pb2.GAME_OMAHA_HI_LO
    spectator = _events(live.client(SPECTATOR), table.table_id)
    assert next(spectator).HasField("snapshot")  # watching from before the first hand
    bots = _seat(live, table.table_id, 3, random.Random(7))
    _play(bots, 2 * len(HORSE) + 1)
    items = _until_quiet(spectator, live, table.table_id)
    spectator.close()  # type: ignore[attr-defined]

    key = UUID(table.table_id)
    stored = live.room.table(key).table
    played = []
    for number in range(1, stored.hands + 1):
        stream = live.room.hand(key, number)
        events = [e for _, made in stream.commands.values() for e in made]
        assert replays(events), number
        played.append(events[0].rules.game)  # type: ignore[attr-defined]
    assert played[: 2 * len(HORSE)] == [*HORSE, *HORSE]
    ledger = check(live.room.streams)
    assert ledger.problems == []
    assert ledger.balanced

    events = [i.event for i in items if i.HasField("event")]
    dealt = [e.hand_dealt for e in events if e.WhichOneof("kind") == "hand_dealt"]
    assert [d.turn.game for d in dealt[:3]] == [convert.game(g) for g in HORSE[:3]]
    assert all(d.HasField("turn") for d in dealt)
    started = [e.hand_started for e in events if e.WhichOneof("kind") == "hand_started"]
    assert {s.rules.game for s in started} == {convert.game(g) for g in HORSE}
    cards = [e.card_dealt for e in events if e.WhichOneof("kind") == "card_dealt"]
    down = [c for c in cards if not c.face_up]
    assert down
    assert all(not c.HasField("card") for c in down)
    assert any(c.face_up and c.HasField("card") for c in cards)  # stud's up cards shown


@pytest.mark.parametrize(
    ("config", "reason", "said"),
    [
        (
            horse(games=(Game.HOLDEM, Game.JACKPOTS)),
            "INVALID_CONFIG",
            "jackpots is not dealt at a mixed table",
        ),
        (
            horse(games=(Game.STUD, Game.HOLDEM, Game.STUD)),
            "INVALID_REQUEST",
            "config.rotation.games",
        ),
        (horse(hands=101), "INVALID_REQUEST", "config.rotation.hands_per_game"),
    ],
)
def test_a_schedule_no_table_could_deal_is_refused_with_its_reason(
    live: Live, config: common_pb2.TableConfig, reason: str, said: str
) -> None:
    admin = live.client(ADMIN)
    with pytest.raises(FeltlineError) as refused:
        admin.create_table(config, "bad")
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.reason == reason
    error = refused.value
    assert said in f"{error} {[v.field for v in error.violations]}"
    assert list(admin.list_tables()) == []


def test_a_mixed_tables_first_game_must_be_its_rules(live: Live) -> None:
    config = horse()
    config.rules.game = common_pb2.GAME_STUD
    with pytest.raises(FeltlineError, match="a mixed table's game is its rotation's first"):
        live.client(ADMIN).create_table(config, "bad")


def test_a_mixed_table_is_listed_under_each_of_its_games(live: Live) -> None:
    admin = live.client(ADMIN)
    mixed = admin.create_table(horse(games=(Game.HOLDEM, Game.RAZZ)), "H.R.").table_id
    omaha = admin.create_table(
        convert.table_config(TableConfig(Rules.house(Game.OMAHA), 6)), "O"
    ).table_id

    def listed(game: Game) -> list[str]:
        return [t.table_id for t in admin.list_tables(game=convert.game(game))]

    assert listed(Game.RAZZ) == [mixed]
    assert listed(Game.HOLDEM) == [mixed]
    assert listed(Game.OMAHA) == [omaha]
    assert listed(Game.STUD) == []
