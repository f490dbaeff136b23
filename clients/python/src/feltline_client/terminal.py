"""``feltline-play``: play at a Feltline table by hand, in a terminal.

    feltline-play --target localhost:50051 --token "$TOKEN" --table ID --seat 3 --buy-in 400

``--table`` takes the table's id or its name (an open table's, if only one
has it).
It follows the table's stream, prints what happens, and on your turn shows
your cards, the board and up cards, the pot, the stacks and the legal moves,
then reads one line: ``check``, ``call``, ``bet 40``, ``raise 80``,
``complete 20``, ``bring in``, ``fold``, ``draw As Kd`` (``draw`` alone
stands pat), ``declare high``; ``help``; ``quit`` stands up and leaves.
Amounts are your whole bet this round, as in the API. It reads stdin only on
your turn, so a script of moves can drive it. While you think, what happens
at the table is still printed (the prompt shown again below it), and the
prompt says the seconds left on your action clock, with a word when
10 are left; a line typed after your turn passed is not sent. While you are
dealt no hand it says what you wait for: other players, the big blind, or
the next hand.

In a tournament you have entered, ``--tournament ID`` (instead of
``--table``) plays your seat wherever its director puts you: it follows the
tournament and takes you to your new table when you are moved (a table
balanced or broken), until you are out or have won. ``quit`` leaves the
terminal; the action clock plays your hands for you from then on.
"""

from __future__ import annotations

import argparse
import math
import os
import queue
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, TypeAlias

from feltline_client.client import Client, Tls
from feltline_client.contribution import Contribution
from feltline_client.errors import FeltlineError
from feltline_client.table import (
    ACTION_NAMES,
    Spot,
    Tracker,
    find_table,
    parse_move,
    pot_counted,
    rotation_said,
    send,
)
from feltline_protos.v1 import (
    common_pb2,
    events_pb2,
    replay_pb2,
    tables_pb2,
    tournaments_pb2,
    watch_pb2,
)

VERBS = {
    "fold": "folds",
    "check": "checks",
    "call": "calls",
    "bet": "bets",
    "raise": "raises",
    "bring_in": "brings in",
    "complete": "completes",
}
REMIND_AT = 10  # seconds left on your clock when it is said, once a turn
FORCED = {
    common_pb2.FORCED_BET_ANTE: "an ante",
    common_pb2.FORCED_BET_SMALL_BLIND: "the small blind",
    common_pb2.FORCED_BET_BIG_BLIND: "the big blind",
}


def describe(event: events_pb2.Event, me: int) -> str | None:
    """One line about an event, or None for ones not worth a line."""
    kind = event.WhichOneof("kind")
    if kind == "hand_dealt" and event.hand_dealt.HasField("turn"):
        return f"== game: {rotation_said(event.hand_dealt.turn)}"
    if kind == "hand_started":
        return f"== hand {event.hand_number}: button at seat {event.hand_started.button}"
    if kind == "posted":
        posted = event.posted
        return (
            f"seat {posted.seat} posts {FORCED.get(posted.forced, 'a forced bet')}: {posted.amount}"
        )
    if kind == "card_dealt" and event.card_dealt.seat == me and event.card_dealt.HasField("card"):
        return f"you are dealt {event.card_dealt.card}"
    if kind == "card_dealt" and event.card_dealt.face_up:
        return f"seat {event.card_dealt.seat} is dealt {event.card_dealt.card} face up"
    if kind == "board_dealt":
        return f"board: {' '.join(event.board_dealt.cards)}"
    if kind == "street_began":
        return f"-- {event.street_began.name}"
    if kind == "acted":
        acted = event.acted
        verb = VERBS.get(ACTION_NAMES.get(acted.action, ""), "acts")
        amount = f" {acted.amount} (to {acted.total})" if acted.amount else ""
        late = " (out of time)" if acted.timed_out else ""
        return f"seat {acted.seat} {verb}{amount}{'; all in' if acted.all_in else ''}{late}"
    if kind == "time_bank_used":
        used = event.time_bank_used
        who = "your" if used.seat == me else f"seat {used.seat}'s"
        return f"{who} time bank is on the clock: {used.seconds} s more"
    if kind == "bets_collected":
        return f"pot: {event.bets_collected.pot}"
    if kind == "drew":
        drew = event.drew
        what = " ".join(drew.discards.cards) if drew.HasField("discards") else ""
        return f"seat {drew.seat} draws {drew.count}" + (f" (throws {what})" if what else "")
    if kind == "declared":
        return f"seat {event.declared.seat} has declared"
    if kind == "declarations_revealed":
        said = ", ".join(
            f"seat {c.seat} {common_pb2.Declaration.Name(c.choice).removeprefix('DECLARATION_')}"
            for c in event.declarations_revealed.choices
        )
        return f"declarations: {said}"
    if kind == "shown":
        return f"seat {event.shown.seat} shows {' '.join(event.shown.cards)}"
    if kind == "pot_awarded":
        return "; ".join(
            f"seat {s.seat} wins {s.amount}" + (f" with {s.hand}" if s.hand else "")
            for s in event.pot_awarded.shares
        )
    if kind == "hand_ended":
        if event.hand_ended.cancelled:
            return "hand cancelled: every chip returned"
        stacks = ", ".join(f"seat {s.seat} {s.amount}" for s in event.hand_ended.stacks)
        return f"hand over; stacks: {stacks}"
    if kind == "sat_down":
        return f"{event.sat_down.player_id} sits down at seat {event.sat_down.seat}"
    if kind == "stood_up":
        return f"{event.stood_up.player_id} leaves seat {event.stood_up.seat}"
    if kind == "table_closed":
        return f"the table is closed: {event.table_closed.reason}"
    return None


