"""A check over everything a cardroom stored: every chip accounted for and
every hand either finished or resumable.

It reads every stream in the cardroom's notification log, so it sees what
the database holds, not what a running server believes. Chips are created
only by minting and leave only by cashing out, so at any committed moment

    accounts + stacks at the tables + carried pots + rake and time charges
        + cashed out == minted

(a hand in progress counts at its starting stacks: the table settles it
when it ends). Each hand is loaded through its chain and seal, must start
from the commitment its table recorded, and must be ended and sealed with
the stacks its table took, unless it is its table's hand in progress,
which must wait on a player.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from uuid import UUID

from feltline.domain.account import AccountEvent
from feltline.domain.hand import Recorded, Sealed
from feltline.domain.ids import hand_id, pool_id
from feltline.domain.invite import INVITE_RECORDS
from feltline.domain.keys import KEY_RECORDS
from feltline.domain.match import MatchRecord
from feltline.domain.table import TableRecord, TableStream
from feltline.domain.tournament import TournamentRecord
from feltline.domain.transparency import LOG_RECORDS
from feltline.engine.cards.deck import commitment
from feltline.engine.hand.events import HandEnded, HandStarted
from feltline.engine.hand.script import Phase
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.events import HandDealt, HandFinished
from feltline.store.streams import Streams


@dataclass
class Ledger:
    """Chip totals by where the chips are, and what did not add up."""

    minted: int = 0
    cashed_out: int = 0
    accounts: int = 0
    seats: int = 0
    carried: int = 0
    house: int = 0
    tables: int = 0
    hands: int = 0
    finished: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def balanced(self) -> bool:
        on_hand = self.accounts + self.seats + self.carried + self.house + self.cashed_out
        return on_hand == self.minted


def check(streams: Streams) -> Ledger:
    """Read and check every stream of ``streams``."""
    kinds = _streams(streams)
    ledger = Ledger()
    for key in kinds["account"]:
        owned = streams.account(key)
        ledger.minted += owned.minted
        ledger.cashed_out += owned.cashed_out
        ledger.accounts += owned.balance
        if owned.balance < 0:
            ledger.problems.append(f"account {key} holds {owned.balance} chips")
    expected_hands: set[UUID] = set()
    for key in kinds["table"]:
        stream = streams.table(key)
        ledger.tables += 1
        ledger.seats += sum(s.stack for s in stream.table.seats)
        ledger.carried += stream.table.pot.total
        ledger.house += stream.table.house
        for number in range(1, stream.table.hands + 1):
            expected_hands.add(hand_id(key, number))
            _check_hand(streams, stream, number, ledger)
    for key in kinds["match"]:
        _check_match(streams, key, ledger)
    for key in kinds["tournament"]:
        _check_tournament(streams, key, ledger)
    strays = kinds["hand"] - expected_hands
    if strays:
        ledger.problems.append(f"{len(strays)} hand streams belong to no table's deal")
    if not ledger.balanced:
        ledger.problems.append(f"the chips do not add up: {ledger}")
    return ledger


def _streams(streams: Streams) -> dict[str, set[UUID]]:
    """Every stream id in the log, by kind."""
    kinds: dict[str, set[UUID]] = defaultdict(set)
    topics = {
        "table": (TableRecord,),
        "hand": (Recorded, Sealed),
        "account": tuple(AccountEvent.__subclasses__()),
        "server": KEY_RECORDS,
        "match": (MatchRecord,),
        "tournament": (TournamentRecord,),
        "log": LOG_RECORDS,
        "invite": INVITE_RECORDS,
    }
    by_topic = {f"{c.__module__}:{c.__qualname__}": kind for kind, cs in topics.items() for c in cs}
    for notification in streams.notifications():
        kinds[by_topic[notification.topic]].add(UUID(str(notification.originator_id)))
    return kinds


def _check_match(streams: Streams, key: UUID, ledger: Ledger) -> None:
    """Every table of a match dealt deal k from the seed the match committed
    to, and every revealed seed is the committed one."""
    match = streams.match(key).match  # checks the chain and signature
    setup = match.setup
    for k, seed in enumerate(match.revealed):
        if commitment(seed) != setup.commitments[k]:
            ledger.problems.append(f"match {key}: deal {k + 1}'s seed is not the committed one")
    for table in match.tables:
        stream = streams.table(table)
        for number in range(1, stream.table.hands + 1):
            started = next(iter(streams.get(hand_id(table, number)).commands.values()))[1][0]
            if not isinstance(started, HandStarted) or (
                started.commitment != setup.commitments[number - 1]
            ):
                ledger.problems.append(
                    f"match {key}: table {table} dealt deal {number} from another deck"
                )


def _check_tournament(streams: Streams, key: UUID, ledger: Ledger) -> None:
    """The prize pool's account holds the buy-ins not yet paid out: none
    once the tournament is over (paid in prizes or refunded)."""
    tournament = streams.tournament(key).tournament  # checks the chain and signature
    if tournament.created is None:
        return
    held = streams.account(pool_id(key)).balance
    due = 0 if tournament.over else tournament.pool - sum(tournament.paid.values())
    if held != due:
        ledger.problems.append(f"tournament {key}: its prize pool holds {held} chips, not {due}")


def _check_hand(streams: Streams, stream: TableStream, number: int, ledger: Ledger) -> None:
    dealt: HandDealt | None = None
    finished: HandFinished | None = None
    for done in stream.commands.values():
        if done.hand == number:
            for event in done.events:
                if isinstance(event, HandDealt) and event.hand == number:
                    dealt = event
                if isinstance(event, HandFinished):
                    finished = event
    where = f"table {stream.id} hand {number}"
    hand = streams.get(hand_id(stream.id, number))  # checks the chain and the seal
    ledger.hands += 1
    events = [e for _, made in hand.commands.values() for e in made]
    started = events[0] if events else None
    if dealt is None or not isinstance(started, HandStarted):
        ledger.problems.append(f"{where}: not dealt, or not started")
        return
    if started.commitment != dealt.commitment:
        ledger.problems.append(f"{where}: starts from another deck than the table committed to")
    in_progress = number == stream.table.hands and stream.table.dealt is not None
    if in_progress:
        if finished is not None or hand.hand.phase is Phase.ENDED or not waiting_on(hand.hand):
            ledger.problems.append(f"{where}: in progress at the table but cannot be resumed")
        return
    ended = events[-1]
    if not isinstance(ended, HandEnded) or hand.seal is None or finished is None:
        ledger.problems.append(f"{where}: the table moved on but the hand is not ended and sealed")
        return
    if tuple(sorted(ended.stacks)) != finished.stacks or ended.rake != finished.rake:
        ledger.problems.append(f"{where}: the table took other stacks than the hand ended with")
    ledger.finished += 1
