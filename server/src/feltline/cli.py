"""The ``feltline`` command.

Each command's options and work come from the module that runs it, imported
only when that command is named: ``feltline token`` loads neither the server
nor the client, nor the engine's hand values (bench/commands.py).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from feltline.api import tokens
from feltline.audit.keys import KeyFileError, Signer
from feltline.store.config import StoreConfig

Options = Callable[[argparse.ArgumentParser], None]


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="feltline", description="Feltline poker server")
    commands = parser.add_subparsers(dest="command", required=True)
    named = next((word for word in words if not word.startswith("-")), None)
    for name, (summary, options) in COMMANDS.items():
        command = commands.add_parser(name, help=summary)
        if name == named:  # only the command named needs its options, and its modules
            options(command)
    args = parser.parse_args(words)
    return int(args.run(args))


def _elsewhere(where: str) -> Options:
    """Options added by ``module:function``, imported only when asked for."""
    module, _, function = where.partition(":")

    def add(parser: argparse.ArgumentParser) -> None:
        getattr(importlib.import_module(module), function)(parser)

    return add


def _demo_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=None, help="seed the bots' choices")
    parser.add_argument("--hands", type=int, default=30, help="hands to play at each table")

    def run(args: argparse.Namespace) -> int:
        from feltline import demo  # noqa: PLC0415 (the whole server, for this command only)

        if args.hands < 1:
            parser.error(f"--hands is at least 1, not {args.hands}")
        return demo.main(args.seed, args.hands)

    parser.set_defaults(run=run)


def _token_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--role", required=True, choices=sorted(tokens.ROLES))
    parser.add_argument("--player", default="", help="the player's id; players only")
    _ttl_option(parser)

    def run(args: argparse.Namespace) -> int:
        print(_minted(parser, args.role, args.player, args.ttl))
        return 0

    parser.set_defaults(run=run)


def _invite_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("player", nargs="?", default="", help="the player's id; players only")
    parser.add_argument("--role", default="player", choices=sorted(tokens.ROLES))
    parser.add_argument(
        "--url",
        default="http://127.0.0.1:8080/",
        help="the web table's address, as serve --web-port gives it "
        "(default http://127.0.0.1:8080/)",
    )
    _ttl_option(parser)

    def run(args: argparse.Namespace) -> int:
        url = args.url.strip()
        if not url.startswith(("http://", "https://")) or "#" in url:
            parser.exit(2, f"{parser.prog}: --url is an http(s) address, not {args.url!r}\n")
        token = _minted(parser, args.role, args.player, args.ttl, invite=True)
        print(f"{url.rstrip('/')}/#token={token}")
        return 0

    parser.set_defaults(run=run)


def _ttl_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ttl",
        metavar="SECONDS",
        default=str(tokens.DEFAULT_TTL),
        help=f"seconds it stays valid, 1 to {tokens.LONGEST_TTL:,} "
        f"(default {tokens.DEFAULT_TTL:,}: an hour)",
    )


def _minted(
    parser: argparse.ArgumentParser, role_name: str, player: str, ttl: str, *, invite: bool = False
) -> str:
    """A token for the command line's claims (an ``invite``'s, good only to
    sign in with once), or exit 2 saying what is wrong before the key is
    read: a mistyped command makes no key file."""
    role = tokens.ROLES[role_name]
    try:
        tokens.check_claims(role, player)
        lifetime = _lifetime(ttl)
    except ValueError as e:
        parser.exit(2, f"{parser.prog}: {e}\n")
    return tokens.mint(
        _key(parser), role, now=datetime.now(UTC), ttl=lifetime, player_id=player, invite=invite
    )


def _lifetime(seconds: str) -> timedelta:
    """``--ttl``: whole seconds, 1 to a year, or ``ValueError`` saying so."""
    text = seconds.strip()
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= tokens.LONGEST_TTL):
        raise ValueError(
            f"--ttl is a whole number of seconds from 1 to {tokens.LONGEST_TTL} (a year), "
            f"not {seconds!r}"
        )
    return timedelta(seconds=int(text))


def _public_key_options(parser: argparse.ArgumentParser) -> None:
    def run(_: argparse.Namespace) -> int:
        print(_key(parser).public_pem, end="")
        return 0

    parser.set_defaults(run=run)


COMMANDS: dict[str, tuple[str, Options]] = {
    "demo": ("start a server and watch bots play every game through the API", _demo_options),
    "serve": (
        "serve the gRPC API (store: SQLite by default; PostgreSQL from POSTGRES_* "
        "with --store postgres)",
        _elsewhere("feltline.serve:add_serve_options"),
    ),
    "project": (
        "keep the ledger, hand index and pots views from the store's log, in a process "
        "of its own (store as for serve)",
        _elsewhere("feltline.serve:add_project_options"),
    ),
    "token": (
        "print a bearer token signed with the server's key "
        "(FELTLINE_KEY_FILE, default feltline.key)",
        _token_options,
    ),
    "invite": (
        "print a link to the web table that signs a player (or --role) in, for a home "
        "game's host to send",
        _invite_options,
    ),
    "public-key": (
        "print the server's Ed25519 public key (PEM), which verifies every sealed hand",
        _public_key_options,
    ),
    "table": (
        "open, list, show and close tables (admin)",
        _elsewhere("feltline.floor.tables:add_command"),
    ),
    "tournament": (
        "create, list, show and cancel tournaments (admin)",
        _elsewhere("feltline.floor.tournaments:add_command"),
    ),
    "chips": (
        "mint chips and read balances (admin)",
        _elsewhere("feltline.floor.cage:add_command"),
    ),
    "play": (
        "play by hand against bots: a local server, a table, the bots and you",
        _elsewhere("feltline.floor.home_game:add_command"),
    ),
    "backup": (
        "write a backup of the store while servers run (not the key file)",
        _elsewhere("feltline.floor.keeping:add_backup_command"),
    ),
    "restore": (
        "restore a backup into a fresh store (not the key file)",
        _elsewhere("feltline.floor.keeping:add_restore_command"),
    ),
    "key": (
        "rotate the server's signing key, or revoke a compromised old one",
        _elsewhere("feltline.floor.keeping:add_key_command"),
    ),
}


def _key(parser: argparse.ArgumentParser) -> Signer:
    """The server's key, which only ``serve`` ever makes."""
    try:
        return Signer.load(StoreConfig.from_env().key_file)
    except KeyFileError as e:
        parser.exit(1, f"{parser.prog}: {e}\n")
