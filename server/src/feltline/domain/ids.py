"""Names the store derives: command fingerprints and stream ids.

Client command ids make requests idempotent; the store derives ids of its
own from them (a hand's start, a hand's end, a leaver's fold), so client ids
may not contain ``/``, which only derived ids do. Stream ids are derived too,
so a table's hands and a player's account are found without an index.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from functools import lru_cache
from uuid import UUID, uuid5

from feltline.audit.codec import JSON, canonical, encode_command
from feltline.engine.errors import RuleError
from feltline.engine.hand.commands import StartHand
from feltline.engine.table.commands import DealHand

MAX_COMMAND_ID = 128
TABLES = UUID("0b6f4f36-8e35-4cf1-9c36-6a8f4be1f0a1")
ACCOUNTS = UUID("5d0f8a53-3b0e-4d7e-8a61-2f1c9e5b7c42")
SERVER = UUID("8c2e61d4-7a9f-4f0b-b3d5-1e6a0c9f2b77")
MATCHES = UUID("3f7d2b90-51c4-4a8e-9e0d-7c6b5a4f3e21")
TOURNAMENTS = UUID("a4c1e7d2-6b93-4f58-8e2a-0d7f3b91c564")
INVITES = UUID("6e1b9c37-2d84-4a5f-b0c6-93f7e2a81d5c")


class CommandIdError(RuleError):
    """A client command id the store cannot take."""


def check_command_id(command_id: str) -> str:
    if not 0 < len(command_id) <= MAX_COMMAND_ID or "/" in command_id:
        raise CommandIdError(
            f"a command id is 1 to {MAX_COMMAND_ID} characters without '/', not {command_id!r}"
        )
    return command_id


def fingerprint(command: object) -> str:
    """What makes two requests the same: everything but what the server
    draws afresh for every attempt, a deal's seed and the time on its clock
    (``at``): a client's retry a second later is the same request, not
    another under a used id."""
    if isinstance(command, StartHand | DealHand):
        command = replace(command, seed=b"")
    if getattr(command, "at", None):
        command = replace(command, at=0)  # type: ignore[type-var]
    data: JSON = encode_command(command)
    return hashlib.sha256(canonical(data)).hexdigest()


def table_id(command_id: str) -> UUID:
    """The table an opening command creates: the same id on a repeat."""
    return uuid5(TABLES, command_id)


@lru_cache(maxsize=4096)
def hand_id(table: UUID, number: int) -> UUID:
    """Hand ``number`` of a table (its first hand is 1); remembered, as every
    request at a table asks for it."""
    return uuid5(table, f"hand/{number}")


def match_id(command_id: str) -> UUID:
    """The match a creating command creates: the same id on a repeat."""
    return uuid5(MATCHES, command_id)


def match_table_id(match: UUID, table: int) -> UUID:
    """Table ``table`` of a match, counting from 0."""
    return uuid5(match, f"table/{table}")


def bank_id(match: UUID, table: int) -> UUID:
    """The account that holds the chips of a match's table between deals:
    the match's own chips, never a player's."""
    return uuid5(match, f"bank/{table}")


def tournament_id(command_id: str) -> UUID:
    """The tournament a creating command creates: the same id on a repeat."""
    return uuid5(TOURNAMENTS, command_id)


def tournament_table_id(tournament: UUID, table: int) -> UUID:
    """Table ``table`` of a tournament, counting from 1 as its director does."""
    return uuid5(tournament, f"table/{table}")


def pool_id(tournament: UUID) -> UUID:
    """The account that holds a tournament's prize pool: the buy-ins, in
    account chips, until the prizes (or the refunds) are paid from it."""
    return uuid5(tournament, "pool")


def chips_id(tournament: UUID) -> UUID:
    """The account that holds a tournament's own chips while nobody plays
    them: minted when it starts, never a player's (as a match's bank)."""
    return uuid5(tournament, "chips")


def house_id() -> UUID:
    """The cardroom's account the tournaments' fees go to."""
    return uuid5(SERVER, "house")


def account_id(player: str) -> UUID:
    return uuid5(ACCOUNTS, player)


def server_keys_id() -> UUID:
    """The one stream of the keys the store was signed with."""
    return uuid5(SERVER, "keys")


def log_id() -> UUID:
    """The one stream of the transparency log: its leaves and checkpoints."""
    return uuid5(SERVER, "log")


def invite_id(token_id: str) -> UUID:
    """The stream that records an invite's token, ``token_id``, as used."""
    return uuid5(INVITES, token_id)
