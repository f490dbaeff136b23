"""The pure rules of poker: no I/O, no clock, no randomness of its own."""
