"""Version-1 bots keep playing unchanged (issue 33): the proof, one bot per starter language.

tests/bots/v1_python, v1_c, v1_java and v1_javascript are the starter kits as they were
before protocol version 2, their bot.toml without a `protocol` key: they read version
1's messages (`decision_timeout_ms`, `deadline_ms`, each game's own observation) and
know nothing of time controls, the envelope or `debug`. Each plays one match of every
game against the bundled random bot and must finish it with every seat ok, making at
every one of its decisions the move that the version-1 Python kit's `choose` gives on
the version-1 observation (`Game.observe`): a bot that were sent version 2 would read
no `sum`, `board` or `grids` at the top of its observation and play otherwise, or crash.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.match import replay
from arena.match.run import BotRef
from arena.players.pool import BotPool
from arena.sandbox.bwrap import SANDBOX_PATH
from arena.status import MatchStatus, SeatStatus
from arena.submissions.manifest import find_bot, load_manifest, prepare
from tests.helpers import TEST_BOTS
from tests.test_starters import GAMES, play

V1_BOTS = ("v1_python", "v1_c", "v1_java", "v1_javascript")
TOOLS = {
    "v1_python": ("python3",),
    "v1_c": ("gcc",),
    "v1_java": ("javac", "java"),
    "v1_javascript": ("node",),
}


@pytest.fixture(scope="module")
def pool() -> Iterator[BotPool]:
    """One pool for every match: a bot's process (a JVM) plays all its matches in a row."""
    shared = BotPool(reuse=True)
    yield shared
    shared.close()


@pytest.fixture(scope="module")
def opponent() -> BotRef:
    random_bot = find_bot("random")
    return BotRef("random", str(random_bot.folder), tuple(prepare(random_bot)))


def v1_ref(name: str, target: Path) -> BotRef:
    """The test bot built in a copy (its build output stays out of tests/bots)."""
    missing = [tool for tool in TOOLS[name] if shutil.which(tool, path=SANDBOX_PATH) is None]
    if missing:
        reason = f"{name} needs {', '.join(missing)}, not installed here"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    folder = shutil.copytree(TEST_BOTS / name, target / name)
    manifest = load_manifest(folder)
    return BotRef(name, str(folder), tuple(prepare(manifest)), protocol=manifest.protocol)


@functools.cache
def v1_policy() -> Any:
    """The version-1 Python kit's `choose(game, observation, legal)`."""
    spec = importlib.util.spec_from_file_location(
        "v1_python_bot", TEST_BOTS / "v1_python" / "bot.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes
    return module.choose


def v1_mismatches(recorded: dict[str, Any], seat: int) -> list[str]:
    """The decisions of `seat` that the version-1 policy, on version-1 observations,
    would have made otherwise."""
    choose = v1_policy()
    events = recorded["events"]
    wrong = []
    for index, (_event, game) in enumerate(replay.walk(recorded)):
        following = events[index + 1] if index + 1 < len(events) else {}
        if following.get("seat") == seat:
            expected = choose(recorded["game"], game.observe(seat), game.legal(seat))
            if following["decision"] != expected:
                wrong.append(f"event {index + 1}: {following['decision']} (v1 python: {expected})")
    return wrong


@pytest.mark.parametrize("name", V1_BOTS)
def test_a_v1_bot_declares_no_protocol(name: str) -> None:
    table = tomllib.loads((TEST_BOTS / name / "bot.toml").read_text(encoding="utf-8"))
    assert "protocol" not in table
    assert load_manifest(TEST_BOTS / name).protocol == 1


@pytest.mark.parametrize("name", V1_BOTS)
def test_a_v1_bot_plays_every_game_as_before(
    name: str, tmp_path: Path, opponent: BotRef, pool: BotPool
) -> None:
    ref = v1_ref(name, tmp_path)
    assert ref.protocol == 1
    problems = []
    for game in GAMES:
        seats = (opponent, ref)
        result = play(game, seats, pool, seed=100 + GAMES.index(game))
        if result.status is not MatchStatus.NORMAL:
            problems.append(f"{game}: {result.status} {result.error}")
            continue
        statuses = [s.status for s in result.seats]
        if statuses != [SeatStatus.OK, SeatStatus.OK]:
            problems.append(
                f"{game}: {statuses}: {result.seats[1].detail}\n{result.seats[1].stderr}"
            )
            continue
        assert result.replay is not None and result.seats[1].decisions > 0
        replay.verify(result.replay)
        problems += [f"{game}, {m}" for m in v1_mismatches(result.replay, 1)][:3]
    assert not problems, "\n".join(problems)