def render(hand: tables_pb2.HandView, me: int) -> str:
    """The table on your turn: the hand, the board, the pot and every seat."""
    lines = [f"-- hand {hand.hand_number}, {hand.street} -- pot {pot_counted(hand)}"]
    if hand.board:
        lines.append(f"   board: {' '.join(hand.board)}")
    for seat in hand.seats:
        cards = [*seat.down_cards, *["??"] * seat.hidden_cards, *seat.up_cards]
        notes = [
            "folded" if seat.folded else "",
            "all in" if seat.all_in else "",
            "button" if seat.seat == hand.button else "",
            "<- you" if seat.seat == me else "",
            "<- to act" if hand.HasField("turn") and hand.turn.seat == seat.seat else "",
        ]
        lines.append(
            f"   seat {seat.seat} {seat.player_id:<12} stack {seat.stack:<6} bet {seat.bet:<5}"
            f" [{' '.join(cards)}] {' '.join(n for n in notes if n)}".rstrip()
        )
    return "\n".join(lines)


def menu(spot: Spot) -> str:
    """The legal moves, as you would type them."""
    options = spot.options
    if options.draw:
        example = " ".join(spot.cards[:2])
        return (
            f"draw up to {options.max_discards} cards (e.g. 'draw {example}',"
            " or 'draw' to stand pat) | fold"
        )
    if options.declare:
        return "declare low | declare high | declare both"
    words = []
    for kind in spot.allowed():
        if kind in ("bet", "raise", "complete"):
            words.append(f"{kind} {options.min_to}..{options.max_to}")
        elif kind == "call":
            words.append(f"call {options.call_amount}")
        else:
            words.append(kind.replace("_", " "))
    return " | ".join(words)


@dataclass(frozen=True)
class Typed:
    """A line you typed; empty at the end of input."""

    line: str


@dataclass(frozen=True)
class Ended:
    """The table's stream ended: the table closed, or ``error``."""

    error: Exception | None = None


Arrival: TypeAlias = "watch_pb2.WatchTableResponse | Typed | Ended"


class Keyboard:
    """Reads a line when asked, on a thread of its own, into the inbox the
    table's stream goes to, so the table is printed while you type. It never
    reads ahead of being asked, on your turn: a script of moves is read a
    move a turn, and what you type early waits in the terminal."""

    def __init__(self, stdin: TextIO, inbox: queue.Queue[Arrival]) -> None:
        self.stdin, self.inbox = stdin, inbox  # the inbox a line goes to when it comes
        self.reading = False  # a line is asked for and not yet taken

    def ask(self) -> None:
        """Have the next line arrive in the inbox, unless one is on its way."""
        if not self.reading:
            self.reading = True
            threading.Thread(target=self._read, name="feltline-keyboard", daemon=True).start()

    def taken(self) -> None:
        self.reading = False

    def _read(self) -> None:
        self.inbox.put(Typed(self.stdin.readline()))


def _tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # not a file, or a closed one
        return False


