"""What a Feltline process measures, for Prometheus: every metric it
exports, in one place, and the HTTP port that serves them
(``feltline serve --metrics-port``, ``feltline project --metrics-port``).

The objects live in the client library's default registry, beside its
``process_*`` and ``python_*`` metrics, so any layer of the shell (api,
store, projections) observes with one line and no plumbing; the engine
never does. Names follow Prometheus' conventions: base units (seconds),
``_total`` on counters; the gRPC ones are go-grpc-prometheus's, so
existing dashboards work. docs/metrics.md says what each tells an operator.

Values that are a reading of state (a projector's lag, the tables
waiting for a hand) are taken when scraped, from the sources attached
with :func:`read_at_scrape`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

import prometheus_client
from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector

# ---- gRPC, named as grpc-ecosystem's go-grpc-prometheus names them

RPC = ("grpc_type", "grpc_service", "grpc_method")
RPC_STARTED = Counter(
    "grpc_server_started_total", "Total number of RPCs started on the server.", RPC
)
RPC_HANDLED = Counter(
    "grpc_server_handled_total",
    "Total number of RPCs completed on the server, regardless of success or failure.",
    (*RPC, "grpc_code"),
)
RPC_RECEIVED = Counter(
    "grpc_server_msg_received_total", "Total number of RPC stream messages received.", RPC
)
RPC_SENT = Counter("grpc_server_msg_sent_total", "Total number of gRPC stream messages sent.", RPC)
RPC_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Histogram of response latency (seconds) of gRPC that had been application-level "
    "handled by the server.",
    RPC,
)

# ---- play

ACTIONS = Counter(
    "feltline_actions_total",
    "Moves stored at hands, by game and kind (fold, check, call, bet, raise, bring-in, "
    "complete, draw, declare); time-outs included.",
    ("game", "kind"),
)
HANDS_STARTED = Counter("feltline_hands_started_total", "Hands dealt, by game.", ("game",))
HANDS_FINISHED = Counter(
    "feltline_hands_finished_total",
    "Hands ended and settled at their table, by game (cancelled ones included).",
    ("game",),
)
HANDS_CANCELLED = Counter(
    "feltline_hands_cancelled_total",
    "Hands cancelled (their table closed during them), every chip going back, by game.",
    ("game",),
)
REFUSALS = Counter(
    "feltline_refusals_total",
    "Requests refused by a service, by method and ErrorInfo reason (an Act refused "
    "NOT_YOUR_TURN, STALE_STATE...); token refusals are grpc_server_handled_total's.",
    ("grpc_service", "grpc_method", "reason"),
)
TABLES_SERVED = Gauge(
    "feltline_tables_served", "Tables this process deals at and runs the action clock for."
)
# Table leases add feltline_leases_held (a gauge) and
# feltline_lease_takeovers_total (a counter) here: docs/metrics.md lists
# them, ops/prometheus alerts on them, and tests/api/test_metrics.py
# exempts them (NOT_YET) until they are served.
TABLES_UNREADABLE = Gauge(
    "feltline_tables_unreadable",
    "Tables whose stored history does not verify, refused as DATA_LOSS since the process began.",
)

# ---- watches

WATCHES = Gauge("feltline_watch_streams", "Watch streams open.")
WATCH_QUEUE = Gauge(
    "feltline_watch_send_queue",
    "Messages made for watchers and not yet taken by gRPC to send, over every watch: "
    "grows while clients read slower than their tables change.",
)

# ---- the store

COMMIT_SECONDS = Histogram(
    "feltline_store_commit_seconds",
    "Seconds a save waits to be committed, its turn in the group commit included.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
COMMIT_BATCH = Histogram(
    "feltline_store_commit_batch_size",
    "Saves committed together in one transaction (group commit).",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
)
STORE_ERRORS = Counter(
    "feltline_store_errors_total",
    "Store operations that failed, by kind: conflict (another writer first), disk_full, "
    "database (any other database error on commit), unreadable (a stream that does not "
    "verify, read).",
    ("kind",),
)

# ---- verification and the collector

VERIFY_FAILURES = Counter(
    "feltline_verification_failures_total",
    "Checks that failed when an auditor or admin verified a stored hand (VerifyHand), by check.",
    ("check",),
)
GC_PAUSES = Histogram(
    "feltline_gc_pause_seconds",
    "Pauses of Python's garbage collector (the GIL held), by generation.",
    ("generation",),
    buckets=(0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5),
)


# ---- read when scraped


class Lag(Protocol):
    """A projection's place in the log (feltline.projections.follow.Lag)."""

    @property
    def name(self) -> str: ...
    @property
    def position(self) -> int: ...
    @property
    def head(self) -> int: ...
    @property
    def events(self) -> int: ...
    @property
    def seconds(self) -> float: ...


def projector(lags: Iterable[Lag]) -> Iterator[Metric]:
    """The projector's position and lag, one series per projection."""
    position = GaugeMetricFamily(
        "feltline_projector_position",
        "The last notification of the log applied to the projection's view.",
        labels=("projection",),
    )
    events = GaugeMetricFamily(
        "feltline_projector_lag_events",
        "Notifications stored and not yet applied to the projection's view.",
        labels=("projection",),
    )
    seconds = GaugeMetricFamily(
        "feltline_projector_lag_seconds",
        "Seconds since the oldest notification not yet applied to the view was first seen.",
        labels=("projection",),
    )
    head = 0
    for lag in lags:
        position.add_metric((lag.name,), lag.position)
        events.add_metric((lag.name,), lag.events)
        seconds.add_metric((lag.name,), lag.seconds)
        head = max(head, lag.head)
    yield from (position, events, seconds)
    yield GaugeMetricFamily(
        "feltline_projector_head", "The last notification stored in the log.", value=head
    )


def last_hands(tables: Iterable[tuple[str, float]]) -> Iterator[Metric]:
    """When each table with players ready last dealt, as (table id, Unix time)."""
    family = GaugeMetricFamily(
        "feltline_table_last_hand_timestamp_seconds",
        "For each table this process serves with two players or more ready to be dealt "
        "in: Unix time its last hand was dealt (or it was first served, if later).",
        labels=("table_id",),
    )
    for table_id, at in tables:
        family.add_metric((table_id,), at)
    yield family


class _Scraped(Collector):
    """The readings attached now, each called at every scrape."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sources: list[Callable[[], Iterable[Metric]]] = []

    def attach(self, source: Callable[[], Iterable[Metric]]) -> Callable[[], None]:
        with self._lock:
            self._sources.append(source)

        def detach() -> None:
            with self._lock:
                if source in self._sources:
                    self._sources.remove(source)

        return detach

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            sources = list(self._sources)
        for source in sources:
            yield from source()


_SCRAPED = _Scraped()
REGISTRY.register(_SCRAPED)


def read_at_scrape(source: Callable[[], Iterable[Metric]]) -> Callable[[], None]:
    """Add what ``source`` yields to every scrape; the function that stops it."""
    return _SCRAPED.attach(source)


def serve(port: int, host: str = "127.0.0.1") -> int:
    """Serve every metric at ``http://host:port/metrics`` from a thread; the
    port (``port`` 0 picks a free one). Raises OSError if it cannot listen."""
    # A _created series beside each counter's doubles a scrape for nothing here.
    prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]
    server, _ = prometheus_client.start_http_server(port, addr=host)
    return int(server.server_port)
