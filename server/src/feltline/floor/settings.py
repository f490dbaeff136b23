"""A table's settings as command-line options, each with the default that
docs/rules.md documents, checked here before a table is asked for, as the engine
and the server's API (the protos' rules) would check them: a mistake is
one line, before anything is sent."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from feltline.engine.errors import ConfigError
from feltline.engine.house import (
    DEFAULT_ACTION_CLOCK,
    DEFAULT_ANTE_CAP,
    DEFAULT_WINDOW,
    TableConfig,
    TimeCharge,
)
from feltline.engine.rules import DRAW_GAMES, Game, Rake, Rules, Stakes, Structure
from feltline.engine.values import System
from feltline_protos.v1 import common_pb2

# The house's stakes when none are given: each game's usual structure and a
# small game's chips (the bring-in and the ante are stud's and draw's).
STRUCTURE = {
    Game.HOLDEM: Structure.NO_LIMIT,
    Game.STUD_HI_LO: Structure.FIXED_LIMIT,
    Game.DRAW_DECLARE: Structure.FIXED_LIMIT,
    Game.JACKPOTS: Structure.FIXED_LIMIT,
}
SMALL_BET = 10
BLINDS = (5, 10)
ANTE = {Game.STUD_HI_LO: 2, Game.DRAW_DECLARE: 5, Game.JACKPOTS: 5, Game.HOLDEM: 0}
BRING_IN = 3
DRAW_LIMITS = (5, 3)  # most cards drawn with fewer than six players, and with six or more
SEATS = 6
LOWS = [s.value for s in System if s is not System.HIGH]
# The option a field of TableConfig comes from, where the field's name does
# not say it (``rules.draw_limit_small`` is ``--draw-limit-small``).
FIELD_OPTIONS = {
    "rules.rake.basis_points": "--rake",
    "rules.rake.cap": "--rake-cap",
    "time_charge.amount": "--time-charge",
    "time_charge.window": "--time-window",
}


class SettingError(ValueError):
    """A setting no table could be opened with, said as a person would."""


@dataclass(frozen=True)
class Settings:
    """What ``table open`` asks the server for."""

    config: TableConfig
    message: common_pb2.TableConfig  # the config as the API carries it
    name: str


def add_options(parser: argparse.ArgumentParser, *, game_required: bool) -> None:
    """Every table setting, as options of ``parser``."""
    group = parser.add_argument_group("table settings (docs/rules.md)")
    add = group.add_argument
    games = [g.value for g in Game]
    if game_required:
        add("--game", required=True, choices=games, help="the game")
    else:
        add("--game", default=Game.HOLDEM.value, choices=games, help="the game (default holdem)")
    add(
        "--structure",
        choices=[s.value for s in Structure],
        help="betting structure (default: no-limit in hold'em, fixed-limit otherwise)",
    )
    add(
        "--small-bet",
        type=int,
        help=f"fixed limit: the small bet (default: the big blind in hold'em, else "
        f"{SMALL_BET}); pot and no limit: the minimum bet (hold'em: the big blind)",
    )
    add("--big-bet", type=int, help="fixed limit: the big bet (default twice the small bet)")
    add(
        "--ante",
        type=int,
        help="the ante (default: 2 in stud, 5 in draw games, none in hold'em)",
    )
    add("--small-blind", type=int, help=f"hold'em: the small blind (default {BLINDS[0]})")
    add("--big-blind", type=int, help=f"hold'em: the big blind (default {BLINDS[1]})")
    add("--bring-in", type=int, help=f"stud: the bring-in (default {BRING_IN})")
    add(
        "--raise-cap",
        type=int,
        help="fixed limit: raises after the bet (default 3 in hold'em and stud, 4 in draw)",
    )
    add(
        "--capped-heads-up",
        action="store_true",
        help="fixed limit: keep the cap with two players active (default: unlimited then)",
    )
    add("--seats", type=int, default=SEATS, help=f"seats at the table (default {SEATS})")
    add("--low", choices=LOWS, default=System.ACE_TO_FIVE.value, help="draw-declare: the low")
    add("--joker", action="store_true", help="stud: deal a 53rd card, the joker (default off)")
    add(
        "--draw-limit-small",
        type=int,
        help=f"draw: most cards drawn, < 6 players (1 to 5, default {DRAW_LIMITS[0]})",
    )
    add(
        "--draw-limit-large",
        type=int,
        help=f"draw: most cards drawn, 6+ players (1 to 5, default {DRAW_LIMITS[1]})",
    )
    add("--rake", help="the rake, a percentage of each pot such as 5 or 2.5 (default none)")
    add(
        "--rake-cap",
        type=int,
        help="the most the rake takes from one hand, at least 1 chip (with --rake)",
    )
    add("--time-charge", type=int, help="chips each seat pays per window (default none)")
    add(
        "--time-window",
        type=int,
        default=DEFAULT_WINDOW,
        help=f"the time charge's window in seconds (default {DEFAULT_WINDOW})",
    )
    add(
        "--ante-cap",
        type=int,
        default=DEFAULT_ANTE_CAP,
        help=f"jackpots: deals of one pot that take antes (default {DEFAULT_ANTE_CAP})",
    )
    add(
        "--action-clock",
        type=int,
        default=DEFAULT_ACTION_CLOCK,
        help=f"seconds a player has to act (default {DEFAULT_ACTION_CLOCK})",
    )
    add(
        "--min-buy-in",
        type=int,
        help="the smallest buy-in (default 10 big bets, or 40 big blinds)",
    )
    add(
        "--max-buy-in",
        type=int,
        help="the largest buy-in (default 25 big bets, or 100 big blinds)",
    )
    add("--name", help="the table's name (default '<game> table')")


def settings(args: argparse.Namespace) -> Settings:
    """The table the options describe, checked as the engine would check it."""
    game = Game(args.game)
    structure = Structure(args.structure) if args.structure else STRUCTURE[game]
    holdem = game is Game.HOLDEM
    small_blind = _chips("--small-blind", args.small_blind, BLINDS[0] if holdem else 0)
    big_blind = _chips("--big-blind", args.big_blind, BLINDS[1] if holdem else 0)
    if not holdem and (small_blind or big_blind):
        raise SettingError(f"{game} has no blinds: only hold'em takes --small-blind, --big-blind")
    small_bet = _chips("--small-bet", args.small_bet, big_blind or SMALL_BET)
    fixed = structure is Structure.FIXED_LIMIT
    if holdem and not fixed and small_bet != big_blind:  # the engine would bet the blind
        raise SettingError(
            f"in {structure} hold'em the minimum bet is the big blind: set --big-blind, "
            "not --small-bet"
        )
    big_bet = _chips("--big-bet", args.big_bet, 2 * small_bet if fixed else 0)
    if not fixed and big_bet:
        raise SettingError(f"--big-bet is for fixed limit, not {structure}")
    bring_in = _chips("--bring-in", args.bring_in, BRING_IN if game is Game.STUD_HI_LO else 0)
    if bring_in and game is not Game.STUD_HI_LO:
        raise SettingError(f"{game} has no bring-in: only stud takes --bring-in")
    if args.raise_cap is not None and not fixed:
        raise SettingError(f"--raise-cap is for fixed limit, not {structure}")
    if args.capped_heads_up and not fixed:
        raise SettingError(f"--capped-heads-up is for fixed limit, not {structure}")
    given = (args.draw_limit_small, args.draw_limit_large)
    if game not in DRAW_GAMES and given != (None, None):  # even a default's value, given
        raise SettingError(f"{game} has no draw: the draw limits are for draw games")
    draw_small = _draw_limit("--draw-limit-small", args.draw_limit_small, DRAW_LIMITS[0])
    draw_large = _draw_limit("--draw-limit-large", args.draw_limit_large, DRAW_LIMITS[1])
    if args.ante_cap != DEFAULT_ANTE_CAP and game is not Game.JACKPOTS:
        raise SettingError("--ante-cap is for jackpots, whose pots carry over")
    stakes = Stakes(
        structure,
        small_bet=small_bet,
        big_bet=big_bet,
        ante=_chips("--ante", args.ante, ANTE[game]),
        small_blind=small_blind,
        big_blind=big_blind,
        bring_in=bring_in,
        raise_cap=args.raise_cap,
        uncapped_heads_up=not args.capped_heads_up,
    )
    rules = Rules(
        game,
        stakes,
        low=System(args.low),
        joker=args.joker,
        draw_limit_small=draw_small,
        draw_limit_large=draw_large,
        rake=_rake(args.rake, args.rake_cap),
    )
    charge = None
    if args.time_charge is not None:
        charge = TimeCharge(_chips("--time-charge", args.time_charge, 0), args.time_window)
    elif args.time_window != DEFAULT_WINDOW:
        raise SettingError("--time-window needs --time-charge")
    config = TableConfig(
        rules,
        args.seats,
        min_buy_in=_limit("--min-buy-in", args.min_buy_in),
        max_buy_in=_limit("--max-buy-in", args.max_buy_in),
        time_charge=charge,
        ante_cap=args.ante_cap,
        action_clock=args.action_clock,
    )
    try:
        config.validate()
    except ConfigError as e:
        raise SettingError(str(e)) from None
    from feltline.api import convert  # noqa: PLC0415 (the engine's events: opening a table only)

    try:  # every number must fit its field of the API too
        message = convert.table_config(config)
    except ValueError as e:
        raise SettingError(f"a setting is too large to send ({e})") from None
    _contract(message)
    name = f"{game} table" if args.name is None else args.name
    return Settings(config, message, name)


def _draw_limit(option: str, given: int | None, default: int) -> int:
    """The API's bounds, not the engine's: the engine (which replays any
    stored hand) takes 0, but the server refuses a table that draws none,
    and the engine's own message would say 0 to 5."""
    if given is None:
        return default
    if not 1 <= given <= 5:
        raise SettingError(f"{option} is 1 to 5 cards, not {given}")
    return given


