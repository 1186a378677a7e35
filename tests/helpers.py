"""Helpers for tests: references to the test bots kept as data in tests/bots/."""

from __future__ import annotations

import tomllib
from pathlib import Path

from arena.manifest import load_manifest, resolve_command
from arena.match import BotRef

TEST_BOTS = Path(__file__).parent / "bots"


def bot_ref_for(name: str) -> BotRef:
    """A BotRef for tests/bots/<name> (its program need not exist: that is a test case)."""
    manifest = load_manifest(TEST_BOTS / name)
    program = manifest.command[0]
    if "/" in program:
        argv = (str(manifest.folder / program), *manifest.command[1:])
    else:
        argv = tuple(resolve_command(manifest))
    return BotRef(manifest.name, str(manifest.folder), argv)


def expected_status(name: str) -> str:
    """The verdict a hostile test bot's manifest promises."""
    data = tomllib.loads((TEST_BOTS / name / "bot.toml").read_text())
    return str(data["expect"]["status"])


def hostile_bots() -> list[str]:
    """Every test bot with an expected verdict."""
    return sorted(
        p.name
        for p in TEST_BOTS.iterdir()
        if (p / "bot.toml").is_file() and "expect" in tomllib.loads((p / "bot.toml").read_text())
    )
