"""The API for browsers (feltline.api.web): Connect and gRPC-Web calls
reach the gRPC server's own servicers through its own interceptors, and
answer as gRPC does: the same data, the same refusals with their details,
the same watch; cross-origin calls only from the origins listed."""

from __future__ import annotations

import base64
import http.client
import json
import ssl
import struct
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2

from feltline import metrics
from feltline.api import convert, tokens
from feltline.api.app import Feltline
from feltline.api.server import Server, Tls, service
from feltline.api.tokens import Role
from feltline.audit.keys import Signer
from feltline.cardroom.room import Room
from feltline.engine.hand.rules import Game
from feltline.engine.table.house import TableConfig
from feltline_client import Client
from feltline_protos.v1 import auth_pb2, tables_pb2, tables_pb2_grpc
from tests.client.real_server import make_certs
from tests.tables import TABLES

from .conftest import open_room

PAGE = "https://page.example"
LISTED = "/feltline.v1.TableService/ListTables"
GOT = "/feltline.v1.TableService/GetTable"


@dataclass
class Web:
    signer: Signer
    room: Room
    server: Feltline
    table: str

    def token(self, role: Role) -> str:
        return tokens.mint(self.signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1))

    def connection(self) -> http.client.HTTPConnection:
        assert self.server.web_port is not None
        return http.client.HTTPConnection("127.0.0.1", self.server.web_port, timeout=10)


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Web]:
    signer = Signer.generate()
    room = open_room(tmp_path / "web.db", signer)
    server = Feltline(room, signer.public_key, web_port=0, web_origins=[PAGE]).start()
    made = Web(signer, room, server, "")
    admin = Client(server.target, made.token(auth_pb2.ROLE_ADMIN))
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
    made.table = admin.create_table(config, "on the web").table_id
    admin.close()
    yield made
    server.stop()
    room.close()


def _post(
    connection: http.client.HTTPConnection,
    path: str,
    body: bytes,
    headers: dict[str, str],
    method: str = "POST",
) -> tuple[int, dict[str, str], bytes]:
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


def _json(web: Web, path: str, request: dict[str, Any], **headers: str) -> tuple[int, Any]:
    status, _, body = _post(
        web.connection(), path, json.dumps(request).encode(), _headers(**headers)
    )
    return status, json.loads(body)


def _headers(token: str = "", **more: str) -> dict[str, str]:
    headers = {"content-type": "application/json", **more}
    if token:
        headers["authorization"] = f"Bearer {token}"
    return headers


def _details(error: dict[str, Any]) -> dict[str, Any]:
    """The error's google.rpc details, decoded, by type."""
    kinds = {
        "google.rpc.ErrorInfo": error_details_pb2.ErrorInfo,
        "google.rpc.BadRequest": error_details_pb2.BadRequest,
        "google.rpc.RetryInfo": error_details_pb2.RetryInfo,
    }
    decoded = {}
    for detail in error.get("details", []):
        value = base64.b64decode(detail["value"] + "==")
        decoded[detail["type"]] = kinds[detail["type"]].FromString(value)
    return decoded


def _frame(flags: int, body: bytes) -> bytes:
    return struct.pack(">BI", flags, len(body)) + body


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    found = []
    while data:
        flags, size = struct.unpack(">BI", data[:5])
        found.append((flags, data[5 : 5 + size]))
        data = data[5 + size :]
    return found


def test_a_unary_call_over_connect_answers_what_grpc_does(web: Web) -> None:
    spectator = web.token(auth_pb2.ROLE_SPECTATOR)
    status, answer = _json(web, LISTED, {}, token=spectator)
    assert status == 200
    over_grpc = Client(web.server.target, spectator).list_tables()
    assert [t["tableId"] for t in answer["tables"]] == [t.table_id for t in over_grpc]
    assert answer["tables"][0]["displayName"] == "on the web"


