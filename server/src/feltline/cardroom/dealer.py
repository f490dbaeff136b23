"""What the dealer does inside a request's unit of work: deal a hand from
its seed, fold players who stood up when their turn comes, and settle a
hand that ended at its table (and at a match's table, hand the chips back
to the match's bank and record the deal; at a tournament's, have its
director record the result and carry out what follows) in the same
transaction."""

from __future__ import annotations

from feltline.cardroom import director
from feltline.cardroom.work import Work
from feltline.domain.hand import HandStream
from feltline.domain.ids import bank_id, hand_id
from feltline.engine.errors import RuleError
from feltline.engine.hand.commands import Act, StartHand, TimeOut
from feltline.engine.hand.events import Action, HandEnded, HandStarted, PassedOut
from feltline.engine.hand.script import Phase
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.commands import DealHand, EndHand, StandUp
from feltline.engine.table.events import HandDealt, HandFinished


def deal(work: Work, key: str, request: str, seed: bytes, at: int) -> int:
    """Deal the table's next hand from ``seed`` into ``work``, filed under
    ``key``; its number. The table records only the seed's commitment, the
    hand the seed."""
    dealt = work.at_table(key, DealHand(at, seed), request, work.table.table.hands + 1)[-1]
    assert isinstance(dealt, HandDealt)
    config = work.table.table.config
    assert config is not None
    work.hand = HandStream.new(hand_id(work.table.id, dealt.hand))
    start = StartHand(config.rules_at(dealt.turn), dealt.deal, seed, config.seat_entropy)
    work.at_hand(f"table/{key}", start, request, at)
    started = work.hand_events[0]
    if not isinstance(started, HandStarted) or started.commitment != dealt.commitment:
        raise RuntimeError(f"hand {dealt.hand} does not start from the table's commitment")
    follow(work, key, f"table/{key}", request, at)
    return dealt.hand


def follow(work: Work, table_key: str, hand_key: str, request: str, at: int) -> None:
    """After the hand moves on: fold players who stood up when their turn
    comes, and when the hand ends, settle it at the table."""
    assert work.hand is not None
    while True:
        hand = work.hand.hand
        if hand.phase is Phase.ENDED:
            ended = work.hand_events[-1]
            assert isinstance(ended, HandEnded)
            passed = next((e for e in work.hand_events if isinstance(e, PassedOut)), None)
            work.at_table(
                table_key,
                EndHand(ended.stacks, passed, ended.rake),
                request,
                work.table.table.hands,
            )
            _end_deal(work, table_key, request)
            tournament = work.held.tournament_of(work.table)
            if tournament is not None:
                director.hand_ended(work, *tournament, table_key=table_key, request=request, at=at)
            return
        waiting = waiting_on(hand)
        leaving = work.table.table.leaving if waiting else ()
        seat = next((s for s in waiting if s in leaving), None)
        if seat is None:
            return
        try:
            work.at_hand(hand_key, Act(seat, Action.FOLD), request, at)
        except RuleError:  # not a betting turn, or a bring-in that must be posted
            work.at_hand(hand_key, TimeOut(seat), request, at)


def _end_deal(work: Work, table_key: str, request: str) -> None:
    """After a match table's hand ends: every seat's stack goes back to the
    table's bank, and the match records the table's stacks (and, from the
    last table to end the deal, its seed) in the same transaction."""
    where = work.held.match_of(work.table)
    if where is None:
        return
    key, number = where
    table = work.table.table
    deal = table.hands
    finished = work.table.commands[table_key].events
    stacks = {s.number: s.stack for s in table.seats}
    if not any(isinstance(e, HandFinished) for e in finished):
        raise RuntimeError(f"table {work.table.id} ended deal {deal} without its stacks")
    work.bank = bank_id(key, number)
    for seat in sorted(stacks):
        work.at_table(table_key, StandUp(seat), request, deal)
    stream = work.held.streams.match(key)
    events = stream.match.end_deal(number, deal, stacks)
    records, _ = stream.record(f"deal/{deal}/table/{number}", request, events)
    work.records += records
