"""``feltline demo``: a real server on a loopback port with its own
temporary store, one table of each game and a mixed table (H.O.R.S.E., a
game an orbit), and bots (``feltline_client.bots``:
``Casual`` players that buy in again when broke) playing through the Python
SDK while progress is shown; then the first hand of each table as a
spectator may see it, and a summary: hands per game, every hand replayed
from the store, and the ledger's summary read through the Ledger service
once the server's projector has caught up: where every chip minted is, and
"every chip accounted for" only if the ledger says so. It ends with a short
duplicate match: two hold'em tables dealt the same decks, bots of one style
at one table and of another at the other, and the match's standings; and
last a sit-and-go of six bots, each following the tournament from its entry
to its place, and its results: every place and prize.
"""

from __future__ import annotations

import logging
import random
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID

from feltline.api import convert, tokens
from feltline.api import logging as logs
from feltline.api.app import Feltline
from feltline.api.redaction import Viewer, visible
from feltline.api.tokens import Role
from feltline.audit.keys import Signer
from feltline.audit.rerun import replays
from feltline.cardroom.room import Room
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.table.house import Rotation, TableConfig, TimeCharge
from feltline.projections.projector import Projector
from feltline.store.check import Ledger, check
from feltline.store.config import StoreConfig
from feltline.store.streams import Streams
from feltline_client import Client
from feltline_client.bots import CallingStation, Casual, Player, Strategy, TournamentPlayer
from feltline_protos.v1 import auth_pb2, ledger_pb2, matches_pb2, tournaments_pb2
from feltline_replay import history

# Each table by its name: every game at its house stakes, and a mixed table
# whose stakes hold each of its games' forced bets.
HORSE = Rotation((Game.HOLDEM, Game.OMAHA_HI_LO, Game.RAZZ, Game.STUD, Game.STUD_HI_LO))
MIXED = Stakes(
    Structure.FIXED_LIMIT, small_bet=10, big_bet=20, small_blind=5, big_blind=10, ante=2, bring_in=3
)
TABLES: dict[str, tuple[Rules, Rotation | None]] = {
    **{str(game): (Rules.house(game), None) for game in Game},
    "mixed": (Rules(HORSE.games[0], MIXED), HORSE),
}


# The house's take, so that the ledger's summary has some to show: rake at
# the tables of games without a draw, a time charge at the draw tables.
RAKE = Rake(basis_points=500, cap=30)
TIME_CHARGE = TimeCharge(amount=5, window=1800)
PLAYERS_PER_TABLE = 4
BUY_IN = 500
ACTION_CLOCK = 5
MATCH_SEATS = 3
MATCH_DEALS = 4
# The sit-and-go: six bots at one table, the blinds doubling every two
# hands so that it ends in a few dozen; the winner takes 65%, second 35%.
SNG_ENTRANTS = 6
SNG_BUY_IN, SNG_FEE, SNG_STACK = 100, 10, 1_000
SNG_SHARES = [6500, 3500]


@dataclass
class Summary:
    """What a run played and what the store says about it."""

    hands: dict[str, int] = field(default_factory=dict)
    replayed: int = 0
    failed: list[str] = field(default_factory=list)
    ledger: Ledger | None = None
    books: ledger_pb2.GetLedgerSummaryResponse | None = None
    seconds: float = 0.0
    first: dict[str, list[str]] = field(default_factory=dict)
    match: matches_pb2.Match | None = None
    tournament: tournaments_pb2.Tournament | None = None


