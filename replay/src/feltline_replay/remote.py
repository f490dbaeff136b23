"""Exporting through a running server's Replay service (``ExportHands``),
for a store this tool cannot read itself (one encrypted at rest, or out of
reach) or an auditor given an auditor's token rather than the database.

The server writes the log with this package's own exporter over its rows,
so the lines that come back are those ``--store`` would write, its header
naming the server as the source and carrying the server's public key. The
SDK comes with the ``server`` extra: ``pip install 'feltline-replay[server]'``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from feltline_replay.export import Selection
from feltline_replay.store import StoreError

SEAL = '{"kind":"seal"'  # how a hand's last line begins (docs/replay.md)


def export_lines(
    target: str,
    token: str,
    selection: Selection,
    *,
    tls: tuple[str | None, str | None, str | None] | None = None,
) -> Iterator[str]:
    """The log's lines, header first, from the server at ``target``; ``tls``
    is (CA, client certificate, key) PEM files, any of them None, or None
    for a plain-text connection."""
    try:
        from feltline_client import Client, FeltlineError  # noqa: PLC0415 (an optional extra)
        from feltline_client.client import Tls  # noqa: PLC0415
    except ImportError:
        raise StoreError(
            "exporting from a server needs the SDK: pip install 'feltline-replay[server]'"
        ) from None
    secure = None if tls is None else Tls.from_files(*tls)
    with Client(target, token, tls=secure, retries=0) as client:
        try:
            yield from client.export_hands(
                table_ids=[str(t) for t in selection.tables],
                hand_ids=[str(h) for h in selection.hands],
                player_ids=list(selection.players),
                start_time=selection.since,
                end_time=selection.until,
                last=selection.last or 0,
            )
        except FeltlineError as e:
            raise StoreError(f"the server refused the export: {e}") from None


def write_lines(file: IO[str], lines: Iterator[str]) -> int:
    """Write each line as it comes; the number of hands written."""
    hands = 0
    for line in lines:
        file.write(line + "\n")
        hands += line.startswith(SEAL)
    return hands
