"""A whole Feltline server: its services over one Room, health and
reflection, the dealer and the action clock, and the projector's views
when it is given one; metered, it counts its calls and its play for
Prometheus (:mod:`feltline.metrics`). ``feltline serve`` and
``feltline demo`` run one; the end-to-end tests too."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from datetime import timedelta

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from feltline import metrics
from feltline.api import auth
from feltline.api.accounts import AccountServicer
from feltline.api.ledger import LedgerServicer
from feltline.api.logging import log_action
from feltline.api.matches import MatchServicer
from feltline.api.play import PlayServicer
from feltline.api.rail import Rail
from feltline.api.replay import ReplayServicer
from feltline.api.server import ADMIT, Server, Service, Tls, service
from feltline.api.sessions import SESSION_HOURS, SessionServicer
from feltline.api.tables import TableServicer
from feltline.api.tally import Tally
from feltline.api.tournaments import TournamentServicer
from feltline.api.watch import WatchServicer
from feltline.api.watch import add_to_server as add_watch_service
from feltline.cardroom.clock import Clock, Seconds, wall_clock
from feltline.cardroom.register import INTERVAL
from feltline.cardroom.room import Room
from feltline.cardroom.work import Committed
from feltline.domain.hand import Sealed
from feltline.projections.projector import Projector
from feltline_protos.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    auth_pb2,
    auth_pb2_grpc,
    ledger_pb2,
    ledger_pb2_grpc,
    matches_pb2,
    matches_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
    tables_pb2,
    tables_pb2_grpc,
    tournaments_pb2,
    tournaments_pb2_grpc,
    watch_pb2,
)


def services(
    room: Room,
    clock: Clock,
    rail: Rail,
    projector: Projector | None = None,
    session: timedelta = timedelta(hours=SESSION_HOURS),
) -> list[Service]:
    return [
        service(
            tables_pb2.DESCRIPTOR.services_by_name["TableService"],
            tables_pb2_grpc.add_TableServiceServicer_to_server,
            TableServicer(room, clock),
        ),
        service(
            play_pb2.DESCRIPTOR.services_by_name["PlayService"],
            play_pb2_grpc.add_PlayServiceServicer_to_server,
            PlayServicer(room, clock, rail),
        ),
        service(
            watch_pb2.DESCRIPTOR.services_by_name["WatchService"],
            add_watch_service,
            WatchServicer(room, rail),
        ),
        service(
            accounts_pb2.DESCRIPTOR.services_by_name["AccountService"],
            accounts_pb2_grpc.add_AccountServiceServicer_to_server,
            AccountServicer(room),
        ),
        service(
            replay_pb2.DESCRIPTOR.services_by_name["ReplayService"],
            replay_pb2_grpc.add_ReplayServiceServicer_to_server,
            ReplayServicer(room, rail, projector),
        ),
        service(
            ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"],
            ledger_pb2_grpc.add_LedgerServiceServicer_to_server,
            LedgerServicer(room, projector),
        ),
        service(
            matches_pb2.DESCRIPTOR.services_by_name["MatchService"],
            matches_pb2_grpc.add_MatchServiceServicer_to_server,
            MatchServicer(room, clock, rail),
        ),
        service(
            tournaments_pb2.DESCRIPTOR.services_by_name["TournamentService"],
            tournaments_pb2_grpc.add_TournamentServiceServicer_to_server,
            TournamentServicer(room, clock, rail),
        ),
        service(
            auth_pb2.DESCRIPTOR.services_by_name["SessionService"],
            auth_pb2_grpc.add_SessionServiceServicer_to_server,
            SessionServicer(room, session),
        ),
    ]


class Feltline:
    """A running server on ``address`` (``host:port``; port 0 picks a free
    one, then in :attr:`port`), over TLS if ``tls`` is given; given a
    ``web_port``, to browsers there too (:mod:`feltline.api.web`; the port
    then in :attr:`web_port`), answering pages of ``web_origins``; ``metered``,
    it keeps the metrics of :mod:`feltline.metrics` (served apart, by
    :func:`feltline.metrics.serve`). An invite's link signs in for a
    ``session`` (:mod:`feltline.api.sessions`)."""

    def __init__(
        self,
        room: Room,
        key: Ed25519PublicKey,
        address: str = "127.0.0.1:0",
        *,
        clock: Seconds = wall_clock,
        token_clock: auth.Clock = auth.utc_now,
        tick: float = 0.5,
        max_workers: int = 64,
        admit: int = ADMIT,
        tls: Tls | None = None,
        projector: Projector | None = None,
        project: bool = True,
        advertise: str = "",
        metered: bool = False,
        checkpoint_every: float | None = INTERVAL,
        web_port: int | None = None,
        web_origins: Iterable[str] = (),
        session: timedelta = timedelta(hours=SESSION_HOURS),
    ) -> None:
        self.room = room
        self.projector = projector
        # Whether this process runs the projector, or reads the views that
        # another keeps (``feltline serve --no-projector`` beside ``feltline project``).
        self.project = project
        self.tls = tls
        # The dealer and the action clock, and the watchers it tells of
        # every change it and the servicers make.
        self.table_clock = Clock(room, clock, logged=log_action)
        self.rail = Rail(room)
        self.table_clock.on_changed(self.rail.notify)
        self._tick_every = tick
        # The stored tables, found before the port opens: a store that
        # cannot be read fails here, before any client can connect.
        room.tables()
        self.server = Server(
            services(room, self.table_clock, self.rail, projector, session),
            key=key,
            clock=token_clock,
            max_workers=max_workers,
            admit=admit,
            tls=tls,
            metered=metered,
        )
        try:
            if tls is None:
                self.port = self.server.add_insecure_port(address)
            else:
                self.port = self.server.add_secure_port(address, tls)
            self.host = address.rpartition(":")[0]
            self.web_port = (
                None
                if web_port is None
                else self.server.add_web_port(
                    f"{self.host}:{web_port}", tls=tls, origins=web_origins
                )
            )
        except OSError:
            self.server.stop()
            raise
        # Where the other processes on the store send this one the requests
        # for its tables (feltline.api.forward).
        room.owners.advertise(advertise or self.target)
        self.tally = Tally(room) if metered else None
        self._unread: Callable[[], None] | None = None  # the projector's metrics, when kept
        # The transparency log: leaves logged as hands are sealed, a
        # checkpoint signed every ``checkpoint_every`` seconds while it grows
        # (None: only on demand, nothing logged meanwhile: a bench's baseline).
        self._checkpoint_every = checkpoint_every
        self._register = threading.Thread(
            target=room.register.run,
            args=(checkpoint_every or INTERVAL,),
            name="feltline-register",
            daemon=True,
        )

    def _sealed(self, committed: Committed) -> None:
        if any(isinstance(record, Sealed) for record, _ in committed.records):
            self.room.register.heard()

    @property
    def target(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> Feltline:
        """Serve: take this process's share of the tables first (on SQLite,
        the store itself: :class:`feltline.store.leases.StoreBusy` if another
        process serves it)."""
        try:
            self.room.owners.start()
        except BaseException:
            self.server.stop(0)
            raise
        if self.tally is not None:
            self.tally.start()
        self.server.start()
        self.table_clock.start(self._tick_every)
        if self._checkpoint_every is not None:
            self.room.listen(self._sealed)
            self._register.start()
        if self.projector is not None and self.project:
            self.room.listen(self.projector.poke)
            self.projector.start()
            if self.tally is not None:
                self._unread = metrics.read_at_scrape(self.projector.readings)
        return self

    def stop(self, grace: float | None = 1.0) -> None:
        """Stop: the tables are handed over first (their leases given up, so
        other processes on the store take them at once), then calls in
        flight have ``grace`` seconds."""
        if self.tally is not None:
            self.tally.stop()
        if self._unread is not None:
            self._unread()
        self.table_clock.stop()
        self.room.register.stop()
        if self._register.is_alive():
            self._register.join()
        self.room.owners.stop()
        self.rail.stop()
        self.server.stop(grace)
        if self.projector is not None and self.project:
            self.projector.stop()

    def __enter__(self) -> Feltline:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
