"""A thin client installs without the server's dependencies."""

from importlib import metadata

from packaging.requirements import Requirement

ALLOWED = {"grpcio", "protobuf", "feltline-protos"}


def _requires(dist: str) -> set[str]:
    """What a distribution needs installed here, without extras, by name."""
    names = set()
    for text in metadata.requires(dist) or ():
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
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


def test_the_client_declares_only_grpc_protobuf_and_the_contract() -> None:
    assert _requires("feltline-client") == ALLOWED


def test_nothing_the_server_needs_comes_with_the_client() -> None:
    server = _closure("feltline") - _closure("feltline-protos")
    assert "eventsourcing" in server
    assert not _closure("feltline-client") & (server | {"feltline"})
