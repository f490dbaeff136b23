"""Hands dealt under ``feltline-deck-v2``, played by the engine and written
as a ``feltline-log`` the way the server chains, signs and seals a hand, so
that both verifiers can be held to them and to forgeries of them.

    uv run python tests/replay/contributed.py   # writes the Node verifier's fixture
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any
from uuid import UUID

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "clients/node/test/fixtures/contributed.log"
HANDS = [
    UUID("2b0c4a56-9d1e-4f37-8a6b-5c3d2e1f0a01"),  # every seat reveals
    UUID("2b0c4a56-9d1e-4f37-8a6b-5c3d2e1f0a02"),  # seat 4 commits and withholds
    UUID("2b0c4a56-9d1e-4f37-8a6b-5c3d2e1f0a03"),  # a draw game: reshuffles from the deck seed
]

Record = dict[str, Any]


def contribution(seat: int, hand: UUID) -> bytes:
    return hashlib.sha256(b"%s seat %d" % (hand.bytes, seat)).digest()


def played(hand: UUID, *, withhold: tuple[int, ...] = (), draw: bool = False) -> list[list[Any]]:
    """The events of one v2 hand, grouped by the command that made each
    group: every seat commits, the seats not in ``withhold`` reveal, the
    window closes on the rest; then bots play it out."""
    from feltline.engine.hand.commands import CloseContributions, Commit, Reveal
    from feltline.engine.hand.decide import NEW_HAND
    from feltline.engine.hand.decide import play as decide_and_evolve
    from feltline.engine.hand.events import Entropy
    from feltline.engine.hand.rules import Game, Structure
    from feltline.engine.hand.script import Phase
    from tests.engine.players import Style, choose, random_legal, rules, start

    game = Game.DRAW_DECLARE if draw else Game.HOLDEM
    seed = hashlib.sha256(hand.bytes).digest()
    seats = {1: 400, 4: 400, 6: 400} if not draw else dict.fromkeys(range(1, 8), 400)
    command: Any = start(rules(game, Structure.POT_LIMIT), seats, seed, entropy=Entropy.OPTIONAL)
    commands: list[Any] = [command]
    commands += [Commit(s, hashlib.sha256(contribution(s, hand)).hexdigest()) for s in seats]
    commands += [Reveal(s, contribution(s, hand)) for s in seats if s not in withhold]
    if withhold:
        commands.append(CloseContributions())
    rng = random.Random(hand.int)
    state, groups = NEW_HAND, []
    while commands or state.phase is not Phase.ENDED:
        if commands:
            pending = commands.pop(0)
        elif draw:  # nobody folds, everyone draws all it may: the stub runs out
            pending = random_legal(state, rng, Style(folds=0.0, time_outs=0.0, big_draws=True))
        else:
            pending = choose(state, rng)
        try:
            events, state = decide_and_evolve(state, pending)
        except Exception:
            if commands:
                raise
            continue  # a bot's refused move (a jackpots bet without openers): choose again
        groups.append(events)
    return groups


def records(hand: UUID, groups: list[list[Any]], signer: Any) -> list[Record]:
    """The hand's records: each command's last record signed, then the seal."""
    from feltline.audit import chain
    from feltline.audit.codec import encode_event

    out: list[Record] = []
    previous = chain.GENESIS
    for group in groups:
        for k, event in enumerate(group):
            name, version, data = encode_event(event)
            position = len(out) + 1
            previous = chain.link(
                previous,
                kind="hand",
                stream=str(hand),
                position=position,
                name=name,
                version=version,
                data=data,
            )
            last = k == len(group) - 1
            out.append(
                {
                    "kind": "hand",
                    "id": str(hand),
                    "position": position,
                    "signature": signer.sign(previous).hex() if last else "",
                    "signed_by": signer.public_hex if last else "",
                    "type": name,
                    "version": version,
                    "data": data,
                    "link": previous.hex(),
                }
            )
    out.append(
        {
            "kind": "seal",
            "id": str(hand),
            "position": len(out) + 1,
            "algorithm": chain.CHAIN_ALGORITHM,
            "link": previous.hex(),
            "signature": signer.sign(previous).hex(),
            "public_key": signer.public_hex,
        }
    )
    return out


def log(signer: Any) -> list[Record]:
    """The three hands, in order."""
    out: list[Record] = []
    out += records(HANDS[0], played(HANDS[0]), signer)
    out += records(HANDS[1], played(HANDS[1], withhold=(4,)), signer)
    out += records(HANDS[2], played(HANDS[2], draw=True), signer)
    return out


def header(signer: Any, hands: int) -> Record:
    return {
        "format": "feltline-log",
        "version": 1,
        "public_key": signer.public_hex,
        "selection": {"exported_hands": hands},
        "complete": False,
    }


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from feltline.audit.keys import Signer

    signer = Signer.generate()
    lines = [header(signer, len(HANDS)), *log(signer)]
    FIXTURE.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))


if __name__ == "__main__":
    main()