class Terminal:
    """The loop: print the stream, and on your turn ask for a move."""

    def __init__(
        self,
        client: Client,
        table_id: str,
        stdin: TextIO,
        stdout: TextIO,
        hands: int | None,
        *,
        save: Path | None = None,
        keyboard: Keyboard | None = None,
    ) -> None:
        self.client, self.table_id = client, table_id
        self.stdin, self.stdout, self.hands = stdin, stdout, hands
        self.save = save  # a folder: each hand you played saved there as a replayer page
        self.playing = (
            ""  # the id of the hand you were dealt into, until the table takes its result
        )
        self.tracker = Tracker()
        self.contribution = Contribution(client, table_id)  # your share of each deck
        self.players: dict[int, str] = {}  # who sits where
        self.big_blind = False  # a newcomer waiting for the big blind
        self.dealt = 0  # hands dealt at the table: the first deals everyone in
        self.waiting = ""  # what we last said we wait for, said once
        self.inbox: queue.Queue[Arrival] = queue.Queue()  # the table's stream and your typing
        # A keyboard handed on from another table types into this one's inbox.
        self.keyboard = keyboard or Keyboard(stdin, self.inbox)
        self.keyboard.inbox = self.inbox
        self.quit = False  # you left (or the input ended)
        self.asking = False  # a move is asked for on this turn
        self.prompted = False  # the prompt ends what is on screen
        self.reminded = False  # the clock's reminder was said on this turn
        self.tty = _tty(stdout)

    def say(self, text: str) -> None:
        """A line of its own: a prompt showing is wiped first on a terminal
        (what was typed stays in its input) or ended in a file, and
        ``prompt`` shows it again once the table is quiet."""
        self.unprompt()
        print(text, file=self.stdout, flush=True)

    def unprompt(self) -> None:
        if self.prompted:
            self.stdout.write("\r\x1b[K" if self.tty else "\n")
            self.prompted = False

    def run(self) -> None:
        """Until the table closes, ``hands`` hands end, or you quit.

        The table's stream is read on a thread of its own and the keyboard
        on another, both into one inbox, so what happens at the table (your
        clock running out, others acting) is printed while you think, not
        after you press Enter."""
        stop = threading.Event()
        watcher = threading.Thread(
            target=self.watch, args=(stop,), name="feltline-watch", daemon=True
        )
        watcher.start()
        try:
            while not self.over:
                self.prompt()
                try:
                    arrival = self.inbox.get(timeout=self.until_reminder())
                except queue.Empty:
                    self.remind()
                    continue
                if isinstance(arrival, Typed):
                    self.keyboard.taken()
                    if not self.typed(arrival.line):
                        self.quit = True
                        return
                elif isinstance(arrival, Ended):
                    if arrival.error is not None:
                        raise arrival.error
                    return
                else:
                    self.take(arrival)
        finally:
            self.unprompt()  # what is said after leaves no prompt behind
            self.stdout.flush()
            stop.set()  # cancels the watch, even on a quiet table
            watcher.join(timeout=2)

    @property
    def over(self) -> bool:
        return self.tracker.closed or (
            self.hands is not None and self.tracker.hands_ended >= self.hands
        )

    def watch(self, stop: threading.Event) -> None:
        """The table's stream into the inbox, then how it ended."""
        try:
            for item in self.client.watch(self.table_id, stop=stop):
                self.inbox.put(item)
        except Exception as e:  # raised by run, on the caller's thread
            self.inbox.put(Ended(e))
            return
        self.inbox.put(Ended())

    def take(self, item: watch_pb2.WatchTableResponse) -> None:
        """One message of the table's stream: said, followed, and on your
        turn a move asked for."""
        if item.HasField("event"):
            line = describe(item.event, self.tracker.seat)
            if line:
                self.say(line)
            if self.contribution.heard(item.event, self.tracker.seat):
                step = "committed to" if item.event.HasField("contributions_opened") else "revealed"
                self.say(f"you {step} your 32 bytes of the deck (receipt kept)")
            if item.event.HasField("hand_ended"):
                self.check_contribution(item.event)
        mine = self.tracker.feed(item)
        self.follow_seats(item)
        if self.save is not None and item.HasField("event"):
            self.keep(item.event, self.save)
        if item.HasField("turn") and not mine:
            self.say(f"seat {item.turn.seat} to act")
        if mine:
            self.offer()
        elif self.tracker.spot() is None:
            self.asking = False  # the turn passed: out of time, or the hand moved on

    def check_contribution(self, ended: events_pb2.Event) -> None:
        """Once a hand you contributed to ends, check from the hand as you
        may see it that your bytes went into its deck, and say so, or say
        what contradicts it (with your receipts, for an auditor)."""
        if ended.hand_number not in self.contribution.contributions:
            return
        try:
            events = self.client.get_hand(ended.hand_id).events
        except FeltlineError as e:
            self.say(f"could not check your bytes went into the deck: {e.message}")
            return
        failures = self.contribution.check(self.tracker.seat, events)
        for failure in failures:
            self.say(f"your bytes: {failure}")
        if not failures:
            self.say("your 32 bytes went into this hand's deck (checked)")

    def follow_seats(self, item: watch_pb2.WatchTableResponse) -> None:
        """Keep who sits where, and say what a seat dealt no hand waits for."""
        if item.HasField("snapshot"):
            table = item.snapshot.table
            self.players = {s.seat: s.player_id for s in table.seats}
            self.dealt = table.hands_dealt
            if table.HasField("turn"):
                self.say(f"a mixed table; game: {rotation_said(table.turn)}")
            mine = [s for s in table.seats if s.seat == self.tracker.seat]
            self.big_blind = bool(mine) and mine[0].status == common_pb2.SEAT_STATUS_WAITING
            hand = table.current_hand if table.HasField("current_hand") else None
            if hand is None or all(s.seat != self.tracker.seat for s in hand.seats):
                self.note_wait(hand.hand_number if hand else 0)
            return
        if not item.HasField("event"):
            return
        event = item.event
        kind = event.WhichOneof("kind")
        if kind == "sat_down":
            self.players[event.sat_down.seat] = event.sat_down.player_id
            if event.sat_down.seat == self.tracker.seat:
                self.big_blind = event.sat_down.status == common_pb2.SEAT_STATUS_WAITING
            self.note_wait(0)
        elif kind == "stood_up":
            self.players.pop(event.stood_up.seat, None)
            self.note_wait(0)
        elif kind == "hand_dealt":
            dealt = event.hand_dealt
            self.dealt = dealt.hand_number
            if any(s.seat == self.tracker.seat for s in dealt.seats):
                self.big_blind, self.waiting = False, ""
            else:
                self.note_wait(dealt.hand_number)

    def keep(self, event: events_pb2.Event, folder: Path) -> None:
        """Save each hand you were dealt into, as it ends (its result goes
        to the table in the same commit), as the Replay service's HTML page
        of it, as you may see it."""
        kind = event.WhichOneof("kind")
        if kind == "hand_started" and any(
            s.seat == self.tracker.seat for s in event.hand_started.seats
        ):
            self.playing = event.hand_id
        elif kind == "hand_ended" and self.playing:
            hand, self.playing = self.playing, ""
            path = folder / f"{hand}.html"
            try:
                folder.mkdir(parents=True, exist_ok=True)
                with path.open("w", encoding="utf-8") as page:
                    self.client.export_history(replay_pb2.EXPORT_FORMAT_HTML, page, hand_ids=[hand])
            except (FeltlineError, OSError) as e:
                path.unlink(missing_ok=True)
                self.say(f"could not save the hand: {e}")
                return
            self.say(f"hand saved: {path}")

    def note_wait(self, hand_number: int) -> None:
        """Say, once, why this seat is not in a hand: it waits for players
        to sit down, for the big blind (hold'em deals a newcomer in there),
        or for the hand being played to end."""
        if not self.tracker.seat or self.tracker.seat not in self.players:
            return
        if len(self.players) < 2:
            why = "waiting for other players: a hand needs two, you sit alone"
        elif self.big_blind and self.dealt:
            why = "waiting for the big blind to reach your seat: you are dealt in there"
        elif hand_number:
            why = f"waiting for the next hand: hand {hand_number} is played without you"
        else:
            return  # the next hand is being dealt
        if why != self.waiting:
            self.waiting = why
            self.say(why)

    def offer(self) -> None:
        """Your turn: the table as it stands, then your moves."""
        table = self.client.get_table(self.table_id)
        if table.HasField("current_hand"):
            self.say(render(table.current_hand, self.tracker.seat))
        self.ask()
        left = self.left()
        self.reminded = left is None or left <= REMIND_AT  # the prompt says it already

    def ask(self) -> None:
        """Say your moves and have the next line you type read."""
        spot = self.tracker.spot()
        if spot is None:
            self.asking = False
            return
        self.say(f"your turn: {menu(spot)}")
        self.asking = True
        self.keyboard.ask()

    def typed(self, line: str) -> bool:
        """A line you typed: a move sent, or asked for again; false to leave."""
        if self.tty and line:
            self.prompted = False  # the Enter echoed ended the prompt's line
        word = line.strip().lower()
        if not line or word in ("quit", "exit", "leave"):
            return False
        if not self.asking or self.tracker.spot() is None:
            self.say(f"not your turn any more: {line.strip()!r} is not sent")
            return True
        if word in ("help", "?"):
            self.say(__doc__ or "")
            self.ask()
            return True
        try:
            send(self.client, self.table_id, self.tracker.seen, parse_move(line))
        except ValueError as e:
            self.say(f"? {e}")
            self.ask()
        except FeltlineError as e:
            self.say(f"refused: {e.message} ({e.reason or e.code.name})")
            if e.reason in ("STALE_STATE", "NOT_YOUR_TURN", "TABLE_CLOSED"):
                self.asking = False  # the moment passed: keep watching
            else:
                self.ask()
        else:
            self.asking = False
        return True

    def prompt(self) -> None:
        """The prompt, with the time you have left, once nothing waits to be said."""
        if not self.asking or self.prompted or not self.inbox.empty():
            return
        left = self.left()
        clock = "" if left is None else f"({max(0, math.ceil(left))} s) "
        self.stdout.write(f"{clock}> ")
        self.stdout.flush()
        self.prompted = True

    def left(self) -> float | None:
        """Seconds until the action clock runs out on the move asked for
        (by this machine's clock, against the server's deadline)."""
        turn = self.tracker.turn
        if not self.asking or turn is None or not turn.HasField("deadline"):
            return None
        return turn.deadline.ToNanoseconds() / 1e9 - time.time()

    def until_reminder(self) -> float | None:
        """How long to wait for the table or the keyboard before saying the
        clock is running out; None: wait as long as it takes."""
        left = self.left()
        if left is None or self.reminded:
            return None
        return max(0.0, left - REMIND_AT)

    def remind(self) -> None:
        self.reminded = True
        left = self.left()
        if left is not None and left > 0:
            self.say(f"{math.ceil(left)} s left to act, then the clock acts for you")


