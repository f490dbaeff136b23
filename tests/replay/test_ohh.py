"""Open Hand History exports read by ohh-pydantic, an implementation of the
spec by others, and their chips added up from the JSON alone: for every
game, the real hands of the session's store and random hands with short
stacks, all-ins and side pots."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import redirect_stdout
from typing import Any, Literal

import pytest
from open_hh_models.models import BetLimit, OpenHandHistory

from feltline.engine.hand.rules import Game, Rake, Structure
from feltline_replay import log
from feltline_replay.cli import main
from feltline_replay.histories import LoggedHand, logged_hands, ohh

from .conftest import Played
from .random_hands import random_hands

PUT_IN = {
    "Post Ante",
    "Post SB",
    "Post BB",
    "Post Extra Blind",
    "Post Dead",
    "Straddle",
    "Bet",
    "Raise",
    "Call",
    "Add to Pot",
}
"""The spec's actions whose amount goes into the pot."""


class SpecBetLimit(BetLimit):
    """ohh-pydantic 0.1.1 requires a ``bet_limit.action`` the spec does not
    have (its bet_limit is ``bet_type`` and ``bet_cap``): only that field is
    relaxed, everything else is the package's model."""

    action: Literal["Dealt Cards", "PotLimit", "FixedLimit"] | None = None  # type: ignore[assignment]


class SpecHandHistory(OpenHandHistory):
    bet_limit: SpecBetLimit


def read(hand: LoggedHand) -> dict[str, Any]:
    text = ohh.one(hand)
    document = json.loads(text)
    assert set(document) == {"ohh"}
    parsed = SpecHandHistory.model_validate(document["ohh"])
    assert parsed.game_number == hand.id
    assert {p.seat for p in parsed.players} == {s.seat for s in hand.started.deal.seats}
    result: dict[str, Any] = document["ohh"]
    return result


def check_totals(hand: LoggedHand, history: dict[str, Any]) -> None:
    """Read as a naive reader reads the spec, knowing no ``feltline_``
    field but the round's returns and carry-over: every action that puts
    chips in takes them from its player's stack (one without a player from
    none). Pots are what was put in less what came back, and less what a
    passed deal carries over; each pot's wins are its amount less its
    rake; and each player ends with the stack the log says."""
    put_in: dict[int | None, int] = {}
    returned: dict[int, int] = {}
    carried_over = 0
    for round_ in history["rounds"]:
        for action in round_["actions"]:
            if action["action"] in PUT_IN:
                seat = action.get("player_id")
                put_in[seat] = put_in.get(seat, 0) + action["amount"]
        for back in round_.get("feltline_returned", []):
            returned[back["player_id"]] = returned.get(back["player_id"], 0) + back["amount"]
        carried_over += round_.get("feltline_carried_over", 0)
    pots = history["pots"]
    total = sum(put_in.values()) - sum(returned.values())
    assert total == sum(p["amount"] for p in pots) + carried_over
    wins: dict[int, int] = {}
    for pot in pots:
        won = sum(w["win_amount"] for w in pot["player_wins"])
        assert won == pot["amount"] - pot["rake"]
        for w in pot["player_wins"]:
            wins[w["player_id"]] = wins.get(w["player_id"], 0) + w["win_amount"]
    final = dict(hand.ended.stacks)
    for player in history["players"]:
        seat = player["id"]
        stack = player["starting_stack"] - put_in.get(seat, 0)
        stack += returned.get(seat, 0) + wins.get(seat, 0)
        assert stack == final[seat], (seat, history)


def store_hands(played: Played) -> Iterator[LoggedHand]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["export", "--store", str(played.path)]) == 0
    _, records = log.read(io.StringIO(out.getvalue()))
    return logged_hands(records)


def test_every_hand_of_the_store_reads_as_the_spec_and_adds_up(played: Played) -> None:
    games: dict[str, int] = {}
    for hand in store_hands(played):
        history = read(hand)
        check_totals(hand, history)
        games[history["game_type"]] = games.get(history["game_type"], 0) + 1
        assert history["table_handle"] == (hand.table.id if hand.table else None)
        assert history["tournament"] is False  # a cash table's hand
        assert "tournament_info" not in history
    assert set(games) == {"Holdem", "StudHiLo", "Draw"}, games


