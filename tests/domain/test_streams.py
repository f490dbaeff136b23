"""The table, account and hand aggregates without a database."""

import random
from uuid import uuid4

import pytest

from feltline.audit.keys import Signer
from feltline.domain.account import Account, InsufficientChips
from feltline.domain.account import project as project_account
from feltline.domain.hand import CommandIdReused, HandStream
from feltline.domain.hand import project as project_hand
from feltline.domain.table import TableStream
from feltline.domain.table import project as project_table
from feltline.engine.errors import IllegalAmount, RuleError
from feltline.engine.games import VARIANTS
from feltline.engine.hand.commands import StartHand
from feltline.engine.hand.events import Deal, SeatAtStart
from feltline.engine.hand.rules import Game
from feltline.engine.hand.script import Phase
from feltline.engine.table.commands import OpenTable, SitDown
from feltline.engine.table.events import SatDown
from feltline.engine.table.house import TableConfig
from tests.engine.players import choose
from tests.tables import TABLES

CONFIG = TableConfig(TABLES[Game.HOLDEM], 6)


def test_a_table_files_each_requests_events_under_its_key() -> None:
    stream = TableStream.new(uuid4())
    opened, stream = stream.execute("o", OpenTable(CONFIG, at=3), request="fp-o")
    sat, stream = stream.execute("s", SitDown(1, "ann", 500, at=4), request="fp-s", hand=0)
    assert stream.version == 2
    assert stream.commands["s"].events == (SatDown(1, "ann", 500, 4, stream.table.seats[0].entry),)
    assert stream.repeat("s", "fp-s") == stream.commands["s"]
    assert stream.repeat("new", "fp") is None
    with pytest.raises(CommandIdReused):
        stream.repeat("s", "fp-other")
    assert project_table(None, [*opened, *sat]) == stream
    with pytest.raises(ValueError, match="event 2 follows 2"):
        stream.extend(sat)


def test_an_account_moves_only_chips_it_holds() -> None:
    account = Account.new(uuid4())
    table = uuid4()
    with pytest.raises(IllegalAmount):
        account.mint("m0", "fp", 0, "admin")
    minted = account.mint("m1", "fp-m", 100, "admin")
    account = account.apply(minted)
    with pytest.raises(InsufficientChips, match="ann has 100 chips off the table, not the 101"):
        account.buy_in("b", "fp-b", 101, player="ann", table=table, seat=1)
    bought = account.buy_in("b", "fp-b", 80, player="ann", table=table, seat=1)
    account = account.apply(bought)
    back = account.returned("r", "fp-r", 130, table=table, seat=1)
    account = account.apply(back)
    out = account.cash_out("c", "fp-c", 50, "ann")
    account = account.apply(out)
    assert (account.balance, account.minted, account.cashed_out) == (100, 100, 50)
    assert account.repeat("m1", "fp-m") == (minted,)
    with pytest.raises(CommandIdReused):
        account.repeat("m1", "fp-x")
    assert project_account(None, [minted, bought, back, out]) == account


@pytest.mark.parametrize("game", list(Game))
def test_a_hand_after_its_commands_is_the_hand_its_records_load_as(game: Game) -> None:
    rng = random.Random(4)
    signer = Signer.generate()
    stream = HandStream.new(uuid4())
    seats = tuple(SeatAtStart(s, f"p{s}", 300) for s in range(1, 5))
    holdem = VARIANTS[game].blinds
    deal = Deal(4, seats, small_blind=1 if holdem else None, big_blind=2 if holdem else None)
    start = StartHand(TABLES[game], deal, seed=bytes(32))
    records, stream = stream.execute("start", start, signer, at=1)
    n = 0
    while stream.hand.phase is not Phase.ENDED:
        n += 1
        try:
            more, stream = stream.execute(f"c{n}", choose(stream.hand, rng), signer, at=n)
        except RuleError:
            continue
        records += more
    assert stream.seal is not None
    assert project_hand(None, records) == stream
