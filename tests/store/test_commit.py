"""Group commit without a database: batching, and errors only for the
callers at fault."""

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from feltline.store.commit import GroupCommit


class Disk:
    """A store that takes a while to commit and refuses records named 'bad'."""

    def __init__(self) -> None:
        self.transactions: list[list[str]] = []
        self.lock = threading.Lock()

    def save(self, records: Sequence[str]) -> None:
        time.sleep(0.01)
        if "bad" in records:
            raise ValueError("conflict")
        with self.lock:
            self.transactions.append(list(records))


def test_concurrent_saves_share_transactions_and_each_returns_after_its_own() -> None:
    disk = Disk()
    commit = GroupCommit(disk.save)

    def save(n: int) -> int:
        commit([f"{n}a", f"{n}b"])
        stored = [r for t in disk.transactions for r in t]
        assert {f"{n}a", f"{n}b"} <= set(stored)
        return n

    with ThreadPoolExecutor(16) as pool:
        assert sorted(pool.map(save, range(64))) == list(range(64))
    assert sum(len(t) for t in disk.transactions) == 128
    assert len(disk.transactions) < 64
    assert (commit.transactions, commit.requests) == (len(disk.transactions), 64)
    for transaction in disk.transactions:  # a caller's records are never split
        callers = {r[:-1] for r in transaction}
        assert sorted(transaction) == sorted(f"{c}{x}" for c in callers for x in "ab")


def test_a_failing_caller_fails_alone() -> None:
    disk = Disk()
    commit = GroupCommit(disk.save)
    barrier = threading.Barrier(8)

    def save(n: int) -> str:
        barrier.wait()
        try:
            commit(["bad"] if n == 3 else [str(n)])
        except ValueError:
            return "failed"
        return "stored"

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(save, range(8)))
    assert outcomes == ["stored"] * 3 + ["failed"] + ["stored"] * 4
    assert sorted(r for t in disk.transactions for r in t) == [str(n) for n in range(8) if n != 3]


def test_a_lone_caller_gets_its_error() -> None:
    commit = GroupCommit(Disk().save)
    with pytest.raises(ValueError, match="conflict"):
        commit(["bad"])
