"""The ``feltline-replay`` command: export (from a store or a server), verify, show
and convert (docs/replay.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import IO
from uuid import UUID

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from feltline.audit.checkpoint import Note, NoteError, NoteKey
from feltline_replay import log
from feltline_replay.export import Selection, export, hand_id, heading, plan, records
from feltline_replay.store import Rows, StoreError, open_rows, readable
from feltline_replay.transparency import (
    ROTATIONS,
    Checked,
    Logged,
    Refused,
    Rotation,
    Trusted,
    Witness,
    check,
    check_receipt,
    trusted,
)
from feltline_replay.verify import (
    Failure,
    Share,
    line_shares,
    log_shares,
    store_shares,
    verify_shares,
)


def public_key(text: str) -> str:
    """A public key given as 64 hex digits, as PEM, or as a file holding either."""
    path = Path(text)
    if len(text) < 256 and path.is_file():
        text = path.read_text()
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_public_key(text.encode())
        if not isinstance(key, Ed25519PublicKey):
            raise argparse.ArgumentTypeError("not an Ed25519 public key")
        return key.public_bytes_raw().hex()
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise argparse.ArgumentTypeError("a public key is PEM or 64 hex digits")
    return raw.hex()


def moment(text: str) -> int:
    """A time as UNIX seconds or an ISO 8601 date and time (UTC unless it says)."""
    if text.isdigit():
        return int(text)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a time: {text!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp())


def _selection(args: argparse.Namespace) -> Selection:
    return Selection(
        tables=tuple(args.table or ()),
        hands=tuple(args.hand or ()),
        players=tuple(args.player or ()),
        since=args.since,
        until=args.until,
        last=args.last,
    )


def _select_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", help="a SQLite file, or 'postgres' (POSTGRES_*)")
    parser.add_argument("--table", type=UUID, action="append", help="only this table (repeat)")
    parser.add_argument("--hand", type=UUID, action="append", help="only this hand id (repeat)")
    parser.add_argument("--player", action="append", help="only hands this player sat in")
    parser.add_argument("--since", type=moment, help="hands dealt at or after (UNIX s or ISO)")
    parser.add_argument("--until", type=moment, help="hands dealt at or before")
    parser.add_argument("--last", type=int, help="only the last N hands dealt")


class Progress:
    """A bar on standard error when it is a terminal, nothing otherwise."""

    def __init__(self, total: int | None, stream: IO[str] | None = None) -> None:
        self.total, self.stream = total, stream or sys.stderr  # as it is now, not at import
        self.on = self.stream.isatty()

    def __call__(self, done: int) -> None:
        if not self.on or (done % 50 and done != self.total):
            return
        if self.total:
            filled = 30 * done // max(self.total, 1)
            bar = "#" * filled + "." * (30 - filled)
            self.stream.write(f"\r[{bar}] {done}/{self.total} hands")
        else:
            self.stream.write(f"\r{done} hands")
        self.stream.flush()

    def end(self) -> None:
        if self.on:
            self.stream.write("\n")


def cmd_export(args: argparse.Namespace) -> int:
    if (args.store is None) == (args.server is None):
        raise SystemExit("feltline-replay export: give --store or --server, not both")
    if args.server is not None:
        return _export_from_server(args)
    rows = open_rows(args.store)
    try:
        readable(rows)
        lines = export(rows, _selection(args), public_key=args.public_key)
        if args.output:
            with open(args.output, "w", encoding="utf-8") as file:
                hands = log.write(file, lines)
        else:
            hands = log.write(sys.stdout, lines)
    finally:
        rows.close()
    print(f"exported {hands} hands", file=sys.stderr)
    return 0


def _export_from_server(args: argparse.Namespace) -> int:
    from feltline_replay.remote import export_lines, write_lines  # noqa: PLC0415

    if not args.token:
        raise SystemExit("feltline-replay export: --server needs --token (or FELTLINE_TOKEN)")
    if args.public_key:
        raise SystemExit("feltline-replay export: the server names its own key; no --public-key")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise SystemExit("feltline-replay export: --tls-cert and --tls-key go together")
    tls = None
    if args.tls or args.tls_ca or args.tls_cert:
        tls = (args.tls_ca, args.tls_cert, args.tls_key)
    lines = export_lines(args.server, args.token, _selection(args), tls=tls)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as file:
            hands = write_lines(file, lines)
    else:
        hands = write_lines(sys.stdout, lines)
    print(f"exported {hands} hands", file=sys.stderr)
    return 0


def _shares(
    args: argparse.Namespace, stack: ExitStack
) -> tuple[dict[str, object], Iterator[Share]]:
    """The header, and the records in shares each process reads itself: a
    log file by byte ranges, a store by tables and hands."""
    if args.store:
        rows = open_rows(args.store)
        stack.callback(rows.close)
        readable(rows)
        selection = _selection(args)
        chosen = plan(rows, selection)
        head = heading(rows, selection, chosen)
        others = (
            [*chosen.accounts, *rows.matches(), *rows.tournaments()]
            if chosen.accounts is not None
            else []
        )
        return head, store_shares(args.store, chosen.tables, chosen.hands, others=others)
    if not args.log:
        raise SystemExit("feltline-replay: give a LOG file or --store")
    if args.log == "-":
        head, lines = log.read_lines(sys.stdin)
        return head, line_shares(lines)
    file = stack.enter_context(open(args.log, "rb"))  # noqa: SIM115
    head = log.head(file.readline())
    return head, log_shares(args.log, file.tell())


def cmd_verify(args: argparse.Namespace) -> int:
    with ExitStack() as stack:
        head, shares = _shares(args, stack)
        key = args.public_key
        warnings = []
        if key is None and head.get("public_key"):
            key = str(head["public_key"])
            warnings.append(
                f"trusting the public key the log names ({key}): anyone who could change the "
                "log could have changed it too; give --public-key, from the operator, to know "
                "the hands were signed by your server"
            )
        selection = head.get("selection")
        total = selection.get("exported_hands") if isinstance(selection, dict) else None
        progress = Progress(total if isinstance(total, int) else None)
        complete = bool(head.get("complete"))
        report = verify_shares(
            shares,
            key,
            complete=complete,
            progress=progress,
            workers=args.workers,
            all_signatures=args.all_signatures,
            chips=bool(head.get("accounts")),
        )
        progress.end()
        logged = _transparency(args, key, complete and bool(head.get("accounts")))
    report.warnings[:0] = warnings
    if logged is not None:
        origin = logged.checkpoint.origin if logged.checkpoint else "?"
        report.failures.extend(
            Failure("checkpoint", "log", origin, None, "the history it committed to", line)
            for line in logged.failures
        )
    if args.json:
        shown = report.as_json()
        if logged is not None:
            shown["transparency"] = {
                "size": logged.checkpoint.size if logged.checkpoint else None,
                "included": logged.included,
                "later": logged.later,
                "witnesses": logged.witnesses,
            }
        print(json.dumps(shown, indent=2))
    else:
        for warning in report.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        for failure in report.failures:
            print(f"FAIL {failure}")
        for withheld in report.withheld:
            print(f"withheld: {withheld}")
        if logged is not None and logged.checkpoint is not None:
            print(
                f"checkpoint {logged.checkpoint.origin} of {logged.checkpoint.size} leaves"
                + (f", cosigned by {', '.join(logged.witnesses)}" if logged.witnesses else "")
                + f": {logged.included} hands included, {logged.later} sealed after it"
            )
        verdict = "ok" if report.ok else f"{len(report.failures)} failures"
        # The line still ends "N hands: ok", as runbooks check; what "ok" rests on comes first.
        print(
            f"{report.verified} signatures verified, {report.formed} checked for form only; "
            f"{report.tables} tables, {report.hands} hands: {verdict}"
        )
    return 0 if report.ok else 1


def _transparency(args: argparse.Namespace, key: str | None, whole: bool) -> Checked | None:
    """With ``--checkpoint``: the log's hands against it (docs/transparency.md)."""
    if args.checkpoint is None:
        return None
    note = Note.parse(Path(args.checkpoint).read_text(encoding="utf-8"))
    origin = note.checkpoint.origin
    if args.log_key:
        log_key = NoteKey.parse(args.log_key)
    elif key:
        log_key = NoteKey(origin, bytes.fromhex(key))
    else:
        raise SystemExit("feltline-replay verify: --checkpoint needs --public-key or --log-key")
    witnesses = _witnesses(args, "verify")
    if args.store:
        rows = open_rows(args.store)
        try:
            chosen = plan(rows, _selection(args))
            logged = Logged.of(records(rows, chosen.tables, chosen.hands))
        finally:
            rows.close()
    else:
        with open(args.log, encoding="utf-8") as file:
            _, lines = log.read(file)
            logged = Logged.of(lines)
    return check(logged, note, log_key, witnesses, whole=whole)


