"""``feltline tournament create|list|show|cancel``: the floor's tournaments,
through the API with an admin token.

``create`` takes the tables' game and first level as ``feltline table open``
takes a table's settings; each later level doubles every forced bet and bet
of the one before (a schedule a floor can post in one line), and lasts
``--level-minutes`` or ``--level-hands``. The payouts are one band:
the places' percentages, for any number of entrants up to ``--entrants``.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from decimal import Decimal, InvalidOperation

from feltline.floor import connection, settings
from feltline.floor.settings import SettingError
from feltline.floor.tables import dump, stakes
from feltline_protos.v1 import common_pb2, tournaments_pb2

T = tournaments_pb2
LEVELS, LEVEL_MINUTES, STACK = 15, 10, 1_000
CHIPS = ("small_bet", "big_bet", "ante", "small_blind", "big_blind", "bring_in")
STATES = {
    T.TOURNAMENT_STATE_REGISTERING: "registering",
    T.TOURNAMENT_STATE_RUNNING: "running",
    T.TOURNAMENT_STATE_FINISHED: "finished",
    T.TOURNAMENT_STATE_CANCELLED: "cancelled",
}


def add_command(tournament: argparse.ArgumentParser) -> None:
    verbs = tournament.add_subparsers(dest="verb", required=True)
    creating = verbs.add_parser("create", help="create a sit-and-go, or one that starts at a time")
    settings.add_options(creating, game_required=True)
    add = creating.add_argument_group("the tournament (docs/rules.md, Tournaments)").add_argument
    add("--buy-in", type=int, required=True, help="account chips into the prize pool")
    add("--fee", type=int, default=0, help="account chips to the house (default 0)")
    add("--stack", type=int, default=STACK, help=f"starting tournament chips (default {STACK})")
    add("--entrants", type=int, required=True, help="a sit-and-go's players; else the most")
    add(
        "--payouts",
        default="100",
        help="each paid place's percentage, first place first, e.g. 65,35 (default 100)",
    )
    add("--levels", type=int, default=LEVELS, help=f"how many levels (default {LEVELS})")
    lasting = creating.add_mutually_exclusive_group()
    lasting.add_argument(
        "--level-minutes",
        type=int,
        help=f"each level's minutes (default {LEVEL_MINUTES})",
    )
    lasting.add_argument("--level-hands", type=int, help="each level's hands, instead")
    add(
        "--starts-at",
        type=datetime.fromisoformat,
        help="an ISO 8601 time with its zone: a scheduled tournament, which starts then "
        "(default: a sit-and-go, which starts when it fills)",
    )
    add("--minimum", type=int, default=2, help="scheduled: the fewest it starts with (default 2)")
    add("--late-until", type=int, default=0, help="scheduled: late entry until this level ends")
    listing = verbs.add_parser("list", help="every tournament, newest first")
    showing = verbs.add_parser("show", help="a tournament's entries, tables and standings")
    showing.add_argument("tournament", metavar="TOURNAMENT", help="the tournament's id")
    cancelling = verbs.add_parser("cancel", help="cancel a tournament, refunding the entries")
    cancelling.add_argument("tournament", metavar="TOURNAMENT", help="the tournament's id")
    cancelling.add_argument("--reason", default="cancelled by the operator", help="the record's")
    connection.command(creating, "tournament create", create_tournament)
    connection.command(listing, "tournament list", list_tournaments)
    connection.command(showing, "tournament show", show_tournament)
    connection.command(cancelling, "tournament cancel", cancel_tournament)


def create_tournament(args: argparse.Namespace) -> int:
    wanted = settings.settings(args)  # the table's mistakes, said before anything is sent
    if args.levels < 1:
        raise SettingError(f"--levels is at least 1, not {args.levels}")
    minutes = LEVEL_MINUTES if args.level_hands is None else 0
    minutes = args.level_minutes if args.level_minutes is not None else minutes
    first = wanted.message.rules.stakes
    levels = [_doubled(first, n, minutes, args.level_hands or 0) for n in range(args.levels)]
    scheduled = args.starts_at is not None
    if scheduled and args.starts_at.tzinfo is None:
        raise SettingError("--starts-at needs its zone, e.g. 2026-12-24T20:00:00+00:00")
    with connection.client(args) as client:
        made = client.create_tournament(
            wanted.message,
            args.name or f"{args.game} tournament",
            levels=levels,
            buy_in=args.buy_in,
            fee=args.fee,
            stack=args.stack,
            payouts=[T.PayoutBand(entrants=args.entrants, shares=_shares(args.payouts))],
            entrants=args.entrants,
            start_time=int(args.starts_at.timestamp()) if scheduled else None,
            minimum=args.minimum if scheduled else 0,
            late_until=args.late_until,
        )
    if args.json:
        return dump(made)
    print(f"created {made.tournament_id}  {summary(made)}")
    return 0


def list_tournaments(args: argparse.Namespace) -> int:
    with connection.client(args) as client:
        found = list(client.list_tournaments())
    if args.json:
        print(json.dumps([connection.as_dict(t) for t in found], indent=2))
        return 0
    if not found:
        print("no tournaments")
    for tournament in found:
        print(f"{tournament.tournament_id}  {summary(tournament)}")
    return 0


def show_tournament(args: argparse.Namespace) -> int:
    with connection.client(args) as client:
        tournament = client.get_tournament(args.tournament)
    if args.json:
        return dump(tournament)
    print("\n".join(describe(tournament)))
    return 0


def cancel_tournament(args: argparse.Namespace) -> int:
    with connection.client(args) as client:
        tournament = client.cancel_tournament(args.tournament, args.reason)
    if args.json:
        return dump(tournament)
    print(f"cancelled {tournament.tournament_id}  {summary(tournament)}")
    return 0


def summary(t: tournaments_pb2.Tournament) -> str:
    entry = f"{t.buy_in}+{t.fee}"
    state = STATES.get(t.state, "")
    level = f", level {t.level}" if t.level else ""
    return (
        f"{t.display_name:<20} {state:<11} {entry} {stakes(t.config)}; "
        f"{len(t.player_ids)}/{t.entrants} entered, pool {t.prize_pool}{level}"
    )


def describe(t: tournaments_pb2.Tournament) -> list[str]:
    """A tournament for its operator: set-up, tables and standings."""
    lines = [f"{t.tournament_id}  {summary(t)}"]
    if t.cancel_reason:
        lines.append(f"  cancelled: {t.cancel_reason}")
    for table in t.tables:
        lines.append(f"  table {table.number:<3} {table.table_id}  {table.players} players")
    for s in t.standings:
        if s.place:
            lines.append(f"  place {s.place:<4} {s.player_id:<16} prize {s.prize}")
        else:
            lines.append(
                f"  playing    {s.player_id:<16} chips {s.chips:<8} table {s.table} seat {s.seat}"
            )
    return lines


def _doubled(
    first: common_pb2.Stakes, n: int, minutes: int, hands: int
) -> tournaments_pb2.TournamentLevel:
    """Level ``n + 1``: the first level's chips times 2 to the ``n``."""
    level = common_pb2.Stakes()
    level.CopyFrom(first)
    for name in CHIPS:
        setattr(level, name, getattr(first, name) * 2**n)
    return T.TournamentLevel(stakes=level, minutes=minutes, hands=hands)


def _shares(percentages: str) -> list[int]:
    """Percentages, to the basis points the payouts count in."""
    try:
        shares = [Decimal(p) * 100 for p in percentages.split(",")]
    except InvalidOperation:
        raise SettingError(f"--payouts is percentages, e.g. 65,35, not {percentages}") from None
    if any(s != int(s) or s <= 0 for s in shares) or sum(shares) != 10_000:
        raise SettingError(
            f"--payouts is positive percentages (to 0.01) that add up to 100, not {percentages}"
        )
    return [int(s) for s in shares]