def run(
    hands: int = 30,
    *,
    seed: int | None = None,
    store: Path | None = None,
    out: Callable[[str], None] = print,
) -> Summary:
    """Play at least ``hands`` hands at each table and check the store."""
    rng = random.Random(seed)
    began = time.monotonic()
    logs.configure(level=logging.WARNING)  # the summary, not a line per action
    with tempfile.TemporaryDirectory(prefix="feltline-demo-") as tmp:
        path = store or Path(tmp) / "demo.db"
        signer = Signer.generate()
        env = StoreConfig.from_env({"SQLITE_DBNAME": str(path)}).env
        room = Room(Streams(signer, env=env))
        views = Projector(room.streams, env)
        server = Feltline(room, signer.public_key, tick=0.2, projector=views, web_port=0).start()
        out(f"server listening on {server.target}, storing in {path}")
        spectator = _token(signer, auth_pb2.ROLE_SPECTATOR)
        out(f"watch in a browser: http://{server.host}:{server.web_port}/#token={spectator}")
        try:
            tables = _play(server, signer, rng, hands, out)
            match = _duplicate(server, signer, rng, out)
            summary = _check(room, tables)
            summary.books = _books(server, signer)
            summary.match = match
            summary.tournament = _sit_and_go(server, signer, rng, out)
        finally:
            server.stop()
            room.close()
    summary.seconds = time.monotonic() - began
    return summary


def _token(signer: Signer, role: Role, player: str = "") -> str:
    return tokens.mint(
        signer, role, now=datetime.now(UTC), ttl=timedelta(hours=1), player_id=player
    )


def _play(
    server: Feltline, signer: Signer, rng: random.Random, hands: int, out: Callable[[str], None]
) -> dict[str, str]:
    admin = Client(server.target, _token(signer, auth_pb2.ROLE_ADMIN))
    tables: dict[str, str] = {}
    bots: dict[str, list[Player]] = {}
    for game, (rules, rotation) in TABLES.items():
        config = convert.table_config(
            TableConfig(
                rules if rules.variant.draws else replace(rules, rake=RAKE),
                PLAYERS_PER_TABLE + 2,
                action_clock=ACTION_CLOCK,
                time_charge=TIME_CHARGE if rules.variant.draws else None,
                rotation=rotation,
            )
        )
        table = admin.create_table(config, f"demo {game}")
        tables[game] = table.table_id
        bots[game] = []
        for n in range(1, PLAYERS_PER_TABLE + 1):
            player = f"{game}-bot-{n}"
            admin.mint_chips(player, 100 * BUY_IN, "demo")
            client = Client(server.target, _token(signer, auth_pb2.ROLE_PLAYER, player))
            strategy = Casual(random.Random(rng.random()))
            bots[game].append(
                Player(client, table.table_id, strategy, seat=n, buy_in=BUY_IN, rebuy=True)
            )
    admin.close()
    lock = threading.Lock()
    done: dict[str, set[int]] = {game: set() for game in TABLES}

    def finished(game: str, number: int) -> None:
        with lock:
            if number in done[game]:
                return
            done[game].add(number)
            count = len(done[game])
        if count % 10 == 0 or count == hands:
            out(f"  {game}: {count} hands played")
        if count >= hands:
            for bot in bots[game]:
                bot.stop()

    threads = []
    for game, seated in bots.items():
        for bot in seated:
            bot.sit()
        for bot in seated:
            thread = threading.Thread(
                target=bot.play, args=(lambda n, g=game: finished(g, n),), daemon=True
            )
            thread.start()
            threads.append(thread)
    for thread in threads:
        thread.join(timeout=120)
    for seated in bots.values():
        for bot in seated:
            bot.client.close()
    return tables


def _books(server: Feltline, signer: Signer) -> ledger_pb2.GetLedgerSummaryResponse:
    """The ledger's summary, through the Ledger service as any auditor would
    read it, once the views have applied everything stored so far."""
    with Client(server.target, _token(signer, auth_pb2.ROLE_AUDITOR)) as auditor:
        auditor.ledger.caught_up()
        return auditor.ledger.summary()


