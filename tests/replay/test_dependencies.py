"""The auditor installs feltline-replay without the server's dependencies:
the rules it re-runs and the chain it checks come from feltline-core."""

from importlib import metadata

from packaging.requirements import Requirement

SERVER_ONLY = {"eventsourcing", "grpcio", "psycopg", "psycopg-binary", "structlog", "pyrsistent"}


def _requires(dist: str, extra: str = "") -> set[str]:
    """What a distribution needs installed here, with ``extra``, by name."""
    names = set()
    for text in metadata.requires(dist) or ():
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate({"extra": extra}):
            names.add(requirement.name.lower().replace("_", "-"))
    return names


def _closure(dist: str) -> set[str]:
    seen: set[str] = set()
    todo = [dist]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(_requires(name))
    return seen - {dist}


def test_the_replayer_declares_only_the_core_and_orjson() -> None:
    assert _requires("feltline-replay") == {"feltline-core", "orjson"}


def test_the_core_needs_only_cryptography() -> None:
    assert _requires("feltline-core") == {"cryptography"}


def test_nothing_only_the_server_needs_comes_with_the_replayer() -> None:
    replay = _closure("feltline-replay")
    assert "feltline" not in replay
    assert not replay & SERVER_ONLY
    assert SERVER_ONLY - {"psycopg-binary"} <= _closure("feltline")


def test_postgres_is_an_extra() -> None:
    assert "psycopg" in _requires("feltline-replay", "postgres")


def test_the_console_script_is_feltline_replay() -> None:
    scripts = metadata.distribution("feltline-replay").entry_points.select(group="console_scripts")
    assert [(s.name, s.value) for s in scripts] == [("feltline-replay", "feltline_replay.cli:main")]


def test_exporting_through_a_server_is_an_extra() -> None:
    """``export --server`` needs the SDK (and so gRPC), but only with ``[server]``."""
    assert "feltline-client" in _requires("feltline-replay", "server")
    assert "feltline-client" not in _requires("feltline-replay")