class Tournament:
    """Your seat in a tournament: a :class:`Terminal` at each table the
    director sends you to. The tournament's stream is followed on a thread
    of its own, which ends the terminal at your old table when you move."""

    def __init__(
        self, client: Client, tournament_id: str, stdin: TextIO, stdout: TextIO, save: Path | None
    ) -> None:
        self.client, self.tournament_id = client, tournament_id
        self.stdin, self.stdout, self.save = stdin, stdout, save
        self.me = client.player_id
        # Each table you are sent to; None once you are out or it is over.
        self.sent: queue.Queue[str | Exception | None] = queue.Queue()
        self.playing: Terminal | None = None
        self.guard = threading.Lock()  # who plays where, between the two threads

    def run(self) -> None:
        stop = threading.Event()
        follower = threading.Thread(
            target=self.follow, args=(stop,), name="feltline-tournament", daemon=True
        )
        follower.start()
        keyboard = None
        try:
            while (table := self.sent.get()) is not None:
                if isinstance(table, Exception):
                    raise table
                terminal = Terminal(
                    self.client,
                    table,
                    self.stdin,
                    self.stdout,
                    None,
                    save=self.save,
                    keyboard=keyboard,
                )
                keyboard = terminal.keyboard
                with self.guard:
                    if not self.sent.empty():
                        continue  # moved on already
                    self.playing = terminal
                terminal.run()
                if terminal.quit:
                    return
        finally:
            stop.set()
            follower.join(timeout=2)

    def say(self, text: str) -> None:
        with self.guard:
            if self.playing is not None:
                self.playing.say(text)
                return
        print(text, file=self.stdout, flush=True)

    def follow(self, stop: threading.Event) -> None:
        """The tournament's stream: where you are sent, and how you finish."""
        try:
            for item in self.client.watch_tournament(self.tournament_id, stop=stop):
                table, line = self.heard(item)
                if line:
                    self.say(line)
                if table is not None:
                    self.go(table)
        except Exception as e:  # raised by run, on the caller's thread
            self.sent.put(e)
            return
        self.go(None)

    def heard(self, item: tournaments_pb2.WatchTournamentResponse) -> tuple[str | None, str]:
        """The table ``item`` sends you to, if any, and a line about it."""
        if item.HasField("snapshot"):
            t = item.snapshot
            tables = {table.number: table.table_id for table in t.tables}
            mine = next((s for s in t.standings if s.player_id == self.me), None)
            if mine is None or mine.place:
                return None, f"{t.display_name}: you are not playing in it"
            if mine.table not in tables:
                return None, f"{t.display_name}: you wait for the seat draw"
            return tables[mine.table], f"{t.display_name}: table {mine.table}, seat {mine.seat}"
        event = item.event
        kind = event.WhichOneof("kind")
        if kind == "seats_drawn":
            for chair in event.seats_drawn.chairs:
                if chair.player_id == self.me:
                    return (
                        chair.table_id,
                        f"== you are drawn to table {chair.table}, seat {chair.seat}",
                    )
        elif kind == "player_moved" and event.player_moved.player_id == self.me:
            to = event.player_moved.to_chair
            return to.table_id, f"== you move to table {to.table}, seat {to.seat}"
        elif kind == "level_changed":
            return None, f"== level {event.level_changed.level} from the next hand"
        elif kind == "placed" and self.me in event.placed.player_ids:
            self.go(None)
            return None, f"== you finish in place {event.placed.place}"
        elif kind == "paid" and event.paid.player_id == self.me:
            return None, f"== you win {event.paid.amount}"
        elif kind == "finished":
            return None, f"== the tournament is won by {event.finished.player_id}"
        elif kind == "cancelled":
            self.go(None)
            return None, f"== the tournament is cancelled: {event.cancelled.reason}"
        return None, ""

    def go(self, table: str | None) -> None:
        """End play at the table you were at; next, ``table`` (None: done)."""
        with self.guard:
            if self.playing is not None:
                self.playing.inbox.put(Ended())
                self.playing = None
            self.sent.put(table)


