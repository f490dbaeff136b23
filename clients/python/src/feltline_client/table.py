"""Following a table from a client's seat, and the moves a player can make.

The bots and the terminal client both need the same few things from a
table's stream: the hand and sequence last seen (an action must name them),
their own cards, the board, and whether it is their turn with which legal
options. ``Tracker`` folds the stream into exactly that, so neither needs
rules of its own: the server's ``LegalActions`` says what is allowed.
``find_table`` finds a table as a person names it, by id or by name, for
every command that takes one (``feltline-play``, ``feltline table``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from feltline_client.client import Client, Seen
from feltline_protos.v1 import common_pb2, events_pb2, play_pb2, tables_pb2, watch_pb2

ACTION_NAMES: dict[int, str] = {
    common_pb2.ACTION_KIND_FOLD: "fold",
    common_pb2.ACTION_KIND_CHECK: "check",
    common_pb2.ACTION_KIND_CALL: "call",
    common_pb2.ACTION_KIND_BET: "bet",
    common_pb2.ACTION_KIND_RAISE: "raise",
    common_pb2.ACTION_KIND_BRING_IN: "bring_in",
    common_pb2.ACTION_KIND_COMPLETE: "complete",
}
SIZED = frozenset({"bet", "raise", "complete"})
DECLARE = frozenset({"low", "high", "both"})


@dataclass(frozen=True)
class Move:
    """One decision: ``kind`` is an action name (``"call"``, ``"raise"``...),
    ``"draw"`` or ``"declare"``; ``to`` is the total for a sized action."""

    kind: str
    to: int = 0
    discards: tuple[str, ...] = ()
    declaration: str = ""


@dataclass(frozen=True)
class Spot:
    """What a seat knows when it must act: all a bot decides on."""

    seat: int
    options: tables_pb2.LegalActions
    cards: tuple[str, ...]
    board: tuple[str, ...]
    pot: int
    street: str
    game: int

    def allowed(self) -> list[str]:
        """The legal decisions by name: action names, or draw, or declare."""
        if self.options.draw:
            return ["draw", "fold"]
        if self.options.declare:
            return ["declare"]
        return [ACTION_NAMES[a] for a in self.options.actions if a in ACTION_NAMES]


@dataclass
class Tracker:
    """The table as one viewer has seen it so far, folded from its stream."""

    seat: int = 0
    game: int = 0
    hand_number: int = 0
    sequence: int = 0
    cards: list[str] = field(default_factory=list)
    board: list[str] = field(default_factory=list)
    pot: int = 0
    street: str = ""
    turn: tables_pb2.Turn | None = None
    hands_ended: int = 0
    closed: bool = False
    # Each occupied seat's stack between hands: who can be dealt in. A hand's
    # result updates the seats it dealt; a seat taken or left meanwhile counts
    # too, so a newcomer who sat down during a hand is not missed.
    stacks: dict[int, int] = field(default_factory=dict)
    finished: bool = False  # a hand has finished since the watch began

    @property
    def dealable(self) -> bool:
        """Whether the table can deal another hand as it stands: a hand needs
        two players with chips (true until a hand has finished)."""
        return not self.finished or sum(1 for s in self.stacks.values() if s) >= 2

    @classmethod
    def of(cls, table: tables_pb2.Table) -> Tracker:
        """A tracker that has seen only ``table``, as GetTable returns it:
        the position to decide on anew when an action was refused as stale."""
        tracker = cls()
        tracker._snapshot(table)
        return tracker

    @property
    def seen(self) -> Seen:
        return Seen(self.hand_number, self.sequence)

    def feed(self, item: watch_pb2.WatchTableResponse) -> bool:
        """Take one message; true when it makes it this seat's turn to act."""
        kind = item.WhichOneof("item")
        if kind == "snapshot":
            self._snapshot(item.snapshot.table)
        elif kind == "turn":
            self.turn = item.turn
        elif kind == "event":
            self._event(item.event)
        return kind in ("snapshot", "turn") and self.spot() is not None

    def spot(self) -> Spot | None:
        """The decision this seat faces now, if it is its turn."""
        if self.turn is None or not self.turn.HasField("options"):
            return None
        return Spot(
            seat=self.turn.seat,
            options=self.turn.options,
            cards=tuple(self.cards),
            board=tuple(self.board),
            pot=self.pot,
            street=self.street,
            game=self.game,
        )

    def _snapshot(self, table: tables_pb2.Table) -> None:
        self.seat = table.viewer_seat
        # A mixed table's rules name its first game; its turn, the hand's.
        self.game = table.turn.game if table.HasField("turn") else table.config.rules.game
        self.closed = table.state == tables_pb2.TABLE_STATE_CLOSED
        self.stacks = {s.seat: s.stack for s in table.seats}
        if not table.HasField("current_hand"):
            return
        hand = table.current_hand
        self.hand_number, self.sequence = hand.hand_number, hand.sequence
        self.board, self.pot, self.street = list(hand.board), hand.pot, hand.street
        mine = [s for s in hand.seats if s.seat == self.seat]
        self.cards = [*mine[0].down_cards, *mine[0].up_cards] if mine else []
        self.turn = hand.turn if hand.HasField("turn") else None

    def _event(self, event: events_pb2.Event) -> None:
        if event.hand_number:
            self.hand_number, self.sequence = event.hand_number, event.sequence
            self.turn = None
        kind = event.WhichOneof("kind")
        if kind == "hand_started":
            self.game = event.hand_started.rules.game
            self.cards, self.board, self.pot, self.street = [], [], 0, ""
        elif kind == "street_began":
            self.street = event.street_began.name
        elif kind == "card_dealt":
            dealt = event.card_dealt
            if dealt.seat == self.seat and dealt.HasField("card"):
                self.cards.append(dealt.card)
        elif kind == "board_dealt":
            self.board.extend(event.board_dealt.cards)
        elif kind == "drew":
            drew = event.drew
            if drew.seat == self.seat and drew.HasField("discards"):
                self.cards = [c for c in self.cards if c not in drew.discards.cards]
        elif kind == "bets_collected":
            self.pot = event.bets_collected.pot
        elif kind == "hand_ended":
            self.hands_ended += 1
            self.street = "ended"
        elif kind == "hand_finished":
            self.stacks.update((s.seat, s.amount) for s in event.hand_finished.stacks)
            self.finished = True
        elif kind == "sat_down":
            self.stacks[event.sat_down.seat] = event.sat_down.buy_in
        elif kind == "chips_added":
            added = event.chips_added
            self.stacks[added.seat] = self.stacks.get(added.seat, 0) + added.amount
        elif kind == "stood_up":
            self.stacks.pop(event.stood_up.seat, None)
        elif kind == "table_closed":
            self.closed = True


