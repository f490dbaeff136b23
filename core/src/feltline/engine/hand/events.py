"""What happens in a hand, as immutable facts.

Every event names its audience, so the server can redact a stream for a
viewer without knowing any rules: :meth:`Event.audience` is the set of seats
allowed to see it in full while the hand runs (``EVERYONE`` for all,
an empty set for nobody but the auditor after the hand), and
:meth:`Event.redacted` is what everyone else is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from feltline.engine.cards.card import Card
from feltline.engine.hand.rules import Rules

EVERYONE: frozenset[int] | None = None
NOBODY: frozenset[int] = frozenset()


class Forced(StrEnum):
    ANTE = "ante"
    SMALL_BLIND = "small-blind"
    BIG_BLIND = "big-blind"


class Action(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    BRING_IN = "bring-in"
    COMPLETE = "complete"


class Entropy(StrEnum):
    """Whether the seats dealt in add their own entropy to the deck
    (``feltline-deck-v2``, docs/deck.md): not at all, those that take part,
    or every seat before the hand is dealt."""

    OFF = "off"
    OPTIONAL = "optional"
    REQUIRED = "required"


class Choice(StrEnum):
    LOW = "low"
    HIGH = "high"
    BOTH = "both"


@dataclass(frozen=True, slots=True)
class Event:
    def audience(self) -> frozenset[int] | None:
        return EVERYONE

    def redacted(self) -> Event:
        return self


@dataclass(frozen=True, slots=True)
class SeatAtStart:
    seat: int
    player: str
    stack: int
    carried: int = 0


@dataclass(frozen=True, slots=True)
class Deal:
    """Who is dealt into a hand and who posts what. The table decides it
    (``HandDealt``), the hand starts from it (``StartHand``) and records it
    (``HandStarted``): one record, passed on whole, so that the three cannot
    drift apart.

    ``carried`` is what each seat put in a jackpots pot on earlier passed
    deals (in ``SeatAtStart``) and ``dead`` what players who left forfeited.
    ``extra_big_blinds`` are hold'em newcomers posting a big blind to be
    dealt in at once.
    """

    button: int
    seats: tuple[SeatAtStart, ...]
    antes: bool = True
    small_blind: int | None = None
    big_blind: int | None = None
    extra_big_blinds: tuple[int, ...] = ()
    dead: int = 0


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """The deal begins: who plays, for what, and the commitment to the deck."""

    rules: Rules
    deal: Deal
    commitment: str
    algorithm: str


@dataclass(frozen=True, slots=True)
class DeckShuffled(Event):
    """The secret seed and the order it gives; seen only after the hand."""

    seed: bytes
    cards: tuple[Card, ...]
    purpose: str = "deck"

    def audience(self) -> frozenset[int] | None:
        return NOBODY

    def redacted(self) -> Event:
        return replace(self, seed=b"", cards=())


@dataclass(frozen=True, slots=True)
class SeedDrawn(Event):
    """``feltline-deck-v2``: the server's seed, stored when it commits and
    before any seat contributes; seen only after the hand."""

    seed: bytes

    def audience(self) -> frozenset[int] | None:
        return NOBODY

    def redacted(self) -> Event:
        return replace(self, seed=b"")


@dataclass(frozen=True, slots=True)
class ContributionsOpened(Event):
    """The seats that may commit to a contribution, and whether every one
    must before the hand is dealt."""

    seats: tuple[int, ...]
    required: bool


@dataclass(frozen=True, slots=True)
class ContributionCommitted(Event):
    """A seat's commitment: the SHA-256 of its 32 bytes, in lowercase hex."""

    seat: int
    commitment: str


@dataclass(frozen=True, slots=True)
class RevealsOpened(Event):
    """Commitments are closed: these seats, which committed, may reveal."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ContributionRevealed(Event):
    """A seat's 32 bytes, which hash to its commitment. Public: without the
    server's seed they tell nothing of the deck."""

    seat: int
    contribution: bytes


@dataclass(frozen=True, slots=True)
class StreetBegan(Event):
    """The hand moves to step ``step`` of its game; ``order`` is who acts,
    in turn, when the step waits on players."""

    step: int
    name: str
    order: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Posted(Event):
    seat: int
    forced: Forced
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    seat: int
    card: Card | None
    face_up: bool
    position: int
    stub: int = 0

    def audience(self) -> frozenset[int] | None:
        return EVERYONE if self.face_up else frozenset((self.seat,))

    def redacted(self) -> Event:
        return replace(self, card=None)


@dataclass(frozen=True, slots=True)
class BoardDealt(Event):
    """Cards face up in the middle: hold'em's board, stud's common card."""

    cards: tuple[Card, ...]
    positions: tuple[int, ...]
    stub: int = 0


@dataclass(frozen=True, slots=True)
class Acted(Event):
    """A voluntary action; ``amount`` is what went in, ``total`` the seat's
    bet this round after it."""

    seat: int
    action: Action
    amount: int
    total: int
    all_in: bool = False
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class BetsCollected(Event):
    """The round ends; an uncalled bet goes back before pots are formed."""

    returned_to: int | None
    returned: int
    pot: int


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """A seat throws away cards; the replacements follow as ``CardDealt``."""

    seat: int
    discards: tuple[Card, ...] | None
    count: int
    set_aside: bool = False
    timed_out: bool = False

    def audience(self) -> frozenset[int] | None:
        return frozenset((self.seat,))

    def redacted(self) -> Event:
        return replace(self, discards=None)


@dataclass(frozen=True, slots=True)
class StubReshuffled(Event):
    """The deck ran out mid-draw: these cards, in this order, are the new stub."""

    cards: tuple[Card, ...] | None
    count: int
    purpose: str

    def audience(self) -> frozenset[int] | None:
        return NOBODY

    def redacted(self) -> Event:
        return replace(self, cards=None)


@dataclass(frozen=True, slots=True)
class Declared(Event):
    seat: int
    choice: Choice | None
    timed_out: bool = False

    def audience(self) -> frozenset[int] | None:
        return frozenset((self.seat,))

    def redacted(self) -> Event:
        return replace(self, choice=None)


@dataclass(frozen=True, slots=True)
class DeclarationsRevealed(Event):
    choices: tuple[tuple[int, Choice], ...]


@dataclass(frozen=True, slots=True)
class Shown(Event):
    """A live hand turned face up at showdown (or openers proved)."""

    seat: int
    cards: tuple[Card, ...]
    set_aside: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Share:
    seat: int
    amount: int
    half: str
    hand: str


@dataclass(frozen=True, slots=True)
class PotAwarded(Event):
    """One pot, its eligible seats, its rake and who took which part."""

    index: int
    amount: int
    eligible: tuple[int, ...]
    rake: int
    shares: tuple[Share, ...]


@dataclass(frozen=True, slots=True)
class PassedOut(Event):
    """Jackpots: nobody opened, the pot waits for the next deal."""

    carried: tuple[tuple[int, int], ...]
    dead: int


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """The last event: final stacks, and the seed for auditors.

    The seed gives the whole deck order, folded and mucked cards included,
    so it goes to auditors only; everyone saw its commitment at the start.
    """

    stacks: tuple[tuple[int, int], ...]
    seed: bytes
    rake: int
    cancelled: bool = False

    def audience(self) -> frozenset[int] | None:
        return NOBODY

    def redacted(self) -> Event:
        return replace(self, seed=b"")
