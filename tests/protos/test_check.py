"""protos/check.sh compares the contract with the last landed version even
from a shallow clone, fetching it, and in CI fails rather than skips when
there is none to compare with.

Each test runs the script as this tree has it, with the contract as this tree
has it, in a repository of its own: ``main`` holds the contract landed, then
a HEAD that changes it; the script runs in a clone of one commit, as CI
checks out.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROTOS = ROOT / "protos"
BUF = PROTOS / "node_modules" / ".bin" / "buf"
# What the script reads of protos/ (its buf images are built from these).
NEEDED = ("check.sh", "generate.py", "vendor.py", "buf.yaml", "feltline", "vendor")
ACCOUNTS = Path("protos", "feltline", "v1", "accounts.proto")
GET_ACCOUNT = (
    "message GetAccountRequest {\n"
    "  // The player; empty for the caller's own account.\n"
    "  string player_id = 1"
)
# The same in other words, which breaks nothing; and the field renamed, which does.
REWORDED = GET_ACCOUNT.replace("empty for", "or empty for")
RENAMED = GET_ACCOUNT.replace("player_id", "player")

pytestmark = pytest.mark.skipif(
    not BUF.exists(), reason="needs buf: `npm ci --prefix protos`, as .ci/run does"
)


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def landed_then(tmp_path: Path, old: str, new: str) -> tuple[Path, str]:
    """A repository whose ``main`` holds this tree's contract, then a commit
    replacing ``old`` with ``new`` in accounts.proto; a clone of its last
    commit alone, and the landed commit's id."""
    origin = tmp_path / "origin"
    for name in NEEDED:
        source, target = PROTOS / name, origin / "protos" / name
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    git(origin, "init", "--quiet", "--initial-branch=main")
    git(origin, "add", ".")
    git(origin, "commit", "--quiet", "-m", "the contract, landed")
    landed = git(origin, "rev-parse", "HEAD")
    text = (origin / ACCOUNTS).read_text()
    assert text.count(old) == 1
    (origin / ACCOUNTS).write_text(text.replace(old, new))
    git(origin, "commit", "--quiet", "-am", "a change to the contract")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", "--depth=1", "--branch=main", origin.as_uri(), str(clone))
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    (clone / "protos" / "node_modules").symlink_to(PROTOS / "node_modules")
    return clone, landed


def check(clone: Path, ci: str = "") -> subprocess.CompletedProcess[str]:
    """protos/check.sh in ``clone``, with CI set to ``ci``, on this Python
    environment (the clone has no project of its own for uv to sync)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "FELTLINE_PROTOS_BASE")}
    env.update(CI=ci, VIRTUAL_ENV=sys.prefix)
    return subprocess.run(
        ["bash", "protos/check.sh"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_shallow_clone_fetches_the_landed_version_and_compares_with_it(
    tmp_path: Path,
) -> None:
    clone, landed = landed_then(tmp_path, GET_ACCOUNT, REWORDED)
    done = check(clone)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "buf breaking: shallow clone, fetching the last landed version" in lines
    short = git(clone, "rev-parse", "--short", landed)
    assert lines[-1] == f"buf breaking: no breaking change since {short}"


def test_a_breaking_change_since_the_landed_version_fails_from_a_shallow_clone(
    tmp_path: Path,
) -> None:
    clone, _ = landed_then(tmp_path, GET_ACCOUNT, RENAMED)
    done = check(clone)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "buf lint: clean" in done.stdout.splitlines()
    assert 'on message "GetAccountRequest" changed name from "player_id" to "player"' in (
        done.stdout + done.stderr
    )


@pytest.mark.parametrize("ci", ["true", "1"])
def test_in_ci_nothing_to_compare_with_is_a_failure(tmp_path: Path, ci: str) -> None:
    clone, _ = landed_then(tmp_path, GET_ACCOUNT, REWORDED)
    git(clone, "remote", "remove", "origin")  # the landed version cannot be fetched
    done = check(clone, ci)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.splitlines()[-1] == (
        "buf breaking: FAILED, no earlier commit to compare with (set FELTLINE_PROTOS_BASE)"
    )


def test_outside_ci_nothing_to_compare_with_is_skipped_and_said(tmp_path: Path) -> None:
    clone, _ = landed_then(tmp_path, GET_ACCOUNT, REWORDED)
    git(clone, "remote", "remove", "origin")
    done = check(clone)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == (
        "buf breaking: skipped, HEAD has no earlier commit to compare with (outside CI)"
    )