def test_a_unary_call_over_grpc_web_in_binary(web: Web) -> None:
    request = tables_pb2.GetTableRequest(table_id=web.table).SerializeToString()
    status, headers, body = _post(
        web.connection(),
        "/feltline.v1.TableService/GetTable",
        _frame(0, request),
        {
            "content-type": "application/grpc-web+proto",
            "authorization": f"Bearer {web.token(auth_pb2.ROLE_SPECTATOR)}",
            "x-grpc-web": "1",
        },
    )
    assert status == 200
    assert headers["content-type"] == "application/grpc-web+proto"
    (flags, message), (trailer_flags, trailers) = _frames(body)
    assert flags == 0
    assert tables_pb2.GetTableResponse.FromString(message).table.table_id == web.table
    assert trailer_flags == 0x80
    assert b"grpc-status: 0" in trailers


def test_a_refusal_carries_grpcs_code_message_and_details(web: Web) -> None:
    status, error = _json(web, LISTED, {})
    assert status == 401
    assert error["code"] == "unauthenticated"
    assert "no bearer token" in error["message"]
    info = _details(error)["google.rpc.ErrorInfo"]
    assert (info.reason, info.domain) == ("TOKEN_MISSING", "feltline.v1")

    spectator = web.token(auth_pb2.ROLE_SPECTATOR)
    status, error = _json(web, GOT, {"tableId": "x"}, token=spectator)
    assert status == 400
    assert error["code"] == "invalid_argument"
    details = _details(error)
    assert details["google.rpc.ErrorInfo"].reason == "INVALID_REQUEST"
    assert [v.field for v in details["google.rpc.BadRequest"].field_violations] == ["table_id"]

    # Validation comes after authentication, over the web as over gRPC.
    status, error = _json(web, GOT, {"tableId": "x"})
    assert error["code"] == "unauthenticated"

    # A spectator may not close tables: PERMISSION_DENIED, ROLE_FORBIDDEN.
    closing = {"tableId": web.table, "requestId": str(uuid.uuid4())}
    status, error = _json(web, "/feltline.v1.TableService/CloseTable", closing, token=spectator)
    assert (status, error["code"]) == (403, "permission_denied")
    assert _details(error)["google.rpc.ErrorInfo"].reason == "ROLE_FORBIDDEN"


def test_json_that_does_not_parse_is_refused_after_the_token(web: Web) -> None:
    spectator = web.token(auth_pb2.ROLE_SPECTATOR)
    status, _, body = _post(web.connection(), LISTED, b"{", _headers(spectator))
    error = json.loads(body)
    assert (status, error["code"]) == (400, "invalid_argument")
    assert _details(error)["google.rpc.ErrorInfo"].reason == "INVALID_REQUEST"
    status, _, body = _post(web.connection(), LISTED, b"{", _headers())
    assert json.loads(body)["code"] == "unauthenticated"


def _watch(web: Web, table: str, token: str) -> http.client.HTTPResponse:
    connection = web.connection()
    body = json.dumps({"tableId": table}).encode()
    connection.request(
        "POST",
        "/feltline.v1.WatchService/WatchTable",
        body=_frame(0, body),
        headers={"content-type": "application/connect+json", "authorization": f"Bearer {token}"},
    )
    return connection.getresponse()


def _read_frame(response: http.client.HTTPResponse) -> tuple[int, Any]:
    flags, size = struct.unpack(">BI", response.read(5))
    return flags, json.loads(response.read(size))


def test_a_table_is_watched_over_connect_until_it_closes(web: Web) -> None:
    response = _watch(web, web.table, web.token(auth_pb2.ROLE_SPECTATOR))
    assert response.status == 200
    flags, first = _read_frame(response)
    assert flags == 0
    assert first["snapshot"]["table"]["tableId"] == web.table
    assert first["cursor"]

    admin = Client(web.server.target, web.token(auth_pb2.ROLE_ADMIN))
    admin.close_table(web.table)
    admin.close()
    seen = []
    while True:
        flags, message = _read_frame(response)
        if flags & 0x02:  # the end of the stream, with no error
            assert "error" not in message
            break
        seen.append(message)
    assert any("tableClosed" in json.dumps(m) for m in seen), seen


