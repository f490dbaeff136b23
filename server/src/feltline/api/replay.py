"""``ReplayService``: finished hands after the fact (docs/api.md, Replay).

A table's own stream says which hands it dealt (``HandDealt``) and took
the result of (``HandFinished``): that is what makes a hand finished, and
its seed revealed. Every event goes out through the same viewer policy as
a watch (:mod:`feltline.api.redaction`) with the hand ended: a player sees
its own cards and what was shown, a spectator the public part, an auditor
everything; an admin reads a finished hand as an auditor does. Verifying
and exporting reuse ``feltline-replay`` itself over this server's rows
(:mod:`feltline.store.rows`), so the server's answer is the auditor's tool's.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from feltline import metrics
from feltline.api import pages, views
from feltline.api.auth import require_role
from feltline.api.convert import Where
from feltline.api.errors import ApiError
from feltline.api.feed import Stored
from feltline.api.rail import Rail
from feltline.api.redaction import Viewer, sees_down_cards, view
from feltline.api.tables import ANYONE
from feltline.api.tokens import Caller
from feltline.audit.checkpoint import Note
from feltline.audit.leaves import hand_leaf
from feltline.cardroom.errors import Unreadable
from feltline.cardroom.register import NotCosigned, NotLogged
from feltline.cardroom.room import Room
from feltline.domain.ids import hand_id
from feltline.engine.cards.card import Card
from feltline.engine.hand.events import (
    Acted,
    BetsCollected,
    Declared,
    Drew,
    HandEnded,
    Posted,
    PotAwarded,
    Shown,
    StreetBegan,
)
from feltline.engine.hand.rules import Game
from feltline.engine.hand.state import Hand
from feltline.engine.hand.turn import waiting_on
from feltline.engine.table.events import HandDealt, HandFinished
from feltline.projections import hands
from feltline.projections.hands import Key
from feltline.projections.projector import Projector
from feltline_protos.v1 import (
    auth_pb2,
    common_pb2,
    errors_pb2,
    events_pb2,
    replay_pb2,
    replay_pb2_grpc,
    tables_pb2,
)
from feltline_replay import log
from feltline_replay import verify as checks
from feltline_replay.export import Selection, export
from feltline_replay.histories import FORMATS, Format, LoggedHand, logged_hands
from feltline_replay.show import Viewer as Reader
from feltline_replay.store import record

R = errors_pb2.ErrorReason
PLAYER, SPECTATOR = auth_pb2.ROLE_PLAYER, auth_pb2.ROLE_SPECTATOR
AUDITOR, ADMIN = auth_pb2.ROLE_AUDITOR, auth_pb2.ROLE_ADMIN
RECALLED = 10  # GLI-19: the last ten games
BATCH = 256 * 1024  # characters of log lines per ExportHands message
SOURCE = "feltline server"
# The hand-history formats ExportHands offers beside the portable log.
HISTORIES: dict[replay_pb2.ExportFormat.ValueType, Format] = {
    replay_pb2.EXPORT_FORMAT_PHH: FORMATS["phh"],
    replay_pb2.EXPORT_FORMAT_OHH: FORMATS["ohh"],
    replay_pb2.EXPORT_FORMAT_POKERSTARS: FORMATS["pokerstars"],
    replay_pb2.EXPORT_FORMAT_HTML: FORMATS["html"],
}
CHOICES = (Posted, Acted, Drew, Declared)
WATCH_EVERY = 0.25  # seconds between looks for a new checkpoint


@dataclass(frozen=True)
class Finished:
    """A hand its table dealt and took the result of, as its table's stream
    says."""

    table: UUID
    dealt: HandDealt
    finished: HandFinished
    game: common_pb2.Game.ValueType
    table_name: str

    @property
    def number(self) -> int:
        return self.dealt.hand

    @property
    def id(self) -> UUID:
        return hand_id(self.table, self.dealt.hand)

    def key(self) -> Key:
        return self.dealt.at, str(self.table), self.dealt.hand

    def seats(self) -> set[str]:
        return {s.player for s in self.dealt.deal.seats}


Pair = tuple[HandDealt, HandFinished | None]


@dataclass
class Dealt:
    """A table's hands as far as its stream was read: through ``position``,
    each dealt hand with its result (None while in play), and the number
    of the hand in play there (0 for none)."""

    position: int = 0
    hands: dict[int, Pair] = field(default_factory=dict)
    playing: int = 0


@dataclass(frozen=True)
class Wanted:
    """ListHands' filters: each None or empty for any."""

    table: UUID | None
    player: str
    since: int | None
    until: int | None

    def takes(self, f: Finished) -> bool:
        return (
            (not self.player or self.player in f.seats())
            and (self.since is None or f.dealt.at >= self.since)
            and (self.until is None or f.dealt.at < self.until)
        )


