"""A duplicate match, checked and shown from a store without the server.

A match's stream (``docs/audit.md``, Match streams) names its tables, the
commitment to each deal's seed, and, once every table has ended a deal, the
seed. :func:`check_match` follows that stream's chain and signatures, then
holds every table's hand of every deal to it: each was dealt from the
committed seed and the very same deck, ended with the stacks the match
recorded, and the scores follow from those stacks. :func:`side_by_side`
puts a revealed deal's hand at every table in columns, as an auditor sees
it, so the same seat's cards line up and the play that differed shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from feltline.audit import chain, keys
from feltline.audit.codec import decode_event
from feltline.engine.cards.deck import commitment
from feltline.engine.duplicate import chip_results, matchpoints, scores
from feltline.engine.hand.events import DeckShuffled, Event, HandEnded, HandStarted
from feltline_replay import history
from feltline_replay.export import hand_id
from feltline_replay.store import Rows, StoreError, record, state

MATCH = "feltline.domain.match:MatchRecord"
COLUMN = 44


@dataclass
class MatchReport:
    """What was checked of a match and what does not hold; ``totals`` each
    (table, seat)'s summed score and matchpoints over the revealed deals,
    worked out here from the stored hands."""

    tables: list[UUID] = field(default_factory=list)
    deals: int = 0
    revealed: int = 0
    hands: int = 0
    failures: list[str] = field(default_factory=list)
    totals: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures


def match_records(rows: Rows, match: UUID) -> list[dict[str, Any]]:
    """The match stream's stored records, in order."""
    out = []
    for position, topic, raw, _ in rows.stream(match):
        if topic != MATCH:
            raise ValueError(f"stream {match} is not a match: it holds {topic}")
        try:
            out.append(state(raw))
        except StoreError as e:
            raise StoreError(f"match {match}: record {position}'s stored bytes are {e}") from None
    if not out:
        raise ValueError(f"the store holds no match {match}")
    return out


def chained(
    kind: str, stream: UUID, records: Sequence[dict[str, Any]], key: str | None
) -> list[str]:
    """Every link and signature of a match's or a tournament's stream, its
    last record signed (by ``key`` when given)."""
    failures = []
    link = chain.GENESIS
    for position, r in enumerate(records, 1):
        link = chain.link(
            link,
            kind=kind,
            stream=str(stream),
            position=position,
            name=r["type"],
            version=r["version"],
            data=r["data"],
        )
        if link.hex() != r["link"]:
            failures.append(f"{kind} record {position}: does not fit the chain")
        if r.get("signature"):
            signer = str(r.get("signed_by", ""))
            if not keys.verify(signer, link, str(r["signature"])):
                failures.append(f"{kind} record {position}: its signature does not verify")
            elif key is not None and signer != key:
                failures.append(f"{kind} record {position}: signed by {signer}, not {key}")
    if not records[-1].get("signature"):
        failures.append(f"the {kind}'s last record is not signed")
    return failures


def _hand(rows: Rows, table: UUID, number: int) -> list[Event]:
    stream = hand_id(table, number)
    events = []
    for row in rows.stream(stream):
        r = record(stream, *row)
        if r["kind"] == "hand":
            events.append(decode_event(r["type"], r["version"], r["data"]))
    return events


def check_match(rows: Rows, match: UUID, key: str | None = None) -> MatchReport:
    """Check the match's stream and every hand of every revealed deal."""
    records = match_records(rows, match)
    report = MatchReport(failures=chained("match", match, records, key))
    by_type: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_type.setdefault(r["type"], []).append(r["data"])
    created = by_type["MatchCreated"][0]
    report.tables = [UUID(t) for t in created["tables"]]
    report.deals = created["deals"]
    stack = created["stack"]
    commitments: list[str] = created["commitments"]
    played = {(d["deal"], d["table"]): dict(d["stacks"]) for d in by_type.get("DealPlayed", [])}
    seeds = {d["deal"]: bytes.fromhex(d["seed"]) for d in by_type.get("DealRevealed", [])}
    report.revealed = len(seeds)
    totals: dict[tuple[int, int], list[int]] = {}
    for deal in range(1, report.revealed + 1):
        seed = seeds.get(deal)
        if seed is None or commitment(seed) != commitments[deal - 1]:
            report.failures.append(f"deal {deal}: the revealed seed is not the committed one")
            continue
        decks, results = [], []
        for t, table in enumerate(report.tables):
            events = _hand(rows, table, deal)
            report.hands += 1
            where = f"deal {deal} at table {t}"
            started = next((e for e in events if isinstance(e, HandStarted)), None)
            shuffled = next((e for e in events if isinstance(e, DeckShuffled)), None)
            ended = events[-1] if events else None
            if started is None or started.commitment != commitments[deal - 1]:
                report.failures.append(f"{where}: not dealt from the committed seed")
            if shuffled is None or shuffled.seed != seed:
                report.failures.append(f"{where}: its deck is not the revealed seed's")
            else:
                decks.append(shuffled.cards)
            if not isinstance(ended, HandEnded) or dict(ended.stacks) != played.get((deal, t)):
                report.failures.append(f"{where}: did not end with the stacks the match recorded")
                continue
            results.append(chip_results(stack, dict(ended.stacks)))
        if len(set(decks)) > 1:
            report.failures.append(f"deal {deal}: the tables were not dealt the same deck")
        if len(results) != len(report.tables):
            continue
        for t, (score, points) in enumerate(
            zip(scores(results), matchpoints(results), strict=True)
        ):
            for seat in score:
                total = totals.setdefault((t, seat), [0, 0])
                total[0] += score[seat]
                total[1] += points[seat]
    report.totals = {at: (s, p) for at, (s, p) in sorted(totals.items())}
    return report


def side_by_side(rows: Rows, match: UUID, deal: int) -> str:
    """Deal ``deal`` at every table, one column per table, as an auditor
    sees it once the match has revealed it; refused before."""
    records = match_records(rows, match)
    revealed = {r["data"]["deal"] for r in records if r["type"] == "DealRevealed"}
    if deal not in revealed:
        raise ValueError(
            f"deal {deal} is not revealed: some table still plays it, or it is not dealt"
        )
    tables = [UUID(t) for t in records[0]["data"]["tables"]]
    columns = []
    for t, table in enumerate(tables):
        lines = [f"table {t}"]
        for event in _hand(rows, table, deal):
            text = history.line(event)
            if text is not None:
                lines += text.splitlines()
        columns.append(lines)
    depth = max(len(c) for c in columns)
    out = []
    for i in range(depth):
        cells = [(c[i] if i < len(c) else "")[: COLUMN - 2].ljust(COLUMN) for c in columns]
        out.append("".join(cells).rstrip())
    return "\n".join(out)
