"""Vendor ``buf/validate/validate.proto``, the one file the contract imports
that is neither its own nor a well-known type, into ``protos/vendor/``.

    uv run python protos/vendor.py            # write protos/vendor/buf/validate/validate.proto
    uv run python protos/vendor.py --check    # fail if it differs from the locked protovalidate

Its home is the Buf Schema Registry (``buf export buf.build/bufbuild/protovalidate``),
which this project's machines cannot reach. The locked ``protovalidate``
package (uv.lock) embeds the file's descriptor, rules and CEL included but
comments not, so the .proto is rendered back from that descriptor. The
rendering is checked twice: it must be byte for byte what this script makes
from the locked package, and protoc must compile it to that very descriptor
(``tests/protos/test_vendored.py``). To move to a newer protovalidate, bump
it in uv.lock and run this script.
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib.metadata import version
from pathlib import Path

from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    duration_pb2,
    field_mask_pb2,
    message_factory,
    text_encoding,
    text_format,
    timestamp_pb2,
)
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from protovalidate._gen.buf.validate import validate_pb

HERE = Path(__file__).resolve().parent
VENDOR = HERE / "vendor"
VALIDATE = "buf/validate/validate.proto"
TARGET = VENDOR / VALIDATE

D = descriptor_pb2
F = D.FieldDescriptorProto
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
# What validate.proto imports, all well-known types.
WELL_KNOWN = (descriptor_pb2, duration_pb2, field_mask_pb2, timestamp_pb2)
MAX_FIELD = 536870912  # one past the largest field number, "max" in .proto


def embedded() -> D.FileDescriptorProto:
    """validate.proto's descriptor as the locked protovalidate embeds it."""
    proto = D.FileDescriptorProto.FromString(validate_pb._DESC.proto.to_binary())
    if proto.name != VALIDATE:
        raise SystemExit(f"protovalidate embeds {proto.name!r}, expected {VALIDATE!r}")
    return proto


