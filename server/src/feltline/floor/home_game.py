"""``feltline play``: a game by hand against the SDK's bots, in one command.

It starts a server on the embedded SQLite store in a folder (a temporary
one unless ``--store`` names one; or uses the server ``--target`` names),
opens a table with the settings given, seats the bots, each playing
through the API as any client would, and seats the person through
``feltline-play``. Leaving (``quit``, end of input, Ctrl-C, or ``--hands``)
stands everyone up, closes the table and stops the server.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from feltline.api import logging as logs
from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.audit.keys import KeyFileError, Signer
from feltline.cardroom.room import open_room
from feltline.engine.cards.values import build_tables
from feltline.floor import connection, settings
from feltline.floor.connection import Refused
from feltline.floor.tables import stakes
from feltline.store.config import StoreConfig
from feltline.store.signing import KeyChanged
from feltline_client import Client, terminal
from feltline_client.bots import BOTS, Player
from feltline_protos.v1 import auth_pb2

# Chips minted for each seat: enough to buy in again many times over.
BUY_INS_MINTED = 100
SEAT = 1  # the person's; the bots sit to their left


@dataclass
class Server:
    """Where the game is played, and the key that mints its tokens."""

    target: str
    signer: Signer
    local: Feltline | None = None


def add_command(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__.split("\n\n")[0] if __doc__ else None
    parser.add_argument("--bots", type=int, default=3, help="bots at the table (default 3)")
    parser.add_argument(
        "--bot", choices=sorted(BOTS), default="casual", help="how they play (default casual)"
    )
    parser.add_argument("--player", default="you", help="your player id (default 'you')")
    parser.add_argument(
        "--buy-in", type=int, help="your chips and each bot's (default the table's most)"
    )
    parser.add_argument("--hands", type=int, help="leave after this many hands")
    parser.add_argument(
        "--store",
        type=Path,
        help="a folder for the SQLite store, its key and the server's log, kept "
        "(default: a temporary one, removed after)",
    )
    settings.add_options(parser, game_required=False)
    connection.add_options(parser, target="a server of its own on a loopback port")
    parser.set_defaults(run=connection.run("play", play))


def play(
    args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """The whole game; its exit status is the terminal client's."""
    out = stdout or sys.stdout
    wanted = settings.settings(args)
    buy_in = _buy_in(args, wanted)
    if not tokens.PLAYER_ID.fullmatch(args.player):
        raise Refused(f"--player is a player id (letters, digits, _ . -), not {args.player!r}")
    with _server(args) as server:
        token = args.token or connection.mint(server.signer, auth_pb2.ROLE_ADMIN)
        admin = Client(server.target, token, tls=connection.tls(args), patience=connection.PATIENCE)
        with admin:
            table = admin.create_table(wanted.message, wanted.name)
            print(f"{table.display_name}: {stakes(table.config)}; id {table.table_id}", file=out)
            if server.local is not None:  # a server of our own serves the web table too
                spectator = connection.mint(server.signer, auth_pb2.ROLE_SPECTATOR)
                web = f"http://{server.local.host}:{server.local.web_port}"
                print(
                    f"watch in a browser: {web}/#/table/{table.table_id}&token={spectator}",
                    file=out,
                )
            bots: list[tuple[Player, threading.Thread]] = []
            try:
                _seat_bots(args, server, admin, table.table_id, buy_in, into=bots)
                funded = admin.mint_chips(args.player, BUY_INS_MINTED * buy_in, "feltline play")
                names = ", ".join(f"{bot.seat} ({args.bot})" for bot, _ in bots)
                print(f"bots at seats {names}; you sit at seat {SEAT}", file=out, flush=True)
                status = terminal.main(
                    _terminal_args(args, server, table.table_id, buy_in), stdin, out
                )
            finally:
                _unseat(bots, admin, table.table_id)
            account = admin.get_account(args.player)
        # Net of the chips minted to play with, which dwarf a game's result.
        won = account.balance - funded.balance
        result = "even" if not won else f"{abs(won)} chips {'up' if won > 0 else 'down'}"
        print(f"you leave {result} ({account.balance} chips in your account)", file=out)
    print("the table is closed and the server stopped", file=out)
    return 0 if status in (0, 130) else status


