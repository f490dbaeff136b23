"""Loopback ports free now, for the processes a test or a bench starts."""

from __future__ import annotations

import socket


def free_ports(count: int = 1) -> int:
    """The first of ``count`` consecutive loopback ports free now (a
    cluster's processes take ports one after another)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = int(probe.getsockname()[1])
        held: list[socket.socket] = []
        try:
            for port in range(first, first + count):
                held.append(socket.socket())
                held[-1].bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
