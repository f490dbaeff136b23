"""Feltline's Python SDK: ``Client`` wraps every rpc of ``feltline.v1``.

    from feltline_client import Client, Seen

    with Client("localhost:50051", token) as client:
        for item in client.watch(table_id):
            ...

It depends on grpcio, protobuf and feltline-protos only.
"""

from feltline_client.client import Client, Seen, Tls, token_claims
from feltline_client.errors import FeltlineError, FieldViolation

__all__ = ["Client", "FeltlineError", "FieldViolation", "Seen", "Tls", "token_claims"]
