"""FELTLINE_REQUIRE_POSTGRES reads as a flag: any usual spelling of "yes"
makes PostgreSQL's absence a failure, anything else lets its tests skip."""

from __future__ import annotations

import pytest

from tests.postgres import required


@pytest.mark.parametrize("value", ["1", "true", "True", "yes", "YES", "on", " on "])
def test_any_true_value_requires_postgres(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FELTLINE_REQUIRE_POSTGRES", value)
    assert required()


@pytest.mark.parametrize("value", ["", "0", "false", "no", "off", "maybe"])
def test_anything_else_lets_its_tests_skip(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FELTLINE_REQUIRE_POSTGRES", value)
    assert not required()


def test_unset_lets_its_tests_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FELTLINE_REQUIRE_POSTGRES", raising=False)
    assert not required()
