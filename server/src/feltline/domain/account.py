"""A player's account: the chips they hold off the table.

Chips come into being only when an admin mints them (an event naming the
admin) and leave only when the player cashes out of the cardroom. Between
the two they move between the account and the player's seats: a buy-in or
chips added take them to a seat, standing up brings the stack back. Each
move is an event of the account, saved in the same transaction as the
table's, so that no chip is ever in both places or in neither.

:class:`Account` is an immutable aggregate whose events are stored as they
are: a few whole numbers and names need no codec. They are chained and
signed like every stream's (:mod:`feltline.domain.chained`), so a chip
minted by hand in the database does not load.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import ClassVar, TypeVar
from uuid import UUID

from pyrsistent import pmap
from pyrsistent.typing import PMap

from feltline.audit import chain
from feltline.audit.codec import JSON
from feltline.domain.chained import Signed, follow
from feltline.domain.hand import CommandIdReused
from feltline.engine.errors import IllegalAmount, Kind, RuleError
from feltline.engine.hand.fast import replace


class InsufficientChips(RuleError):
    """The account holds fewer chips than the move takes."""

    kind = Kind.PRECONDITION


@dataclass(frozen=True, slots=True)
class Mint:
    """A request to make chips: only an admin may, and says who they are."""

    player: str
    amount: int
    by: str


@dataclass(frozen=True, slots=True)
class CashOut:
    """A request to pay chips out of the cardroom."""

    player: str
    amount: int


@dataclass(frozen=True)
class AccountEvent(Signed):
    """``command_id`` is the key of the request that moved the chips (derived,
    with the table's id, for moves to and from seats) and ``fingerprint``
    the request's; ``link`` the chain link after the event, over its type
    and the fields that move chips (:meth:`chained`)."""

    originator_id: UUID
    originator_version: int
    command_id: str
    fingerprint: str
    amount: int
    link: str

    class_version: ClassVar[int] = 2

    upcast_v1_v2 = Signed.unchained

    def chained(self) -> dict[str, JSON]:
        """The event's data as the chain hashes it (layout version 1)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_CHAINED}
        return {k: str(v) if isinstance(v, UUID) else v for k, v in data.items()}


_NOT_CHAINED = frozenset(
    {"originator_id", "originator_version", "command_id", "fingerprint", "link"}
    | {"signature", "signed_by"}
)
E = TypeVar("E", bound=AccountEvent)


@dataclass(frozen=True)
class Minted(AccountEvent):
    """New chips, made by the admin ``by``."""

    by: str


@dataclass(frozen=True)
class CashedOut(AccountEvent):
    """Chips paid out of the cardroom."""


@dataclass(frozen=True)
class BoughtIn(AccountEvent):
    """Chips taken to a seat: a buy-in or chips added."""

    table: UUID
    seat: int


@dataclass(frozen=True)
class Returned(AccountEvent):
    """A stack brought back from a seat when the player stood up."""

    table: UUID
    seat: int


@dataclass(frozen=True)
class Transferred(AccountEvent):
    """Chips sent to another account (``to``) in the same transaction as
    its :class:`Received`: an entry to a tournament, to its prize pool
    and the house; a prize or a refund, back. Chips move between accounts
    in no other way."""

    to: UUID


@dataclass(frozen=True)
class Received(AccountEvent):
    """Chips an account (``source``) sent here with its :class:`Transferred`."""

    source: UUID


@dataclass(frozen=True)
class Account:
    """``minted`` and ``cashed_out`` are the account's totals of each, for
    checking that every chip is accounted for; ``link`` the chain link after
    its last event and ``signer`` the key that signed it ("" if unsigned)."""

    id: UUID
    version: int
    balance: int
    minted: int
    cashed_out: int
    commands: PMap[str, tuple[str, tuple[AccountEvent, ...]]]
    link: bytes = chain.GENESIS
    signer: str = ""

    @classmethod
    def new(cls, account_id: UUID) -> Account:
        return cls(account_id, 0, 0, 0, 0, pmap())

    def repeat(self, key: str, request: str) -> tuple[AccountEvent, ...] | None:
        """The events a request filed under ``key`` caused, or None if the key is new."""
        if key not in self.commands:
            return None
        first, events = self.commands[key]
        if first != request:
            raise CommandIdReused(f"command id {key!r} was used for another command")
        return events

    def mint(self, key: str, request: str, amount: int, by: str) -> Minted:
        _positive(amount, "mint")
        return self._next(Minted(self.id, self.version + 1, key, request, amount, "", by))

    def cash_out(self, key: str, request: str, amount: int, player: str) -> CashedOut:
        _positive(amount, "cash out")
        self._cover(amount, player)
        return self._next(CashedOut(self.id, self.version + 1, key, request, amount, ""))

    def buy_in(
        self, key: str, request: str, amount: int, *, player: str, table: UUID, seat: int
    ) -> BoughtIn:
        self._cover(amount, player)
        event = BoughtIn(self.id, self.version + 1, key, request, amount, "", table, seat)
        return self._next(event)

    def returned(self, key: str, request: str, amount: int, *, table: UUID, seat: int) -> Returned:
        event = Returned(self.id, self.version + 1, key, request, amount, "", table, seat)
        return self._next(event)

    def transfer(
        self, key: str, request: str, amount: int, *, to: UUID, player: str
    ) -> Transferred:
        """Send ``amount`` chips to account ``to`` (which records
        :meth:`receive` in the same commit); ``player`` names the holder
        in a refusal."""
        _positive(amount, "move")
        self._cover(amount, player)
        return self._next(Transferred(self.id, self.version + 1, key, request, amount, "", to))

    def receive(self, key: str, request: str, amount: int, *, source: UUID) -> Received:
        _positive(amount, "move")
        return self._next(Received(self.id, self.version + 1, key, request, amount, "", source))

    def _next(self, event: E) -> E:
        """``event`` with the link that chains it after this account's last."""
        link = chain.link(
            self.link,
            kind="account",
            stream=str(self.id),
            position=event.originator_version,
            name=type(event).__name__,
            version=1,
            data=event.chained(),
        )
        return replace(event, link=link.hex())

    def apply(self, event: AccountEvent) -> Account:
        if event.originator_version != self.version + 1:
            raise ValueError(
                f"account {self.id}: event {event.originator_version} follows {self.version}"
            )
        link = follow(
            self.link,
            event,
            event.link,
            kind="account",
            stream=self.id,
            position=event.originator_version,
            name=type(event).__name__,
            version=1,
            data=event.chained(),
        )
        minted, cashed_out, balance = self.minted, self.cashed_out, self.balance
        match event:
            case Minted():
                minted += event.amount
                balance += event.amount
            case Returned() | Received():
                balance += event.amount
            case CashedOut():
                cashed_out += event.amount
                balance -= event.amount
            case _:
                balance -= event.amount
        first, before = self.commands.get(event.command_id, (event.fingerprint, ()))
        return replace(
            self,
            version=event.originator_version,
            balance=balance,
            minted=minted,
            cashed_out=cashed_out,
            commands=self.commands.set(event.command_id, (first, (*before, event))),
            link=link,
            signer=event.signed_by if event.signature else "",
        )

    def _cover(self, amount: int, player: str) -> None:
        if amount > self.balance:
            raise InsufficientChips(
                f"{player} has {self.balance} chips off the table, not the {amount} this takes"
            )


def _positive(amount: int, what: str) -> None:
    if amount <= 0:
        raise IllegalAmount(f"cannot {what} {amount} chips: the amount must be at least 1")


def project(account: Account | None, events: Iterable[AccountEvent]) -> Account | None:
    for event in events:
        account = (account or Account.new(event.originator_id)).apply(event)
    return account
