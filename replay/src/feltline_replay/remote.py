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
from contextlib import contextmanager
from typing import IO, Any

from feltline_replay.export import Selection
from feltline_replay.store import StoreError
from feltline_replay.transparency import Receipt

SEAL = '{"kind":"seal"'  # how a hand's last line begins (docs/replay.md)


Tls = tuple[str | None, str | None, str | None] | None
"""(CA, client certificate, key) PEM files, any of them None; or None for plain text."""


@contextmanager
def connected(target: str, token: str, tls: Tls) -> Iterator[Any]:
    """An SDK client of the server at ``target``; :class:`StoreError` if
    the SDK is not installed, or for a refusal while it is used."""
    try:
        from feltline_client import Client, FeltlineError  # noqa: PLC0415 (an optional extra)
        from feltline_client.client import Tls as ClientTls  # noqa: PLC0415
    except ImportError:
        raise StoreError(
            "talking to a server needs the SDK: pip install 'feltline-replay[server]'"
        ) from None
    secure = None if tls is None else ClientTls.from_files(*tls)
    with Client(target, token, tls=secure, retries=0) as client:
        try:
            yield client
        except FeltlineError as e:
            raise StoreError(f"the server refused: {e}") from None


def checkpoint(target: str, token: str, tls: Tls = None) -> str:
    """The server's newest signed checkpoint (a C2SP signed note)."""
    with connected(target, token, tls) as client:
        return str(client.get_checkpoint().note)


def consistency(target: str, token: str, first: int, second: int, tls: Tls = None) -> list[bytes]:
    """The server's proof that its tree of ``second`` leaves extends its tree of ``first``."""
    with connected(target, token, tls) as client:
        return list(client.consistency_proof(first, second).hashes)


def receipt(target: str, token: str, hand: str, tls: Tls = None) -> Receipt | None:
    """The hand's receipt as the server gives it with the hand (``GetHand``,
    as the token may see it); None for a hand not logged."""
    with connected(target, token, tls) as client:
        proof = client.get_hand(hand).inclusion
    if not proof.HasField("checkpoint"):
        return None
    return Receipt(
        proof.leaf, proof.leaf_index, proof.tree_size, tuple(proof.hashes), proof.checkpoint.note
    )


def hand_back(target: str, token: str, note: str, witness_key: str, tls: Tls = None) -> int:
    """Give the server a witness's cosigned checkpoint; how many
    cosignatures the checkpoint now carries."""
    with connected(target, token, tls) as client:
        return (
            len(client.add_cosignature(note, witness_key).note.split("\n\n", 1)[1].splitlines()) - 1
        )


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
