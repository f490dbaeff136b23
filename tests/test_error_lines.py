"""The no-error-logs check sees an error line however it was logged: through
the standard library, or by structlog whether or not anything configured it
to pass its lines on (the end-to-end tests run a server in the test's own
process, where nothing may have)."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
import structlog

from feltline.api.logging import configure
from tests.conftest import error_lines


@pytest.fixture(autouse=True)
def logging_as_it_was() -> Iterator[None]:
    """Leave structlog and the root logger as the test found them."""
    saved = structlog.get_config()
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    structlog.configure(**saved)
    root.handlers[:] = handlers
    root.setLevel(level)


def test_an_error_through_the_standard_library_is_seen() -> None:
    with error_lines() as lines:
        logging.getLogger("asyncio").error("Task exception was never retrieved")
    assert lines == ["asyncio: Task exception was never retrieved"]


def test_a_structlog_error_is_seen_though_structlog_was_never_configured() -> None:
    structlog.reset_defaults()  # as in a run where no test configured it yet
    with error_lines() as lines:
        structlog.get_logger("feltline.api").error("internal_error", method="/x")
        structlog.get_logger("feltline.api").info("act", table_id="t")
    assert len(lines) == 1
    assert "internal_error" in lines[0]


def test_a_structlog_error_through_the_standard_library_is_seen_once() -> None:
    configure(stream=io.StringIO())
    with error_lines() as lines:
        structlog.stdlib.get_logger("feltline.api").error("internal_error")
        structlog.stdlib.get_logger("feltline.api").warning("clock_refused")
    assert len(lines) == 1
    assert "internal_error" in lines[0]
