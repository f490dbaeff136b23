"""The constraints declared in the protos, as protovalidate enforces them."""

import importlib
import uuid
from pathlib import Path

import protovalidate
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from feltline.engine.cards.card import ALL_CARDS
from feltline_protos._deps.buf.validate import validate_pb2
from feltline_protos.v1 import accounts_pb2, common_pb2, play_pb2, tables_pb2, watch_pb2

TABLE = str(uuid.uuid4())


def _violations(message: Message) -> set[str]:
    return {v.proto.rule_id for v in protovalidate.collect_violations(message)}


def _act(**action: Message) -> play_pb2.ActRequest:
    return play_pb2.ActRequest(
        table_id=TABLE, request_id=str(uuid.uuid4()), hand_number=1, sequence=7, **action
    )


def _config() -> common_pb2.TableConfig:
    return common_pb2.TableConfig(
        rules=common_pb2.Rules(
            game=common_pb2.GAME_HOLDEM,
            stakes=common_pb2.Stakes(
                structure=common_pb2.STRUCTURE_NO_LIMIT, small_bet=2, small_blind=1, big_blind=2
            ),
        ),
        seats=9,
    )


def test_well_formed_requests_pass() -> None:
    for message in (
        _act(check=play_pb2.Check()),
        _act(bet=play_pb2.Bet(to=4)),
        _act(raise_bet=play_pb2.Raise(to=40)),
        _act(draw=play_pb2.Draw(discards=["As", "Td", "Jk"])),
        _act(draw=play_pb2.Draw()),
        _act(declare=play_pb2.Declare(declaration=common_pb2.DECLARATION_BOTH)),
        tables_pb2.CreateTableRequest(
            config=_config(), display_name="Friday", request_id=str(uuid.uuid4())
        ),
        tables_pb2.SitDownRequest(table_id=TABLE, seat=3, buy_in=200, request_id=str(uuid.uuid4())),
        tables_pb2.ListTablesRequest(),
        watch_pb2.WatchTableRequest(table_id=TABLE),
        watch_pb2.WatchTableBatchesRequest(table_id=TABLE, after="3.1.4.0"),
        accounts_pb2.GetAccountRequest(),
        accounts_pb2.MintChipsRequest(player_id="alice", amount=1000, request_id=str(uuid.uuid4())),
    ):
        assert _violations(message) == set(), message


def test_every_card_of_the_engine_is_a_valid_card() -> None:
    cards = [str(card) for card in ALL_CARDS]
    for start in range(0, len(cards), 5):
        assert _violations(_act(draw=play_pb2.Draw(discards=cards[start : start + 5]))) == set()


@pytest.mark.parametrize("token", ["AS", "1c", "10h", "Jk ", "", "jk"])
def test_cards_outside_the_notation_are_refused(token: str) -> None:
    assert _violations(_act(draw=play_pb2.Draw(discards=[token]))) == {"string.pattern"}


def test_acting_needs_an_action_an_id_and_what_was_seen() -> None:
    assert _violations(play_pb2.ActRequest()) == {
        "string.uuid_empty",
        "uint64.gte",
        "required",
    }
    assert _violations(_act(draw=play_pb2.Draw(discards=["As", "As"]))) == {"repeated.unique"}
    assert _violations(_act(draw=play_pb2.Draw(discards=["2c"] * 6))) >= {"repeated.max_items"}
    assert _violations(_act(bet=play_pb2.Bet())) == {"uint64.gt_lte"}
    assert _violations(_act(declare=play_pb2.Declare())) == {"enum.not_in"}


def test_table_settings_are_checked_across_fields() -> None:
    request = tables_pb2.CreateTableRequest(
        config=_config(), display_name="x", request_id=str(uuid.uuid4())
    )
    config = request.config
    config.min_buy_in, config.max_buy_in = 300, 200
    config.time_charge.amount = 5
    config.rules.rake.basis_points = 500
    assert _violations(request) == {
        "table_config.buy_in_order",
        "table_config.rake_or_time_charge",
    }
    config.seats = 11
    config.rules.game = common_pb2.GAME_UNSPECIFIED
    assert {"uint32.gte_lte", "enum.not_in"} <= _violations(request)


def test_list_pages_are_bounded() -> None:
    assert _violations(tables_pb2.ListTablesRequest(page_size=201)) == {"uint32.lte"}


def _unconstrained(message: Descriptor, path: str, seen: set[str]) -> list[str]:
    """Fields under ``message`` with no protovalidate rule: only booleans
    and messages (whose own fields are checked in turn) may go without."""
    if message.full_name in seen:
        return []
    seen.add(message.full_name)
    found = []
    for field in message.fields:
        where = f"{path}.{field.name}"
        if field.message_type is not None and field.message_type.file.package == "feltline.v1":
            found += _unconstrained(field.message_type, where, seen)
        elif field.type != FieldDescriptor.TYPE_BOOL and not field.GetOptions().HasExtension(
            validate_pb2.field
        ):
            found.append(where)
    return found


def test_every_field_of_every_request_has_a_rule() -> None:
    protos = sorted((Path(__file__).resolve().parents[2] / "protos" / "feltline" / "v1").iterdir())
    modules = [importlib.import_module(f"feltline_protos.v1.{p.stem}_pb2") for p in protos]
    services = [s for m in modules for s in m.DESCRIPTOR.services_by_name.values()]
    assert {
        "TableService",
        "PlayService",
        "WatchService",
        "AccountService",
        "ReplayService",
        "LedgerService",
        "MatchService",
        "TournamentService",
    } <= {s.name for s in services}
    requests = [method.input_type for service in services for method in service.methods]
    seen: set[str] = set()
    assert [f for r in requests for f in _unconstrained(r, r.name, seen)] == []