def cmd_checkpoint(args: argparse.Namespace) -> int:
    from feltline_replay.remote import checkpoint  # noqa: PLC0415

    note = checkpoint(args.server, args.token, _tls(args))
    if args.output:
        Path(args.output).write_text(note, encoding="utf-8")
    else:
        sys.stdout.write(note)
    body = Note.parse(note).checkpoint
    print(f"checkpoint {body.origin}: {body.size} leaves", file=sys.stderr)
    return 0


def _witnesses(args: argparse.Namespace, command: str) -> list[Trusted]:
    """The ``--witness`` keys, followed through ``--witness-rotations``."""
    statements = [
        statement
        for path in args.witness_rotations or ()
        for statement in Rotation.split(Path(path).read_text(encoding="utf-8"))
    ]
    try:
        return trusted(args.witness or (), statements)
    except NoteError as e:
        raise SystemExit(f"feltline-replay {command}: --witness-rotations: {e}") from None


def cmd_receipt(args: argparse.Namespace) -> int:
    from feltline_replay.remote import receipt  # noqa: PLC0415

    witnesses = _witnesses(args, "receipt")
    try:
        log_key = NoteKey.parse(args.log_key)
    except NoteError as e:
        raise SystemExit(f"feltline-replay receipt: --log-key: {e}") from None
    found = receipt(args.server, args.token, args.hand, _tls(args))
    if found is None:
        print(f"FAIL hand {args.hand}: the server gives no receipt: the hand is not logged")
        return 1
    failures = check_receipt(args.hand, found, log_key, witnesses)
    for failure in failures:
        print(f"FAIL {failure}")
    if failures:
        return 1
    print(
        f"hand {args.hand}: leaf {found.index} of {found.size} in the checkpoint signed by "
        f"{log_key.name}" + "".join(f", cosigned by {w.key.name}" for w in witnesses) + ": ok"
    )
    return 0


