"""Helpers for tests: references to the test bots kept as data in tests/bots/."""

from __future__ import annotations

import importlib.util
import logging
import os
import random
import signal
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.match.run import BotRef, MatchResult, MatchSpec, run_match
from arena.players.pool import BotPool
from arena.sandbox.detection import protections
from arena.store import Store
from arena.submissions.manifest import load_manifest, prepare, resolve_command
from arena.submissions.snapshot import snapshot

TEST_BOTS = Path(__file__).parent / "bots"


def bot_ref_for(name: str) -> BotRef:
    """A BotRef for tests/bots/<name> (its program need not exist: that is a test case)."""
    manifest = load_manifest(TEST_BOTS / name)
    program = manifest.command[0]
    if manifest.build:
        argv = tuple(prepare(manifest))  # builds the program once (a C test bot)
    elif "/" in program:
        argv = (str(manifest.folder / program), *manifest.command[1:])
    else:
        argv = tuple(resolve_command(manifest))
    return BotRef(manifest.name, str(manifest.folder), argv, protocol=manifest.protocol)


def register_unchecked(store: Store, name: str, folder: Path | None = None) -> str:
    """Store tests/bots/<name> (or `folder` under this name) as it is, without a smoke match
    (a bot that cannot pass one, or one whose check another test covers)."""
    read = snapshot(folder or TEST_BOTS / name)
    manifest = read.manifest
    store.add_bot_version(name, read.sha256, str(manifest.folder), manifest.command, ["*"])
    return name


def _expect(name: str) -> dict[str, object]:
    return dict(tomllib.loads((TEST_BOTS / name / "bot.toml").read_text())["tool"]["expect"])


def sandboxed() -> bool:
    """True when bots run under bubblewrap here."""
    return protections().bwrap is not None


def expected_status(name: str) -> str:
    """The verdict a hostile test bot's manifest promises (here: with or without the sandbox)."""
    expect = _expect(name)
    if not sandboxed() and "unsandboxed_status" in expect:
        return str(expect["unsandboxed_status"])
    return str(expect["status"])


def needs_sandbox(name: str) -> bool:
    """True for a hostile bot that is only safe to run inside the sandbox."""
    return bool(_expect(name).get("needs_sandbox", False))


def hostile_bots() -> list[str]:
    """Every test bot with an expected verdict."""
    return sorted(
        p.name
        for p in TEST_BOTS.iterdir()
        if (p / "bot.toml").is_file()
        and "expect" in tomllib.loads((p / "bot.toml").read_text()).get("tool", {})
    )


class _Capture(logging.Handler):
    """Keep (bot name, direction, line) for every line the bot processes log."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[tuple[str, str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg not in ("%s << %s", "%s >> %s") or not isinstance(record.args, tuple):
            return
        name, line = record.args
        direction = "to-bot" if record.msg == "%s << %s" else "from-bot"
        self.lines.append((str(name), direction, str(line)))


def run_and_capture(
    spec: MatchSpec, pool: BotPool | None = None
) -> tuple[MatchResult, list[tuple[str, str, str]]]:
    """Run a real match and return its result and every protocol line, both ways, in order.

    The lines come from the `arena.bot` logger at debug level ("name << line" is to the
    bot, "name >> line" from it); each item is (bot name, "to-bot"|"from-bot", line).
    """
    logger = logging.getLogger("arena.bot")
    capture = _Capture()
    old_level, old_propagate = logger.level, logger.propagate
    logger.addHandler(capture)
    logger.setLevel(logging.DEBUG)  # before the bots start: BotProcess reads it at creation
    logger.propagate = False
    try:
        result = run_match(spec, pool)
    finally:
        logger.removeHandler(capture)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
    return result, capture.lines


def load_bot_module(folder: str) -> ModuleType:
    """Import bots/<folder>/bot.py by path (a bundled bot is a program, not a package).

    Heuristic bots keep their policy in a pure `choose(observation, legal, rng)`, so
    tests and scripts can play it in-process without pipes.
    """
    path = Path(__file__).resolve().parents[1] / "bots" / folder / "bot.py"
    spec = importlib.util.spec_from_file_location(f"bot_{folder.replace('-', '_')}", path)
    assert spec is not None and spec.loader is not None, f"no bot.py in bots/{folder}"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def search_twice(
    bot: ModuleType, observation: Any, legal: list[Any], variant: Any, game: str, iterations: int
) -> list[Any]:
    """The ISMCTS bot's answers to the same position searched twice from the same seed, with
    a fixed iteration count (so they must agree)."""
    return [
        bot.choose(
            observation,
            legal,
            random.Random(4),
            variant,
            game=game,
            budget_s=60.0,
            iterations=iterations,
        )
        for _ in range(2)
    ]


def heuristic_walk(
    game: Any, choose: Callable[..., Any], seed: int
) -> list[tuple[Any, int, list[Any]]]:
    """(a copy of the state, seat, legal) at every decision of `game` played on by `choose`
    (a heuristic bot's, called with observation, legal and rng) with three decisions in
    ten random instead, so that rarer phases come up too."""
    rng = random.Random(seed)
    found = []
    while not game.is_over():
        seat = game.to_move()[0]
        observation, legal = game.observation(seat), game.legal(seat)
        found.append((game.clone(), seat, list(legal)))
        pick = choose(observation, legal, rng)
        game.apply(seat, rng.choice(legal) if rng.random() < 0.3 else pick)
    return found


def tree_seats(root: Any) -> set[int]:
    """The seats whose decisions a search tree (bots/ismcts/tree_search.py's `Node`) holds."""
    nodes: list[Any] = [root]
    seats: set[int] = set()
    while nodes:
        node = nodes.pop()
        seats.update(seat for seat, _ in node.children)
        nodes.extend(node.children.values())
    return seats


def kill_once_recorded(process: subprocess.Popen[bytes], store: Store, matches: int) -> int:
    """kill -9 a running `arena tournament run` once `matches` are recorded; its tournament id.

    Waits by polling the database (an event), not by sleeping a fixed time.
    """
    while True:
        found = store.tournaments()
        if found and store.match_counts(found[0].id or 0)[0] >= matches:
            break
        try:
            process.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            continue
        raise AssertionError(process.stderr.read().decode() if process.stderr else "exited")
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    return found[0].id or 0


def python_in_copy(root: Path, script: str) -> str:
    """What `script` prints, run by this Python (isolated, -I) with a GamesCopy's `root`
    first on its path: how a bot's Python of arena's version imports the copy."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(root)!r}); {script}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout
