"""Every command the README and docs/operating.md show runs as written, in
order, so that a newcomer who follows them gets what the page says (the
README's walkthrough once ended in INSUFFICIENT_BALANCE: nobody minted the
players' chips).

Each page runs in a temporary folder of its own, against a free port:
``uv run X`` runs the venv's ``X``; ``FELTLINE_TARGET`` names the port for
every client, and each ``feltline serve`` is given it with ``--port``. What
runs until stopped (``serve``, ``project``, a player's ``feltline-play``)
runs in the background, as in a terminal of its own, once it has printed
that it is up; a new ``serve`` first stops what the page started before.
At the end the servers are stopped with SIGTERM and exit 0, and every
player has left (the table closed) with exit status 0.

A few commands are run elsewhere, each named in ``ELSEWHERE`` with where;
that list is checked against the pages too, so it cannot go stale."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.ports import free_ports

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "operating.md"]
BIN = Path(sys.executable).parent

# Run elsewhere, or not at all: the command as the page shows it (without
# its comment), and why.
ELSEWHERE = {
    "pip install uv && uv run feltline demo": "tests/cli/test_demo.py runs the demo",
    "pip install uv && uv run pytest": "the suite this test is part of",
    "uv run feltline serve --host 0.0.0.0 --tls-cert server.pem --tls-key server.key": (
        "tests/cli/test_tls.py serves over TLS with certificates it makes"
    ),
    "uv run feltline serve --host 0.0.0.0 --tls-cert server.pem --tls-key server.key "
    "--tls-client-ca clients-ca.pem": "tests/cli/test_tls.py, with client certificates",
    "uv run ops/cluster --processes 3 --partitions 3": (
        "tests/cluster/test_failover.py runs ops/cluster on PostgreSQL, and kills its servers; "
        "tests/store/test_partitions.py gives each process a partition of its own"
    ),
    "POSTGRES_DBNAME=feltline POSTGRES_HOST=127.0.0.1 POSTGRES_USER=postgres "
    "uv run feltline serve --store postgres": (
        "tests/cli/test_serve.py and tests/api/test_two_servers.py serve PostgreSQL"
    ),
}
# What runs until stopped, and the line it prints once it is up.
BACKGROUND = {
    "feltline serve": "feltline listening on",
    "feltline project": "feltline projecting",
    "feltline-play": "you sit down",
}
STOPPED_BY_SIGNAL = ("feltline serve", "feltline project")
COMMAND = re.compile(r"^(?:[A-Z_]+=\S+ )*(?:uv|pip) ")
UV = 'uv() { if [ "$1" = run ]; then shift; "$@"; else echo "not run: uv $*" >&2; return 99; fi; }'


def commands(page: Path) -> list[str]:
    """The page's commands in order: every line of its code blocks but a
    diagram's (a ```text block), continuation lines joined, comments cut."""
    found: list[str] = []
    fence: str | None = None
    lines = page.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
            continue
        if fence is not None:
            if fence in ("text", "json", "python", "js", "go"):
                continue
            code = line
        elif line.startswith("    "):
            code = line[4:]
        else:
            continue
        code = re.sub(r"\s+#\s.*$", "", code).strip()
        if not code:
            continue
        if found and found[-1].endswith("\\"):
            found[-1] = found[-1][:-1].rstrip() + " " + code
            continue
        assert COMMAND.match(code), f"{page.name}:{number}: not a command a test can run: {code}"
        found.append(" ".join(code.split()))
    return found


@dataclass
class Background:
    """A command running as in a terminal of its own."""

    command: str
    kind: str
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)
    up: bool = False  # it said it is up
    heard: threading.Event = field(default_factory=threading.Event)

    def read(self, ready: str) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            if ready in line:
                self.up = True
                self.heard.set()
        self.heard.set()  # ended without saying so

    def said(self) -> str:
        return "".join(self.output)


@dataclass
class Terminal:
    """A page's commands, run in one folder against one port."""

    folder: Path
    port: int
    running: list[Background] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        mine = ("FELTLINE_", "SQLITE_", "POSTGRES_", "PERSISTENCE_", "CARDROOM_", "CIPHER_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(mine)}
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        env["FELTLINE_TARGET"] = f"127.0.0.1:{self.port}"
        env["PYTHONUNBUFFERED"] = "1"
        return env

    def run(self, command: str) -> None:
        kind = next((k for k in BACKGROUND if re.search(rf"uv run {k}( |$)", command)), None)
        if kind == "feltline project" and "--rebuild" in command:
            kind = None
        if kind == "feltline serve":
            self.stop()
            command = re.sub(r" --port \S+", "", command) + f" --port {self.port}"
        if kind is None:
            done = subprocess.run(
                ["bash", "-c", f"{UV}\n{command}"],
                check=False,
                cwd=self.folder,
                env=self.env(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=180,
            )
            assert done.returncode == 0, (command, done.stdout, done.stderr)
            assert "Traceback" not in done.stdout + done.stderr, (command, done.stderr)
            return
        # `exec` in place of `uv run`: the signal reaches the command itself.
        script = re.sub(r"(^|\s)uv run (\S)", r"\1exec \2", command, count=1)
        process = subprocess.Popen(
            ["bash", "-c", f"{UV}\n{script}"],
            cwd=self.folder,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        started = Background(command, kind, process)
        self.running.append(started)
        threading.Thread(target=started.read, args=(BACKGROUND[kind],), daemon=True).start()
        started.heard.wait(120)
        assert started.up, (command, process.poll(), started.said())

    def stop(self) -> None:
        """Players leave by themselves (their table closed); servers are
        stopped with SIGTERM. Each must end with exit status 0."""
        for started in self.running:
            if started.kind in STOPPED_BY_SIGNAL:
                started.process.send_signal(signal.SIGTERM)
        try:
            for started in self.running:
                code = started.process.wait(timeout=60)
                assert code == 0, (started.command, code, started.said())
                assert "Traceback" not in started.said(), (started.command, started.said())
        finally:
            for started in self.running:
                if started.process.poll() is None:
                    started.process.kill()
                    started.process.wait()
            self.running.clear()


# A dozen commands, each a process that imports the server: minutes on a
# loaded machine, past the suite's usual limit.
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_pages_commands_run_in_order(page: Path, tmp_path: Path) -> None:
    terminal = Terminal(tmp_path, free_ports())
    ran = []
    try:
        for command in commands(page):
            if command not in ELSEWHERE:
                terminal.run(command)
                ran.append(command)
    finally:
        terminal.stop()
    assert ran, f"{page.name} shows no command"


def test_what_is_run_elsewhere_is_still_shown() -> None:
    shown = {c for page in PAGES for c in commands(page)}
    assert sorted(set(ELSEWHERE) - shown) == []
    for why in ELSEWHERE.values():
        for path in re.findall(r"tests/\S+\.py", why):
            assert (ROOT / path).exists(), path


def test_a_comment_a_continuation_and_a_diagram(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text\n\n    uv run feltline serve \\\n        --port 1   # here\n\n"
        "```text\n client ─▶ server\n```\n\n```\nuv run feltline table list\n```\n"
    )
    assert commands(page) == ["uv run feltline serve --port 1", "uv run feltline table list"]
    page.write_text("Text\n\n    feltline serve\n")
    with pytest.raises(AssertionError, match="not a command a test can run"):
        commands(page)