def cmd_witness(args: argparse.Namespace) -> int:
    from feltline_replay.remote import checkpoint, consistency, hand_back  # noqa: PLC0415

    witness = Witness(Path(args.state), args.name)
    if args.rotate_key:
        old = witness.key.vkey
        rotation = witness.rotate()
        if args.output:
            Path(args.output).write_text(
                Rotation.split((Path(args.state) / ROTATIONS).read_text(encoding="utf-8"))[-1],
                encoding="utf-8",
            )
        print(f"rotated {args.name} from {old} to {rotation.new.vkey}")
        return 0
    if args.server is None:
        raise SystemExit("feltline-replay witness: --server is needed, unless --rotate-key")
    try:
        log_key = witness.log_key(args.log_key)
        if args.checkpoint:
            note = Note.parse(Path(args.checkpoint).read_text(encoding="utf-8"))
        else:
            note = Note.parse(checkpoint(args.server, args.token, _tls(args)))
        last, new = witness.last(), note.checkpoint
        proof: list[bytes] = []
        if last is not None and last.checkpoint.size < new.size:
            proof = consistency(args.server, args.token, last.checkpoint.size, new.size, _tls(args))
        signed = witness.witness(note, log_key, proof)
    except Refused as e:
        print(f"feltline-replay witness: refused: {e}", file=sys.stderr)
        return 3
    if args.output:
        Path(args.output).write_text(signed.render(), encoding="utf-8")
    body = signed.checkpoint
    print(f"cosigned {body.origin} at {body.size} leaves as {witness.key.vkey}")
    if not (args.keep or args.checkpoint):  # a checkpoint from elsewhere is not the server's
        hand_back(args.server, args.token, signed.render(), witness.key.vkey, _tls(args))
    return 0


