"""The tournament director's rules, pure (docs/rules.md, "Tournaments").

Each function decides one thing the floor would: where the players are
drawn to, who moves to balance the tables and to which seat, which table
breaks, when the bubble is played hand for hand, who takes which place and
what each place is paid. They read the tables as the tournament stream
holds them and return what to do; the stream records it. Nothing here
draws randomness of its own: every draw reads the tournament's seed
(committed when it was created) through the deck's unbiased draw, under a
purpose naming the draw, so a verifier re-derives each one.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Collection, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple, TypeVar, cast

from feltline.engine.cards.deck import draw, words
from feltline.engine.table.button import blind_lineup, next_seat

BASIS_POINTS = 10_000

K = TypeVar("K")
V = TypeVar("V")


def with_item(mapping: Mapping[K, V], key: K, value: V) -> dict[K, V]:
    """A copy of ``mapping`` with ``key`` set: the states here are never changed in place."""
    return {**mapping, key: value}


def without(mapping: Mapping[K, V], key: K) -> dict[K, V]:
    """A copy of ``mapping`` without ``key``."""
    return {k: v for k, v in mapping.items() if k != key}


@dataclass(frozen=True, slots=True)
class Seated:
    """A player at a tournament table with their tournament chips."""

    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class Felt:
    """One tournament table as the director sees it. ``button`` and
    ``big_blind`` are those of the hand being played or, between hands, of
    the last one; ``dealt`` the seats in the hand being played (None
    between hands); ``round`` the hand-for-hand round of that hand (0 for
    a hand begun outside hand-for-hand play)."""

    number: int
    seats: Mapping[int, Seated] = field(default_factory=dict)
    button: int | None = None
    big_blind: int | None = None
    dealt: tuple[int, ...] | None = None
    hands: int = 0
    round: int = 0

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def playing(self) -> bool:
        return self.dealt is not None

    @property
    def chips(self) -> int:
        return sum(s.stack for s in self.seats.values())

    def seat_of(self, player: str) -> int | None:
        return next((n for n, s in self.seats.items() if s.player == player), None)


@dataclass(frozen=True, slots=True)
class Move:
    """``player`` goes from ``origin`` (table, seat) to ``to`` (table, seat)
    with their stack; ``big_blind_in`` is how many hands the new table
    deals before the player posts its big blind, as the director reckoned
    (0: the next hand; -1 in a game without blinds)."""

    player: str
    origin: tuple[int, int]
    to: tuple[int, int]
    stack: int
    big_blind_in: int


# ---- drawing seats


def draw_purpose(draw_number: int) -> str:
    """The deck-algorithm purpose of the tournament's ``draw_number``-th draw."""
    return f"tournament-seats/{draw_number}"


