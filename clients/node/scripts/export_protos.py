"""Write the .proto files the contract imports but does not hold, for
proto-loader's includeDirs: ``buf/validate/validate.proto`` and the
well-known types it needs.

    python clients/node/scripts/export_protos.py OUT_DIR

validate.proto's home is the Buf Schema Registry, out of reach here, and
vendoring it would let it drift. The locked ``protovalidate`` Python package
embeds its descriptor (protos/generate.py builds from the same), so this
prints that descriptor back as proto2 source: messages, fields, oneofs,
enums, extension ranges and the extensions on google.protobuf's options.
Its own options (the rules' CEL) are left out: a client only needs the
shapes, to parse the contract's annotations.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import grpc_tools  # type: ignore[import-untyped]
from google.protobuf import descriptor_pb2
from protovalidate._gen.buf.validate import validate_pb

F = descriptor_pb2.FieldDescriptorProto
SCALARS = {
    F.TYPE_DOUBLE: "double",
    F.TYPE_FLOAT: "float",
    F.TYPE_INT64: "int64",
    F.TYPE_UINT64: "uint64",
    F.TYPE_INT32: "int32",
    F.TYPE_FIXED64: "fixed64",
    F.TYPE_FIXED32: "fixed32",
    F.TYPE_BOOL: "bool",
    F.TYPE_STRING: "string",
    F.TYPE_BYTES: "bytes",
    F.TYPE_UINT32: "uint32",
    F.TYPE_SFIXED32: "sfixed32",
    F.TYPE_SFIXED64: "sfixed64",
    F.TYPE_SINT32: "sint32",
    F.TYPE_SINT64: "sint64",
}
LABELS = {F.LABEL_OPTIONAL: "optional", F.LABEL_REQUIRED: "required", F.LABEL_REPEATED: "repeated"}
MAX_FIELD = 536870912  # one past the largest field number: "max"


def field(f: descriptor_pb2.FieldDescriptorProto, *, label: bool = True) -> str:
    kind = SCALARS.get(f.type) or f.type_name
    if f.type not in SCALARS and f.type not in (F.TYPE_MESSAGE, F.TYPE_ENUM):
        raise SystemExit(f"cannot print field {f.name} of type {f.type}")
    return f"{LABELS[f.label] + ' ' if label else ''}{kind} {f.name} = {f.number};"


def enum(e: descriptor_pb2.EnumDescriptorProto, indent: str) -> list[str]:
    return [
        f"{indent}enum {e.name} {{",
        *(f"{indent}  {v.name} = {v.number};" for v in e.value),
        f"{indent}}}",
    ]


def message(m: descriptor_pb2.DescriptorProto, indent: str = "") -> list[str]:
    inner = indent + "  "
    lines = [f"{indent}message {m.name} {{"]
    for nested in m.nested_type:
        lines += message(nested, inner)
    for e in m.enum_type:
        lines += enum(e, inner)
    for f in m.field:
        if not f.HasField("oneof_index"):
            lines.append(inner + field(f))
    for index, oneof in enumerate(m.oneof_decl):
        members = [f for f in m.field if f.HasField("oneof_index") and f.oneof_index == index]
        lines.append(f"{inner}oneof {oneof.name} {{")
        lines += [f"{inner}  {field(f, label=False)}" for f in members]
        lines.append(f"{inner}}}")
    for r in m.extension_range:
        end = "max" if r.end >= MAX_FIELD else str(r.end - 1)
        lines.append(f"{inner}extensions {r.start} to {end};")
    lines.append(f"{indent}}}")
    return lines


def validate_source() -> tuple[str, list[str]]:
    proto = descriptor_pb2.FileDescriptorProto.FromString(validate_pb._DESC.proto.to_binary())
    if proto.syntax not in ("", "proto2"):
        raise SystemExit(f"validate.proto is {proto.syntax}; expected proto2")
    lines = ['syntax = "proto2";', f"package {proto.package};"]
    lines += [f'import "{d}";' for d in proto.dependency]
    for m in proto.message_type:
        lines += message(m)
    for e in proto.enum_type:
        lines += enum(e, "")
    for x in proto.extension:
        lines += [f"extend {x.extendee.lstrip('.')} {{", f"  {field(x)}", "}"]
    return "\n".join(lines) + "\n", list(proto.dependency)


def main() -> None:
    out = Path(sys.argv[1])
    source, deps = validate_source()
    target = out / "buf" / "validate" / "validate.proto"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source)
    known = Path(grpc_tools.__file__).parent / "_proto"
    for dep in {*deps, "google/protobuf/timestamp.proto", "google/protobuf/duration.proto"}:
        (out / dep).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(known / dep, out / dep)


if __name__ == "__main__":
    main()