def _key(key: pages.Key) -> Key:
    at, table, number = key
    return int(at), str(table), int(number)


def _summary(h: hands.FinishedHand) -> replay_pb2.HandSummary:
    """A hand in brief from the hand index: what :meth:`ReplayServicer.summary`
    makes of its records."""
    return replay_pb2.HandSummary(
        hand_id=h.hand_id,
        table_id=h.table_id,
        hand_number=h.number,
        game=common_pb2.Game.Value("GAME_" + Game(h.game).name),
        start_time=_timestamp(h.at),
        end_time=_timestamp(h.ended_at),
        button=h.button,
        seats=[
            replay_pb2.HandResult(
                seat=s.seat,
                player_id=s.player,
                starting_stack=s.start,
                final_stack=s.final,
                bet=s.bet,
                won=s.won,
            )
            for s in h.seats
        ],
        rake=h.rake,
        cancelled=h.cancelled,
    )


def _timestamp(seconds: int | None) -> Timestamp:
    return Timestamp(seconds=seconds or 0)


def _no_hand(hand: str) -> ApiError:
    return ApiError(
        R.ERROR_REASON_HAND_NOT_FOUND,
        f"no table dealt a hand {hand}: take hand ids from ListHands or from Event.hand_id",
        metadata={"hand_id": hand},
    )


