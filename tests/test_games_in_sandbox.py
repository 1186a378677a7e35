"""Every bot can import arena's referees (`arena.games`), and nothing else of arena.

Issue 13 item 3: a search bot simulates its match with the referee itself, from a
read-only copy of `arena/__init__.py` and `arena/games` on its PYTHONPATH, in the
sandbox and without it. The store, the seeds and the checkout stay out of reach.
"""

from __future__ import annotations

import dataclasses
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import arena
from arena.match import replay
from arena.match.run import MatchResult, run_match
from arena.sandbox import bwrap, detection, launcher, pythonpath, spawn
from arena.status import MatchStatus, SeatStatus
from tests.helpers import TEST_BOTS, bot_ref_for, python_in_copy, sandboxed
from tests.test_match import spec

needs_bwrap = pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here")
SEARCHER = "referee_search"


@pytest.fixture
def unsandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots started as with ARENA_SANDBOX=none (rlimits and a cgroup, no bubblewrap)."""
    real = detection.protections()
    plain = dataclasses.replace(real, bwrap=None, bwrap_reason="off for this test")
    monkeypatch.setattr(detection, "protections", lambda: plain)


def searcher_match(seed: int = 11) -> MatchResult:
    """The searching test bot against a polite one, with time enough for its playouts."""
    searcher, polite = bot_ref_for(SEARCHER), bot_ref_for("polite")
    result = run_match(spec(searcher, polite, seed=seed, timeout=5.0, rounds=1))
    assert result.status is MatchStatus.NORMAL, [s.detail for s in result.seats]
    assert [s.status for s in result.seats] == [SeatStatus.OK] * 2, result.seats[0].stderr
    assert result.replay is not None
    replay.verify(result.replay)
    return result


def package_sources() -> set[str]:
    """The files a bot may see: arena/__init__.py and arena/games/**.py, as relative paths."""
    package = Path(arena.__file__).parent
    games = {f"arena/{p.relative_to(package)}" for p in (package / "games").rglob("*.py")}
    return {"arena/__init__.py", *games}


def offered() -> set[str]:
    """And the compiled modules: arena's orjson, where it can be offered
    (tests/test_bot_json.py), and arena.games' own (Twirkle's playout engine)."""
    package = Path(arena.__file__).parent
    found = {f"arena/{p.relative_to(package)}" for p in pythonpath.games_extensions(package)}
    if pythonpath.orjson_extension() is not None:
        found.add("orjson" + importlib.machinery.EXTENSION_SUFFIXES[0])
    return found


# ----- a bot that searches with the referee plays real matches -----------------------
@needs_bwrap
def test_a_sandboxed_bot_searches_with_the_referee_from_the_mount() -> None:
    result = searcher_match()
    assert "arena.games from /arena/python/arena/games/__init__.py" in result.seats[0].stderr


def test_an_unsandboxed_bot_searches_with_a_copy_of_the_referee(unsandboxed: None) -> None:
    result = searcher_match(seed=12)
    copy = launcher.games_copy().root
    assert f"arena.games from {copy}/arena/games/__init__.py" in result.seats[0].stderr


@pytest.mark.parametrize("mode", ["auto", "none"])
def test_arena_play_runs_a_bot_that_imports_the_referee(tmp_path: Path, mode: str) -> None:
    if mode == "auto" and not sandboxed():
        pytest.skip("bubblewrap is not available here")
    command = ["play", "take-that", str(TEST_BOTS / SEARCHER), "random", "--seed", "2"]
    command += ["--variant", "rounds=1", "--decision-timeout", "5", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "arena", *command],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "ARENA_HOME": str(tmp_path / "home"), "ARENA_SANDBOX": mode},
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert [seat["status"] for seat in summary["seats"]] == ["ok", "ok"], summary


# ----- and reaches nothing else -------------------------------------------------------
@needs_bwrap
def test_the_probe_sees_only_the_referee_sources_and_their_byte_code() -> None:
    polite, probe = bot_ref_for("polite"), bot_ref_for("import_outside")
    result = run_match(spec(polite, probe, timeout=2.0))
    seat = result.seats[1]
    assert seat.status is SeatStatus.OK, seat.detail  # no import, file or write got through
    lines = [line.split(" ", 2) for line in seat.stderr.splitlines()]
    said = {words[1]: words[2] for words in lines if words[0] == "import_outside:"}
    assert said["root"] == pythonpath.MOUNT
    suffix, loaded = json.loads(said["engine"])  # Twirkle's compiled playout engine
    assert loaded == (suffix == importlib.machinery.EXTENSION_SUFFIXES[0]), suffix
    seen = set(json.loads(said["files"]))
    assert {f for f in seen if "__pycache__" not in f} == package_sources() | offered()
    seen -= offered()
    for compiled in seen - package_sources():  # arena/games/__pycache__/base.cpython-311.pyc
        folder, name = compiled.rsplit("/__pycache__/", 1)
        assert f"{folder}/{name.split('.')[0]}.py" in seen, compiled


def test_the_copy_holds_the_package_only_and_only_arena_may_write_it() -> None:
    copy = launcher.games_copy()
    files = {str(p.relative_to(copy.root)) for p in copy.root.rglob("*") if p.is_file()}
    assert {f for f in files if "__pycache__" not in f} == package_sources() | offered()
    for path in copy.root.rglob("*"):
        assert path.stat().st_mode & 0o022 == 0, path  # writable by arena's user alone


def test_the_copy_carries_twirkles_engine_for_a_python_of_arenas_abi(tmp_path: Path) -> None:
    """The compiled playout engine goes with the referee's sources, and loads from the copy."""
    copy = pythonpath.GamesCopy(tmp_path / "python")
    name = "_engine" + importlib.machinery.EXTENSION_SUFFIXES[0]
    engine = copy.root / "arena" / "games" / "twirkle" / name
    assert engine.is_file() and not engine.stat().st_mode & 0o022
    script = "from arena.games.twirkle import fast; print(fast._engine.__file__, fast.available())"
    assert python_in_copy(copy.root, script).split() == [str(engine), "True"]


def test_bot_environment_names_the_referees_and_nothing_of_the_platform() -> None:
    env = spawn.bot_environment(Path(bwrap.BOT_DIR), pythonpath.MOUNT)
    assert env["PYTHONPATH"] == "/arena/python"
    assert not any(key.startswith("ARENA") for key in env)


# ----- byte-code: compiled once, for the bot's Python --------------------------------
def cache_tags(root: Path) -> set[str]:
    return {p.name.split(".")[1] for p in root.rglob("__pycache__/*.pyc")}


def test_byte_code_is_compiled_for_a_python_of_arenas_version(tmp_path: Path) -> None:
    copy = pythonpath.GamesCopy(tmp_path / "python")
    copy.compile_for("/bin/sh")  # not a Python: nothing to compile
    assert cache_tags(copy.root) == set()
    copy.compile_for(sys.executable)
    assert cache_tags(copy.root) == {sys.implementation.cache_tag}
    assert {p.stem for p in copy.root.rglob("*.pyc")} == {
        f"{Path(f).stem}.{sys.implementation.cache_tag}" for f in package_sources()
    }


def other_python() -> str | None:
    """A Python 3.11+ of another version on this machine (pyenv's or the system's), if any."""
    candidates = [*Path.home().glob(".pyenv/versions/3.*/bin/python3.*")]
    candidates += Path("/usr/bin").glob("python3.*")
    for path in sorted(candidates):
        version = path.name.removeprefix("python3.")
        if version.isdigit() and int(version) >= 11 and int(version) != sys.version_info[1]:
            return str(path)
    return None


