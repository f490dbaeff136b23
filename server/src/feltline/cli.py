"""The ``feltline`` command."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sqlite3
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from eventsourcing.persistence import PersistenceError

from feltline import demo, metrics
from feltline.api import logging as logs
from feltline.api import tokens
from feltline.api.app import Feltline
from feltline.api.collector import short_pauses, time_pauses
from feltline.api.server import ListenError, Tls, TlsError, why_not
from feltline.audit.keys import KeyFileError, Signer
from feltline.cardroom.room import open_room
from feltline.floor import cage, home_game, tables
from feltline.projections.follow import Log
from feltline.projections.projector import PROJECTIONS, Projector
from feltline.store import preflight
from feltline.store.config import StoreConfig
from feltline.store.leases import StoreBusy
from feltline.store.signing import KeyChanged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="feltline", description="Feltline poker server")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser(
        "demo", help="start a server and watch bots play every game through the API"
    )
    show.add_argument("--seed", type=int, default=None, help="seed the bots' choices")
    show.add_argument("--hands", type=int, default=30, help="hands to play at each table")
    serve = commands.add_parser(
        "serve",
        help="serve the gRPC API (store: SQLite by default; PostgreSQL from POSTGRES_* "
        "with --store postgres)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=50051, help="port (0: any free one)")
    serve.add_argument(
        "--store",
        default=None,
        help="a SQLite file (default SQLITE_DBNAME or feltline.db), or 'postgres' to use "
        "PostgreSQL as the POSTGRES_* variables say",
    )
    serve.add_argument(
        "--new-key",
        action="store_true",
        help="sign from now on with the key in FELTLINE_KEY_FILE (made if missing) though the "
        "store is signed with another; recorded in the store, and the old key stays trusted",
    )
    serve.add_argument(
        "--tls-cert", type=Path, help="serve over TLS with this certificate chain (PEM)"
    )
    serve.add_argument("--tls-key", type=Path, help="the certificate's private key (PEM)")
    serve.add_argument(
        "--tls-client-ca",
        type=Path,
        help="require client certificates signed by these certificate authorities (PEM)",
    )
    serve.add_argument(
        "--advertise",
        default="",
        metavar="HOST:PORT",
        help="where the other server processes on the store reach this one, to pass it "
        "the requests for its tables (default: the address it listens on)",
    )
    serve.add_argument(
        "--no-projector",
        action="store_true",
        help="run no projector in this process: the views it reads are kept by a "
        "'feltline project' beside it",
    )
    serve.add_argument(
        "--metrics-port",
        type=int,
        help="serve Prometheus metrics at http://HOST:PORT/metrics, HOST as --host "
        "(docs/metrics.md); none unless given",
    )
    project = commands.add_parser(
        "project",
        help="keep the ledger, hand index and pots views from the store's log, in a process "
        "of its own (store as for serve)",
    )
    project.add_argument("--store", default=None, help="as for serve")
    project.add_argument(
        "--rebuild",
        metavar="NAME",
        choices=sorted(PROJECTIONS),
        help="drop this view, build it again from the start of the log, and exit",
    )
    project.add_argument(
        "--metrics-port",
        type=int,
        help="serve Prometheus metrics at http://HOST:PORT/metrics (docs/metrics.md); "
        "none unless given",
    )
    project.add_argument(
        "--host", default="127.0.0.1", help="the address the metrics port listens on"
    )
    token = commands.add_parser(
        "token",
        help="print a bearer token signed with the server's key "
        "(FELTLINE_KEY_FILE, default feltline.key)",
    )
    token.add_argument("--role", required=True, choices=sorted(tokens.ROLES))
    token.add_argument("--player", default="", help="the player's id; players only")
    token.add_argument("--ttl", type=int, default=3600, help="seconds it stays valid")
    commands.add_parser(
        "public-key",
        help="print the server's Ed25519 public key (PEM), which verifies every sealed hand",
    )
    _add_backup(commands)
    _add_key(commands)
    tables.add_commands(commands)
    cage.add_commands(commands)
    home_game.add_command(commands)
    args = parser.parse_args(argv)
    if hasattr(args, "run"):  # the operator's commands, through the API
        return int(args.run(args))
    if args.command == "public-key":
        signer = _key(parser)
        print(signer.public_pem, end="")
        return 0
    if args.command == "demo":
        if args.hands < 1:
            parser.error(f"--hands is at least 1, not {args.hands}")
        return demo.main(args.seed, args.hands)
    if args.command == "serve":
        if (args.tls_cert is None) != (args.tls_key is None):
            parser.error("--tls-cert and --tls-key go together")
        if args.tls_client_ca is not None and args.tls_cert is None:
            parser.error("--tls-client-ca needs --tls-cert and --tls-key")
        return _serve(
            args.host,
            args.port,
            args.store,
            cert=args.tls_cert,
            key=args.tls_key,
            client_ca=args.tls_client_ca,
            new_key=args.new_key,
            projector=not args.no_projector,
            advertise=args.advertise,
            metrics_port=args.metrics_port,
        )
    if args.command == "project":
        return _project(args.store, args.rebuild, args.host, args.metrics_port)
    if args.command in {"backup", "restore"}:
        return _backup(args.command, args.store, args.file)
    if args.command == "key":
        return _rotate(args.store) if args.action == "rotate" else _revoke(args)
    if args.command == "token":
        role = tokens.ROLES[args.role]
        try:  # before the key is read: a mistyped command makes no key file
            tokens.check_claims(role, args.player)
        except ValueError as e:
            parser.error(str(e))
        if args.ttl <= 0:
            parser.error(f"--ttl is a number of seconds above 0, not {args.ttl}")
        signer = _key(parser)
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


def _serve(
    host: str,
    port: int,
    store: str | None,
    *,
    cert: Path | None = None,
    key: Path | None = None,
    client_ca: Path | None = None,
    new_key: bool = False,
    projector: bool = True,
    advertise: str = "",
    metrics_port: int | None = None,
) -> int:
    config = _store(store)
    logs.configure()
    tls = None
    if cert is not None and key is not None:
        try:
            tls = Tls.from_files(cert, key, client_ca)
        except TlsError as e:
            return _refuse(str(e))
    try:
        preflight.check(config)
    except preflight.StoreError as e:
        return _refuse(str(e))
    address = f"{host}:{port}"
    busy = why_not(address)  # before the store is opened: it would make a file
    if busy:
        return _refuse(f"cannot listen on {address}: {busy}")
    if metrics_port is not None:
        busy = _metrics_busy(host, metrics_port)
        if busy:
            return _refuse(busy)
    try:
        room = open_room(config, new_key=new_key)
    except (KeyChanged, KeyFileError) as e:
        return _refuse(str(e))
    except (sqlite3.DatabaseError, PersistenceError) as e:  # what the check could not see
        return _refuse(f"cannot open the store: {e}")
    signer = room.streams.signer
    try:
        # With --no-projector the views are still read: a `feltline project`
        # beside this server keeps them.
        views = Projector(room.streams, config.env)
        server = Feltline(
            room,
            signer.public_key,
            address,
            tls=tls,
            projector=views,
            project=projector,
            advertise=advertise,
            metered=metrics_port is not None,
        )
    except (ListenError, sqlite3.DatabaseError, PersistenceError) as e:
        room.close()
        return _refuse(str(e) if isinstance(e, ListenError) else f"cannot read the store: {e}")
    try:
        server.start()
    except StoreBusy as e:  # another process serves this SQLite store
        room.close()
        return _refuse(str(e))
    where = config.env["PERSISTENCE_MODULE"].rpartition(".")[2]
    if where == "sqlite":
        where += f" {config.env['SQLITE_DBNAME']}"
    over = (
        ""
        if tls is None
        else "TLS, "
        if tls.client_ca is None
        else "TLS with client certificates, "
    )
    short_pauses()  # full collector passes skip what the server holds (api/collector.py)
    # Before saying it listens: a supervisor may stop it the moment it has.
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"feltline listening on {server.target} ({over}store: {where}; key: {config.key_file})")
    if metrics_port is not None:
        _serve_metrics(host, metrics_port)
    print("mint a token:  feltline token --role player --player alice --ttl 3600")
    print("               (same FELTLINE_KEY_FILE; roles: admin, player, spectator, auditor)")
    sys.stdout.flush()
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    server.stop(grace=5)
    room.close()
    return 0


def _store(store: str | None) -> StoreConfig:
    """The store settings, ``--store`` over the environment's."""
    env = dict(os.environ)
    if store == "postgres":
        env["PERSISTENCE_MODULE"] = "eventsourcing.postgres"
    elif store:
        env["PERSISTENCE_MODULE"] = "eventsourcing.sqlite"
        env["SQLITE_DBNAME"] = store
    return StoreConfig.from_env(env)


