"""ops/systemd: the units pass ``systemd-analyze verify`` without a warning
(with the test's own ``feltline`` in ExecStart, as the installed one would
be), and say what the README promises: restart on failure, the key file
the service user's alone, the environment file, and a command line the
``feltline`` command takes."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from feltline.cli import main

UNITS = Path(__file__).resolve().parents[2] / "ops/systemd"
INSTALLED = "/opt/feltline/venv/bin/feltline"


def _service(name: str) -> dict[str, list[str]]:
    """The unit's [Service] settings, each with every value given (a key
    may be given more than once, as EnvironmentFile is)."""
    settings: dict[str, list[str]] = {}
    section = ""
    for line in (UNITS / name).read_text().splitlines():
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings.setdefault(key, []).append(value)
    return settings


def _env() -> dict[str, str]:
    lines = (UNITS / "feltline.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd here")
def test_the_units_verify_without_a_warning(tmp_path: Path) -> None:
    feltline = Path(sys.executable).with_name("feltline")
    assert feltline.exists()
    named = {"feltline@.service": "feltline@main.service", "feltline-project.service": None}
    for name, instance in named.items():
        text = (UNITS / name).read_text()
        assert INSTALLED in text
        (tmp_path / (instance or name)).write_text(text.replace(INSTALLED, str(feltline)))
    done = subprocess.run(
        ["systemd-analyze", "verify", *(str(p) for p in sorted(tmp_path.iterdir()))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


@pytest.mark.parametrize("name", ["feltline@.service", "feltline-project.service"])
def test_each_unit_restarts_keeps_its_files_private_and_reads_the_environment_file(
    name: str,
) -> None:
    service = _service(name)
    assert service["Restart"] == ["on-failure"]
    assert service["User"] == ["feltline"]
    assert service["UMask"] == ["0077"]  # the key file it makes is 0600
    assert service["StateDirectoryMode"] == ["0700"]
    assert service["EnvironmentFile"][0] == "/etc/feltline/feltline.env"
    assert service["ProtectSystem"] == ["strict"]


@pytest.mark.parametrize("name", ["feltline@.service", "feltline-project.service"])
def test_each_command_line_is_one_feltline_takes(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """ExecStart with the example environment file's values, given to the
    ``feltline`` command's own parser (``--help`` after it: parsed, not run)."""
    (line,) = _service(name)["ExecStart"]
    env = _env()
    for variable, value in env.items():
        line = line.replace(f"${{{variable}}}", value).replace(f"${variable}", value)
    assert "$" not in line, f"{name}: ExecStart names a variable feltline.env does not set"
    program, *args = shlex.split(line)
    assert program == INSTALLED
    with pytest.raises(SystemExit) as done:
        main([*args, "--help"])
    assert done.value.code == 0
    assert "usage: feltline" in capsys.readouterr().out
    assert env["FELTLINE_KEY_FILE"].startswith("/var/lib/feltline/")  # the StateDirectory
