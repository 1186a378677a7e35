"""A build (or bot) whose program is missing in the sandbox is told so in plain words
(issue 31 item 20: the shell's own `arena-bot: 1: exec: cargo: not found`). A bot's
command missing on the host is refused before any sandbox starts (arena.submissions.manifest)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.sandbox.detection import protections

runner = CliRunner()
needs_bwrap = pytest.mark.skipif(
    protections().bwrap is None, reason="the words come from the bubblewrap start script"
)


def folder_bot(tmp_path: Path, manifest: str) -> Path:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "lost"\ngames = ["take-that"]\n' + manifest)
    return bot


@needs_bwrap
def test_a_missing_compiler_fails_the_build_in_plain_words(tmp_path: Path) -> None:
    bot = folder_bot(tmp_path, 'command = ["./bot"]\nbuild = ["nosuchcompiler", "bot.c"]\n')
    env = {"ARENA_HOME": str(tmp_path / "home")}
    result = runner.invoke(app, ["bot", "check", str(bot)], env=env)
    assert result.exit_code != 0, result.output
    assert "build failed: arena: no program nosuchcompiler in the sandbox (PATH=" in result.output
    assert "arena-bot: 1:" not in result.output
