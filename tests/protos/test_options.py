"""Every file of the contract names where each language's generated code
lives, the same for all: a generator needs no mapping of its own (protoc-gen-go
stops without go_package), and buf breaking leaves these options to this pin
(protos/buf.yaml), so changing one is deliberate."""

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p.stem for p in (ROOT / "protos" / "feltline" / "v1").glob("*.proto"))
OPTIONS = {
    "csharp_namespace": "Feltline.V1",
    "go_package": "feltline/v1;feltlinev1",
    "java_multiple_files": True,
    "java_package": "com.feltline.v1",
}


@pytest.mark.parametrize("name", FILES)
def test_each_file_names_its_generated_codes_home(name: str) -> None:
    module = importlib.import_module(f"feltline_protos.v1.{name}_pb2")
    options = module.DESCRIPTOR.GetOptions()
    assert {key: getattr(options, key) for key in OPTIONS} == OPTIONS


def test_the_go_client_is_built_the_way_the_docs_say() -> None:
    """docs/api.md's Go command is the one CI runs (protos/go/build.sh)."""
    docs = (ROOT / "docs" / "api.md").read_text()
    script = (ROOT / "protos" / "go" / "build.sh").read_text()
    for part in (
        "--go_opt=module=feltline",
        "Mbuf/validate/validate.proto=feltline/buf/validate",
        "GO111MODULE=off",
        "/usr/share/gocode",
    ):
        assert part in docs, part
        assert part in script, part
