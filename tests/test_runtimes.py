"""Toolchains outside the system, exposed by name to builds and bots (issue 31 item 3).

A build saw only /usr, /bin, /lib, /etc with the sandbox's PATH, so a toolchain in
~/.cargo, /usr/local/go or nvm was "not found", with or without bubblewrap. An
organiser names such toolchains in a runtimes file (`arena.sandbox.runtimes`), a bot
asks for one with `runtime = "NAME"`, and `arena doctor` checks each. Here a fake
toolchain in a folder of its own stands for rustup's.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.sandbox import detection, report, runtimes
from arena.sandbox.limits import Limits
from arena.sandbox.start import launch
from arena.submissions.manifest import BotFolderError, load_manifest, prepare
from tests.helpers import sandboxed

#: The fake toolchain's program: its version, or its FAKE_HOME written to a file.
TOOL = (
    "#!/bin/sh\n"
    'if [ "$1" = --version ]; then echo "faketool 1.0"; exit 0; fi\n'
    'echo "$FAKE_HOME" > "$1"\n'
)


@pytest.fixture
def toolchain() -> Iterator[Path]:
    """A toolchain outside the system dirs, readable by the bots' uids (as /opt would be)."""
    root = Path(tempfile.mkdtemp(prefix="arena-toolchain-", dir="/var/tmp"))  # /tmp: hidden
    root.chmod(0o755)
    (root / "bin").mkdir(mode=0o755)
    (root / "bin" / "faketool").write_text(TOOL)
    (root / "bin" / "faketool").chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def configured(
    toolchain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Path:
    """A runtimes file naming the fake toolchain `fake`, and one closed to the bots."""
    closed = toolchain.with_name(toolchain.name + "-closed")  # beside it, not in /tmp
    (closed / "bin").mkdir(parents=True)
    closed.chmod(0o700)
    request.addfinalizer(lambda: shutil.rmtree(closed, ignore_errors=True))
    config = tmp_path / "runtimes.toml"
    config.write_text(
        f'[fake]\nfolders = ["{toolchain}"]\npath = ["{toolchain}/bin"]\n'
        f'env = {{ FAKE_HOME = "{toolchain}" }}\ncheck = ["faketool", "--version"]\n\n'
        f'[closed]\nfolders = ["{closed}"]\ncheck = ["true"]\n\n'
        '[gone]\nfolders = ["/nonexistent/toolchain"]\n'
    )
    monkeypatch.setenv("ARENA_RUNTIMES", str(config))
    return config


def bot(folder: Path, runtime: str | None, build: str = '["faketool", "made.txt"]') -> Path:
    folder.mkdir()
    line = f'runtime = "{runtime}"\n' if runtime else ""
    (folder / "bot.toml").write_text(
        f'name = "uses-runtime"\ncommand = ["python3", "bot.py"]\nbuild = {build}\n{line}'
    )
    (folder / "bot.py").write_text("print('hi')\n")
    return folder


def test_a_build_finds_its_runtime_tool_and_environment(configured: Path, tmp_path: Path) -> None:
    folder = bot(tmp_path / "bot", "fake")
    prepare(load_manifest(folder))  # before: bot.toml "unknown key 'runtime'"
    toolchain = runtimes.get("fake").folders[0]
    assert (folder / "made.txt").read_text().strip() == toolchain


def test_without_the_runtime_the_tool_is_not_found(configured: Path, tmp_path: Path) -> None:
    with pytest.raises(BotFolderError, match="no program faketool in the sandbox"):
        prepare(load_manifest(bot(tmp_path / "bot", None)))


def test_the_runtime_is_read_only(configured: Path, tmp_path: Path) -> None:
    toolchain = runtimes.get("fake").folders[0]
    folder = bot(tmp_path / "bot", "fake", f'["sh", "-c", "echo x > {toolchain}/bin/planted"]')
    with pytest.raises(BotFolderError, match="build failed"):
        prepare(load_manifest(folder))
    assert not Path(toolchain, "bin", "planted").exists()


def test_the_runtime_applies_without_bubblewrap(
    configured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ARENA_SANDBOX=none changed nothing before: the PATH was the sandbox's."""
    real = detection.protections()
    plain = dataclasses.replace(real, bwrap=None, bwrap_reason="off for the test")
    monkeypatch.setattr(detection, "protections", lambda: plain)
    folder = bot(tmp_path / "bot", "fake")
    prepare(load_manifest(folder))
    assert (folder / "made.txt").read_text().strip() == runtimes.get("fake").folders[0]


def test_a_runtime_not_configured_is_a_one_line_error(configured: Path, tmp_path: Path) -> None:
    with pytest.raises(BotFolderError) as error:
        prepare(load_manifest(bot(tmp_path / "bot", "rust")))
    assert "runtime 'rust' is not configured on this machine" in str(error.value)
    assert str(configured) in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[r]\nfolders = ["/opt"]\nenv = { PATH = "/x" }\n', "cannot set PATH"),
        ('[r]\nfolders = ["opt"]\n', "must be an absolute path"),
        ('[r]\nfolder = ["/opt"]\n', "unknown key 'folder'"),
        ("[r\n", "cannot be read as TOML"),
        ('[r]\nfolders = ["/tmp/rust"]\n', "the sandbox's own"),
    ],
)
def test_a_bad_runtimes_file_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, says: str
) -> None:
    config = tmp_path / "runtimes.toml"
    config.write_text(text)
    monkeypatch.setenv("ARENA_RUNTIMES", str(config))
    with pytest.raises(runtimes.RuntimeProblem, match=says):
        runtimes.get("r")
    assert report.runtime_rows()[0]["ok"] is False


@pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here")
def test_doctor_checks_every_runtime_inside_the_sandbox(configured: Path) -> None:
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["runtime"]: row for row in json.loads(result.stdout)["runtimes"]}
    assert rows["fake"]["ok"] is True and "faketool 1.0" in rows["fake"]["detail"]
    assert rows["gone"]["ok"] is False and "missing folder" in rows["gone"]["detail"]
    if detection.protections().drop_uid:  # a folder closed to the bots' uids (arena as root)
        assert (
            rows["closed"]["ok"] is False and "closed to the bots' uids" in rows["closed"]["detail"]
        )


def test_a_runtime_program_is_run_from_the_runtime(configured: Path, tmp_path: Path) -> None:
    """A bot's command found on the runtime's PATH runs from its folder, inside too."""
    folder = bot(tmp_path / "bot", "fake", '["true"]')
    (folder / "bot.toml").write_text(
        'name = "tool-bot"\ncommand = ["faketool", "--version"]\nruntime = "fake"\n'
    )
    argv = prepare(load_manifest(folder))
    assert argv[0] == str(Path(runtimes.get("fake").folders[0], "bin", "faketool"))
    box = launch(argv, folder, Limits())
    try:
        out, err = box.process.communicate(timeout=30)
    finally:
        box.kill()
    assert out == b"faketool 1.0\n", err
