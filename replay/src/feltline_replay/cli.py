"""The ``feltline-replay`` command."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("feltline-replay", argv or sys.argv[1:])
    return 0
