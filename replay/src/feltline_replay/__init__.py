"""Feltline-replay: the auditor's tool. Export a portable log of hands from a
store, verify it without the server, and step through a hand as a viewer
saw it (``docs/replay.md``)."""
