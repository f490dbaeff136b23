"""Feltline's gRPC contract, generated from ``protos/feltline/v1/*.proto``.

``feltline_protos.v1`` holds the messages (``*_pb2``) and service stubs
(``*_pb2_grpc``) with their type stubs; ``feltline_protos._deps`` holds the
protovalidate annotations they import. Both are written by
``protos/generate.py`` and never edited by hand.
"""
