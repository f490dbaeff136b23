"""``feltline chips mint|balance``: the cage, where players' chips come
from. Minting is an admin's call through the API, recorded and signed in
the player's account like any other change."""

from __future__ import annotations

import argparse
import json

from feltline.floor import connection
from feltline_protos.v1 import accounts_pb2


def add_command(chips: argparse.ArgumentParser) -> None:
    verbs = chips.add_subparsers(dest="verb", required=True)
    minting = verbs.add_parser("mint", help="add chips to a player's account")
    minting.add_argument("player", metavar="PLAYER")
    minting.add_argument("amount", metavar="AMOUNT", type=_amount)
    minting.add_argument("--note", default="minted by the operator", help="kept with the chips")
    balance = verbs.add_parser("balance", help="a player's chips, in the account and at tables")
    balance.add_argument("player", metavar="PLAYER")
    connection.command(minting, "chips mint", mint)
    connection.command(balance, "chips balance", show_balance)


def _amount(text: str) -> int:
    if not text.isdigit() or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"a whole number of chips above 0, not {text!r}")
    if int(text) >= 2**64:  # the request's field: no traceback from the SDK
        raise argparse.ArgumentTypeError(f"more chips than the API carries: {text}")
    return int(text)


def mint(args: argparse.Namespace) -> int:
    with connection.client(args) as client:
        account = client.mint_chips(args.player, args.amount, args.note)
    return _show(account, args.json, f"minted {args.amount} for {args.player}; ")


def show_balance(args: argparse.Namespace) -> int:
    with connection.client(args) as client:
        account = client.get_account(args.player)
    return _show(account, args.json, "")


def _show(account: accounts_pb2.Account, as_json: bool, before: str) -> int:
    if as_json:
        print(json.dumps(connection.as_dict(account), indent=2))
    else:
        print(
            f"{before}{account.player_id}: {account.balance} in the account, "
            f"{account.at_tables} at tables"
        )
    return 0