def _contract(message: common_pb2.TableConfig) -> None:
    """Refuse what the server would by the protos' rules (protovalidate),
    which it checks before the engine's: some bounds are narrower there,
    such as an action clock of an hour at most or a time window of a
    minute at least. Said with the option at fault, before anything is sent."""
    from feltline.api import validation  # noqa: PLC0415 (protovalidate: opening a table only)

    faults = [
        f"{_option(path)} {rule}" if path else rule  # no path: a rule of the whole table
        for path, rule in validation.violations(message)
    ]
    if faults:
        raise SettingError(f"{'; '.join(faults)} (the server's rules)")


def _option(path: str) -> str:
    """The option a field of TableConfig comes from."""
    return FIELD_OPTIONS.get(path) or "--" + path.rsplit(".", 1)[-1].replace("_", "-")


def _chips(option: str, given: int | None, default: int) -> int:
    if given is None:
        return default
    if given < 0:
        raise SettingError(f"{option} is a number of chips, not {given}")
    return given


def _limit(option: str, given: int | None) -> int | None:
    """A buy-in limit; None leaves the house's."""
    if given is not None and given <= 0:
        raise SettingError(f"{option} is at least one chip, not {given}")
    return given


def _rake(rate: str | None, cap: int | None) -> Rake | None:
    """A percentage, to the basis points the engine counts in."""
    if rate is None:
        if cap is not None:
            raise SettingError("--rake-cap needs --rake")
        return None
    try:
        points = Decimal(rate.rstrip("%")) * 100
    except InvalidOperation:
        raise SettingError(f"--rake is a percentage such as 5 or 2.5, not {rate!r}") from None
    if points != points.to_integral_value() or not 0 < points < 10_000:
        raise SettingError(f"--rake is above 0 and below 100%, in hundredths at most, not {rate}")
    if cap is None:
        raise SettingError("--rake needs --rake-cap, the most it takes from one hand")
    if cap < 1:  # the server takes 0, but a rake that never takes a chip is a mistake
        why = ": a rake capped at 0 takes nothing (leave out --rake for none)" if cap == 0 else ""
        raise SettingError(f"--rake-cap is at least one chip, not {cap}{why}")
    return Rake(int(points), cap)
