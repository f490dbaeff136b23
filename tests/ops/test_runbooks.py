"""ops/runbooks: each page is listed in the index, the index is linked from
docs/operating.md, and every ``feltline`` and ``feltline-replay`` command
a page shows names a command that exists, with options that command takes
(its own ``--help`` lists them). A runbook is read at the worst moment:
an option renamed since would fail the operator then. (Links and paths:
tests/test_docs_links.py.)"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from feltline import cli
from feltline_replay import cli as replay_cli

ROOT = Path(__file__).resolve().parents[2]
RUNBOOKS = ROOT / "ops" / "runbooks"
PAGES = sorted(p for p in RUNBOOKS.glob("*.md") if p.name != "README.md")
MAINS: dict[str, Callable[[list[str]], object]] = {
    "feltline": cli.main,
    "feltline-replay": replay_cli.main,
}
SUBSTITUTION = re.compile(r"\$\([^)]*\)")  # $(date ...): a value, not options
ASSIGNMENT = re.compile(r"^[A-Z_]+=\S*$")
CHOICES = re.compile(r"\{([\w,-]+)\}")


def _help(program: str, argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        MAINS[program]([*argv, "--help"])
    assert done.value.code == 0, f"{program} {' '.join(argv)} --help"
    return out.getvalue()


def _code(page: Path) -> Iterator[str]:
    """The page's code lines: fenced, or indented four spaces or more (a
    list's prose is indented less)."""
    fenced = False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            yield line.strip()


def commands(page: Path) -> Iterator[tuple[str, list[str]]]:
    """Each feltline or feltline-replay command on the page: the program
    and its words, up to a pipe or a redirection."""
    for line in _code(page):
        if line.startswith("{"):  # a log line
            continue
        if re.match(r"^[\w-]+ [\w-]+: ", line):  # what a command printed: "feltline serve: ..."
            continue
        words = shlex.split(SUBSTITUTION.sub("X", line))
        while words and ASSIGNMENT.match(words[0]):
            words.pop(0)
        if words and words[0] in MAINS:
            cut = next((n for n, w in enumerate(words) if w in ("|", ">", "&&", ";")), len(words))
            yield words[0], words[1:cut]


def check(program: str, words: list[str]) -> list[str]:
    """What the program would not take among ``words``: an unknown command,
    or an option its command's help does not list."""
    path: list[str] = []
    text = _help(program, path)
    for word in words:
        if word.startswith("-"):
            continue
        usage = text.split("\n\n", 1)[0]
        choices = CHOICES.search(usage)
        if choices is None:
            break  # a positional argument of the command reached
        if word not in choices.group(1).split(","):
            return [f"no command {word!r} in {program} {' '.join(path)}".rstrip()]
        path.append(word)
        text = _help(program, path)
    options = {w.split("=", 1)[0] for w in words if w.startswith("--")}
    return [
        f"{program} {' '.join(path)} takes no {o}"
        for o in sorted(options)
        if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text)
    ]


def test_every_runbook_is_in_the_index_and_the_index_in_operating_md() -> None:
    index = (RUNBOOKS / "README.md").read_text()
    assert len(PAGES) >= 8
    assert [p.name for p in PAGES if f"]({p.name})" not in index] == []
    assert "](../ops/runbooks/README.md)" in (ROOT / "docs" / "operating.md").read_text()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_each_command_shown_is_one_the_tools_take(page: Path) -> None:
    shown = list(commands(page))
    problems = [p for program, words in shown for p in check(program, words)]
    assert problems == []


def test_the_commands_are_found_and_a_wrong_one_is_caught() -> None:
    """The checks above could pass by finding nothing: they must not."""
    found = [c for page in PAGES for c in commands(page)]
    assert ("feltline", ["key", "rotate", "--store", "postgres"]) in found
    assert len(found) >= 15
    assert check("feltline", ["key", "rotate", "--store", "postgres"]) == []
    assert check("feltline", ["key", "rotat"]) == ["no command 'rotat' in feltline key"]
    assert check("feltline-replay", ["verify", "--store", "postgres", "--from", "1"]) == [
        "feltline-replay verify takes no --from"
    ]
