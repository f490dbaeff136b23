"""Every projection of a store, run together: in a thread of the server
that owns the store (the default: the embedded demo needs no other
process), or on its own as ``feltline project`` beside servers sharing
PostgreSQL. Each view is rebuilt from zero by name.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import structlog
from eventsourcing.application import Application
from eventsourcing.projection import Projection
from prometheus_client.core import Metric

from feltline import metrics
from feltline.projections.follow import Follower, Lag
from feltline.projections.hands import HandIndex, HandIndexView
from feltline.projections.ledger import Ledger, LedgerView
from feltline.projections.pots import Pots, PotsView
from feltline.projections.standings import Standings, StandingsView
from feltline.projections.tournaments import Tournaments, TournamentsView
from feltline.projections.view import View, open_view

PROJECTIONS: Mapping[str, tuple[type[Projection[Any]], type[View]]] = {
    "ledger": (Ledger, LedgerView),
    "hand_index": (HandIndex, HandIndexView),
    "pots": (Pots, PotsView),
    "standings": (Standings, StandingsView),
    "tournaments": (Tournaments, TournamentsView),
}
REPORT_EVERY = 10.0  # seconds between lag lines in the log
log = structlog.get_logger("feltline.projections")


class Projector:
    """The projections named (all by default) over the log of ``app``,
    their views in the store ``env`` names."""

    def __init__(
        self,
        app: Application[Any],
        env: Mapping[str, str],
        names: Sequence[str] = tuple(PROJECTIONS),
    ) -> None:
        unknown = set(names) - set(PROJECTIONS)
        if unknown:
            raise KeyError(f"no projection named {', '.join(sorted(unknown))}")
        self.views = {name: open_view(PROJECTIONS[name][1], env, app.recorder) for name in names}
        self.follower = Follower(app, [PROJECTIONS[name][0](self.views[name]) for name in names])
        self._thread: threading.Thread | None = None

    def view(self, name: str) -> View:
        return self.views[name]

    def rebuild(self, *names: str) -> int:
        """Drop the views named (every one if none is) and build them again
        from the start of the log, in one pass that reads and decodes each
        notification once for all of them; the notifications applied."""
        chosen = [self.views[name] for name in names or self.views]
        projections = [p for p in self.follower.projections if any(p.view is v for v in chosen)]
        again = Follower(self.follower.app, projections)
        for view in chosen:
            view.drop()
        began = time.monotonic()
        again.catch_up()
        position = min(lag.position for lag in again.lags())
        log.info(
            "projection_rebuilt",
            projection=",".join(v.name for v in chosen),
            position=position,
            seconds=round(time.monotonic() - began, 3),
        )
        self.follower = Follower(self.follower.app, self.follower.projections)
        return position

    def lags(self) -> list[Lag]:
        return self.follower.lags()

    def readings(self) -> Iterator[Metric]:
        """Its position and lag for Prometheus, read now (:mod:`feltline.metrics`)."""
        return metrics.projector(self.lags())

    def poke(self, *_: object) -> None:
        """Something was stored: look now rather than at the next poll."""
        self.follower.poke.set()

    def start(self) -> Projector:
        self._thread = threading.Thread(target=self.run, name="projector", daemon=True)
        self._thread.start()
        return self

    def run(self) -> None:
        """Follow the log until :meth:`stop`, logging the lag now and then."""
        reporter = threading.Thread(target=self._report, name="projector-lag", daemon=True)
        reporter.start()
        self.follower.run()

    def stop(self) -> None:
        self.follower.stopping.set()
        self.follower.poke.set()
        if self._thread is not None:
            self._thread.join(5)

    def _report(self) -> None:
        while not self.follower.stopping.wait(REPORT_EVERY):
            for lag in self.lags():
                log.info(
                    "projection_lag",
                    projection=lag.name,
                    position=lag.position,
                    events=lag.events,
                    seconds=round(lag.seconds, 3),
                )
