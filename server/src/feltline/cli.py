"""The ``feltline`` command."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta

from feltline import demo
from feltline.api import tokens
from feltline.audit.keys import Signer
from feltline.store.config import StoreConfig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="feltline", description="Feltline poker server")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("demo", help="watch bots play a hand of every game")
    show.add_argument("--seed", type=int, default=None, help="make the bots' choices repeatable")
    token = commands.add_parser(
        "token",
        help="print a bearer token signed with the server's key "
        "(FELTLINE_KEY_FILE, default feltline.key)",
    )
    token.add_argument("--role", required=True, choices=sorted(tokens.ROLES))
    token.add_argument("--player", default="", help="the player's id; players only")
    token.add_argument("--ttl", type=int, default=3600, help="seconds it stays valid")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo.main(args.seed)
    if args.command == "token":
        role = tokens.ROLES[args.role]
        try:  # before the key is read: a mistyped command makes no key file
            tokens.check_claims(role, args.player)
        except ValueError as e:
            parser.error(str(e))
        if args.ttl <= 0:
            parser.error(f"--ttl is a number of seconds above 0, not {args.ttl}")
        signer = Signer.from_file(StoreConfig.from_env().key_file)
        print(
            tokens.mint(
                signer,
                role,
                now=datetime.now(UTC),
                ttl=timedelta(seconds=args.ttl),
                player_id=args.player,
            )
        )
        return 0
    parser.error(f"unknown command {args.command}")
    return 2
