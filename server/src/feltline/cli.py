"""The ``feltline`` command."""

from __future__ import annotations

import argparse

from feltline import demo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="feltline", description="Feltline poker server")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("demo", help="watch bots play a hand of every game")
    show.add_argument("--seed", type=int, default=None, help="make the bots' choices repeatable")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo.main(args.seed)
    parser.error(f"unknown command {args.command}")
    return 2
