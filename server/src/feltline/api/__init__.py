"""The gRPC layer over the domain and the store: tokens, authentication,
errors, request validation, per-viewer views of events, logs and the server.

Nothing below :mod:`feltline.api` imports it: the engine stays pure.
"""
