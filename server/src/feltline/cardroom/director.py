"""What the tournament director does inside a request's unit of work: the
cardroom's side of :mod:`feltline.engine.tournament`, whose decisions it
records and carries out at the tables and in the accounts in the same
transaction (docs/rules.md, "Tournaments").

Each decision is recorded in the tournament's stream under a key naming
the request that caused it (an entry, the clock, a hand begun or ended at
table n, a cancellation), and carried out at once: a seat draw opens the
tables it needs and seats its players with chips minted into the
tournament's own account (:func:`feltline.domain.ids.chips_id`, never a
player's); a move stands the player up at one table and seats them at
another, their stack going through that account and the time bank they
had left going with them; an elimination stands the player up; a prize
moves account chips from the prize pool to the winner; a broken table,
and every table once the tournament is over, closes. A hand's end at a
tournament table is recorded by :func:`hand_ended`, called by the dealer
in the transaction that ends the hand.
"""

from __future__ import annotations

from dataclasses import replace
from uuid import UUID

from feltline.cardroom.work import Work
from feltline.domain.ids import account_id, chips_id, house_id, pool_id, tournament_table_id
from feltline.domain.tournament import TournamentStream
from feltline.engine.hand.events import Event
from feltline.engine.table.commands import ChangeStakes, CloseTable, OpenTable, SeatPlayer, StandUp
from feltline.engine.table.events import HandFinished
from feltline.engine.table.state import Table
from feltline.engine.tournament import (
    Cancelled,
    Eliminated,
    Paid,
    PlayerMoved,
    SeatsDrawn,
    Tournament,
)


def opening_key(tournament: UUID, number: int) -> str:
    """The key a tournament's table ``number`` is opened under: what tells
    the table's tournament (:meth:`feltline.cardroom.held.Held.tournament_of`)."""
    return f"tournament-table/{tournament}/{number}"


def record(
    work: Work, stream: TournamentStream, key: str, request: str, events: list[Event], *, at: int
) -> TournamentStream:
    """Record ``events`` in the tournament under ``key`` and carry them
    out; the stream after them."""
    if not events:
        work.tournament = stream
        return stream
    records, after = stream.record(key, request, events)
    work.records += records
    work.tournament = after
    state = stream.tournament
    work.bank = chips_id(stream.id)
    at_key = f"tournament/{stream.id}/{key}"
    for event in events:
        _carry_out(work, stream.id, state, event, at_key=at_key, request=request, at=at)
        state = state.then([event])
    for number in sorted(set(stream.tournament.tables) - set(state.tables)):
        _close(work, stream.id, number, at_key=at_key, request=request, at=at, reason="broken")
    if state.over:
        for number in sorted(state.tables):
            _close(work, stream.id, number, at_key=at_key, request=request, at=at, reason="over")
    return after


def _carry_out(
    work: Work, key: UUID, state: Tournament, event: Event, *, at_key: str, request: str, at: int
) -> None:
    match event:
        case SeatsDrawn(chairs=chairs, stack=stack):
            setup = state.setup
            work.mint(at_key, request, len(chairs) * stack, by=f"tournament {key}")
            for chair in chairs:
                table = tournament_table_id(key, chair.table)
                if chair.table not in state.tables and not _opened(work, table):
                    config = replace(setup.config, min_buy_in=1, max_buy_in=None)
                    name = f"{setup.name} #{chair.table}"
                    opening = OpenTable(config.validate(), at, name)
                    work.at_table(opening_key(key, chair.table), opening, request, table=table)
                seating = SeatPlayer(chair.seat, chair.player, stack, at)
                work.at_table(at_key, seating, request, table=table)
        case PlayerMoved():
            origin = tournament_table_id(key, event.from_table)
            bank = _bank_left(work.stream(origin).table, event.from_seat)
            work.at_table(at_key, StandUp(event.from_seat), request, table=origin)
            seating = SeatPlayer(event.to_seat, event.player, event.stack, at, bank)
            work.at_table(at_key, seating, request, table=tournament_table_id(key, event.to_table))
        case Eliminated(table=number, seat=seat):
            work.at_table(at_key, StandUp(seat), request, table=tournament_table_id(key, number))
        case Paid(player=player, amount=amount):
            work.move(at_key, request, amount, source=pool_id(key), to=account_id(player))
        case Cancelled(refunds=refunds):
            for refund in refunds:
                fee = state.setup.fee if state.started_at is None else 0
                to = account_id(refund.player)
                work.move(at_key, request, refund.amount - fee, source=pool_id(key), to=to)
                work.move(at_key, request, fee, source=house_id(), to=to)
        case _:
            pass  # the stream's own record: nothing moves


def _bank_left(table: Table, number: int) -> int | None:
    """The time bank seat ``number`` has left, which a moved player takes
    to their new table (docs/rules.md, "The time bank"); None at a table
    without time banks."""
    seat = table.seat(number)
    assert seat is not None  # the director moves a seated player
    return seat.bank if table.config is not None and table.config.time_bank is not None else None


def _opened(work: Work, table: UUID) -> bool:
    return work.stream(table).version > 0


def _close(
    work: Work, key: UUID, number: int, *, at_key: str, request: str, at: int, reason: str
) -> None:
    work.at_table(at_key, CloseTable(at, reason), request, table=tournament_table_id(key, number))


def tournament(work: Work, key: UUID) -> TournamentStream:
    """The tournament as the request has it: as stored (the room's copy,
    brought up to date), and then as it has recorded in it."""
    if work.tournament is None or work.tournament.id != key:
        work.tournament = work.held.tournament(key)
    return work.tournament


def advance(work: Work, key: UUID, request: str, at: int) -> None:
    """The tournament's clock: the levels that have run their time or
    their hands give way to the next (and registration closes with its
    level), recorded whether or not a table deals after."""
    stream = tournament(work, key)
    state = stream.tournament
    if state.running:
        record(work, stream, f"clock/{state.level}/{at}", request, state.tick(at), at=at)


def begin_hand(
    work: Work, key: UUID, number: int, *, table_key: str, request: str, at: int
) -> None:
    """Before table ``number`` deals (after :func:`advance`): the hand
    begun at the current level, and the table's stakes changed to it under
    the deal's ``table_key``. Raises the tournament's refusal (a
    :class:`~feltline.engine.tournament.WaitingToDeal`) when the table may
    not deal now."""
    stream = tournament(work, key)
    state = stream.tournament
    begun = state.begin_hand(number, at)
    hand = state.tables[number].hands + 1
    record(work, stream, f"table/{number}/hand/{hand}/begin", request, begun, at=at)
    stakes = state.stakes(state.level)
    assert stakes is not None  # begin_hand refuses a break
    work.at_table(table_key, ChangeStakes(stakes), request)


def hand_ended(
    work: Work, key: UUID, number: int, *, table_key: str, request: str, at: int
) -> None:
    """After the hand at the tournament's table ``number`` ends (its
    EndHand in ``work`` under ``table_key``): the tournament records the
    stacks, and what follows from them is carried out."""
    finished = next(
        e for e in reversed(work.table.commands[table_key].events) if isinstance(e, HandFinished)
    )
    hand = work.table.table.hands
    stream = tournament(work, key)
    ended = stream.tournament.end_hand(number, hand, dict(finished.stacks), at)
    record(work, stream, f"table/{number}/hand/{hand}/end", request, ended, at=at)
