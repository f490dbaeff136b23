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


def test_nothing_only_the_server_needs_comes_with_the_client() -> None:
    """The server shares grpcio and the contract with the client; its store,
    keys, logging and validation stay its own."""
    client = _closure("feltline-client")
    assert "feltline" not in client
    server_only = _closure("feltline") - client
    assert {"eventsourcing", "cryptography", "structlog", "protovalidate"} <= server_only
