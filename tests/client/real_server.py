"""Start a real ``feltline serve`` for the client tests.

    python tests/client/real_server.py      # prints {"target", "web", "admin", "players", "pid"}

runs the server on a free loopback port (and its web port, for browsers,
on another: ``web`` is its URL) over a temporary SQLite store and
key file, mints an admin token and player tokens for alice, bob and carol
with ``feltline token``, prints the FELTLINE_TEST_SERVER JSON on one line
and keeps the server up until this script's stdin closes (or it gets
SIGTERM); then it stops the server and removes the temporary files.
``--run CMD...`` runs a command with the variable set instead and exits
with its status:

    python tests/client/real_server.py --run npm test --prefix clients/node

``--tls`` (first) serves over TLS and requires client certificates, all
made for the run by a certificate authority of its own; the JSON then also
holds ``"tls": {"ca", "cert", "key"}``, the paths of the authority's
certificate (which signed the server's) and of a client certificate and
its key, PEM files. The exit status is 1 if the server logged any
error-level line, whatever the command's.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

PLAYERS = ("alice", "bob", "carol", "dave")
LISTENING = re.compile(r"feltline listening on (\S+)")
WEB = re.compile(r"browsers \(Connect, gRPC-Web\): (\S+)")


def _feltline() -> list[str]:
    """The ``feltline`` command of this Python's environment."""
    return [sys.executable, "-c", "import sys; from feltline.cli import main; sys.exit(main())"]


def _token(env: dict[str, str], *claims: str) -> str:
    out = subprocess.run(
        [*_feltline(), "token", "--ttl", "86400", *claims],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def _pem(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def make_certs(folder: Path) -> dict[str, str]:
    """A certificate authority of the run's own, a server certificate for
    the loopback addresses and ``localhost``, and a client certificate, all
    signed by it, as PEM files in ``folder``: their paths by name (``ca``,
    ``server_cert``, ``server_key``, ``cert``, ``key``)."""
    now = datetime.datetime.now(datetime.UTC)

    def name(common: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])

    def signed(
        subject: str, key: ec.EllipticCurvePrivateKey, *extensions: x509.ExtensionType
    ) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(name(subject))
            .issuer_name(name("feltline test CA"))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
        )
        for extension in extensions:
            builder = builder.add_extension(
                extension, critical=isinstance(extension, x509.BasicConstraints)
            )
        return builder.sign(ca_key, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = signed(
        "feltline test CA",
        ca_key,
        x509.BasicConstraints(ca=True, path_length=0),
        x509.KeyUsage(
            digital_signature=False,
            content_commitment=False,
            key_encipherment=False,
            data_encipherment=False,
            key_agreement=False,
            key_cert_sign=True,
            crl_sign=True,
            encipher_only=False,
            decipher_only=False,
        ),
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = signed(
        "localhost",
        server_key,
        x509.BasicConstraints(ca=False, path_length=None),
        x509.SubjectAlternativeName(
            [
                x509.DNSName("localhost"),
                x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                x509.IPAddress(ipaddress.ip_address("::1")),
            ]
        ),
        x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
    )
    client_key = ec.generate_private_key(ec.SECP256R1())
    client = signed(
        "feltline test client",
        client_key,
        x509.BasicConstraints(ca=False, path_length=None),
        x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]),
    )
    pem = serialization.Encoding.PEM
    return {
        "ca": _pem(folder / "ca.pem", ca.public_bytes(pem)),
        "server_cert": _pem(folder / "server.pem", server.public_bytes(pem)),
        "server_key": _pem(folder / "server.key", _key_pem(server_key)),
        "cert": _pem(folder / "client.pem", client.public_bytes(pem)),
        "key": _pem(folder / "client.key", _key_pem(client_key)),
    }


def _errors(lines: Iterator[str], found: list[str]) -> None:
    """Read the server's output to its end (so that the pipe never fills),
    keeping its error-level lines (JSON, as it logs when not on a terminal)."""
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("level") in ("error", "critical"):
            found.append(line.strip())


@contextlib.contextmanager
def running(*, tls: bool = False, errors: list[str] | None = None) -> Iterator[dict[str, object]]:
    """A real server for as long as the block runs: its FELTLINE_TEST_SERVER.
    With ``tls`` it serves over TLS and requires client certificates.
    Error-level lines it logs are added to ``errors``."""
    with tempfile.TemporaryDirectory(prefix="feltline-real-") as tmp:
        env = dict(os.environ)
        env["FELTLINE_KEY_FILE"] = str(Path(tmp) / "feltline.key")
        env["PYTHONUNBUFFERED"] = "1"
        env["FELTLINE_LOG_FORMAT"] = "json"
        store = str(Path(tmp) / "feltline.db")
        command = [*_feltline(), "serve", "--port", "0", "--web-port", "0", "--store", store]
        certs = make_certs(Path(tmp)) if tls else {}
        if tls:
            command += ["--tls-cert", certs["server_cert"], "--tls-key", certs["server_key"]]
            command += ["--tls-client-ca", certs["ca"]]
        server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            target = web = ""
            for line in server.stdout:
                if listening := LISTENING.search(line):
                    target = listening.group(1)
                if browsers := WEB.search(line):
                    web = browsers.group(1)
                    break
            if not target or not web:
                raise RuntimeError(f"feltline serve exited ({server.wait()}) before listening")
            found: list[str] = []
            reader = threading.Thread(target=_errors, args=(server.stdout, found), daemon=True)
            reader.start()
            # The server made the key on its first start: the tokens share it.
            admin = _token(env, "--role", "admin")
            players = {p: _token(env, "--role", "player", "--player", p) for p in PLAYERS}
            settings: dict[str, object] = {
                "target": target,
                "web": web,
                "admin": admin,
                "players": players,
                "pid": server.pid,
            }
            if tls:
                settings["tls"] = {key: certs[key] for key in ("ca", "cert", "key")}
            yield settings
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        reader.join(timeout=5)
        if errors is not None:
            errors.extend(found)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tls = argv[:1] == ["--tls"]
    argv = argv[1:] if tls else argv
    errors: list[str] = []
    status = 0
    with running(tls=tls, errors=errors) as settings:
        if argv[:1] == ["--run"]:
            env = dict(os.environ, FELTLINE_TEST_SERVER=json.dumps(settings))
            status = subprocess.run(argv[1:], env=env, check=False).returncode
        else:
            print(json.dumps(settings), flush=True)
            sys.stdin.read()
    if errors:
        print(
            f"the server logged {len(errors)} error-level lines:",
            *errors,
            sep="\n",
            file=sys.stderr,
        )
        return status or 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
