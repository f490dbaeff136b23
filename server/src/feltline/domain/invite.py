"""A used invite: the link ``feltline invite`` prints signs in once.

Exchanging an invite's token for a session appends :class:`InviteUsed` as
the first record of a stream named after the token's id
(:func:`feltline.domain.ids.invite_id`). A stream has one first record, and
the store refuses a second append at a position taken, so however many
servers share the store, and whether or not they were restarted since,
exactly one exchange of a link wins. Nothing that signs in is recorded:
the token's id, whose it was, and when it was used.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from feltline.audit import chain
from feltline.domain.chained import Signed
from feltline.domain.ids import invite_id
from feltline.engine.hand.fast import replace


@dataclass(frozen=True)
class InviteUsed(Signed):
    """The invite whose token carries ``token_id`` (for ``role`` and, a
    player's, ``player_id``) was exchanged for a session at ``at`` (whole
    seconds since the epoch)."""

    originator_id: UUID
    originator_version: int
    token_id: str
    role: str
    player_id: str
    at: int
    link: str

    def chained(self) -> dict[str, str | int]:
        return {
            "token_id": self.token_id,
            "role": self.role,
            "player_id": self.player_id,
            "at": self.at,
        }


INVITE_RECORDS = (InviteUsed,)


def used(token_id: str, role: str, player_id: str, *, at: int) -> InviteUsed:
    """The record that spends the invite ``token_id``: its stream's first."""
    stream = invite_id(token_id)
    record = InviteUsed(stream, 1, token_id, role, player_id, at, "")
    link = chain.link(
        chain.GENESIS,
        kind="invite",
        stream=str(stream),
        position=1,
        name=InviteUsed.__name__,
        version=1,
        data=record.chained(),
    )
    return replace(record, link=link.hex())
