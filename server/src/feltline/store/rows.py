"""The store's rows as ``feltline-replay`` reads them, through this server's
own recorder: so the Replay service exports and verifies exactly the log
``feltline-replay export --store`` writes, from any store the server can
open, one encrypted at rest (``CIPHER_TOPIC``) included.

A row's state is what the mapper wrote, decrypted and decompressed as the
mapper would before decoding it: the record's fields as JSON bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from uuid import UUID

from eventsourcing.persistence import Mapper

from feltline.store.streams import PAGE, Streams


class StoredRows:
    """The rows of ``streams``' store (:class:`feltline_replay.store.Rows`);
    ``tables`` lists its tables in the order they were opened."""

    def __init__(self, streams: Streams, tables: Callable[[], list[UUID]], source: str) -> None:
        self._recorder = streams.recorder
        self._mapper: Mapper[UUID] = streams.mapper
        self._tables = tables
        self.source = source

    def tables(self) -> list[UUID]:
        return self._tables()

    def stream(self, stream: UUID) -> Iterator[tuple[int, str, bytes]]:
        after: int | None = None
        while page := self._recorder.select_events(stream, gt=after, limit=PAGE):
            for row in page:
                yield row.originator_version, row.topic, self._plain(row.state)
            after = page[-1].originator_version

    def _plain(self, state: bytes) -> bytes:
        if self._mapper.cipher is not None:
            state = self._mapper.cipher.decrypt(state)
        if self._mapper.compressor is not None:
            state = self._mapper.compressor.decompress(state)
        return state

    def close(self) -> None:
        """The recorder is the server's, and stays open."""
