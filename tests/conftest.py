"""Fixtures for every layer's tests."""

from __future__ import annotations

import gc
import logging
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from hypothesis import settings
from structlog.testing import capture_logs

from tests.postgres import PG, required


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")


# Under mutation testing each example is traced and the machine shared: a
# slow example is no failure there (tests/mutation/run selects this profile).
settings.register_profile("mutation", deadline=None)


@pytest.fixture(autouse=True)
def _codec_worked_out_afresh_per_mutant() -> None:
    """The codec works out each type's encoder and decoder once and keeps
    it. A mutation run forks each mutant from a process that has them
    already, so a mutant of how they are worked out would never run."""
    if os.environ.get("MUTANT_UNDER_TEST"):
        from feltline.audit import codec

        for kept in (codec._ENCODERS, codec._DECODERS, codec._CARDS):
            kept.clear()
        codec._names.cache_clear()
        codec._hints.cache_clear()


ERROR_LEVELS = frozenset({"error", "critical"})


@contextmanager
def error_lines() -> Iterator[list[str]]:
    """Every error-level line logged while it is open, filled in when it
    closes. Lines come two ways: through the standard library's logging
    (grpc, asyncio, and structlog once ``feltline.api.logging.configure``
    routes it there) and straight from structlog, which until it is
    configured prints its lines itself, where no logging handler sees them:
    a server's ``internal_error`` in a test that nothing configured would
    otherwise pass unseen. Some lines (an abandoned task's exception) are
    only written when garbage is collected, so that is done before closing."""
    errors = _Errors()
    root = logging.getLogger()
    root.addHandler(errors)
    try:
        with capture_logs() as logged:
            yield errors.lines
            gc.collect()
    finally:
        root.removeHandler(errors)
    errors.lines += [
        f"{e.get('logger', 'structlog')}: {e.get('event')} {e}"
        for e in logged
        if e.get("log_level") in ERROR_LEVELS
    ]


@pytest.fixture
def no_error_logs() -> Iterator[list[str]]:
    """Fail the test on any error-level log line while it runs: a run that
    goes as it should logs none, and one that does shows it to every user."""
    with error_lines() as lines:
        yield lines
    assert lines == [], "\n".join(lines)


@pytest.fixture(scope="session")
def postgres() -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """The PostgreSQL server. Without it its tests skip, unless
    FELTLINE_REQUIRE_POSTGRES is true (1, true, yes, on: as in CI), where
    its absence is a failure."""
    try:
        conn = psycopg.connect(**PG, connect_timeout=3, autocommit=True)
    except psycopg.OperationalError as e:
        reason = f"PostgreSQL is not reachable at {PG['host']}:{PG['port']}: {e}"
        if required():
            pytest.fail(f"FELTLINE_REQUIRE_POSTGRES is set but {reason}")
        pytest.skip(reason)
    with conn:
        yield conn


@pytest.fixture
def postgres_schema(postgres: psycopg.Connection[tuple[object, ...]]) -> Iterator[str]:
    """A fresh schema per test, so a test that reads the whole log sees only its own."""
    schema = f"feltline_test_{uuid.uuid4().hex[:12]}"
    postgres.execute(f"CREATE SCHEMA {schema}")
    yield schema
    postgres.execute(f"DROP SCHEMA {schema} CASCADE")
