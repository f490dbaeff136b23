"""`ops/cluster --metrics-port` serves each process's Prometheus metrics
where ops/prometheus/prometheus.yml scrapes them: the projector's on the
port given, each server's on the ports after it, and says so at start."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from feltline.audit.keys import Signer
from tests.ports import free_ports
from tests.postgres import store_env

ROOT = Path(__file__).resolve().parents[2]


def _families(url: str) -> set[str]:
    """The metric families served at ``url``, once it listens (a process
    says it started before its metrics port may be open)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as reply:
                text = reply.read().decode()
            return {family.name for family in text_string_to_metric_families(text)}
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_each_process_serves_its_metrics_on_the_ports_prometheus_scrapes(
    postgres_schema: str, tmp_path: Path
) -> None:
    key = tmp_path / "feltline.key"
    Signer.create(key)
    env = {
        **os.environ,
        **store_env(postgres_schema, POSTGRES_POOL_SIZE="2", POSTGRES_MAX_OVERFLOW="2"),
        "FELTLINE_KEY_FILE": str(key),
    }
    first = free_ports(5)  # the projector's metrics, the servers', then their gRPC ports
    grpc_port = first + 3
    command = [sys.executable, str(ROOT / "ops" / "cluster"), "--processes", "2"]
    command += ["--port", str(grpc_port), "--metrics-port", str(first), "--schema", postgres_schema]
    cluster = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert cluster.stdout is not None
        said = []
        for line in cluster.stdout:
            said.append(line)
            if line.startswith("one target"):
                break
        metrics = dict(re.findall(r"^(server \d|projector): .*metrics (\S+)$", "".join(said), re.M))
        assert metrics == {
            "server 1": f"http://127.0.0.1:{first + 1}/metrics",
            "server 2": f"http://127.0.0.1:{first + 2}/metrics",
            "projector": f"http://127.0.0.1:{first}/metrics",
        }, said
        for server in ("server 1", "server 2"):
            assert {"feltline_leases_held", "grpc_server_started"} <= _families(metrics[server])
        assert "feltline_projector_lag_events" in _families(metrics["projector"])
    finally:
        cluster.send_signal(signal.SIGTERM)
        cluster.wait(timeout=60)
