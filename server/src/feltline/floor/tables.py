"""``feltline table open|list|show|close``: the floor's view of its tables,
read and changed through the API with an admin token, which sees what a
spectator sees of a hand in progress (never a face-down card)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable

from google.protobuf.message import Message

from feltline.floor import connection, settings
from feltline_client.table import find_table, game_name, pot_counted, rotation_said
from feltline_protos.v1 import common_pb2, tables_pb2

STATUS = {
    common_pb2.SEAT_STATUS_PLAYING: "playing",
    common_pb2.SEAT_STATUS_WAITING: "waiting for the big blind",
    common_pb2.SEAT_STATUS_POSTING: "posting at once",
    common_pb2.SEAT_STATUS_LEAVING: "leaving after the hand",
    common_pb2.SEAT_STATUS_SITTING_OUT: "sitting out",
}

# A table is named as feltline-play takes it, by the same lookup.
TABLE_HELP = "the table's id, or an open table's name (if only one open table has it)"


def add_command(table: argparse.ArgumentParser) -> None:
    verbs = table.add_subparsers(dest="verb", required=True)
    opening = verbs.add_parser("open", help="open a table with the settings given")
    settings.add_options(opening, game_required=True)
    listing = verbs.add_parser("list", help="every table, open and closed")
    showing = verbs.add_parser("show", help="a table's seats, stacks and hand in progress")
    showing.add_argument("table", metavar="TABLE", help=TABLE_HELP)
    closing = verbs.add_parser("close", help="close a table; a hand in progress is cancelled")
    closing.add_argument("table", metavar="TABLE", help=TABLE_HELP)
    closing.add_argument("--reason", default="closed by the operator", help="said to the table")
    connection.command(opening, "table open", open_table)
    connection.command(listing, "table list", list_tables)
    connection.command(showing, "table show", show_table)
    connection.command(closing, "table close", close_table)


def open_table(args: argparse.Namespace) -> int:
    wanted = settings.settings(args)  # checked before anything is sent
    with connection.client(args) as client:
        table = client.create_table(wanted.message, wanted.name)
    if args.json:
        return dump(table)
    print(f"opened {table.table_id}  {table.display_name}: {stakes(table.config)}")
    low, high = table.config.min_buy_in, table.config.max_buy_in
    print(f"  {table.config.seats} seats, buy-in {low} to {high}")
    return 0


def list_tables(args: argparse.Namespace) -> int:
    with connection.client(args) as client:
        tables = list(client.list_tables())
    if args.json:
        print(json.dumps([connection.as_dict(t) for t in tables], indent=2))
        return 0
    if not tables:
        print("no tables")
    for table in tables:
        print(summary(table))
    return 0


def show_table(args: argparse.Namespace) -> int:
    with connection.client(args) as client:
        table = client.get_table(find_table(client, args.table))
    if args.json:
        return dump(table)
    print("\n".join(describe(table)))
    return 0


def close_table(args: argparse.Namespace) -> int:
    with connection.client(args) as client:
        table = client.close_table(find_table(client, args.table), args.reason)
    if args.json:
        return dump(table)
    print(f"closed {table.table_id}  {table.display_name} after {table.hands_dealt} hands")
    return 0


def stakes(config: common_pb2.TableConfig) -> str:
    """The game and its chips as a card room would post them."""
    rules, s = config.rules, config.rules.stakes
    game = game_name(rules.game)
    if config.HasField("rotation"):
        each = config.rotation.hands_per_game
        game = "mixed " + "/".join(game_name(g) for g in config.rotation.games)
        game += f" ({each} hands each)" if each else " (an orbit each)"
    structure = common_pb2.Structure.Name(s.structure).removeprefix("STRUCTURE_")
    parts = [game, structure.lower().replace("_", "-")]
    if s.big_bet:  # fixed limit: posted by its bets, the blinds after
        parts.append(f"{s.small_bet}/{s.big_bet}")
        if s.big_blind:
            parts.append(f"blinds {s.small_blind}/{s.big_blind}")
    elif s.big_blind:
        parts.append(f"{s.small_blind}/{s.big_blind}")
    else:
        parts.append(f"min bet {s.small_bet}")
    if s.ante:
        parts.append(f"ante {s.ante}")
    if s.bring_in:
        parts.append(f"bring-in {s.bring_in}")
    if rules.joker:
        parts.append("joker")
    if rules.HasField("rake"):
        parts.append(f"rake {rules.rake.basis_points / 100:g}% to {rules.rake.cap}")
    if config.HasField("time_charge"):
        parts.append(f"time {config.time_charge.amount}/{config.time_charge.window.seconds}s")
    return " ".join(parts)


def summary(table: tables_pb2.Table) -> str:
    state = "open" if table.state == tables_pb2.TABLE_STATE_OPEN else "closed"
    seated = f"{len(table.seats)}/{table.config.seats} seated"
    return (
        f"{table.table_id}  {table.display_name:<20} {state:<6} {stakes(table.config)}; "
        f"{seated}, {table.hands_dealt} hands"
    )


def describe(table: tables_pb2.Table) -> list[str]:
    """A table for its operator: settings, seats, and the hand being played."""
    lines = [summary(table)]
    if table.HasField("turn"):
        lines.append(f"  game: {rotation_said(table.turn)}")
    for seat in table.seats:
        status = STATUS.get(seat.status, "")
        lines.append(f"  seat {seat.seat:<2} {seat.player_id:<16} stack {seat.stack:<8} {status}")
    if table.HasField("carried_pot"):
        carried = sum(s.amount for s in table.carried_pot.shares) + table.carried_pot.dead
        lines.append(f"  carried pot {carried} over {table.carried_pot.deals} deals")
    if table.HasField("current_hand"):
        lines.extend(hand(table.current_hand))
    elif table.state == tables_pb2.TABLE_STATE_OPEN:
        lines.append("  no hand in progress")
    return lines


def hand(view: tables_pb2.HandView) -> Iterable[str]:
    pot = pot_counted(view)  # as the players count it, their bets this round in
    yield f"  hand {view.hand_number}, {view.street}: pot {pot}, button at seat {view.button}"
    if view.board:
        yield f"    board {' '.join(view.board)}"
    for seat in view.seats:
        cards = [*seat.down_cards, *["??"] * seat.hidden_cards, *seat.up_cards]
        notes = ["folded" if seat.folded else "", "all in" if seat.all_in else ""]
        if view.HasField("turn") and view.turn.seat == seat.seat:
            notes.append("to act")
        yield (
            f"    seat {seat.seat:<2} stack {seat.stack:<8} bet {seat.bet:<6} [{' '.join(cards)}] "
            + " ".join(n for n in notes if n)
        ).rstrip()


def dump(message: Message) -> int:
    print(json.dumps(connection.as_dict(message), indent=2))
    return 0