def _tls(args: argparse.Namespace) -> tuple[str | None, str | None, str | None] | None:
    if (args.tls_cert is None) != (args.tls_key is None):
        raise SystemExit("feltline-replay: --tls-cert and --tls-key go together")
    if args.tls or args.tls_ca or args.tls_cert:
        return args.tls_ca, args.tls_cert, args.tls_key
    return None


def _server_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--server", required=required, help="HOST:PORT of a running server")
    parser.add_argument(
        "--token",
        default=os.environ.get("FELTLINE_TOKEN", ""),
        help="a token for it (default: FELTLINE_TOKEN)",
    )
    parser.add_argument("--tls", action="store_true", help="connect over TLS")
    parser.add_argument("--tls-ca", help="TLS, checked by these certificate authorities (PEM)")
    parser.add_argument("--tls-cert", help="the client certificate a server requires (PEM)")
    parser.add_argument("--tls-key", help="its private key (PEM)")


def cmd_show(args: argparse.Namespace) -> int:
    from feltline_replay.show import Viewer, load_hand, run  # noqa: PLC0415

    with ExitStack() as stack:
        if args.store:
            rows = open_rows(args.store)
            stack.callback(rows.close)
            records = list(_hand_rows(rows, args.hand))
        else:
            file = stack.enter_context(open(args.log, encoding="utf-8"))
            _, lines = log.read(file)
            records = [r for r in lines if r.get("id") == args.hand and r.get("kind") != "table"]
    if not records:
        print(f"feltline-replay: no hand {args.hand} there", file=sys.stderr)
        return 1
    viewer = Viewer.parse(args.as_)
    run(load_hand(records), viewer, sys.stdin, sys.stdout)
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    from feltline_replay.convert import convert  # noqa: PLC0415
    from feltline_replay.histories import FORMATS  # noqa: PLC0415
    from feltline_replay.histories.html import verified_by  # noqa: PLC0415
    from feltline_replay.show import Viewer  # noqa: PLC0415

    viewer = Viewer.parse(args.as_)
    form = FORMATS[args.to]
    if args.public_key is not None:
        if args.to != "html":
            raise SystemExit(
                "feltline-replay convert: --public-key is for --to html, which checks signatures"
            )
        form = verified_by(args.public_key)
    with ExitStack() as stack:
        file = sys.stdin
        if args.log != "-":
            file = stack.enter_context(open(args.log, encoding="utf-8"))
        _, records = log.read(file)
        done = convert(records, form, Path(args.output), viewer=viewer, each=args.each)
    for hand, reason in done.refused:
        print(f"feltline-replay: hand {hand} left out: {reason}", file=sys.stderr)
    files = "1 file" if len(done.files) == 1 else f"{len(done.files)} files"
    print(
        f"converted {done.hands} hands to {args.to} in {files} in {args.output}"
        + (f"; {len(done.refused)} left out" if done.refused else ""),
        file=sys.stderr,
    )
    return 1 if done.refused else 0


def cmd_match(args: argparse.Namespace) -> int:
    from feltline_replay.duplicate import check_match, side_by_side  # noqa: PLC0415

    rows = open_rows(args.store)
    try:
        match = UUID(args.match)
        report = check_match(rows, match, args.public_key)
        if args.deal is not None:
            print(side_by_side(rows, match, args.deal))
            print()
    except ValueError as e:
        print(f"feltline-replay: {e}", file=sys.stderr)
        return 1
    finally:
        rows.close()
    for failure in report.failures:
        print(f"FAIL {failure}")
    print(f"{'table':>5} {'seat':>4} {'score':>7} {'mp':>4}")
    for (table, seat), (score, points) in report.totals.items():
        print(f"{table:>5} {seat:>4} {score:>7} {points:>4}")
    verdict = "ok" if report.ok else f"{len(report.failures)} failures"
    print(
        f"{len(report.tables)} tables, {report.revealed} of {report.deals} deals revealed, "
        f"{report.hands} hands, the same deck at every table: {verdict}"
    )
    return 0 if report.ok else 1


