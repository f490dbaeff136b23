"""Requests breaking the protos' rules are refused with every field named."""

import uuid

import grpc
import pytest

from feltline.api.errors import ApiError
from feltline.api.validation import check, violations
from feltline_protos.v1 import common_pb2, play_pb2, tables_pb2


def test_a_well_formed_request_passes() -> None:
    check(
        play_pb2.ActRequest(
            table_id=str(uuid.uuid4()),
            request_id=str(uuid.uuid4()),
            hand_number=1,
            sequence=3,
            draw=play_pb2.Draw(discards=["As", "Jk"]),
        )
    )


def test_every_broken_rule_is_named_by_its_field_path() -> None:
    request = play_pb2.ActRequest(
        table_id="nope",
        request_id=str(uuid.uuid4()),
        hand_number=1,
        sequence=3,
        draw=play_pb2.Draw(discards=["As", "1x"]),
    )
    found = dict(violations(request))
    assert set(found) == {"table_id", "draw.discards[1]"}
    assert "UUID" in found["table_id"]
    with pytest.raises(ApiError) as caught:
        check(request)
    e = caught.value
    assert e.code is grpc.StatusCode.INVALID_ARGUMENT
    assert e.reason_name == "INVALID_REQUEST"
    assert dict(e.violations) == found
    assert "table_id" in e.message
    assert "draw.discards[1]" in e.message


def test_nested_and_whole_message_rules_are_named_where_they_apply() -> None:
    request = tables_pb2.CreateTableRequest(
        config=common_pb2.TableConfig(
            rules=common_pb2.Rules(
                game=common_pb2.GAME_HOLDEM,
                stakes=common_pb2.Stakes(structure=common_pb2.STRUCTURE_NO_LIMIT, small_bet=0),
            ),
            seats=9,
            min_buy_in=50,
            max_buy_in=10,
        ),
        display_name="Friday",
        request_id=str(uuid.uuid4()),
    )
    assert set(dict(violations(request))) == {"config", "config.rules.stakes.small_bet"}