@pytest.mark.skipif(other_python() is None, reason="no Python of another version here")
def test_only_a_trusted_python_of_another_version_compiles_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = os.path.realpath(other_python() or "")
    if os.stat(other).st_uid != 0:
        pytest.skip(f"{other} is not root's: never trusted")
    monkeypatch.setattr(bwrap, "SYSTEM_DIRS", ())  # as if it lay in someone's home
    copy = pythonpath.GamesCopy(tmp_path / "python")
    copy.compile_for(other)
    assert cache_tags(copy.root) == set()  # arena does not run it: the bot compiles in memory
    monkeypatch.setattr(bwrap, "SYSTEM_DIRS", (str(Path(other).parents[1]),))  # a system one
    copy = pythonpath.GamesCopy(tmp_path / "again")
    copy.compile_for(other)
    tag = Path(other).name.replace("python", "cpython-").replace(".", "")
    assert cache_tags(copy.root) == {tag}


def test_the_copy_goes_when_its_process_ends(tmp_path: Path) -> None:
    script = (
        "import sys; from pathlib import Path; from arena.sandbox import launcher;"
        "from arena.sandbox.limits import Limits; from arena.sandbox.start import launch;"
        "box = launch(['/bin/true'], Path(sys.argv[1]), Limits());"
        "box.process.wait(); print(launcher.games_copy().root, flush=True)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(TEST_BOTS / "polite")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ARENA_SANDBOX": "none"},
    )
    assert done.returncode == 0, done.stderr
    root = Path(done.stdout.strip())
    assert root.name.startswith("python-") and not root.exists()


# ----- without orjson -----------------------------------------------------------------
PLAY_EVERY_GAME = """
import json, random, sys
if sys.argv[1] == "without":
    sys.modules["orjson"] = None  # as in a bot's Python: import orjson fails
from arena.games import all_games
from arena.games.base import orjson
runs = []
for game_class in all_games():
    game, rng = game_class.new(game_class.spec.min_players, 5), random.Random(5)
    while not game.is_over():
        game.apply_joint({s: rng.choice(game.legal(s)) for s in game.to_move()})
    runs.append([game.history, game.chance.log, game.outcome().scores])
print(json.dumps({"json": orjson.__name__, "runs": runs}))
"""


def test_the_referees_import_and_play_the_same_without_orjson() -> None:
    found = {}
    for mode in ("with", "without"):
        done = subprocess.run(
            [sys.executable, "-c", PLAY_EVERY_GAME, mode],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        found[mode] = json.loads(done.stdout)
    assert (found["with"]["json"], found["without"]["json"]) == ("orjson", "json")
    assert found["with"]["runs"] == found["without"]["runs"]
