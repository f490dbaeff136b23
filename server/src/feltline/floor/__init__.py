"""The operator's side of ``feltline``: the floor opens and closes tables,
the cage mints chips, and ``play`` runs a home game against bots.

Every command goes through the gRPC API with the SDK, as any client would,
so what an operator can do is what the API allows, and nothing here touches
the store.
"""
