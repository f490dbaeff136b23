"""Feltline: an event-sourced poker table server."""