def main(
    argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """The console script. Target and token default to FELTLINE_TARGET and
    FELTLINE_TOKEN, so the token stays out of the shell's history."""
    parser = argparse.ArgumentParser(prog="feltline-play", description="Play Feltline by hand.")
    parser.add_argument("--target", default=os.environ.get("FELTLINE_TARGET", "localhost:50051"))
    parser.add_argument("--token", default=os.environ.get("FELTLINE_TOKEN", ""))
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", help="the table's id or name")
    where.add_argument(
        "--tournament", metavar="ID", help="play your seat in this tournament, table to table"
    )
    parser.add_argument("--seat", type=int, default=0, help="sit down here first")
    parser.add_argument("--buy-in", type=int, default=0, help="chips to sit down with")
    parser.add_argument("--hands", type=int, default=None, help="leave after this many hands")
    parser.add_argument(
        "--tls", action="store_true", help="connect over TLS, checked by the system's authorities"
    )
    parser.add_argument(
        "--tls-ca", help="connect over TLS, checked by these certificate authorities (PEM)"
    )
    parser.add_argument("--tls-cert", help="the client certificate a server requires (PEM)")
    parser.add_argument("--tls-key", help="its private key (PEM)")
    parser.add_argument(
        "--save-html",
        type=Path,
        metavar="DIR",
        help="save each hand you play in DIR as a page that replays it in a browser",
    )
    args = parser.parse_args(argv)
    out = stdout or sys.stdout
    if not args.token:
        parser.error("give --token or set FELTLINE_TOKEN")
    if (args.tls_cert is None) != (args.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    tls = None
    if args.tls or args.tls_ca or args.tls_cert:
        try:
            tls = Tls.from_files(args.tls_ca, args.tls_cert, args.tls_key)
        except OSError as e:
            parser.error(f"cannot read {e.filename}: {e.strerror}")
    with Client(args.target, args.token, tls=tls) as client:
        try:
            if args.tournament:
                Tournament(client, args.tournament, stdin or sys.stdin, out, args.save_html).run()
                return 0
            table_id = find_table(client, args.table)
            if args.seat:
                client.sit_down(table_id, args.seat, args.buy_in)
                print(f"you sit down at seat {args.seat} with {args.buy_in}", file=out)
            terminal = Terminal(
                client, table_id, stdin or sys.stdin, out, args.hands, save=args.save_html
            )
            terminal.run()
            if terminal.tracker.seat and not terminal.tracker.closed:
                try:
                    client.stand_up(table_id)
                    print("you stand up", file=out)
                except FeltlineError as e:  # closed while you typed: nothing left to leave
                    if e.reason not in ("NOT_SEATED", "TABLE_CLOSED"):
                        raise
                    print(f"you leave: {e.message}", file=out)
        except (FeltlineError, LookupError) as e:
            print(f"feltline-play: {e}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
