"""``feltline serve`` over TLS, end to end: a real server in a process of
its own, with certificates the test makes (``real_server.make_certs``),
requiring client certificates; the Python SDK, ``feltline-play`` and the
Node client connect to it, and whoever cannot prove who they are, or
cannot trust the server, is kept out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from feltline_client import Client, FeltlineError, Tls
from feltline_protos.v1 import common_pb2
from feltline_replay.cli import main as feltline_replay
from tests.cli.test_serve import refused, serve
from tests.client.real_server import make_certs, running

ROOT = Path(__file__).resolve().parents[2]
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
CONFIG = common_pb2.TableConfig(
    rules=common_pb2.Rules(
        game=common_pb2.GAME_HOLDEM,
        stakes=common_pb2.Stakes(
            structure=common_pb2.STRUCTURE_NO_LIMIT, small_bet=10, small_blind=5, big_blind=10
        ),
    ),
    seats=6,
)


@pytest.fixture(scope="module")
def served() -> Iterator[dict[str, Any]]:
    errors: list[str] = []
    with running(tls=True, errors=errors) as settings:
        yield settings
    assert errors == [], "\n".join(errors)


def _admin(settings: dict[str, Any], tls: Tls | None) -> Client:
    return Client(settings["target"], settings["admin"], tls=tls, timeout=5, retries=0)


def test_the_sdk_connects_with_the_servers_ca_and_a_client_certificate(
    served: dict[str, Any],
) -> None:
    files = served["tls"]
    with _admin(served, Tls.from_files(files["ca"], files["cert"], files["key"])) as admin:
        table = admin.create_table(CONFIG, "over TLS")
        assert admin.get_table(table.table_id).display_name == "over TLS"


def test_without_a_client_certificate_or_trust_or_tls_nobody_gets_in(
    served: dict[str, Any], tmp_path: Path
) -> None:
    files = served["tls"]
    other = make_certs(tmp_path)  # another authority, and a client certificate of its
    for tls in [
        Tls.from_files(files["ca"]),  # no client certificate
        Tls.from_files(files["ca"], other["cert"], other["key"]),  # one the server never signed
        Tls.from_files(other["ca"], files["cert"], files["key"]),  # a server it cannot trust
        None,  # plain text to a TLS port
    ]:
        with _admin(served, tls) as admin, pytest.raises(FeltlineError) as caught:
            admin.list_tables_page()
        assert caught.value.code is grpc.StatusCode.UNAVAILABLE


def _with_server(settings: dict[str, Any]) -> dict[str, str]:
    return {**os.environ, "FELTLINE_TEST_SERVER": json.dumps(settings)}


def test_feltline_play_plays_a_hand_over_tls(served: dict[str, Any]) -> None:
    """The client tests of the terminal, run against this server: they
    connect with its TLS files, as ``feltline-play --tls-ca --tls-cert
    --tls-key``."""
    done = subprocess.run(
        [*PYTEST, str(ROOT / "tests" / "client" / "test_terminal.py")],
        env=_with_server(served),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passed" in done.stdout
    assert "skipped" not in done.stdout  # every one ran against this server


def test_the_node_client_plays_over_tls(served: dict[str, Any]) -> None:
    npm = shutil.which("npm")
    if npm is None or not (ROOT / "clients" / "node" / "node_modules").is_dir():
        pytest.skip("needs npm and `npm ci --prefix clients/node`")
    done = subprocess.run(
        [npm, "test", "--prefix", str(ROOT / "clients" / "node")],
        env=_with_server(served),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout


def test_tls_files_that_cannot_serve_are_refused_in_one_line(tmp_path: Path) -> None:
    certs = make_certs(tmp_path)
    line = refused(serve(tmp_path, "--tls-cert", certs["ca"], "--tls-key", certs["server_key"]))
    assert line == (
        f"feltline serve: --tls-key {certs['server_key']} is not the key of the certificate "
        f"in {certs['ca']}"
    )
    line = refused(serve(tmp_path, "--tls-cert", certs["server_key"], "--tls-key", certs["key"]))
    assert line == f"feltline serve: --tls-cert {certs['server_key']}: no PEM certificate in it"
    missing = str(tmp_path / "missing.pem")
    args = ["--tls-cert", certs["server_cert"], "--tls-key", certs["server_key"]]
    line = refused(serve(tmp_path, *args, "--tls-client-ca", missing))
    assert line == f"feltline serve: --tls-client-ca {missing}: No such file or directory"
    done = serve(tmp_path, "--tls-cert", certs["server_cert"])
    assert done.returncode == 2
    assert "--tls-cert and --tls-key go together" in done.stderr


def test_feltline_replay_exports_over_tls_with_the_sdks_options(
    served: dict[str, Any], tmp_path: Path
) -> None:
    files, out = served["tls"], tmp_path / "hands.log"
    base = ["export", "--server", served["target"], "--token", served["admin"]]
    base += ["--output", str(out), "--tls-ca", files["ca"]]
    assert feltline_replay([*base, "--tls-cert", files["cert"], "--tls-key", files["key"]]) == 0
    head = json.loads(out.read_text().splitlines()[0])
    assert head["format"] == "feltline-log"
    assert head["source"] == "feltline server"
    assert len(head["public_key"]) == 64
    assert feltline_replay(base) == 2  # no client certificate: the server lets nobody in