class _Printer:
    """Renders one proto2 FileDescriptorProto as .proto source. Options are
    read through a pool holding the file itself, so that its own extensions
    (``(buf.validate.predefined)`` on its fields) print as options."""

    def __init__(self, proto: D.FileDescriptorProto) -> None:
        if proto.syntax not in ("", "proto2") or proto.service or proto.public_dependency:
            raise SystemExit("only a proto2 file without services can be rendered")
        self.proto = proto
        self.pool = descriptor_pool.DescriptorPool()
        known = {m.DESCRIPTOR.name: m.DESCRIPTOR for m in WELL_KNOWN}
        for dep in proto.dependency:
            file = known[dep]
            fdp = D.FileDescriptorProto()
            file.CopyToProto(fdp)
            self.pool.Add(fdp)
        self.pool.Add(proto)
        self.lines: list[str] = []

    def options(self, options: Message, kind: str, indent: str) -> list[str]:
        """Each option set in ``options`` as ``name = value``."""
        cls = message_factory.GetMessageClass(
            self.pool.FindMessageTypeByName(f"google.protobuf.{kind}")
        )
        parsed = cls.FromString(options.SerializeToString())
        found = []
        for field, value in parsed.ListFields():
            name = f"({field.full_name})" if field.is_extension else field.name
            if field.is_repeated:
                found += [f"{name} = {self.value(field, v, indent)}" for v in value]
            else:
                found.append(f"{name} = {self.value(field, value, indent)}")
        return found

    @staticmethod
    def value(field: FieldDescriptor, value: object, indent: str) -> str:
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            assert isinstance(value, Message)
            text = text_format.MessageToString(value, indent=len(indent) + 2)
            return "{\n" + _unquote(text) + indent + "}"
        if field.type == FieldDescriptor.TYPE_ENUM:
            assert isinstance(value, int)
            assert field.enum_type is not None
            return field.enum_type.values_by_number[value].name
        if field.type == FieldDescriptor.TYPE_STRING:
            assert isinstance(value, str)
            return '"' + _unquote(text_encoding.CEscape(value.encode(), as_utf8=False)) + '"'
        if field.type == FieldDescriptor.TYPE_BOOL:
            return "true" if value else "false"
        return str(value)

    def field(self, f: D.FieldDescriptorProto, indent: str, *, label: bool = True) -> None:
        kind = SCALARS.get(f.type) or f.type_name
        if f.type not in SCALARS and f.type not in (F.TYPE_MESSAGE, F.TYPE_ENUM):
            raise SystemExit(f"cannot render field {f.name} of type {f.type}")
        if f.HasField("default_value") or f.proto3_optional:
            raise SystemExit(f"cannot render field {f.name}'s default or proto3 optional")
        options = self.options(f.options, "FieldOptions", indent + "  ")
        if f.HasField("json_name") and f.json_name != _json_name(f.name):
            options.insert(0, f'json_name = "{f.json_name}"')
        head = f"{indent}{LABELS[f.label] + ' ' if label else ''}{kind} {f.name} = {f.number}"
        if not options:
            self.lines.append(head + ";")
            return
        self.lines.append(head + " [")
        self.lines += [f"{indent}  {o}," for o in options[:-1]]
        self.lines += [f"{indent}  {options[-1]}", f"{indent}];"]

    def enum(self, e: D.EnumDescriptorProto, indent: str) -> None:
        if e.options.ByteSize() or any(v.options.ByteSize() for v in e.value):
            raise SystemExit(f"cannot render enum {e.name}'s options")
        self.lines.append(f"{indent}enum {e.name} {{")
        inner = indent + "  "
        self.lines += [f"{inner}{v.name} = {v.number};" for v in e.value]
        for r in e.reserved_range:  # inclusive ends, unlike messages'
            self.lines.append(f"{inner}reserved {_range(r.start, r.end + 1)};")
        self.lines += [f'{inner}reserved "{n}";' for n in e.reserved_name]
        self.lines.append(f"{indent}}}")

    def message(self, m: D.DescriptorProto, indent: str = "") -> None:
        self.lines.append(f"{indent}message {m.name} {{")
        inner = indent + "  "
        self.lines += [
            f"{inner}option {o};" for o in self.options(m.options, "MessageOptions", inner)
        ]
        for nested in m.nested_type:
            self.message(nested, inner)
        for e in m.enum_type:
            self.enum(e, inner)
        oneof: int | None = None  # the oneof whose block is open
        for f in m.field:
            index = f.oneof_index if f.HasField("oneof_index") else None
            if index != oneof and oneof is not None:
                self.lines.append(f"{inner}}}")
            if index is not None and index != oneof:
                decl = m.oneof_decl[index]
                self.lines.append(f"{inner}oneof {decl.name} {{")
                opts = self.options(decl.options, "OneofOptions", inner + "  ")
                self.lines += [f"{inner}  option {o};" for o in opts]
            oneof = index
            if index is None:
                self.field(f, inner)
            else:
                self.field(f, inner + "  ", label=False)
        if oneof is not None:
            self.lines.append(f"{inner}}}")
        for r in m.extension_range:
            if r.options.ByteSize():
                raise SystemExit(f"cannot render {m.name}'s extension range options")
            self.lines.append(f"{inner}extensions {_range(r.start, r.end)};")
        for res in m.reserved_range:
            self.lines.append(f"{inner}reserved {_range(res.start, res.end)};")
        self.lines += [f'{inner}reserved "{n}";' for n in m.reserved_name]
        if m.extension:
            raise SystemExit(f"cannot render extensions nested in {m.name}")
        self.lines.append(f"{indent}}}")

    def render(self, header: list[str]) -> str:
        p = self.proto
        self.lines = [*header, 'syntax = "proto2";', "", f"package {p.package};", ""]
        self.lines += [f'import "{d}";' for d in p.dependency]
        self.lines.append("")
        self.lines += [f"option {o};" for o in self.options(p.options, "FileOptions", "")]
        for x in p.extension:
            self.lines += ["", f"extend {x.extendee.lstrip('.')} {{"]
            self.field(x, "  ")
            self.lines.append("}")
        for m in p.message_type:
            self.lines.append("")
            self.message(m)
        for e in p.enum_type:
            self.lines.append("")
            self.enum(e, "")
        return "\n".join(self.lines) + "\n"


def _unquote(escaped: str) -> str:
    """C-escaped text with its single quotes unescaped, as .proto needs
    inside double quotes: CEL expressions are full of them."""
    return re.sub(r"\\(.)", lambda m: "'" if m[1] == "'" else m[0], escaped)


def _range(start: int, end: int) -> str:
    """A descriptor's range, its end exclusive, as .proto writes it."""
    if end >= MAX_FIELD:
        return f"{start} to max"
    return str(start) if end == start + 1 else f"{start} to {end - 1}"


def _json_name(name: str) -> str:
    """protoc's default JSON name: lowerCamelCase at each underscore."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def render() -> str:
    """validate.proto as rendered from the locked protovalidate."""
    pinned = version("protovalidate")
    header = [
        f"// {VALIDATE}, rendered by protos/vendor.py from the descriptor that",
        f"// protovalidate {pinned} (PyPI, locked in uv.lock) embeds; do not edit.",
        "// The same file as buf.build/bufbuild/protovalidate's, without its comments.",
        "//",
        "// Copyright 2023-2026 Buf Technologies, Inc. Licensed under the Apache",
        "// License, Version 2.0: http://www.apache.org/licenses/LICENSE-2.0",
        "",
    ]
    return _Printer(embedded()).render(header)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the vendored file drifted")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not TARGET.is_file() or TARGET.read_text() != text:
            print(f"{TARGET.relative_to(HERE.parent)} drifted from the locked", file=sys.stderr)
            print("protovalidate; run: uv run python protos/vendor.py", file=sys.stderr)
            return 1
        return 0
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