def cmd_tournament(args: argparse.Namespace) -> int:
    from feltline_replay.store import record  # noqa: PLC0415
    from feltline_replay.tournament import check_tournament  # noqa: PLC0415

    if (args.store is None) == (args.log is None):
        raise SystemExit("feltline-replay tournament: give a LOG file or --store, not both")
    key = UUID(args.tournament)
    with ExitStack() as stack:
        if args.store:
            rows = open_rows(args.store)
            stack.callback(rows.close)

            def streams(stream: UUID) -> list[log.Record]:
                return [record(stream, *row) for row in rows.stream(stream)]

        else:
            file = stack.enter_context(open(args.log, encoding="utf-8"))
            _, lines = log.read(file)
            by_id: dict[str, list[log.Record]] = {}
            for line in lines:
                by_id.setdefault(str(line.get("id")), []).append(line)

            def streams(stream: UUID) -> list[log.Record]:
                return by_id.get(str(stream), [])

        try:
            report = check_tournament(key, streams, args.public_key)
        except ValueError as e:
            print(f"feltline-replay: {e}", file=sys.stderr)
            return 1
    for failure in report.failures:
        print(f"FAIL {failure}")
    state = report.state
    verdict = "ok" if report.ok else f"{len(report.failures)} failures"
    print(
        f"tournament {key}: {len(state.registered)} entrants, {report.requests} requests "
        f"decided again, {report.hands} hands, {len(state.placed)} placed, "
        f"{sum(state.paid.values())} paid: {verdict}"
    )
    return 0 if report.ok else 1


