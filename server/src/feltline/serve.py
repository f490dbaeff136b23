"""``feltline serve`` and ``feltline project``: a server, or a projector
beside one, over a store, until SIGTERM or ^C."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from eventsourcing.persistence import PersistenceError

from feltline import metrics
from feltline.api import logging as logs
from feltline.api.app import Feltline
from feltline.api.collector import short_pauses, time_pauses
from feltline.api.server import ListenError, Tls, TlsError, why_not
from feltline.api.sessions import SESSION_HOURS
from feltline.api.tokens import LONGEST_TTL
from feltline.audit.keys import KeyFileError
from feltline.cardroom.room import open_room
from feltline.domain.chained import TamperedError
from feltline.engine.cards.values import build_tables
from feltline.projections.follow import Log
from feltline.projections.projector import PROJECTIONS, Projector
from feltline.store import preflight
from feltline.store.config import StoreConfig
from feltline.store.leases import StoreBusy
from feltline.store.signing import KeyChanged

LONGEST_SESSION_HOURS = LONGEST_TTL // 3600


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=50051, help="port (0: any free one)")
    parser.add_argument(
        "--store",
        default=None,
        help="a SQLite file (default SQLITE_DBNAME or feltline.db), or 'postgres' to use "
        "PostgreSQL as the POSTGRES_* variables say",
    )
    parser.add_argument(
        "--new-key",
        action="store_true",
        help="sign from now on with the key in FELTLINE_KEY_FILE (made if missing) though the "
        "store is signed with another; recorded in the store, and the old key stays trusted",
    )
    parser.add_argument(
        "--tls-cert", type=Path, help="serve over TLS with this certificate chain (PEM)"
    )
    parser.add_argument("--tls-key", type=Path, help="the certificate's private key (PEM)")
    parser.add_argument(
        "--tls-client-ca",
        type=Path,
        help="require client certificates signed by these certificate authorities (PEM)",
    )
    parser.add_argument(
        "--advertise",
        default="",
        metavar="HOST:PORT",
        help="where the other server processes on the store reach this one, to pass it "
        "the requests for its tables (default: the address it listens on)",
    )
    parser.add_argument(
        "--no-projector",
        action="store_true",
        help="run no projector in this process: the views it reads are kept by a "
        "'feltline project' beside it",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        help="serve Prometheus metrics at http://HOST:PORT/metrics, HOST as --host "
        "(docs/metrics.md); none unless given",
    )

    parser.add_argument(
        "--web-port",
        type=int,
        help="also serve the API to browsers (Connect and gRPC-Web, docs/api.md) on this "
        "port, HOST as --host, over TLS as gRPC is; none unless given",
    )
    parser.add_argument(
        "--web-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web page's origin (https://example.com) whose calls the web port answers; "
        "repeat for more; pages from other origins are refused",
    )
    parser.add_argument(
        "--session-hours",
        type=session_hours,
        default=SESSION_HOURS,
        metavar="HOURS",
        help="how long an invite link signs its holder in for (feltline invite), in whole "
        f"hours, 1 to {LONGEST_SESSION_HOURS} (default {SESSION_HOURS})",
    )

    def run(args: argparse.Namespace) -> int:
        if (args.tls_cert is None) != (args.tls_key is None):
            parser.error("--tls-cert and --tls-key go together")
        if args.tls_client_ca is not None and args.tls_cert is None:
            parser.error("--tls-client-ca needs --tls-cert and --tls-key")
        if args.web_origin and args.web_port is None:
            parser.error("--web-origin needs --web-port")
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
            web_port=args.web_port,
            web_origins=args.web_origin,
            session=timedelta(hours=args.session_hours),
        )

    parser.set_defaults(run=run)


def session_hours(text: str) -> int:
    """``--session-hours``: a whole number of hours a token may live."""
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= LONGEST_SESSION_HOURS):
        raise argparse.ArgumentTypeError(
            f"a session lasts a whole number of hours from 1 to {LONGEST_SESSION_HOURS} "
            f"(a year, the longest any token lives), not {text!r}"
        )
    return int(text)


def add_project_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", default=None, help="as for serve")
    parser.add_argument(
        "--rebuild",
        metavar="NAME",
        choices=sorted(PROJECTIONS),
        help="drop this view, build it again from the start of the log, and exit",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        help="serve Prometheus metrics at http://HOST:PORT/metrics (docs/metrics.md); "
        "none unless given",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address the metrics port listens on"
    )
    parser.set_defaults(
        run=lambda args: _project(args.store, args.rebuild, args.host, args.metrics_port)
    )


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
    web_port: int | None = None,
    web_origins: Sequence[str] = (),
    session: timedelta = timedelta(hours=SESSION_HOURS),
) -> int:
    config = store_config(store)
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
    if web_port is not None and (busy := why_not(f"{host}:{web_port}")):
        return _refuse(f"cannot listen on {host}:{web_port}: {busy}")
    build_tables()  # now, not at the first showdown
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
    except TamperedError as e:  # the transparency log's stream, read whole at start
        return _refuse(f"the store's transparency log does not verify: {e}")
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
            web_port=web_port,
            web_origins=web_origins,
            session=session,
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
    if server.web_port is not None:
        scheme = "http" if tls is None else "https"
        print(f"browsers (Connect, gRPC-Web): {scheme}://{host}:{server.web_port}")
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


def store_config(store: str | None) -> StoreConfig:
    """The store settings, ``--store`` over the environment's."""
    env = dict(os.environ)
    if store == "postgres":
        env["PERSISTENCE_MODULE"] = "eventsourcing.postgres"
    elif store:
        env["PERSISTENCE_MODULE"] = "eventsourcing.sqlite"
        env["SQLITE_DBNAME"] = store
    return StoreConfig.from_env(env)


def _project(
    store: str | None, rebuild: str | None, host: str = "127.0.0.1", metrics_port: int | None = None
) -> int:
    """Follow the store's log into the views until SIGTERM or ^C, or
    rebuild one view and exit. Reads the store only: it needs no key."""
    config = store_config(store)
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


def _refuse(why: str) -> int:
    """An operator's mistake: one line saying what is wrong, and exit 1."""
    print(f"feltline serve: {why}", file=sys.stderr)
    return 1
