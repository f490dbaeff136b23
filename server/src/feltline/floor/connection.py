"""How an operator's command reaches a server: its address, TLS as
``feltline-play`` takes it, and an admin token, given or minted from the
local key file (which only ``feltline serve`` makes)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from google.protobuf import json_format
from google.protobuf.message import Message

from feltline.api import tokens
from feltline.audit.keys import KeyFileError, Signer
from feltline.floor.settings import SettingError
from feltline.store.config import StoreConfig
from feltline_client import Client, FeltlineError
from feltline_client.client import Tls
from feltline_client.table import NoSuchTable
from feltline_protos.v1 import auth_pb2

DEFAULT_TARGET = "127.0.0.1:50051"
# An operator waits seconds, not the SDK's minute, to hear a server is down.
PATIENCE = 3.0
MINTED_FOR = timedelta(minutes=10)


class Refused(Exception):
    """An operator's mistake or a server's refusal: one line, exit 1."""


def add_options(parser: argparse.ArgumentParser, *, target: str | None = None) -> None:
    """Where the server is and how to prove the caller is its operator;
    ``target`` says what a missing ``--target`` means instead of the usual."""
    group = parser.add_argument_group("server")
    if target is None:
        group.add_argument(
            "--target",
            default=os.environ.get("FELTLINE_TARGET") or DEFAULT_TARGET,
            help=f"the server, HOST:PORT (default FELTLINE_TARGET or {DEFAULT_TARGET})",
        )
    else:
        group.add_argument("--target", help=f"the server, HOST:PORT (default {target})")
    group.add_argument(
        "--token",
        default=os.environ.get("FELTLINE_TOKEN", ""),
        help="an admin token (default FELTLINE_TOKEN, else one minted from the local "
        "key file FELTLINE_KEY_FILE, default feltline.key)",
    )
    group.add_argument(
        "--tls", action="store_true", help="connect over TLS, checked by the system's authorities"
    )
    group.add_argument("--tls-ca", help="connect over TLS, checked by these authorities (PEM)")
    group.add_argument("--tls-cert", help="the client certificate a server requires (PEM)")
    group.add_argument("--tls-key", help="its private key (PEM)")


def admin_token(given: str) -> str:
    """``given``, or a short-lived admin token from the key file."""
    if given:
        return given
    path = StoreConfig.from_env().key_file
    try:
        signer = Signer.load(path)
    except KeyFileError as e:
        raise Refused(f"no --token given, and none can be minted here: {e}") from None
    return mint(signer, auth_pb2.ROLE_ADMIN)


def mint(signer: Signer, role: tokens.Role, player: str = "") -> str:
    return tokens.mint(signer, role, now=datetime.now(UTC), ttl=MINTED_FOR, player_id=player)


def tls(args: argparse.Namespace) -> Tls | None:
    if (args.tls_cert is None) != (args.tls_key is None):
        raise Refused("--tls-cert and --tls-key go together")
    if not (args.tls or args.tls_ca or args.tls_cert):
        return None
    try:
        return Tls.from_files(args.tls_ca, args.tls_cert, args.tls_key)
    except OSError as e:
        raise Refused(f"cannot read {e.filename}: {e.strerror}") from None


def client(args: argparse.Namespace, token: str | None = None) -> Client:
    """A client of the server the options name, as its admin by default."""
    return Client(
        args.target,
        token if token is not None else admin_token(args.token),
        tls=tls(args),
        patience=PATIENCE,
        timeout=30,
    )


def explain(error: FeltlineError, target: str) -> str:
    """A refusal as one line: what the server said and every field at fault."""
    if error.code.name == "UNAVAILABLE" and not error.reason:
        return f"cannot reach a Feltline server at {target}: {error.message}"
    text = error.message.replace("\n", "; ")
    faults = "; ".join(f"{v.field}: {v.description}" for v in error.violations)
    if faults and faults not in text:
        text = f"{text} ({faults})"
    return f"refused ({error.reason or error.code.name}): {text}"


def run(
    command: str, work: Callable[[argparse.Namespace], int]
) -> Callable[[argparse.Namespace], int]:
    """``work`` with every operator mistake and refusal said in one line on
    stderr, prefixed by the command, and exit status 1: no traceback."""

    def guarded(args: argparse.Namespace) -> int:
        try:
            return work(args)
        except Refused as e:
            why = str(e)
        except FeltlineError as e:
            why = explain(e, args.target)
        except (SettingError, NoSuchTable) as e:
            why = str(e)
        except KeyboardInterrupt:  # leaving: what was started is stopped on the way out
            return 130
        print(f"feltline {command}: {why}", file=sys.stderr)
        return 1

    return guarded


def command(
    parser: argparse.ArgumentParser, name: str, work: Callable[[argparse.Namespace], int]
) -> None:
    """Make ``parser`` an operator's command: the server options, ``--json``,
    and ``work`` run with its mistakes said in one line."""
    add_options(parser)
    parser.add_argument("--json", action="store_true", help="print JSON, for scripts")
    parser.set_defaults(run=run(name, work))


def as_dict(message: Message) -> object:
    """A message as JSON sees it, with the protos' field names."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)