def _buy_in(args: argparse.Namespace, wanted: settings.Settings) -> int:
    low, high = wanted.config.buy_in_limits()
    if args.bots < 1 or args.bots + 1 > wanted.config.seats:
        raise Refused(
            f"--bots is 1 to {wanted.config.seats - 1} at a table of {wanted.config.seats} "
            f"seats (--seats), with a seat for you, not {args.bots}"
        )
    buy_in: int = high if args.buy_in is None else args.buy_in
    if not low <= buy_in <= high:
        raise Refused(f"--buy-in is {low} to {high} at this table, not {buy_in}")
    if args.hands is not None and args.hands < 1:
        raise Refused(f"--hands is at least 1, not {args.hands}")
    return buy_in


@contextlib.contextmanager
def _server(args: argparse.Namespace) -> Iterator[Server]:
    """The server named, or one of our own, stopped when the game ends."""
    if args.target:
        try:
            signer = Signer.load(StoreConfig.from_env().key_file)
        except KeyFileError as e:
            raise Refused(f"the players' tokens are minted with the server's key: {e}") from None
        yield Server(args.target, signer)
        return
    with contextlib.ExitStack() as stack:
        folder = args.store or Path(stack.enter_context(tempfile.TemporaryDirectory("-play")))
        folder.mkdir(parents=True, exist_ok=True)
        log = stack.enter_context((folder / "server.log").open("a", encoding="utf-8"))
        logs.configure(stream=log, level=logging.INFO)  # the terminal is the person's
        config = StoreConfig.from_env(
            {
                "SQLITE_DBNAME": str(folder / "feltline.db"),
                "FELTLINE_KEY_FILE": str(folder / "feltline.key"),
            }
        )
        try:
            room = open_room(config)
        except (KeyChanged, KeyFileError) as e:
            raise Refused(str(e)) from None
        stack.callback(room.close)
        build_tables()  # now, not at the first showdown
        local = Feltline(room, room.streams.signer.public_key, tick=0.2, web_port=0).start()
        stack.callback(local.stop)
        yield Server(local.target, room.streams.signer, local)


def _seat_bots(
    args: argparse.Namespace,
    server: Server,
    admin: Client,
    table_id: str,
    buy_in: int,
    *,
    into: list[tuple[Player, threading.Thread]],
) -> None:
    """Seat and start the bots, each kept in ``into`` as it sits, so that
    those seated are stood up whatever happens to the rest."""
    for n in range(1, args.bots + 1):
        name = f"{args.bot}-{n}"
        admin.mint_chips(name, BUY_INS_MINTED * buy_in, "feltline play")
        token = connection.mint(server.signer, auth_pb2.ROLE_PLAYER, name)
        client = Client(server.target, token, tls=connection.tls(args))
        bot = Player(client, table_id, BOTS[args.bot](), seat=SEAT + n, buy_in=buy_in, rebuy=True)
        thread = threading.Thread(target=bot.play, name=f"feltline-{name}", daemon=True)
        into.append((bot, thread))
        bot.sit()
        thread.start()


def _terminal_args(
    args: argparse.Namespace, server: Server, table_id: str, buy_in: int
) -> list[str]:
    token = connection.mint(server.signer, auth_pb2.ROLE_PLAYER, args.player)
    argv = ["--target", server.target, "--token", token, "--table", table_id]
    argv += ["--seat", str(SEAT), "--buy-in", str(buy_in)]
    if args.hands is not None:
        argv += ["--hands", str(args.hands)]
    for option in ("tls_ca", "tls_cert", "tls_key"):
        if getattr(args, option):
            argv += [f"--{option.replace('_', '-')}", getattr(args, option)]
    if args.tls:
        argv.append("--tls")
    return argv


def _unseat(bots: list[tuple[Player, threading.Thread]], admin: Client, table_id: str) -> None:
    """Stand the bots up and close the table: a hand they are in is
    cancelled, every chip in it returned, and their watches end."""
    for bot, _ in bots:
        bot.stop()
    admin.close_table(table_id, "the game is over")
    for bot, thread in bots:
        if thread.ident is not None:  # started
            thread.join(timeout=30)
        bot.client.close()


__all__ = ["add_command", "play"]
