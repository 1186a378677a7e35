"""The starter kits in bots/starters (issue 14, item 3) play every game legally.

Each kit (Python, JavaScript, C, Java, Rust, Go) is registered in a temporary arena home as a
submission stores it (read once, hashed, stored, built by its build step in the
sandbox), then its stored copy plays seeded matches of every game at two player counts
against the bundled bot `random` (.ci/run also runs `arena bot check` on every kit).
All the kits implement one policy with the same tie-breaks: every decision a kit made
must be the one the Python kit's `choose` gives in the same position.

Cheap by design: every kit is built and registered once per session, and one process
pool serves all matches, so a kit's process (a JVM) starts once, not once per match.
A kit whose compiler or runtime is missing is skipped here, but fails with CI set.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.match import replay, seeds
from arena.match.run import BotRef, MatchResult, MatchSpec, run_match
from arena.players.pool import BotPool
from arena.sandbox.bwrap import SANDBOX_PATH
from arena.status import MatchStatus, SeatStatus
from arena.store import Store, default_url
from arena.submissions import submit as registry
from arena.submissions.manifest import BUNDLED_BOTS, find_bot, prepare
from arena.submissions.snapshot import snapshot

STARTERS = BUNDLED_BOTS / "starters"
KITS = ("python", "javascript", "c", "java", "rust", "go")
#: The programs each kit needs from the system (its build step's and its command's).
TOOLS = {
    "python": ("python3",),
    "javascript": ("node",),
    "c": ("gcc",),
    "java": ("javac", "java"),
    "rust": ("cargo",),
    "go": ("go",),
}
#: What the build leaves in a kit's folder: not part of the kit.
BUILT = ("bot", "classes", "target")
GAMES = ("take-that", "leylo", "twirkle", "krumme10")
#: The short form of each game where it has one.
VARIANTS: dict[str, dict[str, Any]] = {"take-that": {"rounds": 1}}
PLAYERS = (2, 3)


def missing_tools(kit: str) -> list[str]:
    """The kit's programs that a build or a bot cannot find: the sandbox's PATH is not
    the user's (a rustup cargo in ~/.cargo is not on it)."""
    return [tool for tool in TOOLS[kit] if shutil.which(tool, path=SANDBOX_PATH) is None]


def copy_kit(kit: str, target: Path) -> Path:
    """The kit's files as committed, without anything a local build left behind."""
    shutil.copytree(STARTERS / kit, target, ignore=shutil.ignore_patterns(*BUILT, "__pycache__"))
    return target


@pytest.fixture(scope="session")
def pool() -> Iterator[BotPool]:
    """One pool for every match: a kit's process plays all its matches in a row."""
    shared = BotPool(reuse=True)
    yield shared
    shared.close()


@pytest.fixture(scope="session")
def opponent() -> BotRef:
    random_bot = find_bot("random")
    return BotRef("random", str(random_bot.folder), tuple(prepare(random_bot)))


@pytest.fixture(scope="session")
def submitted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, BotRef]]:
    """Each kit, registered once in a temporary home, by kit (built lazily, on first use)."""
    home = tmp_path_factory.mktemp("starters-home")
    store = Store(default_url(home))

    class Lazy(dict[str, BotRef]):
        def __missing__(self, kit: str) -> BotRef:
            missing = missing_tools(kit)
            if missing:
                reason = f"the {kit} starter kit needs {', '.join(missing)}, not installed here"
                if os.environ.get("CI"):
                    pytest.fail(reason)
                pytest.skip(reason)
            folder = copy_kit(kit, tmp_path_factory.mktemp("kits") / kit)
            # Registered as `arena bot submit` stores it, minus the submission's check
            # matches (the seeded matches below are stricter; CI runs `arena bot check`
            # on every kit). bot_ref builds the stored copy in the sandbox first.
            read = snapshot(folder)
            manifest = read.manifest
            version = store.add_bot_version(
                manifest.name, read.sha256, str(folder), manifest.command, manifest.games
            )
            self[kit] = registry.bot_ref(version, f"starter-{kit}")
            return self[kit]

    try:
        yield Lazy()
    finally:
        store.close()


def play(game: str, seats: tuple[BotRef, ...], pool: BotPool, seed: int) -> MatchResult:
    spec = MatchSpec(
        match_id=f"starter-{game}-{len(seats)}p-{seed}",
        game=game,
        seed=seed,
        seats=seats,
        variant=VARIANTS.get(game, {}),
        decision_timeout=5.0,  # generous: the suite may run on a busy machine
        startup_timeout=30.0,
        keys=seeds.derive(b"starter" * 4, seed, "test", len(seats)),
    )
    return run_match(spec, pool)


@functools.cache
def python_kit_policy() -> Any:
    """The Python kit's `choose(game, observation, legal)`, imported from its bot.py (the
    observation is protocol 2's envelope, as every kit is sent)."""
    path = STARTERS / "python" / "bot.py"
    spec = importlib.util.spec_from_file_location("starter_python_bot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ in the kit
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes
    return module.choose


def policy_mismatches(recorded: dict[str, Any], seat: int) -> list[str]:
    """The decisions of `seat` in a replay that the Python kit would have made otherwise.

    The kits are one policy in six languages, so replaying a match through the
    referee and asking the Python kit at each of the seat's decisions must give back
    every decision the kit made: a kit that reads a message differently shows up here.
    """
    choose = python_kit_policy()
    events = recorded["events"]
    assert events and events[0].get("seat") is None  # a match opens with its deal
    wrong = []
    for index, (_event, game) in enumerate(replay.walk(recorded)):
        following = events[index + 1] if index + 1 < len(events) else {}
        if following.get("seat") == seat:  # the state the seat decided in, before it acts
            expected = choose(recorded["game"], game.observation(seat), game.legal(seat))
            if following["decision"] != expected:
                wrong.append(f"event {index + 1}: {following['decision']} (python: {expected})")
    return wrong


@pytest.mark.parametrize("kit", KITS)
def test_a_starter_kit_plays_every_game_legally(
    kit: str, submitted: dict[str, BotRef], opponent: BotRef, pool: BotPool
) -> None:
    """Every game at two player counts: no forfeit, a replay the referee accepts, and
    the moves of the Python kit's policy. One test per kit (not per match), so that
    parallel test workers build each kit once."""
    ref = submitted[kit]
    problems = []
    for game in GAMES:
        for players in PLAYERS:
            seat = players - 1  # the kit moves last: it sees every other seat move first
            seats = tuple(ref if s == seat else opponent for s in range(players))
            # A seed per match: a pooled process is never given the same deal twice, so
            # a repeated seed would start a new process instead of reusing one.
            result = play(game, seats, pool, seed=10 * GAMES.index(game) + players)
            where = f"{game} with {players} players"
            if result.status is not MatchStatus.NORMAL:
                problems.append(f"{where}: {result.status} {result.error}")
                continue
            statuses = [s.status for s in result.seats]
            if statuses != [SeatStatus.OK] * players:
                mine = result.seats[seat]
                problems.append(f"{where}: {statuses}: {mine.detail}\n{mine.stderr}")
                continue
            assert result.replay is not None and result.seats[seat].decisions > 0
            replay.verify(result.replay)  # every recorded decision was offered
            problems += [f"{where}, {m}" for m in policy_mismatches(result.replay, seat)][:3]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("kit", KITS)
def test_a_starter_kit_has_a_readme_with_the_commands(kit: str) -> None:
    readme = (STARTERS / kit / "README.md").read_text(encoding="utf-8")
    for command in ("arena play", "arena bot check", "arena bot submit"):
        assert command in readme, f"{kit}/README.md does not show {command}"
