"""``feltline backup``, ``feltline restore`` and ``feltline key``: keeping
a store and its key safe, with the servers running (a backup) or stopped
(a restore, a rotation). Each command imports what it needs when it runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from feltline.serve import store_config

NOT_IN_A_BACKUP = (
    "A backup holds the store and nothing else: not the signing key file "
    "(FELTLINE_KEY_FILE), which you keep apart; a restored store is served only with that key."
)


def add_backup_command(backup: argparse.ArgumentParser) -> None:
    backup.description = (
        "Write the store to FILE while servers play on: SQLite through its "
        "online backup API, PostgreSQL with pg_dump of the store's schema (custom format). "
        + NOT_IN_A_BACKUP
    )
    backup.add_argument("file", type=Path, help="the backup file to write (must not exist)")
    backup.add_argument("--store", default=None, help="as for serve")
    backup.set_defaults(run=lambda args: _backup("backup", args.store, args.file))


def add_restore_command(restore: argparse.ArgumentParser) -> None:
    restore.description = (
        "Restore FILE, written by 'feltline backup', into the store --store "
        "names, which must be fresh: a SQLite file that does not exist, or a PostgreSQL "
        "schema (POSTGRES_SCHEMA, the one the backup was taken from) with no tables. "
        + NOT_IN_A_BACKUP
    )
    restore.add_argument("file", type=Path, help="a file 'feltline backup' wrote")
    restore.add_argument("--store", default=None, help="as for serve")
    restore.set_defaults(run=lambda args: _backup("restore", args.store, args.file))


def _backup(command: str, store: str | None, file: Path) -> int:
    """Back the store up to ``file``, or restore it from there."""
    from feltline.store import backup  # noqa: PLC0415 (only this command needs it)

    config = store_config(store)
    try:
        done = backup.backup(config, file) if command == "backup" else backup.restore(config, file)
    except backup.BackupError as e:
        print(f"feltline {command}: {e}", file=sys.stderr)
        return 1
    if command == "backup":
        print(f"backed up {done.store} to {done.file} ({done.size} bytes)")
    else:
        print(f"restored {done.file} into {done.store}")
    print(f"not in it: the key file; serve it with the store's key ({config.key_file})")
    return 0


def add_key_command(key: argparse.ArgumentParser) -> None:
    actions = key.add_subparsers(dest="action", required=True)
    rotate = actions.add_parser(
        "rotate",
        help="make a new key that signs from now on; the old key signs its introduction",
        description="Make a new signing key in FELTLINE_KEY_FILE, and record its introduction "
        "in the store, signed by the old key, so the key history verifies from the first key "
        "and hands sealed before stay verifiable. Stop every server on the store first "
        "(refused while one on this machine holds the key file). The old private key is "
        "not kept: copy the new key file to every machine that serves this store.",
    )
    rotate.add_argument("--store", default=None, help="as for serve")
    revoke = actions.add_parser(
        "revoke",
        help="mark a compromised old key: what it signed from a point in the log on fails",
        description="Record, signed by the current key, that KEY (64 hex digits, a key the "
        "store adopted and has since rotated away from) is compromised: records it signed at "
        "or after notification --since (a place in the store's log; default: from now on) "
        "fail verification, and those before stay valid.",
    )
    revoke.add_argument("key", help="the compromised public key, 64 hex digits")
    revoke.add_argument(
        "--since",
        type=int,
        default=None,
        help="the first notification id not to trust (feltline-replay export shows each record's)",
    )
    revoke.add_argument("--reason", default="compromised", help="recorded with it")
    revoke.add_argument("--store", default=None, help="as for serve")
    rotate.set_defaults(run=lambda args: _rotate(args.store))
    revoke.set_defaults(run=_revoke)


def _revoke(args: argparse.Namespace) -> int:
    from feltline.audit.keys import KeyFileError  # noqa: PLC0415 (only this command needs them)
    from feltline.store.signing import KeyChanged, NotRevocable, revoke  # noqa: PLC0415

    if args.since is not None and args.since < 1:
        print(
            f"feltline key revoke: --since is a notification id from 1, not {args.since}",
            file=sys.stderr,
        )
        return 1
    try:
        since = revoke(store_config(args.store), args.key, args.since, args.reason)
    except (KeyChanged, KeyFileError, NotRevocable) as e:
        print(f"feltline key revoke: {e}", file=sys.stderr)
        return 1
    print(f"revoked key {args.key}: what it signed from notification {since} on fails verification")
    return 0


def _rotate(store: str | None) -> int:
    from feltline.audit.keys import KeyFileError  # noqa: PLC0415 (only this command needs them)
    from feltline.store.signing import KeyBusy, KeyChanged, rotate  # noqa: PLC0415

    config = store_config(store)
    try:
        rotated = rotate(config)
    except (KeyBusy, KeyChanged, KeyFileError) as e:
        print(f"feltline key rotate: {e}", file=sys.stderr)
        return 1
    print(f"rotated: key {rotated.new} signs from now on, introduced by key {rotated.old}")
    print(f"the new private key is in {config.key_file}; verifiers keep the store's first key")
    return 0