NOT_IN_A_BACKUP = (
    "A backup holds the store and nothing else: not the signing key file "
    "(FELTLINE_KEY_FILE), which you keep apart; a restored store is served only with that key."
)


def _add_backup(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    backup = commands.add_parser(
        "backup",
        help="write a backup of the store while servers run (not the key file)",
        description="Write the store to FILE while servers play on: SQLite through its "
        "online backup API, PostgreSQL with pg_dump of the store's schema (custom format). "
        + NOT_IN_A_BACKUP,
    )
    backup.add_argument("file", type=Path, help="the backup file to write (must not exist)")
    backup.add_argument("--store", default=None, help="as for serve")
    restore = commands.add_parser(
        "restore",
        help="restore a backup into a fresh store (not the key file)",
        description="Restore FILE, written by 'feltline backup', into the store --store "
        "names, which must be fresh: a SQLite file that does not exist, or a PostgreSQL "
        "schema (POSTGRES_SCHEMA, the one the backup was taken from) with no tables. "
        + NOT_IN_A_BACKUP,
    )
    restore.add_argument("file", type=Path, help="a file 'feltline backup' wrote")
    restore.add_argument("--store", default=None, help="as for serve")


def _backup(command: str, store: str | None, file: Path) -> int:
    """Back the store up to ``file``, or restore it from there."""
    from feltline.store import backup  # noqa: PLC0415 (only this command needs it)

    config = _store(store)
    try:
        done = backup.backup(config, file) if command == "backup" else backup.restore(config, file)
    except backup.BackupError as e:
        print(f"feltline {command}: {e}", file=sys.stderr)
        return 1
    if command == "backup":
        print(f"backed up {done.store} to {done.file} ({done.size} bytes)")
    else:
        print(f"restored {done.file} into {done.store}")
    print(f"not in it: the key file; serve it with the store's key ({config.key_file})")
    return 0


def _add_key(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    key = commands.add_parser(
        "key", help="rotate the server's signing key, or revoke a compromised old one"
    )
    actions = key.add_subparsers(dest="action", required=True)
    rotate = actions.add_parser(
        "rotate",
        help="make a new key that signs from now on; the old key signs its introduction",
        description="Make a new signing key in FELTLINE_KEY_FILE, and record its introduction "
        "in the store, signed by the old key, so the key history verifies from the first key "
        "and hands sealed before stay verifiable. Stop every server on the store first "
        "(refused while one on this machine holds the key file). The old private key is "
        "not kept: copy the new key file to every machine that serves this store.",
    )
    rotate.add_argument("--store", default=None, help="as for serve")
    revoke = actions.add_parser(
        "revoke",
        help="mark a compromised old key: what it signed from a point in the log on fails",
        description="Record, signed by the current key, that KEY (64 hex digits, a key the "
        "store adopted and has since rotated away from) is compromised: records it signed at "
        "or after notification --since (a place in the store's log; default: from now on) "
        "fail verification, and those before stay valid.",
    )
    revoke.add_argument("key", help="the compromised public key, 64 hex digits")
    revoke.add_argument(
        "--since",
        type=int,
        default=None,
        help="the first notification id not to trust (feltline-replay export shows each record's)",
    )
    revoke.add_argument("--reason", default="compromised", help="recorded with it")
    revoke.add_argument("--store", default=None, help="as for serve")


def _revoke(args: argparse.Namespace) -> int:
    from feltline.audit.keys import KeyFileError  # noqa: PLC0415 (only this command needs them)
    from feltline.store.signing import KeyChanged, NotRevocable, revoke  # noqa: PLC0415

    if args.since is not None and args.since < 1:
        print(
            f"feltline key revoke: --since is a notification id from 1, not {args.since}",
            file=sys.stderr,
        )
        return 1
    try:
        since = revoke(_store(args.store), args.key, args.since, args.reason)
    except (KeyChanged, KeyFileError, NotRevocable) as e:
        print(f"feltline key revoke: {e}", file=sys.stderr)
        return 1
    print(f"revoked key {args.key}: what it signed from notification {since} on fails verification")
    return 0


def _rotate(store: str | None) -> int:
    from feltline.audit.keys import KeyFileError  # noqa: PLC0415 (only this command needs them)
    from feltline.store.signing import KeyBusy, KeyChanged, rotate  # noqa: PLC0415

    config = _store(store)
    try:
        rotated = rotate(config)
    except (KeyBusy, KeyChanged, KeyFileError) as e:
        print(f"feltline key rotate: {e}", file=sys.stderr)
        return 1
    print(f"rotated: key {rotated.new} signs from now on, introduced by key {rotated.old}")
    print(f"the new private key is in {config.key_file}; verifiers keep the store's first key")
    return 0


def _project(
    store: str | None, rebuild: str | None, host: str = "127.0.0.1", metrics_port: int | None = None
) -> int:
    """Follow the store's log into the views until SIGTERM or ^C, or
    rebuild one view and exit. Reads the store only: it needs no key."""
    config = _store(store)
    logs.configure()
    busy = None if metrics_port is None or rebuild else _metrics_busy(host, metrics_port)
    if busy:
        print(f"feltline project: {busy}", file=sys.stderr)
        return 1
    try:
        preflight.check(config)
        log = Log(env=config.env)
    except (preflight.StoreError, sqlite3.DatabaseError, PersistenceError) as e:
        print(f"feltline project: {e}", file=sys.stderr)
        return 1
    projector = Projector(log, config.env)
    if rebuild is not None:
        position = projector.rebuild(rebuild)
        print(f"rebuilt {rebuild} up to notification {position}")
        log.close()
        return 0
    signal.signal(signal.SIGTERM, lambda *_: projector.stop())  # before it says it runs
    print(f"feltline projecting {', '.join(projector.views)} from the store's log")
    if metrics_port is not None:
        metrics.read_at_scrape(projector.readings)
        _serve_metrics(host, metrics_port)
    sys.stdout.flush()
    with contextlib.suppress(KeyboardInterrupt):
        projector.run()
    projector.stop()
    log.close()
    return 0


def _metrics_busy(host: str, port: int) -> str | None:
    """Why the metrics port cannot be listened on, if it cannot."""
    address = f"{host}:{port}"
    busy = why_not(address)
    return None if busy is None else f"cannot serve metrics on {address}: {busy}"


def _serve_metrics(host: str, port: int) -> None:
    """Serve the metrics, timing the collector's pauses too (checked free before)."""
    time_pauses()
    port = metrics.serve(port, host)
    print(f"metrics at http://{host}:{port}/metrics")


def _key(parser: argparse.ArgumentParser) -> Signer:
    """The server's key, which only ``serve`` ever makes."""
    try:
        return Signer.load(StoreConfig.from_env().key_file)
    except KeyFileError as e:
        parser.exit(1, f"{parser.prog}: {e}\n")


def _refuse(why: str) -> int:
    """An operator's mistake: one line saying what is wrong, and exit 1."""
    print(f"feltline serve: {why}", file=sys.stderr)
    return 1
