"""Event-sourced aggregates over the engine's deciders, for the eventsourcing
library. Nothing here knows which database stores them."""