def game_name(game: common_pb2.Game.ValueType) -> str:
    """A game as ``--game`` names it: ``omaha-hi-lo``."""
    return common_pb2.Game.Name(game).removeprefix("GAME_").lower().replace("_", "-")


def rotation_said(turn: common_pb2.RotationTurn) -> str:
    """A mixed table's game and the next: "razz, hand 2 of 4; next stud"."""
    of = f" of {turn.hands}" if turn.hands else ""
    return f"{game_name(turn.game)}, hand {turn.hand}{of}; next {game_name(turn.next_game)}"


def send(client: Client, table_id: str, seen: Seen, move: Move) -> play_pb2.ActResponse:
    """Send ``move`` as the SDK call it names."""
    kind = move.kind
    if kind == "draw":
        return client.draw(table_id, seen, move.discards)
    if kind == "declare":
        declaration = move.declaration
        if declaration == "low":
            return client.declare(table_id, seen, "low")
        if declaration == "both":
            return client.declare(table_id, seen, "both")
        return client.declare(table_id, seen, "high")
    sized = {"bet": client.bet, "raise": client.raise_to, "complete": client.complete}
    if kind in sized:
        return sized[kind](table_id, seen, move.to)
    plain = {
        "check": client.check,
        "call": client.call,
        "fold": client.fold,
        "bring_in": client.bring_in,
    }
    if kind not in plain:
        raise ValueError(f"unknown move {kind!r}")
    return plain[kind](table_id, seen)


def parse_move(text: str) -> Move:
    """A move typed by a person: ``check``, ``call``, ``fold``, ``bet 40``,
    ``raise 80``, ``complete 20``, ``bring in``, ``draw As Kd`` (``draw``
    alone stands pat), ``declare high|low|both``. Raises ValueError."""
    words = text.split()
    if not words:
        raise ValueError("type a move, e.g. 'call' or 'bet 40'")
    head, rest = words[0].lower(), words[1:]
    if head in ("bring", "bring_in", "bring-in"):
        return Move("bring_in")
    if head in ("check", "call", "fold"):
        return Move(head)
    if head in SIZED:
        if len(rest) != 1 or not rest[0].isdigit():
            raise ValueError(f"say how much: '{head} 40' (the total of your bet this round)")
        return Move(head, to=int(rest[0]))
    if head == "draw":
        return Move("draw", discards=tuple(card[0].upper() + card[1:].lower() for card in rest))
    if head == "declare":
        if len(rest) != 1 or rest[0].lower() not in DECLARE:
            raise ValueError("declare low, high or both")
        return Move("declare", declaration=rest[0].lower())
    raise ValueError(f"unknown move {head!r}")


def pot_counted(hand: tables_pb2.HandView) -> int:
    """The pot as a player counts it: every chip in the middle, the bets in
    front of the seats this round included. ``HandView.pot`` leaves those
    out until the round's bets are collected, so preflop it is 0 with the
    blinds posted; but the blinds are what a player is playing for, and
    what pot odds and a pot-sized bet are reckoned on."""
    return hand.pot + sum(seat.bet for seat in hand.seats)


class NoSuchTable(LookupError):
    """A name no open table has, or more than one has."""


def find_table(client: Client, wanted: str) -> str:
    """The id of the table ``wanted`` names: an id as it is, else the one
    open table of that name (exactly, or else ignoring case)."""
    try:
        return str(uuid.UUID(wanted))
    except ValueError:
        pass
    tables = [
        t
        for t in client.list_tables(state=tables_pb2.TABLE_STATE_OPEN)
        if t.state == tables_pb2.TABLE_STATE_OPEN
    ]
    named = [t for t in tables if t.display_name == wanted] or [
        t for t in tables if t.display_name.casefold() == wanted.casefold()
    ]
    if not named:
        raise NoSuchTable(f"no open table is named {wanted!r}; give its id or name")
    if len(named) > 1:
        ids = ", ".join(t.table_id for t in named)
        raise NoSuchTable(f"{len(named)} open tables are named {wanted!r} ({ids}): give the id")
    return named[0].table_id
