"""Fixtures for every layer's tests."""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator

import pytest


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")


@pytest.fixture
def no_error_logs() -> Iterator[list[str]]:
    """Fail the test on any error-level log line while it runs: a run that
    goes as it should logs none, and one that does shows it to every user.
    Some lines (an abandoned task's exception) are only written when garbage
    is collected, so that is done before looking."""
    errors = _Errors()
    root = logging.getLogger()
    root.addHandler(errors)
    try:
        yield errors.lines
        gc.collect()
    finally:
        root.removeHandler(errors)
    assert errors.lines == [], "\n".join(errors.lines)