def test_a_watch_refused_ends_with_the_error_and_its_details(web: Web) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    response = _watch(web, missing, web.token(auth_pb2.ROLE_SPECTATOR))
    flags, end = _read_frame(response)
    assert flags == 0x02
    assert end["error"]["code"] == "not_found"
    assert _details(end["error"])["google.rpc.ErrorInfo"].reason == "TABLE_NOT_FOUND"


def test_cors_answers_a_listed_origin(web: Web) -> None:
    status, headers, _ = _post(
        web.connection(),
        LISTED,
        b"",
        {
            "origin": PAGE,
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type",
        },
        method="OPTIONS",
    )
    assert status == 204
    assert headers["access-control-allow-origin"] == PAGE
    assert "authorization" in headers["access-control-allow-headers"]

    token = web.token(auth_pb2.ROLE_SPECTATOR)
    status, headers, body = _post(web.connection(), LISTED, b"{}", _headers(token, origin=PAGE))
    assert status == 200
    assert headers["access-control-allow-origin"] == PAGE
    assert "grpc-status-details-bin" in headers["access-control-expose-headers"]
    assert json.loads(body)["tables"]


def test_cors_refuses_an_origin_not_listed_before_serving_it(web: Web) -> None:
    other = "https://elsewhere.example"
    status, headers, _ = _post(
        web.connection(),
        LISTED,
        b"",
        {"origin": other, "access-control-request-method": "POST"},
        method="OPTIONS",
    )
    assert status == 403
    assert "access-control-allow-origin" not in headers

    # Even a call the browser would send unasked is refused, not served.
    admin = web.token(auth_pb2.ROLE_ADMIN)
    status, headers, _ = _post(
        web.connection(),
        "/feltline.v1.TableService/CloseTable",
        json.dumps({"tableId": web.table}).encode(),
        _headers(admin, origin=other),
    )
    assert status == 403
    assert "access-control-allow-origin" not in headers
    table = Client(web.server.target, admin).get_table(web.table)
    assert table.state == tables_pb2.TABLE_STATE_OPEN


def test_a_page_of_the_same_origin_needs_no_listing(web: Web) -> None:
    own = f"http://127.0.0.1:{web.server.web_port}"
    token = web.token(auth_pb2.ROLE_SPECTATOR)
    status, _, _ = _post(web.connection(), LISTED, b"{}", _headers(token, origin=own))
    assert status == 200


class Counting(tables_pb2_grpc.TableServiceServicer):
    """A servicer that notes which object served each call."""

    def __init__(self) -> None:
        self.served: list[int] = []

    def ListTables(
        self, request: tables_pb2.ListTablesRequest, context: grpc.ServicerContext
    ) -> tables_pb2.ListTablesResponse:
        self.served.append(id(self))
        return tables_pb2.ListTablesResponse()


def _counting_server(signer: Signer, servicer: Counting, admit: int) -> tuple[Server, int, int]:
    server = Server(
        [
            service(
                tables_pb2.DESCRIPTOR.services_by_name["TableService"],
                tables_pb2_grpc.add_TableServiceServicer_to_server,
                servicer,
            )
        ],
        key=signer.public_key,
        admit=admit,
    )
    port = server.add_insecure_port("127.0.0.1:0")
    web_port = server.add_web_port("127.0.0.1:0")
    server.start()
    return server, port, web_port


def test_both_protocols_reach_the_same_servicer_object() -> None:
    signer = Signer.generate()
    servicer = Counting()
    server, port, web_port = _counting_server(signer, servicer, admit=4)
    try:
        token = tokens.mint(
            signer, auth_pb2.ROLE_SPECTATOR, now=datetime.now(UTC), ttl=timedelta(hours=1)
        )
        list(Client(f"127.0.0.1:{port}", token).list_tables())
        connection = http.client.HTTPConnection("127.0.0.1", web_port, timeout=10)
        assert _post(connection, LISTED, b"{}", _headers(token))[0] == 200
        assert servicer.served == [id(servicer), id(servicer)]
        # No second copy: the web port's handler is the one gRPC was given.
        handler = server.handlers[LISTED]
        assert handler.unary_unary is not None
        assert getattr(handler.unary_unary, "__self__", None) is servicer
    finally:
        server.stop(0)


