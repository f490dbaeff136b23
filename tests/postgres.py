"""The PostgreSQL server the store and API tests and the benchmarks use,
named by the library's own variables (default: CI's, 127.0.0.1:5432, user
postgres, database test), the store settings for one schema of it, and
whether its absence fails a test or skips it; and a proxy to it that a
test cuts, as a restart or a failover of the database would."""

from __future__ import annotations

import contextlib
import os
import socket
import threading

PG = {
    "host": os.environ.get("POSTGRES_HOST", "127.0.0.1"),
    "port": os.environ.get("POSTGRES_PORT", "5432"),
    "user": os.environ.get("POSTGRES_USER", "postgres"),
    "password": os.environ.get("POSTGRES_PASSWORD", ""),
    "dbname": os.environ.get("POSTGRES_DBNAME", "test"),
}


# The spellings of "yes" that an operator or a CI file may give a flag.
TRUE = frozenset({"1", "true", "yes", "on"})


def required() -> bool:
    """Whether FELTLINE_REQUIRE_POSTGRES says that an unreachable server
    fails its tests (as in CI) rather than skipping them."""
    return os.environ.get("FELTLINE_REQUIRE_POSTGRES", "").strip().lower() in TRUE


def store_env(schema: str, **more: str) -> dict[str, str]:
    """The eventsourcing settings for a store in ``schema`` of that server."""
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": PG["dbname"],
        "POSTGRES_HOST": PG["host"],
        "POSTGRES_PORT": PG["port"],
        "POSTGRES_USER": PG["user"],
        "POSTGRES_PASSWORD": PG["password"],
        "POSTGRES_SCHEMA": schema,
        **more,
    }


class Outage:
    """A TCP proxy to PostgreSQL that can be cut: every connection through
    it dropped and new ones refused, until mended."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.down = threading.Event()
        self._open: set[socket.socket] = set()
        self._guard = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.down.is_set():
                client.close()  # refused, as a database that is not there
                continue
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self._guard:
                self._open.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with self._guard:
                    self._open.discard(s)
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def cut(self) -> None:
        self.down.set()
        with self._guard:
            dropping, self._open = list(self._open), set()
        for s in dropping:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def mend(self) -> None:
        self.down.clear()

    def close(self) -> None:
        self.cut()
        self.listener.close()