def _hand_rows(rows: Rows, hand: str) -> Iterator[log.Record]:
    from feltline_replay.store import record  # noqa: PLC0415

    stream = UUID(hand)
    for row in rows.stream(stream):
        yield record(stream, *row)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="feltline-replay", description="Export, verify and replay Feltline hands."
    )
    commands = top.add_subparsers(dest="command", required=True)

    p = commands.add_parser("export", help="write a portable log of hands (JSON lines)")
    _select_options(p)
    p.add_argument("--output", help="the log file (standard output by default)")
    p.add_argument("--public-key", type=public_key, help="the server's key, for the header")
    p.add_argument("--server", help="HOST:PORT of a running server, instead of --store")
    p.add_argument(
        "--token",
        default=os.environ.get("FELTLINE_TOKEN", ""),
        help="with --server: an auditor's or admin's token (default: FELTLINE_TOKEN)",
    )
    p.add_argument(
        "--tls", action="store_true", help="connect over TLS, checked by the system's authorities"
    )
    p.add_argument(
        "--tls-ca", help="connect over TLS, checked by these certificate authorities (PEM)"
    )
    p.add_argument("--tls-cert", help="the client certificate a server requires (PEM)")
    p.add_argument("--tls-key", help="its private key (PEM)")
    p.set_defaults(run=cmd_export)

    p = commands.add_parser("verify", help="re-check every hand of a log or a store")
    p.add_argument("log", nargs="?", help="a log file ('-' for standard input)")
    _select_options(p)
    p.add_argument("--public-key", type=public_key, help="the server's key: PEM, hex or a file")
    p.add_argument("--json", action="store_true", help="a machine-readable report")
    p.add_argument("--workers", type=int, default=1, help="processes checking hands (default 1)")
    p.add_argument(
        "--all-signatures",
        action="store_true",
        help="verify every signature, not only each stream's last, which covers the others",
    )
    p.add_argument(
        "--checkpoint",
        help="a signed checkpoint of the transparency log (a file): check the log's hands "
        "are those it committed to",
    )
    p.add_argument(
        "--log-key",
        help="the log's note verifier key (default: --public-key under the checkpoint's origin)",
    )
    p.add_argument(
        "--witness",
        action="append",
        help="a witness's cosigner key (vkey) that must have cosigned the checkpoint (repeat)",
    )
    p.add_argument(
        "--witness-rotations",
        action="append",
        help="a file of a witness's key rotations (its state's `rotations`): follow a --witness "
        "key to the keys it was replaced by (repeat)",
    )
    p.set_defaults(run=cmd_verify)

    p = commands.add_parser("checkpoint", help="fetch a server's newest signed checkpoint")
    _server_options(p, required=True)
    p.add_argument("--output", help="the file to write it to (standard output by default)")
    p.set_defaults(run=cmd_checkpoint)

    p = commands.add_parser(
        "witness", help="cosign a server's newest checkpoint if it extends the last one accepted"
    )
    _server_options(p, required=False)
    p.add_argument("--state", required=True, help="the witness's directory: its key and state")
    p.add_argument("--name", default="witness", help="the witness's key name (e.g. a URL)")
    p.add_argument("--log-key", help="the log's verifier key (needed on first use)")
    p.add_argument("--checkpoint", help="witness this checkpoint file instead of the newest")
    p.add_argument(
        "--output",
        help="write the cosigned checkpoint (with --rotate-key: the rotation statement) "
        "to this file too",
    )
    p.add_argument(
        "--rotate-key",
        action="store_true",
        help="replace the witness's key, signing a statement of it with the old one "
        "(added to the state's rotations; no server needed)",
    )
    p.add_argument(
        "--keep",
        action="store_true",
        help="keep the cosignature: do not hand it back to the server to serve",
    )
    p.set_defaults(run=cmd_witness)

    p = commands.add_parser(
        "receipt", help="check a hand's receipt (its inclusion proof) against the log's key"
    )
    p.add_argument("hand", help="the hand's id")
    _server_options(p, required=True)
    p.add_argument("--log-key", required=True, help="the log's verifier key, as you know it")
    p.add_argument(
        "--witness", action="append", help="a witness's key that must have cosigned (repeat)"
    )
    p.add_argument(
        "--witness-rotations",
        action="append",
        help="a file of a witness's key rotations, to follow its key (repeat)",
    )
    p.set_defaults(run=cmd_receipt)

    p = commands.add_parser("show", help="step through a hand as a viewer saw it")
    p.add_argument("hand", help="the hand's id")
    p.add_argument("log", nargs="?", help="a log file holding it")
    p.add_argument("--store", help="a SQLite file, or 'postgres'")
    p.add_argument("--as", dest="as_", default="auditor", help="auditor, spectator or 'seat N'")
    p.set_defaults(run=cmd_show)

    from feltline_replay.histories import FORMATS  # noqa: PLC0415

    p = commands.add_parser("convert", help="write a log's hands as hand histories")
    p.add_argument("log", help="a log file ('-' for standard input)")
    p.add_argument("--to", required=True, choices=sorted(FORMATS), help="the format")
    p.add_argument("--output", required=True, help="the folder to write into")
    p.add_argument(
        "--as",
        dest="as_",
        default="spectator",
        metavar="VIEWER",
        help="whose view: spectator (the default: face-up cards and those shown), "
        "'seat N' (its own cards too) or auditor (every card dealt)",
    )
    p.add_argument("--each", action="store_true", help="one file per hand, even for a set format")
    p.add_argument(
        "--public-key",
        type=public_key,
        help="with --to html: the operator's key (PEM, hex or a file); each hand's page says "
        "whether this key signed it (without it, only which key did)",
    )
    p.set_defaults(run=cmd_convert)

    p = commands.add_parser(
        "match", help="check a duplicate match's decks and scores; show a deal side by side"
    )
    p.add_argument("match", help="the match's id")
    p.add_argument("--store", required=True, help="a SQLite file, or 'postgres'")
    p.add_argument("--deal", type=int, help="show this revealed deal at every table")
    p.add_argument("--public-key", type=public_key, help="the server's key: PEM, hex or a file")
    p.set_defaults(run=cmd_match)

    p = commands.add_parser(
        "tournament",
        help="re-check a tournament's seat draws, levels, moves, placings and payouts",
    )
    p.add_argument("tournament", help="the tournament's id")
    p.add_argument("log", nargs="?", help="a log of the whole store (export without a selection)")
    p.add_argument("--store", help="a SQLite file, or 'postgres'")
    p.add_argument("--public-key", type=public_key, help="the server's key: PEM, hex or a file")
    p.set_defaults(run=cmd_tournament)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except (StoreError, log.LogError, NoteError, OSError) as e:
        print(f"feltline-replay: {e}", file=sys.stderr)
        return 2
    return code


__all__ = ["hand_id", "main"]