def shuffled(seed: bytes, draw_number: int, items: Sequence[str]) -> tuple[str, ...]:
    """``items`` in the order draw ``draw_number`` of the seed gives them
    (the deck's Fisher-Yates over its unbiased word stream)."""
    stream = words(seed, draw_purpose(draw_number))
    order = list(items)
    for i in range(len(order) - 1, 0, -1):
        j = draw(stream, i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def first_seating(
    seed: bytes, draw_number: int, players: Sequence[str], size: int
) -> tuple[tuple[str, int, int], ...]:
    """The start's draw: as few tables as hold everyone, seats filled from
    seat 1 one table at a time in turn (so the tables differ by at most one
    player), and the players dealt to those seats in the seed's order.
    Each entry is (player, table, seat); tables are numbered from 1."""
    tables = -(-len(players) // size)
    chairs = [(t, s) for s in range(1, size + 1) for t in range(1, tables + 1)]
    order = shuffled(seed, draw_number, players)
    return tuple(sorted((p, t, s) for p, (t, s) in zip(order, chairs, strict=False)))


def counted(
    by_players: Sequence[frozenset[int]], number: int, before: int | None, after: int | None
) -> tuple[frozenset[int], ...]:
    """The index of tables by their number of players (``by_players[n]``:
    the tables seating ``n``) after table ``number`` goes from ``before``
    players to ``after`` (None: not in play). The director reads the
    shortest and the fullest tables there, not by looking at every table."""
    index = list(by_players)
    if before is not None:
        index[before] = index[before] - {number}
    if after is not None:
        index[after] = index[after] | {number}
    return tuple(index)


def seated(by_players: Sequence[frozenset[int]]) -> int:
    """The players at the tables."""
    return sum(n * len(numbers) for n, numbers in enumerate(by_players))


def shortest(
    by_players: Sequence[frozenset[int]], size: int, barred: frozenset[int] = frozenset()
) -> frozenset[int]:
    """The tables with the fewest players and an empty seat, leaving out
    those ``barred``."""
    for numbers in by_players[:size]:
        if not numbers <= barred:
            return numbers - barred
    return frozenset()


def empty_seats(table: Felt, size: int) -> list[int]:
    return [s for s in range(1, size + 1) if s not in table.seats]


class EmptySeat(NamedTuple):
    """An empty seat a moved player may be drawn to: whether they would
    take the button or the small blind there in the table's next hand
    (:func:`ahead_of_the_blinds`) and whether they would post its big blind."""

    table: int
    seat: int
    ahead: bool = False
    posts: bool = False


def empty_chairs(table: Felt, size: int, blinds: bool) -> list[EmptySeat]:
    """``table``'s empty seats, marked for a moved player in a blinds game."""
    if not blinds:
        return [EmptySeat(table.number, s) for s in empty_seats(table, size)]
    return [_marked(table, s) for s in empty_seats(table, size)]


def _marked(table: Felt, seat: int) -> EmptySeat:
    """``seat`` at ``table`` marked from the table's next hand with it taken:
    one lineup tells both marks."""
    lineup = blind_lineup(set(table.seats) | {seat}, (), (), table.button, table.big_blind)
    ahead = seat in (lineup.button, lineup.small_blind)
    return EmptySeat(table.number, seat, ahead, lineup.big_blind == seat)


def drawn_seat(
    seed: bytes,
    draw_number: int,
    chairs: Sequence[EmptySeat],
    *,
    moved: bool = False,
    posted_last: bool = False,
) -> tuple[int, int] | None:
    """A random one of ``chairs``, the empty seats of the tables with the
    fewest players (:func:`shortest`) in table then seat order, by draw
    ``draw_number``: the first after shuffling them. A player ``moved`` in
    a blinds game is drawn among the seats not ahead of the blinds and, if
    they ``posted_last`` the big blind, not posting it in the next hand: as
    far as such seats are free. None when every table is full."""
    if moved:
        chairs = [c for c in chairs if not c.ahead] or chairs
    if posted_last:
        chairs = [c for c in chairs if not c.posts] or chairs
    if not chairs:
        return None
    table, seat = shuffled(seed, draw_number, [f"{c.table}/{c.seat}" for c in chairs])[0].split("/")
    return int(table), int(seat)


# ---- positions


def ahead_of_the_blinds(table: Felt, seat: int) -> bool:
    """Whether a player seated at ``seat`` would take the button or the
    small blind in the table's next hand: the moving button would then put
    the blinds on the players after them sooner than their turn."""
    return _marked(table, seat).ahead


def big_blind_in(table: Felt, seat: int) -> int:
    """How many hands ``table`` deals before ``seat`` (taken, or to be
    taken) posts the big blind, if nobody comes or goes: 0 is the next hand."""
    seats = set(table.seats) | {seat}
    button, big = table.button, table.big_blind
    for hands in range(2 * len(seats) + 2):
        lineup = blind_lineup(seats, (), (), button, big)
        if lineup.big_blind == seat:
            return hands
        button, big = lineup.button, lineup.big_blind
    raise AssertionError(f"the big blind never reaches seat {seat}")  # a moving button always does


def blind_order(table: Felt) -> list[int]:
    """The table's seats in the order they will post the big blind, the next
    first, if nobody comes or goes: the hands of :func:`big_blind_in`
    played once for every seat."""
    seats = set(table.seats)
    order: list[int] = []
    button, big = table.button, table.big_blind
    for _ in range(2 * len(seats) + 2):
        lineup = blind_lineup(seats, (), (), button, big)
        if lineup.big_blind is not None and lineup.big_blind not in order:
            order.append(lineup.big_blind)
            if len(order) == len(seats):
                return order
        button, big = lineup.button, lineup.big_blind
    raise AssertionError(f"the big blind never reaches seats {seats.difference(order)}")


def button_order(table: Felt) -> list[int]:
    """The table's seats clockwise from the one after the button."""
    if table.button is None:
        return sorted(table.seats)
    order: list[int] = []
    seat = table.button
    while len(order) < len(table.seats):
        seat = next_seat(seat, table.seats)
        order.append(seat)
    return order


# ---- balancing


def mover(table: Felt, moves: Mapping[str, int], blinds: bool) -> int:
    """The seat whose player leaves ``table`` to balance: of the players
    moved fewest times so far, the first to post the big blind next (in a
    game without blinds, the first clockwise after the button)."""
    order = blind_order(table) if blinds else button_order(table)
    fewest = min(moves.get(table.seats[s].player, 0) for s in order)
    return next(s for s in order if moves.get(table.seats[s].player, 0) == fewest)


def worst_seat(table: Felt, size: int, blinds: bool, posted_last: bool) -> tuple[int, int]:
    """Where a balanced-in player sits at ``table`` and in how many hands
    they post its big blind: the empty seat that posts it soonest (the
    worst position), of those not :func:`ahead_of_the_blinds`, never the
    very next hand for a player who posted it in the hand just played
    (each as far as such seats are free); ties to the lower seat. Without
    blinds: the first empty seat clockwise after the button."""
    empty = empty_seats(table, size)
    if not blinds:
        after = table.button or 0
        return sorted(empty, key=lambda s: (s <= after, s))[0], -1
    fair = [s for s in empty if not ahead_of_the_blinds(table, s)] or empty
    ranked = sorted((big_blind_in(table, s), s) for s in fair)
    if posted_last:
        ranked = [r for r in ranked if r[0] > 0] or ranked
    hands, seat = ranked[0]
    return seat, hands


def unbalanced(by_players: Sequence[frozenset[int]], size: int) -> bool:
    """Whether some table has two players more than a table with a seat free."""
    counts = [n for n, numbers in enumerate(by_players) if numbers]
    open_ = [n for n in counts if n < size]
    return bool(open_) and counts[-1] - open_[0] >= 2


def balance(
    tables: Mapping[int, Felt],
    by_players: Sequence[frozenset[int]],
    ended: int,
    *,
    size: int,
    blinds: bool,
    moves: Mapping[str, int],
    posted: Collection[str] = frozenset(),
    barred: Iterable[int] = (),
) -> list[Move]:
    """The moves out of table ``ended``, which has just ended a hand, so that
    no two tables differ by more than one player: while it has the most
    players and two more than the shortest, its :func:`mover` goes to the
    :func:`worst_seat` of the shortest table (the lowest numbered if
    several). A table that is mid-hand sheds its players when it ends its
    own. ``barred`` tables (about to break) take nobody. ``by_players``
    indexes ``tables`` (:func:`counted`)."""
    barred = frozenset(barred)
    others = barred | {ended}
    tables = _over(tables)
    moves = _over(moves)
    made: list[Move] = []
    while True:
        source = tables[ended]
        most = max(
            n for n, numbers in enumerate(by_players) if ended in numbers or not numbers <= barred
        )
        shorts = shortest(by_players, size, others)
        if not shorts or source.players < most:
            return made
        target = tables[min(shorts)]
        if source.players - target.players < 2:
            return made
        seat = mover(source, moves, blinds)
        posted_last = source.seats[seat].player in posted
        to, hands = worst_seat(target, size, blinds, posted_last)
        move = Move(
            source.seats[seat].player,
            (ended, seat),
            (target.number, to),
            source.seats[seat].stack,
            hands,
        )
        made.append(move)
        moves[move.player] = moves.get(move.player, 0) + 1
        by_players = recounted(by_players, tables, move)
        tables.update(moved(tables, move))


def _over(mapping: Mapping[K, V]) -> ChainMap[K, V]:
    """``mapping`` as a copy to change, without copying it: a ChainMap
    writes only to its first map."""
    return ChainMap({}, cast(MutableMapping[K, V], mapping))


def recounted(
    by_players: Sequence[frozenset[int]], tables: Mapping[int, Felt], move: Move
) -> tuple[frozenset[int], ...]:
    """``by_players`` after ``move``, with ``tables`` as they were before it."""
    (a, _), (b, _) = move.origin, move.to
    source, target = tables[a].players, tables[b].players
    return counted(counted(by_players, a, source, source - 1), b, target, target + 1)


def vacated(table: Felt, seat: int) -> Felt:
    """``table`` without the player in ``seat``. As at a cash table, a
    big blind whose player has gone no longer keeps the next big blind off
    that seat."""
    big_blind = None if table.big_blind == seat else table.big_blind
    return replace(table, seats=without(table.seats, seat), big_blind=big_blind)


def moved(tables: Mapping[int, Felt], move: Move) -> dict[int, Felt]:
    """The two tables a move changes, after it."""
    (a, a_seat), (b, b_seat) = move.origin, move.to
    source = tables[a]
    out = {a: vacated(source, a_seat)}
    target = out.get(b, tables[b])
    seated = Seated(move.player, move.stack)
    out[b] = replace(target, seats=with_item(target.seats, b_seat, seated))
    return out


# ---- breaking tables


def to_break(
    tables: Mapping[int, Felt], by_players: Sequence[frozenset[int]], size: int
) -> int | None:
    """The table to break, when everyone left fits at one table fewer: the
    highest numbered, so table 1 is the final table. None otherwise."""
    if len(tables) < 2 or seated(by_players) > (len(tables) - 1) * size:
        return None
    return max(tables)


def break_table(
    seed: bytes,
    first_draw: int,
    tables: Mapping[int, Felt],
    by_players: Sequence[frozenset[int]],
    broken: int,
    *,
    size: int,
    blinds: bool,
    posted: Collection[str] = frozenset(),
) -> list[Move]:
    """Table ``broken``'s players, in the order draw ``first_draw`` gives
    them, each drawn a random empty seat at a table with the fewest players
    (draws ``first_draw + 1`` on, one a player); they play wherever they
    land, blinds included, as far as :func:`drawn_seat` lets a moved player.
    ``by_players`` indexes ``tables`` (:func:`counted`)."""
    source = tables[broken]
    order = shuffled(seed, first_draw, [source.seats[s].player for s in sorted(source.seats)])
    tables = _over(tables)
    marked: dict[int, tuple[Felt, list[EmptySeat]]] = {}  # each table's chairs, until it changes
    made: list[Move] = []
    for i, player in enumerate(order, 1):
        seat = tables[broken].seat_of(player)
        assert seat is not None
        posted_last = blinds and player in posted
        chairs: list[EmptySeat] = []
        for n in sorted(shortest(by_players, size, frozenset([broken]))):
            if marked.get(n, (None,))[0] is not tables[n]:
                marked[n] = (tables[n], empty_chairs(tables[n], size, blinds))
            chairs += marked[n][1]
        chair = drawn_seat(seed, first_draw + i, chairs, moved=blinds, posted_last=posted_last)
        assert chair is not None, "a table breaks only when the others can seat its players"
        table = tables[chair[0]]
        hands = big_blind_in(table, chair[1]) if blinds else -1
        move = Move(player, (broken, seat), chair, tables[broken].seats[seat].stack, hands)
        made.append(move)
        by_players = recounted(by_players, tables, move)
        tables.update(moved(tables, move))
    return made


# ---- hand for hand


def at_the_bubble(players_left: int, places_paid: int, tables: int) -> bool:
    """Hand-for-hand play begins when one more player is left than are paid
    and they sit at more than one table."""
    return tables > 1 and players_left == places_paid + 1


# ---- places and prizes


def placings(out: Sequence[tuple[str, int]], left_before: int) -> list[tuple[int, tuple[str, ...]]]:
    """The places of players knocked out together, each with their stack at
    the start of the hand (or of the hand-for-hand round): the larger stack
    finishes higher; equal stacks share the places they span. ``left_before``
    counts the players in before them. Each entry is (best place, players
    sharing it), the worst place first."""
    place = left_before
    ranked: list[tuple[int, tuple[str, ...]]] = []
    for stack in sorted({s for _, s in out}):
        tied = tuple(sorted(p for p, s in out if s == stack))
        place -= len(tied)
        ranked.append((place + 1, tied))
    return ranked


def prizes(pool: int, shares: Sequence[int]) -> tuple[int, ...]:
    """Each paid place's prize, first place first: its basis points of the
    pool rounded down, and the chips that leaves over to first place."""
    each = [pool * s // BASIS_POINTS for s in shares]
    if each:
        each[0] += pool - sum(each)
    return tuple(each)


def shared(prize_list: Sequence[int], place: int, players: Sequence[str]) -> list[int]:
    """What each of ``players`` (in the order odd chips go) takes when they
    share the places from ``place`` on: the sum of those places' prizes,
    evenly, odd chips one each to the first of them."""
    span = prize_list[place - 1 : place - 1 + len(players)]
    each, odd = divmod(sum(span), len(players))
    return [each + (1 if i < odd else 0) for i in range(len(players))]