@pytest.mark.parametrize(
    ("game", "structure", "game_type", "bet_type"),
    [
        (Game.HOLDEM, Structure.NO_LIMIT, "Holdem", "NL"),
        (Game.HOLDEM, Structure.POT_LIMIT, "Holdem", "PL"),
        (Game.HOLDEM, Structure.FIXED_LIMIT, "Holdem", "FL"),
        (Game.STUD_HI_LO, Structure.FIXED_LIMIT, "StudHiLo", "FL"),
        (Game.DRAW_DECLARE, Structure.FIXED_LIMIT, "Draw", "FL"),
        (Game.JACKPOTS, Structure.FIXED_LIMIT, "Draw", "FL"),
        (Game.STUD, Structure.FIXED_LIMIT, "Stud", "FL"),
        (Game.RAZZ, Structure.FIXED_LIMIT, "Stud", "FL"),
    ],
)
def test_random_hands_of_every_game_read_as_the_spec_and_add_up(
    game: Game, structure: Structure, game_type: str, bet_type: str
) -> None:
    streets: set[str] = set()
    for hand in random_hands(game, structure, 150, 21, rake=Rake(500, 20)):
        history = read(hand)
        assert history["game_type"] == game_type
        assert history["feltline_game"] == game.value
        assert history["bet_limit"] == {"bet_type": bet_type}
        check_totals(hand, history)
        streets |= {r["feltline_street"] for r in history["rounds"]}
    assert len(streets) >= 3, streets


def test_stud_streets_and_the_bring_in_are_mapped() -> None:
    hands = list(random_hands(Game.STUD_HI_LO, Structure.FIXED_LIMIT, 40, 4))
    seen: dict[str, str] = {}
    for hand in hands:
        for round_ in read(hand)["rounds"]:
            seen[round_["feltline_street"]] = round_["street"]
            for action in round_["actions"]:
                if action.get("feltline_action") == "bring-in":
                    assert action["action"] == "Bet"
    assert seen["third street betting"] == "Preflop"
    assert seen["fourth street betting"] == "Flop"
    assert seen["fifth street betting"] == "Turn"
    assert seen["sixth street betting"] == "Turn"
    assert seen["seventh street betting"] == "River"


def test_a_draw_is_the_discards_mucked_then_the_new_cards_dealt() -> None:
    drew = 0
    for hand in random_hands(Game.DRAW_DECLARE, Structure.FIXED_LIMIT, 30, 6):
        history = read(hand)
        for round_ in history["rounds"]:
            actions = round_["actions"]
            for n, action in enumerate(actions):
                if action.get("feltline_action") == "draw" and action["cards"]:
                    following = actions[n + 1]
                    assert following["action"] == "Dealt Cards"
                    assert following["player_id"] == action["player_id"]
                    assert len(following["cards"]) == len(action["cards"])
                    drew += 1
        if any("feltline_declarations" in r for r in history["rounds"]):
            showdown = history["rounds"][-1]
            assert showdown["street"] == "Showdown"
    assert drew > 0


def test_joker_hands_read_as_the_spec_the_joker_in_feltline_cards() -> None:
    """The spec's card list has no joker: it is left out of ``cards``, so
    the spec's readers take the hand, and ``feltline_cards`` has the whole
    list in its place."""
    jokers = 0
    for hand in random_hands(Game.STUD_HI_LO, Structure.FIXED_LIMIT, 60, 8, joker=True):
        history = read(hand)
        check_totals(hand, history)
        for round_ in history["rounds"]:
            for action in round_["actions"]:
                if "feltline_cards" in action:
                    jokers += 1
                    assert "Jk" in action["feltline_cards"]
                    assert action["cards"] == [c for c in action["feltline_cards"] if c != "Jk"]
                    assert "Jk" not in action["cards"]
    assert jokers > 0


def test_jackpots_carried_chips_leave_no_stack_of_the_deal(played: Played) -> None:
    """Chips put in on earlier passed deals are ``Add to Pot`` without a
    player: a naive reader (``check_totals``) takes them from no stack."""
    carried = 0
    for hand in store_hands(played):
        history = read(hand)
        check_totals(hand, history)
        for action in history["rounds"][0]["actions"]:
            if action.get("feltline_action") == "carried":
                carried += 1
                assert "player_id" not in action
                assert action["feltline_player_id"] in {s.seat for s in hand.started.deal.seats}
    assert carried > 0


def test_a_cancelled_hand_hands_back_all_that_was_put_in() -> None:
    cancelled = 0
    for hand in random_hands(Game.JACKPOTS, Structure.FIXED_LIMIT, 60, 9, cancels=0.05):
        history = read(hand)
        check_totals(hand, history)
        if hand.ended.cancelled:
            cancelled += 1
            assert history["feltline_cancelled"] is True
            assert history["pots"] == []
    assert cancelled > 0