def _duplicate(
    server: Feltline, signer: Signer, rng: random.Random, out: Callable[[str], None]
) -> matches_pb2.Match:
    """A two-table hold'em match: casual bots at table 0, calling stations
    at table 1, the same cards in the same seats; the final match."""
    admin = Client(server.target, _token(signer, auth_pb2.ROLE_ADMIN))
    config = convert.table_config(
        TableConfig(Rules.house(Game.HOLDEM), MATCH_SEATS, action_clock=ACTION_CLOCK)
    )
    match = admin.create_match(config, "demo duplicate", tables=2, deals=MATCH_DEALS, stack=BUY_IN)
    out(f"  duplicate match: 2 tables, {MATCH_DEALS} deals, the same decks at both")
    styles: list[Callable[[], Strategy]] = [
        lambda: Casual(random.Random(rng.random())),
        CallingStation,
    ]
    bots = []
    for t, style in enumerate(styles):
        for seat in range(1, MATCH_SEATS + 1):
            player = f"match-bot-{t}-{seat}"
            client = Client(server.target, _token(signer, auth_pb2.ROLE_PLAYER, player))
            client.join_match(match.match_id, t, seat)
            bot = Player(client, match.table_ids[t], style(), seat=seat, buy_in=BUY_IN, rebuy=True)
            bot.seated = True  # the match seats its players for every deal
            bots.append(bot)
    threads = [threading.Thread(target=bot.play, daemon=True) for bot in bots]
    for thread in threads:
        thread.start()
    final = match
    for state in admin.watch_match(match.match_id):  # ends with the match
        final = state
    for bot in bots:
        bot.stop()
    for thread in threads:
        thread.join(timeout=30)
    for bot in bots:
        bot.client.close()
    admin.close()
    return final