def test_admission_counts_web_calls_as_grpc_calls() -> None:
    signer = Signer.generate()
    servicer = Counting()
    server, _, web_port = _counting_server(signer, servicer, admit=0)  # admits none
    try:
        token = tokens.mint(
            signer, auth_pb2.ROLE_SPECTATOR, now=datetime.now(UTC), ttl=timedelta(hours=1)
        )
        connection = http.client.HTTPConnection("127.0.0.1", web_port, timeout=10)
        status, _, body = _post(connection, LISTED, b"{}", _headers(token))
        error = json.loads(body)
        assert (status, error["code"]) == (429, "resource_exhausted")
        details = _details(error)
        assert details["google.rpc.ErrorInfo"].reason == "OVERLOADED"
        assert details["google.rpc.RetryInfo"].retry_delay.ToNanoseconds() > 0
        assert servicer.served == []
    finally:
        server.stop(0)


def test_the_web_port_serves_over_tls_as_grpc_does(tmp_path: Path) -> None:
    certs = make_certs(tmp_path)
    tls = Tls.from_files(Path(certs["server_cert"]), Path(certs["server_key"]), Path(certs["ca"]))
    signer = Signer.generate()
    room = open_room(tmp_path / "tls.db", signer)
    server = Feltline(room, signer.public_key, tls=tls, web_port=0).start()
    try:
        assert server.web_port is not None
        trusting = ssl.create_default_context(cafile=certs["ca"])
        trusting.load_cert_chain(certs["cert"], certs["key"])
        token = tokens.mint(
            signer, auth_pb2.ROLE_SPECTATOR, now=datetime.now(UTC), ttl=timedelta(hours=1)
        )
        connection = http.client.HTTPSConnection(
            "localhost", server.web_port, context=trusting, timeout=10
        )
        assert _post(connection, LISTED, b"{}", _headers(token))[0] == 200

        # Without a client certificate, as for gRPC, no one gets in.
        anonymous = ssl.create_default_context(cafile=certs["ca"])
        connection = http.client.HTTPSConnection(
            "localhost", server.web_port, context=anonymous, timeout=10
        )
        with pytest.raises((ssl.SSLError, ConnectionError)):
            _post(connection, LISTED, b"{}", _headers(token))
    finally:
        server.stop()
        room.close()


def test_a_server_stops_promptly_with_a_watch_open(tmp_path: Path) -> None:
    signer = Signer.generate()
    room = open_room(tmp_path / "stop.db", signer)
    server = Feltline(room, signer.public_key, web_port=0).start()
    made = Web(signer, room, server, "")
    admin = Client(server.target, made.token(auth_pb2.ROLE_ADMIN))
    config = convert.table_config(TableConfig(TABLES[Game.HOLDEM], 6))
    table = admin.create_table(config, "open").table_id
    admin.close()
    response = _watch(made, table, made.token(auth_pb2.ROLE_SPECTATOR))
    assert _read_frame(response)[0] == 0  # the snapshot; the watch waits for more
    began = time.monotonic()
    server.stop()
    room.close()
    assert time.monotonic() - began < 5


def test_a_watch_whose_browser_goes_ends_on_the_server(web: Web) -> None:
    before = metrics.WATCHES._value.get()
    response = _watch(web, web.table, web.token(auth_pb2.ROLE_SPECTATOR))
    assert _read_frame(response)[0] == 0
    assert metrics.WATCHES._value.get() == before + 1
    response.close()  # the connection with it
    for _ in range(50):
        if metrics.WATCHES._value.get() == before:
            break
        time.sleep(0.1)
    assert metrics.WATCHES._value.get() == before
