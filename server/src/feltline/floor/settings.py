"""A table's settings as command-line options, each with the default that
docs/rules.md documents, checked here before a table is asked for, as the engine
and the server's API (the protos' rules) would check them: a mistake is
one line, before anything is sent."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from feltline.engine.cards.values import System
from feltline.engine.errors import ConfigError
from feltline.engine.games import VARIANTS, named
from feltline.engine.games.variant import Variant
from feltline.engine.hand.events import Entropy
from feltline.engine.hand.rules import Game, Rake, Rules, Stakes, Structure
from feltline.engine.table.house import (
    DEFAULT_ACTION_CLOCK,
    DEFAULT_ANTE_CAP,
    DEFAULT_CONTRIBUTION_WINDOW_MS,
    DEFAULT_WINDOW,
    Rotation,
    TableConfig,
    TimeBank,
    TimeCharge,
)
from feltline_protos.v1 import common_pb2

# The stakes not given are the game's house stakes (its module in
# feltline.engine.games).
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
    "time_bank.time": "--time-bank",
    "time_bank.refill_per_hand": "--time-bank-refill",
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
    # One game, or a mixed table's rotation of games: never both.
    which = group.add_mutually_exclusive_group(required=game_required)
    if game_required:
        which.add_argument("--game", choices=games, help="the game")
    else:
        which.add_argument(
            "--game", default=Game.HOLDEM.value, choices=games, help="the game (default holdem)"
        )
    which.add_argument(
        "--rotation",
        help="instead of --game, a mixed table: its games in turn, comma-separated, e.g. "
        "holdem,omaha-hi-lo,razz,stud,stud-hi-lo (H.O.R.S.E.), each once; fixed limit "
        "by default, every game's forced bets set with these options",
    )
    add(
        "--structure",
        choices=[s.value for s in Structure],
        help="betting structure (default: no-limit in hold'em, fixed-limit otherwise)",
    )
    add(
        "--small-bet",
        type=int,
        help="fixed limit: the small bet (default: the big blind in a blind game, else "
        "the house's); pot and no limit: the minimum bet (a blind game: the big blind)",
    )
    add("--big-bet", type=int, help="fixed limit: the big bet (default twice the small bet)")
    add(
        "--ante",
        type=int,
        help="the ante (default: the game's house ante)",
    )
    add("--small-blind", type=int, help="blind games: the small blind (default: the house's)")
    add("--big-blind", type=int, help="blind games: the big blind (default: the house's)")
    add("--bring-in", type=int, help="the stud games: the bring-in (default: the house's)")
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
    add(
        "--hands-per-game",
        type=int,
        help="a mixed table: hands of each game (default 0: an orbit)",
    )
    add("--seats", type=int, default=SEATS, help=f"seats at the table (default {SEATS})")
    add("--low", choices=LOWS, default=System.ACE_TO_FIVE.value, help="draw-declare: the low")
    add(
        "--joker",
        action="store_true",
        help="stud high-low: deal a 53rd card, the joker (default off)",
    )
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
        "--time-bank",
        type=int,
        help="seconds of time bank each seat sits down with, used once its action clock "
        "runs out (default none)",
    )
    add(
        "--time-bank-refill",
        type=int,
        help="seconds a seat's time bank gains after each hand it is dealt into, up to "
        "--time-bank (default 0)",
    )
    add(
        "--seat-entropy",
        choices=[e.value for e in Entropy],
        default=Entropy.OFF.value,
        help="whether the seats contribute to each deck (feltline-deck-v2, docs/deck.md): "
        "off (the server's seed alone), optional, or required (a hand waits for every "
        "seat's commitment, or is cancelled) (default off)",
    )
    add(
        "--contribution-window",
        type=int,
        default=DEFAULT_CONTRIBUTION_WINDOW_MS,
        help="milliseconds the seats have to commit, then to reveal "
        f"(default {DEFAULT_CONTRIBUTION_WINDOW_MS})",
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
    rotation = _rotation(args)
    game = Game(args.game) if rotation is None else rotation.games[0]
    games = (game,) if rotation is None else rotation.games
    what = str(game) if rotation is None else "this rotation"

    def has(feature: Callable[[Variant], bool]) -> bool:
        return any(feature(VARIANTS[g]) for g in games)

    house = _house(games)
    structure = Structure(args.structure) if args.structure else house.structure
    small_blind = _chips("--small-blind", args.small_blind, house.small_blind)
    big_blind = _chips("--big-blind", args.big_blind, house.big_blind)
    if not has(lambda v: v.blinds) and (small_blind or big_blind):
        raise SettingError(
            f"{what} has no blinds: only {named(lambda v: v.blinds)} takes "
            "--small-blind, --big-blind"
        )
    small_bet = _chips("--small-bet", args.small_bet, big_blind or house.small_bet)
    fixed = structure is Structure.FIXED_LIMIT
    if has(lambda v: v.blinds) and not fixed and small_bet != big_blind:
        # the engine would bet the blind
        blinds = VARIANTS[game].title if rotation is None else named(lambda v: v.blinds)
        raise SettingError(
            f"in {structure} {blinds} the minimum bet is the big blind: "
            "set --big-blind, not --small-bet"
        )
    big_bet = _chips("--big-bet", args.big_bet, 2 * small_bet if fixed else 0)
    if not fixed and big_bet:
        raise SettingError(f"--big-bet is for fixed limit, not {structure}")
    bring_in = _chips("--bring-in", args.bring_in, house.bring_in)
    if bring_in and not has(lambda v: v.bring_in):
        raise SettingError(
            f"{what} has no bring-in: only {named(lambda v: v.bring_in)} takes --bring-in"
        )
    if args.raise_cap is not None and not fixed:
        raise SettingError(f"--raise-cap is for fixed limit, not {structure}")
    if args.capped_heads_up and not fixed:
        raise SettingError(f"--capped-heads-up is for fixed limit, not {structure}")
    given = (args.draw_limit_small, args.draw_limit_large)
    if not has(lambda v: v.draws) and given != (None, None):  # even a default's value, given
        raise SettingError(f"{what} has no draw: the draw limits are for draw games")
    draw_small = _draw_limit("--draw-limit-small", args.draw_limit_small, DRAW_LIMITS[0])
    draw_large = _draw_limit("--draw-limit-large", args.draw_limit_large, DRAW_LIMITS[1])
    if args.ante_cap != DEFAULT_ANTE_CAP and not has(lambda v: v.openers):
        raise SettingError(f"--ante-cap is for {named(lambda v: v.openers)}, whose pots carry over")
    stakes = Stakes(
        structure,
        small_bet=small_bet,
        big_bet=big_bet,
        ante=_chips("--ante", args.ante, house.ante),
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
    bank = None
    if args.time_bank is not None:
        bank = TimeBank(args.time_bank, args.time_bank_refill or 0)
    elif args.time_bank_refill is not None:
        raise SettingError("--time-bank-refill needs --time-bank")
    config = TableConfig(
        rules,
        args.seats,
        min_buy_in=_limit("--min-buy-in", args.min_buy_in),
        max_buy_in=_limit("--max-buy-in", args.max_buy_in),
        time_charge=charge,
        ante_cap=args.ante_cap,
        action_clock=args.action_clock,
        seat_entropy=Entropy(args.seat_entropy),
        contribution_window_ms=args.contribution_window,
        rotation=rotation,
        time_bank=bank,
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
    default = f"{game} table" if rotation is None else "mixed table"
    name = default if args.name is None else args.name
    return Settings(config, message, name)


def _rotation(args: argparse.Namespace) -> Rotation | None:
    """``--rotation``'s games and ``--hands-per-game``."""
    if args.rotation is None:
        if args.hands_per_game is not None:
            raise SettingError("--hands-per-game needs --rotation")
        return None
    games = []
    for name in args.rotation.split(","):
        try:
            games.append(Game(name.strip()))
        except ValueError:
            known = ", ".join(g.value for g in Game)
            raise SettingError(
                f"--rotation: no game {name.strip()!r} (the games: {known})"
            ) from None
    hands = 0 if args.hands_per_game is None else args.hands_per_game
    return Rotation(tuple(games), hands)


def _house(games: tuple[Game, ...]) -> Stakes:
    """The house stakes of a table of ``games``: the first game's, and each
    forced bet it does not post from the first game that does; a mixed
    table is fixed limit, as its stud games are."""
    stakes = VARIANTS[games[0]].stakes
    if len(games) == 1:
        return stakes
    stakes = replace(stakes, structure=Structure.FIXED_LIMIT, big_bet=2 * stakes.small_bet)
    for game in games[1:]:
        other = VARIANTS[game].stakes
        stakes = replace(
            stakes,
            ante=stakes.ante or other.ante,
            small_blind=stakes.small_blind or other.small_blind,
            big_blind=stakes.big_blind or other.big_blind,
            bring_in=stakes.bring_in or other.bring_in,
        )
    return stakes


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
