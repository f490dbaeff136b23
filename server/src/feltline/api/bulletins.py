"""A tournament's events as ``WatchTournament`` sends them
(``TournamentEvent``): each table named by its number and its id, each
time a timestamp. Every one is public; the seat draws' seed is sent only
once revealed (:class:`~feltline.engine.tournament.SeedDrawn` has no
message: its commitment is in the tournament's set-up)."""

from __future__ import annotations

from uuid import UUID

from feltline.api import views
from feltline.domain.ids import tournament_table_id
from feltline.engine import tournament as t
from feltline.engine.hand.events import Event
from feltline_protos.v1 import common_pb2, tournaments_pb2

E = tournaments_pb2.TournamentEvent


def bulletin(key: UUID, position: int, event: Event) -> tournaments_pb2.TournamentEvent | None:
    """The message of ``event``, stored at ``position`` of tournament
    ``key``; None for one that is never sent."""

    def table(number: int) -> str:
        return str(tournament_table_id(key, number))

    def chair(player: str, number: int, seat: int) -> tournaments_pb2.TournamentChair:
        return tournaments_pb2.TournamentChair(
            player_id=player, table=number, table_id=table(number), seat=seat
        )

    out = E(sequence=position)
    match event:
        case t.TournamentCreated():
            out.created.CopyFrom(E.Created(display_name=event.name, time=views.timestamp(event.at)))
        case t.Registered():
            out.registered.CopyFrom(
                E.Registered(player_id=event.player, time=views.timestamp(event.at))
            )
        case t.Unregistered():
            out.unregistered.CopyFrom(
                E.Unregistered(player_id=event.player, time=views.timestamp(event.at))
            )
        case t.Started():
            out.started.CopyFrom(E.Started(time=views.timestamp(event.at)))
        case t.SeatsDrawn():
            out.seats_drawn.CopyFrom(
                E.SeatsDrawn(
                    draw=event.draw,
                    chairs=[chair(c.player, c.table, c.seat) for c in event.chairs],
                    stack=event.stack,
                )
            )
        case t.LevelChanged():
            out.level_changed.CopyFrom(
                E.LevelChanged(level=event.level, time=views.timestamp(event.at))
            )
        case t.RegistrationClosed():
            out.registration_closed.CopyFrom(
                E.RegistrationClosed(
                    time=views.timestamp(event.at),
                    entrants=event.entrants,
                    prize_pool=event.pool,
                    shares=event.shares,
                )
            )
        case t.HandBegun():
            out.hand_begun.CopyFrom(
                E.HandBegun(
                    table=event.table,
                    table_id=table(event.table),
                    hand_number=event.hand,
                    level=event.level,
                    button=event.button,
                    big_blind=event.big_blind or 0,
                    time=views.timestamp(event.at),
                )
            )
        case t.HandPlayed():
            out.hand_played.CopyFrom(
                E.HandPlayed(
                    table=event.table,
                    table_id=table(event.table),
                    hand_number=event.hand,
                    stacks=[common_pb2.SeatAmount(seat=s, amount=a) for s, a in event.stacks],
                    time=views.timestamp(event.at),
                )
            )
        case t.Eliminated():
            out.eliminated.CopyFrom(
                E.Eliminated(
                    player_id=event.player,
                    table=event.table,
                    table_id=table(event.table),
                    seat=event.seat,
                    hand_number=event.hand,
                    stack=event.stack,
                    round=event.round,
                )
            )
        case t.Placed():
            out.placed.CopyFrom(E.Placed(place=event.place, player_ids=event.players))
        case t.Paid():
            out.paid.CopyFrom(
                E.Paid(player_id=event.player, place=event.place, amount=event.amount)
            )
        case t.PlayerMoved():
            out.player_moved.CopyFrom(
                E.PlayerMoved(
                    player_id=event.player,
                    from_chair=chair(event.player, event.from_table, event.from_seat),
                    to_chair=chair(event.player, event.to_table, event.to_seat),
                    stack=event.stack,
                    big_blind_in=event.big_blind_in,
                )
            )
        case t.TableBroken():
            out.table_broken.CopyFrom(
                E.TableBroken(table=event.table, table_id=table(event.table), draw=event.draw)
            )
        case t.HandForHandBegun():
            out.hand_for_hand_begun.CopyFrom(E.HandForHandBegun(players=event.players))
        case t.RoundPlayed():
            out.round_played.CopyFrom(E.RoundPlayed(round=event.round))
        case t.HandForHandEnded():
            out.hand_for_hand_ended.CopyFrom(E.HandForHandEnded(players=event.players))
        case t.Finished():
            out.finished.CopyFrom(
                E.Finished(player_id=event.winner, time=views.timestamp(event.at))
            )
        case t.Cancelled():
            out.cancelled.CopyFrom(
                E.Cancelled(
                    time=views.timestamp(event.at),
                    reason=event.reason,
                    refunds=[E.Refund(player_id=r.player, amount=r.amount) for r in event.refunds],
                )
            )
        case t.SeedRevealed():
            out.seed_revealed.CopyFrom(E.SeedRevealed(seed=event.seed))
        case t.SeedDrawn():  # the secret itself
            return None
        case _:
            raise TypeError(f"a tournament event with no message: {type(event).__name__}")
    return out