def _sit_and_go(
    server: Feltline, signer: Signer, rng: random.Random, out: Callable[[str], None]
) -> tournaments_pb2.Tournament:
    """A hold'em sit-and-go of casual bots, each entering and playing
    wherever the director seats it until it is out or has won; its results."""
    admin = Client(server.target, _token(signer, auth_pb2.ROLE_ADMIN))
    levels = []
    for n in range(10):
        big = 20 * 2**n
        stakes = Stakes(Structure.NO_LIMIT, big, small_blind=big // 2, big_blind=big)
        levels.append(tournaments_pb2.TournamentLevel(stakes=convert.stakes(stakes, None), hands=2))
    first = Stakes(Structure.NO_LIMIT, 20, small_blind=10, big_blind=20)
    config = TableConfig(Rules(Game.HOLDEM, first), SNG_ENTRANTS, action_clock=ACTION_CLOCK)
    tournament = admin.create_tournament(
        convert.table_config(config),
        "demo sit-and-go",
        levels=levels,
        buy_in=SNG_BUY_IN,
        fee=SNG_FEE,
        stack=SNG_STACK,
        payouts=[tournaments_pb2.PayoutBand(entrants=SNG_ENTRANTS, shares=SNG_SHARES)],
        entrants=SNG_ENTRANTS,
    )
    key = tournament.tournament_id
    out(f"  sit-and-go: {SNG_ENTRANTS} bots, blinds doubling every 2 hands")
    bots = []
    for n in range(1, SNG_ENTRANTS + 1):
        player = f"sng-bot-{n}"
        admin.mint_chips(player, SNG_BUY_IN + SNG_FEE, "the demo's sit-and-go")
        client = Client(server.target, _token(signer, auth_pb2.ROLE_PLAYER, player))
        bots.append(TournamentPlayer(client, key, Casual(random.Random(rng.random()))))
    threads = [threading.Thread(target=bot.play, daemon=True) for bot in bots]
    for thread in threads:
        thread.start()
    for _ in admin.watch_tournament(key):  # ends with the tournament
        pass
    for thread in threads:
        thread.join(timeout=30)
    for bot in bots:
        bot.client.close()
    results = admin.tournament_results(key)
    admin.close()
    return results


def results(tournament: tournaments_pb2.Tournament) -> list[str]:
    """A tournament's places and prizes as a table people read."""
    lines = [f"{'place':>5}  {'player':<10} {'prize':>6}"]
    for s in tournament.standings:
        lines.append(f"{s.place:>5}  {s.player_id:<10} {s.prize:>6}")
    return lines


def standings(match: matches_pb2.Match) -> list[str]:
    """The match's standings as a table people read."""
    lines = [
        f"{'rank':>4}  {'player':<14} {'table':>5} {'seat':>4} {'score':>7} {'mp':>4} {'chips':>7}"
    ]
    for s in match.standings:
        lines.append(
            f"{s.rank:>4}  {s.player_id:<14} {s.table:>5} {s.seat:>4} "
            f"{s.score:>7} {s.matchpoints:>4} {s.chips:>7}"
        )
    return lines


def _check(room: Room, tables: dict[str, str]) -> Summary:
    summary = Summary(ledger=check(room.streams))
    for game, table_id in tables.items():
        key = UUID(table_id)
        table = room.table(key).table
        finished = table.hands - (table.dealt is not None)
        summary.hands[game] = finished
        if finished:
            summary.first[game] = first_hand(room, key)
        for number in range(1, finished + 1):
            stream = room.hand(key, number)  # loads through its chain and seal
            events = [e for _, made in stream.commands.values() for e in made]
            if replays(events):
                summary.replayed += 1
            else:
                summary.failed.append(f"{game} hand {number}")
    return summary


def first_hand(room: Room, table_id: UUID) -> list[str]:
    """Hand 1 of a table, line by line, as a spectator may see it."""
    stream = room.hand(table_id, 1)
    lines = []
    for _, made in stream.commands.values():
        for event in made:
            text = history.line(visible(Viewer(auth_pb2.ROLE_SPECTATOR), event, ended=False))
            if text:
                lines.append(text)
    return lines


def main(seed: int | None = None, hands: int = 30) -> int:
    print(
        f"Feltline demo: {len(TABLES)} tables, one of each game and a mixed one, "
        f"{PLAYERS_PER_TABLE} bots each, playing through the gRPC API"
    )
    summary = run(hands, seed=seed)
    print(f"\nPlayed in {summary.seconds:.1f} s:")
    for game, lines in summary.first.items():
        print(f"\n=== {game} ===  the first hand, as a spectator saw it")
        print("\n".join(lines))
    print("\nHands played:")
    for game, count in summary.hands.items():
        print(f"  {game}: {count}")
    total = sum(summary.hands.values())
    print(f"hands replayed from the store to the same result: {summary.replayed} of {total}")
    for failure in summary.failed:
        print(f"  did not replay: {failure}")
    ledger = summary.ledger
    assert ledger is not None
    if not ledger.balanced or ledger.problems:
        print(f"the store's own count does not add up: {ledger.problems}")
    books = summary.books
    assert books is not None
    print(f"\nThe ledger, read through the Ledger service (at notification {books.position}):")
    print(f"  chips minted: {books.minted}")
    print(f"  in accounts: {books.in_accounts}")
    print(f"  on tables: {books.on_tables}")
    print(f"  in pots: {books.in_pots} (and {books.carried} in carried jackpots pots)")
    print(f"  raked: {books.raked}; time charges: {books.time_charges}")
    if books.forfeited or books.cashed_out:
        print(f"  forfeited to the house: {books.forfeited}; cashed out: {books.cashed_out}")
    if books.balanced:
        print("every chip accounted for")
    else:
        print("the ledger does not balance:")
        for problem in books.problems:
            print(f"  {problem}")
    if summary.match is not None:
        match = summary.match
        print(
            f"\n=== duplicate match ===  {len(match.revealed)} of {match.deals} deals, standings:"
        )
        print("\n".join(standings(match)))
    if summary.tournament is not None:
        tournament = summary.tournament
        print(
            f"\n=== sit-and-go ===  {len(tournament.player_ids)} entrants, "
            f"prize pool {tournament.prize_pool}, results:"
        )
        print("\n".join(results(tournament)))
    ok = books.balanced and ledger.balanced and not ledger.problems and not summary.failed
    return 0 if ok else 1
