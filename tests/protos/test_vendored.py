"""protos/ is all protoc needs: the vendored validate.proto is exactly the
locked protovalidate's, and the contract compiles and serves stubs from the
shipped files alone."""

import importlib
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import grpc_tools  # type: ignore[import-untyped]
from google.protobuf import descriptor_pb2
from protovalidate._gen.buf.validate import validate_pb

ROOT = Path(__file__).resolve().parents[2]
PROTOS = ROOT / "protos"
VENDORED = PROTOS / "vendor" / "buf" / "validate" / "validate.proto"


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)


def test_the_vendored_file_is_what_the_locked_package_renders() -> None:
    result = _run(sys.executable, str(PROTOS / "vendor.py"), "--check")
    assert result.returncode == 0, result.stderr


def test_protoc_compiles_the_vendored_file_to_the_locked_descriptor(tmp_path: Path) -> None:
    """Not only the same text as last time: the same rules, CEL and options
    as the descriptor protovalidate validates with."""
    out = tmp_path / "validate.binpb"
    wkt = Path(grpc_tools.__file__).parent / "_proto"
    result = _run(
        *(sys.executable, "-m", "grpc_tools.protoc", f"-I{VENDORED.parents[2]}", f"-I{wkt}"),
        *(f"--descriptor_set_out={out}", "buf/validate/validate.proto"),
    )
    assert result.returncode == 0, result.stderr
    (compiled,) = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    locked = descriptor_pb2.FileDescriptorProto.FromString(validate_pb._DESC.proto.to_binary())
    assert compiled == locked


def test_a_python_client_builds_from_protos_alone(tmp_path: Path) -> None:
    """The documented protoc command, in isolated mode (.ci/run does the same
    in a fresh venv holding only grpcio-tools)."""
    result = _run(sys.executable, "-I", str(PROTOS / "plain_protoc.py"), str(tmp_path))
    assert result.returncode == 0, result.stderr
    modules = [  # every file of the contract, as the checked-in code compiled it
        importlib.import_module(f"feltline_protos.v1.{proto.stem}_pb2")
        for proto in sorted((PROTOS / "feltline" / "v1").glob("*.proto"))
    ]
    services = [
        service for module in modules for service in module.DESCRIPTOR.services_by_name.values()
    ]
    rpcs = sum(len(service.methods) for service in services)
    assert f"{len(services)} services, {rpcs} rpcs" in result.stdout
    assert (tmp_path / "buf" / "validate" / "validate_pb2.py").is_file()


def test_every_file_buf_yaml_names_exists() -> None:
    """Its comments once sent readers to a protos/contract.py that never was."""
    text = (PROTOS / "buf.yaml").read_text()
    named = set(re.findall(r"\bprotos/[\w./-]*\w", text))
    assert named
    for path in named:
        assert (ROOT / path).exists(), path


def test_the_docs_name_the_protovalidate_it_was_rendered_from() -> None:
    docs = (ROOT / "docs" / "api.md").read_text()
    assert f"protovalidate {version('protovalidate')} (PyPI)" in docs
    assert f"protovalidate {version('protovalidate')} (PyPI" in VENDORED.read_text()
