"""Build a Python client from protos/ alone, as an integrator would: the
documented protoc command (docs/api.md, "Generating a client"), then a stub
on a channel and a request message for every rpc of every service.

    python -I protos/plain_protoc.py [OUT_DIR]

It needs nothing but ``grpcio-tools`` (with the grpcio and protobuf it pulls
in): CI runs it in a fresh virtual environment holding only that, from PyPI.
The generated code goes to OUT_DIR (default: a temporary directory).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import tempfile
from concurrent import futures
from pathlib import Path

import grpc

PROTOS = Path(__file__).resolve().parent
VALIDATE = "buf/validate/validate.proto"


def generate(out: Path) -> list[str]:
    """Run the documented command from protos/; the contract's files, by name."""
    files = sorted(p.relative_to(PROTOS).as_posix() for p in PROTOS.glob("feltline/v1/*.proto"))
    command = [
        *(sys.executable, "-m", "grpc_tools.protoc", "-I", ".", "-I", "vendor"),
        *(f"--python_out={out}", f"--grpc_python_out={out}", *files, VALIDATE),
    ]
    result = subprocess.run(command, cwd=PROTOS, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"protoc failed:\n{result.stderr}")
    # Packages of their own, so that nothing else named feltline or buf wins.
    for directory in (out / "feltline", out / "feltline/v1", out / "buf", out / "buf/validate"):
        (directory / "__init__.py").touch()
    return files


def use(out: Path, files: list[str]) -> tuple[int, int]:
    """Import every module; build each service's stub and servicer and each
    rpc's request. Returns how many services and rpcs there were."""
    sys.path.insert(0, str(out))
    validate = importlib.import_module("buf.validate.validate_pb2")
    services = rpcs = ruled = 0
    channel = grpc.insecure_channel("localhost:1")  # never dialled: no call is made
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    for file in files:
        name = file.removesuffix(".proto").replace("/", ".")
        messages = importlib.import_module(f"{name}_pb2")
        for message in messages.DESCRIPTOR.message_types_by_name.values():
            for field in message.fields:
                ruled += field.GetOptions().HasExtension(validate.field)
        if not messages.DESCRIPTOR.services_by_name:
            continue
        grpc_module = importlib.import_module(f"{name}_pb2_grpc")
        for service in messages.DESCRIPTOR.services_by_name.values():
            stub = getattr(grpc_module, f"{service.name}Stub")(channel)
            servicer = getattr(grpc_module, f"{service.name}Servicer")()
            getattr(grpc_module, f"add_{service.name}Servicer_to_server")(servicer, server)
            for method in service.methods:
                if not callable(getattr(stub, method.name)):
                    raise SystemExit(f"{service.full_name} has no callable {method.name}")
                request = getattr(messages, method.input_type.name, None)
                if request is None:  # declared in an imported file
                    module = f"{method.input_type.file.name.removesuffix('.proto')}_pb2"
                    request = getattr(
                        importlib.import_module(module.replace("/", ".")), method.input_type.name
                    )
                request().SerializeToString()
                rpcs += 1
            services += 1
    channel.close()
    if not ruled:
        raise SystemExit("no field carries its buf.validate rules in the generated code")
    return services, rpcs


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        files = generate(out)
        services, rpcs = use(out, files)
    print(f"plain protoc: {len(files)} files, {services} services, {rpcs} rpcs: stubs built")
    return 0


if __name__ == "__main__":
    sys.exit(main())