class ReplayServicer(replay_pb2_grpc.ReplayServiceServicer):
    def __init__(self, room: Room, rail: Rail, projector: Projector | None = None) -> None:
        self.room = room
        self.rail = rail
        # The hand index, where this server reads the views: ListHands pages it.
        views = {} if projector is None else projector.views
        self.index = views.get("hand_index")
        self.rows = self.room.rows(SOURCE)
        # Hand ids by the table and number they name, as far as each table
        # has been looked through: a hand id cannot be turned back into them.
        self._named: dict[UUID, tuple[UUID, int]] = {}
        self._through: dict[UUID, int] = {}
        # Each table's hands as far as its stream was read (see dealt).
        self._reading = threading.Lock()
        self._dealt: dict[UUID, Dealt] = {}
        # Each table's stream as VerifyHand last checked it: digest, result.
        self._folded: dict[UUID, tuple[bytes, checks.Folded]] = {}

    # ---- finding hands

    def dealt(self, table: UUID) -> dict[int, Pair]:
        """Each hand the table dealt, by number, with the result the table
        took of it (None while in play). The table's stream is read once:
        each call reads only what was stored since the last."""
        with self._reading:
            kept = self._dealt.setdefault(table, Dealt())
            for s in self.rail.table_records(table, kept.position):
                if isinstance(s.event, HandDealt):
                    kept.hands[s.event.hand] = s.event, None
                    kept.playing = s.event.hand
                elif isinstance(s.event, HandFinished) and kept.playing:
                    kept.hands[kept.playing] = kept.hands[kept.playing][0], s.event
                    kept.playing = 0
                kept.position = s.position
            return dict(kept.hands)

    def setting(self, table: UUID) -> tuple[common_pb2.Game.ValueType, str]:
        """The table's game and name, as a hand's summary and recall give them."""
        t = self.room.table(table).table
        assert t.config is not None
        game = common_pb2.Game.Value("GAME_" + t.config.rules.game.name)
        return game, t.name or f"{t.config.rules.game} table"

    def finished(self, table: UUID) -> tuple[list[Finished], set[int]]:
        """The table's finished hands, in order, and the numbers of those
        still in play. A match's hand is in play until the match reveals
        its deal: the same cards may still be in play at another table."""
        game, name = self.setting(table)
        revealed = self.room.revealed(table)  # the match's, read once for every hand
        done: list[Finished] = []
        playing: set[int] = set()
        for number, (dealt, result) in sorted(self.dealt(table).items()):
            if result is not None and (revealed is None or number <= revealed):
                done.append(Finished(table, dealt, result, game, name))
            else:
                playing.add(number)
        return done, playing

    def every_hand(self) -> list[Finished]:
        """Every finished hand, oldest first; a table that cannot be read is
        left out, as ListTables does."""
        found: list[Finished] = []
        for key in self.room.tables():
            try:
                found.extend(self.finished(key)[0])
            except Unreadable:  # logged once where it was found
                continue
        return sorted(found, key=Finished.key)

    def named(self, wanted: UUID) -> tuple[UUID, int] | None:
        """The table and number of the hand with stream id ``wanted``, if
        any table dealt it."""
        if wanted not in self._named:
            for key in self.room.tables():
                try:
                    dealt = self.room.table(key).table.hands
                except Unreadable:  # its hands are not served; the others' are
                    continue
                for number in range(self._through.get(key, 0) + 1, dealt + 1):
                    self._named[hand_id(key, number)] = key, number
                self._through[key] = max(dealt, self._through.get(key, 0))
        return self._named.get(wanted)

    def hand(self, text: str) -> Finished:
        """The finished hand with stream id ``text``."""
        found = self.named(UUID(text))
        if found is not None:
            key, number = found
            dealt, result = self.dealt(key).get(number, (None, None))
            revealed = self.room.revealed(key)
            shown = revealed is None or number <= revealed
            if dealt is not None and result is not None and shown:
                return Finished(key, dealt, result, *self.setting(key))
            if dealt is not None:
                raise ApiError(
                    R.ERROR_REASON_HAND_IN_PROGRESS,
                    f"hand {text} (hand {number} of table {key}) is still in play (or, at a "
                    "duplicate match's table, its deal is at another table): it can be "
                    "replayed once it has ended everywhere, when its seed is revealed",
                    metadata={"hand_id": text, "table_id": str(key)},
                )
        raise _no_hand(text)

    def records(self, f: Finished) -> list[Stored]:
        """The hand's stored events, its seal left out."""
        return [s for s in self.rail.hand_records(f.table, f.number) if s is not None]

    # ---- who sees what

    def viewer(self, caller: Caller, f: Finished) -> Viewer:
        """``caller`` as a viewer of the finished hand ``f``: a player only
        of a hand it was dealt into; an admin as an auditor."""
        if caller.role == ADMIN:
            return Viewer(AUDITOR)
        who = Viewer.of(caller, f.dealt.deal.seats)
        if caller.role == PLAYER and who.seat is None:
            raise ApiError(
                R.ERROR_REASON_NOT_YOUR_SEAT,
                f"{caller.player_id} was not dealt into hand {f.id}: a player replays "
                "its own hands only",
                metadata={"hand_id": str(f.id)},
            )
        return who

    def events(self, who: Viewer, f: Finished, stored: list[Stored]) -> list[events_pb2.Event]:
        return [view(who, s.event, self.where(f, s), ended=True) for s in stored]

    @staticmethod
    def where(f: Finished, s: Stored) -> Where:
        return Where(str(f.table), s.position, f.number, str(f.id), views.when(s.at))

    # ---- summaries

    @staticmethod
    def summary(f: Finished, stored: list[Stored]) -> replay_pb2.HandSummary:
        bet: dict[int, int] = {}
        won: dict[int, int] = {}
        final: dict[int, int] = dict(f.finished.stacks)
        ended: HandEnded | None = None
        for s in stored:
            match s.event:
                case Posted(seat=seat, amount=amount) | Acted(seat=seat, amount=amount):
                    bet[seat] = bet.get(seat, 0) + amount
                case BetsCollected(returned_to=seat, returned=amount) if seat is not None:
                    bet[seat] = bet.get(seat, 0) - amount
                case PotAwarded(shares=shares):
                    for share in shares:
                        won[share.seat] = won.get(share.seat, 0) + share.amount
                case HandEnded() as e:
                    ended = e
        return replay_pb2.HandSummary(
            hand_id=str(f.id),
            table_id=str(f.table),
            hand_number=f.number,
            game=f.game,
            start_time=_timestamp(f.dealt.at),
            end_time=_timestamp(stored[-1].at if stored else f.dealt.at),
            button=f.dealt.deal.button,
            seats=[
                replay_pb2.HandResult(
                    seat=s.seat,
                    player_id=s.player,
                    starting_stack=s.stack,
                    final_stack=final.get(s.seat, 0),
                    bet=bet.get(s.seat, 0),
                    won=won.get(s.seat, 0),
                )
                for s in f.dealt.deal.seats
            ],
            rake=f.finished.rake,
            cancelled=ended is not None and ended.cancelled,
        )

    # ---- the calls

    def ListHands(
        self, request: replay_pb2.ListHandsRequest, context: grpc.ServicerContext
    ) -> replay_pb2.ListHandsResponse:
        caller = require_role(*ANYONE)
        player = request.player_id
        if caller.role == PLAYER:
            if player and player != caller.player_id:
                raise ApiError(
                    R.ERROR_REASON_NOT_YOUR_SEAT,
                    f"a player lists its own hands only: leave player_id empty or send "
                    f"{caller.player_id}",
                    violations=[("player_id", "must be empty or the caller's own")],
                )
            player = caller.player_id
        since, until = views.time_range(request)
        asked = pages.query("ListHands", request.table_id, player, since, until)
        after = pages.after(asked, request.page_token, (int, str, int))
        table = UUID(request.table_id) if request.table_id else None
        if table is not None and table not in self.room.tables():
            raise ApiError(
                R.ERROR_REASON_TABLE_NOT_FOUND,
                f"no table {table}",
                metadata={"table_id": str(table)},
            )
        wanted = Wanted(table, player, since, until)
        size = pages.size(request.page_size)
        found = self.listed(wanted, None if after is None else _key(after), size + 1)
        return replay_pb2.ListHandsResponse(
            hands=[summary for _, summary in found[:size]],
            next_page_token=pages.token(asked, found[size - 1][0]) if len(found) > size else "",
        )

    def listed(
        self, wanted: Wanted, after: Key | None, limit: int
    ) -> list[tuple[Key, replay_pb2.HandSummary]]:
        """Up to ``limit`` finished hands ``wanted``, after the key ``after``,
        by key. Each table's hands that the hand index holds come from it;
        the rest (the index behind the log, or no index) from the log."""
        served = self.served(wanted.table)
        indexed = {} if self.index is None else hands.done(self.index)
        found: list[tuple[Key, replay_pb2.HandSummary]] = []
        if self.index is not None:
            # A table served only so far (a match's deal not yet revealed, a
            # table this process cannot read) has its index cut there.
            cut = {t: served.get(t, 0) for t, n in indexed.items() if served.get(t, 0) < n}
            found += [
                (h.key(), _summary(h))
                for h in hands.finished_hands(
                    self.index,
                    table_id="" if wanted.table is None else str(wanted.table),
                    player=wanted.player,
                    since=wanted.since,
                    until=wanted.until,
                    after=after,
                    last=cut,
                    limit=limit,
                )
            ]
        for table, last in served.items():
            held = indexed.get(table, 0)
            if held >= last:
                continue
            logged = [
                f
                for f in self.finished(UUID(table))[0]
                if held < f.number <= last
                and wanted.takes(f)
                and (after is None or f.key() > after)
            ]
            found += [(f.key(), self.summary(f, self.records(f))) for f in logged[:limit]]
        return sorted(found, key=lambda pair: pair[0])[:limit]

    def served(self, table: UUID | None) -> dict[str, int]:
        """The last hand served of each table (of ``table`` only, if given),
        by table id: every hand before it is finished, and at a match's
        table revealed. A table that cannot be read is left out."""
        out: dict[str, int] = {}
        for key in self.room.tables() if table is None else [table]:
            try:
                t = self.room.table(key).table
            except Unreadable:  # logged once where it was found
                continue
            last = t.hands - (t.dealt is not None)
            revealed = self.room.revealed(key)
            out[str(key)] = last if revealed is None else min(last, revealed)
        return out

    def GetHand(
        self, request: replay_pb2.GetHandRequest, context: grpc.ServicerContext
    ) -> replay_pb2.GetHandResponse:
        caller = require_role(*ANYONE)
        f = self.hand(request.hand_id)
        who = self.viewer(caller, f)
        stored = self.records(f)
        return replay_pb2.GetHandResponse(
            hand=self.summary(f, stored),
            events=self.events(who, f, stored),
            inclusion=self.inclusion(f),
        )

    async def StreamHandSteps(
        self,
        request: replay_pb2.StreamHandStepsRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[replay_pb2.StreamHandStepsResponse]:
        caller = require_role(*ANYONE)
        steps = await asyncio.to_thread(self.steps, caller, request.hand_id)
        for step in steps:
            yield step

    def steps(self, caller: Caller, text: str) -> list[replay_pb2.StreamHandStepsResponse]:
        f = self.hand(text)
        who = self.viewer(caller, f)
        out = []
        shown: dict[int, tuple[Card, ...]] = {}
        street = ""
        for s in self.records(f):
            if isinstance(s.event, Shown):
                shown[s.event.seat] = s.event.cards
            if isinstance(s.event, StreetBegan):
                street = s.event.name
            assert s.after is not None  # hand records come folded
            state = self.state(s.after, who, f, s.position, street, shown)
            event = view(who, s.event, self.where(f, s), ended=True)
            out.append(replay_pb2.StreamHandStepsResponse(event=event, state=state))
        return out

    @staticmethod
    def state(  # noqa: PLR0917 (the hand, its viewer and where it stands: one call per step)
        hand: Hand,
        who: Viewer,
        f: Finished,
        sequence: int,
        street: str,
        shown: dict[int, tuple[Card, ...]],
    ) -> tables_pb2.HandView:
        """The hand after one step as ``who`` may see it: a seat's face-down
        cards where the policy lets it, or as far as they were shown."""
        message = tables_pb2.HandView(
            hand_number=f.number,
            hand_id=str(f.id),
            sequence=sequence,
            phase=views.PHASES[hand.phase],
            street=street,
            button=hand.button,
            board=[str(c) for c in hand.board],
            pot=hand.pot,
        )
        for p in hand.players:
            up = set(p.up)
            down = [c for c in p.cards if c not in up]
            if not sees_down_cards(who, p.seat, ended=True):
                seen = set(shown.get(p.seat, ()))
                down = [c for c in down if c in seen]
            message.seats.append(
                tables_pb2.HandSeat(
                    seat=p.seat,
                    player_id=p.player,
                    stack=p.stack,
                    bet=p.bet,
                    folded=p.folded,
                    all_in=not p.folded and p.stack == 0,
                    up_cards=[str(c) for c in p.up],
                    down_cards=[str(c) for c in down],
                    hidden_cards=len([c for c in p.cards if c not in up]) - len(down),
                )
            )
        waiting = waiting_on(hand)
        if waiting:
            message.turn.CopyFrom(tables_pb2.Turn(seat=waiting[0]))
        return message

    def VerifyHand(
        self, request: replay_pb2.VerifyHandRequest, context: grpc.ServicerContext
    ) -> replay_pb2.VerifyHandResponse:
        require_role(AUDITOR, ADMIN)
        f = self.hand(request.hand_id)
        key = self.room.public_key
        # What `feltline-replay verify --all-signatures` does with the table's
        # stream and this hand's: the table's own checks kept while its stream
        # stays as it was, the hand's (about 1 ms) made each time.
        verifier = checks.Verifier(key, complete=False, all_signatures=True)
        verifier.table(self.folded(f.table))
        stream = hand_id(f.table, f.number)
        rows = [record(stream, *row) for row in self.rows.stream(stream)]
        if rows:
            verifier.hand(checks.check_hand(rows, every=True))
        report = verifier.finish()
        for failure in report.failures:
            metrics.VERIFY_FAILURES.labels(failure.check).inc()
        try:  # a hand whose records do not decode still gets its report
            summary = self.summary(f, self.records(f))
        except Unreadable:
            summary = None
        return replay_pb2.VerifyHandResponse(
            ok=report.ok,
            hand=summary,
            failures=[
                replay_pb2.VerifyFailure(
                    check=failure.check,
                    kind=failure.kind,
                    stream_id=failure.id,
                    position=failure.position or 0,
                    expected=failure.expected,
                    found=failure.found,
                )
                for failure in report.failures
            ],
            public_key=key,
        )

    def folded(self, table: UUID) -> checks.Folded:
        """The table's stream checked on its own (chain, every signature, hand
        numbers, starting stacks, the deals its hands are tied to), kept with
        a digest of every stored byte of it: a record added or changed gives
        another digest, and the stream is checked again."""
        rows = list(self.rows.stream(table))
        digest = hashlib.blake2b()
        for version, topic, raw, _ in rows:
            digest.update(f"{version} {topic} {len(raw)}\n".encode())
            digest.update(raw)
        kept = self._folded.get(table)
        if kept is not None and kept[0] == digest.digest():
            return kept[1]
        made = checks.fold_table([record(table, *row) for row in rows], every=True)
        self._folded[table] = digest.digest(), made
        return made

    async def ExportHands(
        self, request: replay_pb2.ExportHandsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[replay_pb2.ExportHandsResponse]:
        history = HISTORIES.get(request.format)
        caller = require_role(*ANYONE)
        if history is None and caller.role not in (AUDITOR, ADMIN):
            formats = ", ".join(replay_pb2.ExportFormat.Name(f) for f in HISTORIES)
            raise ApiError(
                R.ERROR_REASON_ROLE_FORBIDDEN,
                "the portable log (EXPORT_FORMAT_FELTLINE_LOG) is every record as stored, "
                "face-down cards and seeds included: it is for auditor or admin tokens; a "
                f"player or a spectator may ask for the hand histories {formats}",
                metadata={"formats": formats},
            )
        players = tuple(request.player_ids)
        if caller.role == PLAYER:
            if set(players) - {caller.player_id}:
                raise ApiError(
                    R.ERROR_REASON_NOT_YOUR_SEAT,
                    f"a player exports its own hands only: leave player_ids empty or send "
                    f"{caller.player_id}",
                    violations=[("player_ids", "must be empty or the caller's own")],
                )
            players = (caller.player_id,)
        since, until = views.time_range(request, inclusive=True)
        selection = Selection(
            tables=tuple(UUID(t) for t in request.table_ids),
            hands=tuple(UUID(h) for h in request.hand_ids),
            players=players,
            since=since,
            until=until,
            last=request.last or None,
        )
        if history is None:
            batches = self.batches(selection)
            while batch := await asyncio.to_thread(next, batches, None):
                yield replay_pb2.ExportHandsResponse(lines=batch)
            return
        left_out: list[replay_pb2.LeftOutHand] = []
        pieces = self.history(selection, history, _reader(caller), left_out)
        while piece := await asyncio.to_thread(next, pieces, None):
            yield replay_pb2.ExportHandsResponse(text=piece)
        yield replay_pb2.ExportHandsResponse(left_out=left_out)

    def history(
        self,
        selection: Selection,
        form: Format,
        reader: Reader,
        left_out: list[replay_pb2.LeftOutHand],
    ) -> Iterator[str]:
        """The hands as one file of ``form``, as ``reader`` may see them,
        about ``BATCH`` characters at a time; each hand the format cannot
        hold is noted in ``left_out``."""
        key = self.room.public_key

        def held(hand: LoggedHand) -> bool:
            reason = form.refuses(hand)
            if reason is not None:
                left_out.append(replay_pb2.LeftOutHand(hand_id=hand.id, reason=reason))
            return reason is None

        logged = export(self.rows, selection, public_key=key, withheld=self.room.unrevealed)
        found = logged_hands(logged, reader)
        pending: list[str] = []
        size = 0
        for piece in form.many(filter(held, found)):
            pending.append(piece)
            size += len(piece)
            if size >= BATCH:
                yield "".join(pending)
                pending, size = [], 0
        if pending:
            yield "".join(pending)

    def batches(self, selection: Selection) -> Iterator[list[str]]:
        """The log's lines, about ``BATCH`` characters at a time."""
        key = self.room.public_key
        batch: list[str] = []
        size = 0
        for stored in export(self.rows, selection, public_key=key, withheld=self.room.unrevealed):
            text = log.line(stored)
            batch.append(text)
            size += len(text)
            if size >= BATCH:
                yield batch
                batch, size = [], 0
        if batch:
            yield batch

    def RecallHands(
        self, request: replay_pb2.RecallHandsRequest, context: grpc.ServicerContext
    ) -> replay_pb2.RecallHandsResponse:
        caller = require_role(PLAYER, AUDITOR, ADMIN)
        player = request.player_id or caller.player_id
        if caller.role == PLAYER and player != caller.player_id:
            raise ApiError(
                R.ERROR_REASON_NOT_YOUR_SEAT,
                f"a player recalls its own hands only: leave player_id empty or send "
                f"{caller.player_id}",
                violations=[("player_id", "must be empty or the caller's own")],
            )
        if not player:
            raise ApiError(
                R.ERROR_REASON_INVALID_REQUEST,
                "name the player whose hands to recall",
                violations=[("player_id", "required for an auditor or an admin")],
            )
        if caller.role != PLAYER and not self.room.has_account(player):
            raise ApiError(  # as the Ledger answers a player no account was opened for
                R.ERROR_REASON_ACCOUNT_NOT_FOUND,
                f"there is no account for {player}",
                metadata={"player_id": player},
            )
        hands = [f for f in self.every_hand() if player in f.seats()][-RECALLED:]
        return replay_pb2.RecallHandsResponse(hands=[self.recalled(f, player) for f in hands])

    def recalled(self, f: Finished, player: str) -> replay_pb2.RecalledHand:
        """One hand as its player recalls it, whoever asks."""
        seat = next(s.seat for s in f.dealt.deal.seats if s.player == player)
        who = Viewer(PLAYER, seat)
        stored = self.records(f)
        summary = self.summary(f, stored)
        played = datetime.fromtimestamp(f.dealt.at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        mine = [s for s in stored if isinstance(s.event, CHOICES) and s.event.seat == seat]
        return replay_pb2.RecalledHand(
            replay=True,
            title=f"REPLAY: hand {f.number} at {f.table_name}, played {played}",
            hand=summary,
            seat=seat,
            result=next(r for r in summary.seats if r.seat == seat),
            choices=self.events(who, f, mine),
            events=self.events(who, f, stored),
            inclusion=self.inclusion(f),
        )

    # ---- the transparency log (docs/transparency.md)

    def checkpoint(self, note: str) -> replay_pb2.Checkpoint:
        """A signed note as the API serves it, with the key that signed it."""
        body = Note.parse(note).checkpoint
        return replay_pb2.Checkpoint(
            note=note,
            origin=body.origin,
            size=body.size,
            root_hash=body.root,
            verifier_key=self.room.register.verifier_key,
        )

    def inclusion(self, f: Finished) -> replay_pb2.InclusionProof | None:
        """The hand's inclusion proof against the newest checkpoint, one
        signed now if none covers it yet; None if it is not logged."""
        register = self.room.register
        try:
            index, size, proof = register.inclusion(f.id)
        except NotLogged:
            register.checkpoint()
            try:
                index, size, proof = register.inclusion(f.id)
            except NotLogged:
                return None
        note = register.note(size)
        return replay_pb2.InclusionProof(
            leaf=hand_leaf(str(f.id), register.seal(index)).decode(),
            leaf_index=index,
            tree_size=size,
            hashes=proof,
            checkpoint=self.checkpoint(note),
        )

    def GetCheckpoint(
        self, request: replay_pb2.GetCheckpointRequest, context: grpc.ServicerContext
    ) -> replay_pb2.GetCheckpointResponse:
        require_role(*ANYONE)
        return replay_pb2.GetCheckpointResponse(
            checkpoint=self.checkpoint(self.room.register.checkpoint())
        )

    async def WatchCheckpoints(
        self,
        request: replay_pb2.WatchCheckpointsRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[replay_pb2.WatchCheckpointsResponse]:
        require_role(*ANYONE)
        register = self.room.register
        sent = await asyncio.to_thread(register.checkpoint)
        yield replay_pb2.WatchCheckpointsResponse(checkpoint=self.checkpoint(sent))
        while True:
            await asyncio.sleep(WATCH_EVERY)
            note = register.latest()
            if note is not None and note != sent:
                sent = note
                yield replay_pb2.WatchCheckpointsResponse(checkpoint=self.checkpoint(note))

    def AddCosignature(
        self, request: replay_pb2.AddCosignatureRequest, context: grpc.ServicerContext
    ) -> replay_pb2.AddCosignatureResponse:
        require_role(*ANYONE)
        try:
            note = self.room.register.cosign(request.note, request.witness_key)
        except NotCosigned as e:
            raise ApiError(
                R.ERROR_REASON_INVALID_REQUEST,
                f"no cosignature kept: {e}",
                violations=[("note", str(e))],
            ) from None
        return replay_pb2.AddCosignatureResponse(checkpoint=self.checkpoint(note))

    def GetConsistencyProof(
        self, request: replay_pb2.GetConsistencyProofRequest, context: grpc.ServicerContext
    ) -> replay_pb2.GetConsistencyProofResponse:
        require_role(*ANYONE)
        register = self.room.register
        newest = register.size()
        first, second = request.first_size, request.second_size or newest
        if second > newest:
            raise ApiError(
                R.ERROR_REASON_INVALID_REQUEST,
                f"the newest checkpoint is of {newest} leaves, not {second}",
                violations=[("second_size", f"at most {newest}, or 0 for the newest")],
            )
        if first > second:
            raise ApiError(
                R.ERROR_REASON_INVALID_REQUEST,
                f"a tree of {second} leaves cannot extend one of {first}",
                violations=[("first_size", f"at most second_size ({second})")],
            )
        return replay_pb2.GetConsistencyProofResponse(
            first_size=first, second_size=second, hashes=register.consistency(first, second)
        )


def _reader(caller: Caller) -> Reader:
    """``caller`` as a reader of the hand histories it exports: a player
    sees each hand from the seat it held there."""
    if caller.role in (AUDITOR, ADMIN):
        return Reader("auditor")
    if caller.role == PLAYER:
        return Reader("player", player=caller.player_id)
    return Reader("spectator")
