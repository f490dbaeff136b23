"""Every relative link and every repository file a reader is pointed at
exists: in the README, docs/, the runbooks (ops/runbooks), the protos'
comments and the ``feltline`` command's help. A page that cites a file
nobody committed (as the house rules once were) sends an auditor nowhere."""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from feltline import cli

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache"}
# A name with one of these endings is a file of the repository, even alone
# (`store.md`); others alone (`feltline.db`, `hands.log`) are what a command
# makes, and are only checked with a folder of the repository in front.
FILE_ENDINGS = (".md", ".py", ".proto", ".js", ".sh", ".toml")
LINK = re.compile(r"\]\(([^)\s]+)\)")
URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+")
WORD = re.compile(r"[A-Za-z0-9_.\-/=]+")


def _tree() -> tuple[set[str], set[str]]:
    """Every file and folder of the work tree, as paths from the root, and
    every file's name."""
    paths: set[str] = set()
    names: set[str] = set()
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        here = Path(folder).relative_to(ROOT).as_posix()
        prefix = "" if here == "." else here + "/"
        paths.update(prefix + d for d in dirs)
        paths.update(prefix + f for f in files)
        names.update(files)
    return paths, names


PATHS, NAMES = _tree()
TOP = {p for p in PATHS if "/" not in p}
RUNBOOKS = ROOT / "ops" / "runbooks"


def _named(text: str, *, bare: bool = True) -> Iterator[str]:
    """The repository paths a text names: link targets, and words that look
    like a path into the repository (with ``bare``, a file's name alone)."""
    for target in LINK.findall(text):
        if not URL.match(target) and not target.startswith(("#", "mailto:")):
            yield "link:" + target.split("#", 1)[0]
    for found in WORD.findall(URL.sub(" ", text)):
        word = found.strip(".-")
        if word.startswith("/") or not word or "=" in word:  # an option's value, not a path
            continue
        if "/" in word:
            if word.split("/", 1)[0] in TOP or word.rstrip("/").endswith(FILE_ENDINGS):
                yield word.rstrip("/")
        elif bare and word.endswith(FILE_ENDINGS) and not word.startswith(FILE_ENDINGS):
            yield word


def _prose_and_code(text: str) -> tuple[str, str]:
    """A Markdown page's prose, and its code (fenced, or indented four
    spaces): a snippet may load other projects' files by name
    (`status.proto`), so only paths with a folder are checked there."""
    prose: list[str] = []
    code: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith(("    ", "\t")):
            code.append(line)
        else:
            prose.append(line)
    return "\n".join(prose), "\n".join(code)


def _exists(name: str, where: Path) -> bool:
    """A link resolves from its page; a path from the root, from its page's
    folder, or as the tail of a path (``feltline/api/rail.py``); a bare file
    name by name."""
    if name.startswith("link:"):
        target = name.removeprefix("link:")
        return not target or (where.parent / target).exists()
    if "/" not in name:
        return name in NAMES or name in TOP
    here = where.parent.relative_to(ROOT).as_posix()
    return name in PATHS or f"{here}/{name}" in PATHS or any(p.endswith("/" + name) for p in PATHS)


def _pages() -> list[Path]:
    return [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted(RUNBOOKS.glob("*.md")),
    ]


def _proto_comments(proto: Path) -> str:
    return "\n".join(
        line.split("//", 1)[1] for line in proto.read_text().splitlines() if "//" in line
    )


def _help(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.main([*argv, "--help"])
    return out.getvalue()


def _helps(argv: list[str]) -> Iterator[tuple[list[str], str]]:
    """The help of ``feltline`` and of each of its commands, at every depth."""
    text = _help(argv)
    yield argv, text
    usage = text.split("\n\n", 1)[0]
    choices = re.search(r"\{([\w,-]+)\} \.\.\.", usage)  # a command's, not an option's
    for command in choices.group(1).split(",") if choices else []:
        yield from _helps([*argv, command])


def _missing(text: str, where: Path, *, bare: bool = True) -> list[str]:
    named = _named(text, bare=bare)
    return sorted({n.removeprefix("link:") for n in named if not _exists(n, where)})


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_pages_name_only_files_that_exist(page: Path) -> None:
    prose, code = _prose_and_code(page.read_text())
    assert _missing(prose, page) + _missing(code, page, bare=False) == []


@pytest.mark.parametrize(
    "proto",
    sorted((ROOT / "protos" / "feltline").rglob("*.proto")),
    ids=lambda p: p.name,
)
def test_proto_comments_name_only_files_that_exist(proto: Path) -> None:
    assert _missing(_proto_comments(proto), ROOT / "protos" / "x") == []


def test_command_help_names_only_files_that_exist() -> None:
    missing = {
        " ".join(["feltline", *argv]): _missing(text, ROOT / "x") for argv, text in _helps([])
    }
    assert {command: names for command, names in missing.items() if names} == {}


def test_a_missing_file_is_found() -> None:
    """The checks above could pass by finding nothing: they must not."""
    text = "See RULES.md, [the rules](../RULES.md), `docs/nowhere.md` and `core/src/x.py`."
    assert _missing(text, ROOT / "docs" / "api.md") == [
        "../RULES.md",
        "RULES.md",
        "core/src/x.py",
        "docs/nowhere.md",
    ]
    assert _missing("docs/store.md, `feltline/api/rail.py`, hands.log", ROOT / "README.md") == []


def test_code_is_checked_for_paths_only() -> None:
    page = "Run it:\n\n    uv run python bench/nowhere.py\n\n```js\nload('status.proto')\n```\n"
    prose, code = _prose_and_code(page)
    assert _missing(prose, ROOT / "README.md") == []
    assert _missing(code, ROOT / "README.md", bare=False) == ["bench/nowhere.py"]
