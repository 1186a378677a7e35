"""A bot's build step runs in the bot's sandbox on a scratch copy (issue 11, item 2).

The hostile build bots in tests/bots/build_* say in `[tool.build_expect]` what
preparing them must give: "ok" or the start of the one-line error. Each is
prepared from a copy in a temporary folder, so nothing is built in the tree.
"""

from __future__ import annotations

import os
import shutil
import stat
import tomllib
from pathlib import Path

import pytest

import arena.submissions.manifest as manifest_module
from arena.match.run import BotRef, run_match
from arena.sandbox import build
from arena.status import MatchStatus, SeatStatus
from arena.store import Store, default_url
from arena.submissions import botfiles
from arena.submissions.manifest import BotFolderError, load_manifest, prepare
from tests.held_uids import HeldUids
from tests.helpers import TEST_BOTS, sandboxed
from tests.test_match import descendants, spec
from tests.test_submission import arena as arena_cli
from tests.test_submission import assert_error, stored

needs_bwrap = pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here")
BUILD_BOTS = sorted(
    p.name
    for p in TEST_BOTS.iterdir()
    if (p / "bot.toml").is_file()
    and "build_expect" in tomllib.loads((p / "bot.toml").read_text()).get("tool", {})
)


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short build time limit and a small output budget, so that the limits are reached."""
    monkeypatch.setattr(manifest_module, "BUILD_TIMEOUT_S", 2)
    monkeypatch.setattr(build, "OUTPUT_BUDGET_BYTES", 32 * 2**20)


def copy_of(name: str, tmp_path: Path) -> Path:
    folder = tmp_path / "bots" / name
    shutil.copytree(TEST_BOTS / name, folder)
    return folder


def files_of(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@needs_bwrap
@pytest.mark.parametrize("name", BUILD_BOTS)
def test_a_hostile_build_gives_its_expected_result(
    name: str,
    tmp_path: Path,
    quick: None,
    used_uids: HeldUids,
    host_listener: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_SECRET", "the coordinator's key")  # must not reach the build
    folder = copy_of(name, tmp_path)
    expected = str(
        tomllib.loads((folder / "bot.toml").read_text())["tool"]["build_expect"]["result"]
    )
    before, files = descendants(), files_of(folder)
    if expected == "ok":
        argv = prepare(load_manifest(folder))
        assert Path(argv[0]).is_file()
    else:
        with pytest.raises(BotFolderError) as failure:
            prepare(load_manifest(folder))
        message = str(failure.value)
        assert message.startswith(f"{name}: {expected}") and "\n" not in message
        assert files_of(folder) == files  # a failed build adds nothing to the folder
    # The build's whole process tree is gone, whatever it started.
    assert descendants() - before == set()
    assert used_uids.leftovers() == []
    # Nothing written beside the folder, but for arena's own build stamp after a build.
    beside = set(os.listdir(tmp_path / "bots")) - {manifest_module.build_stamp(folder).name}
    assert beside == {name}


@needs_bwrap
def test_what_a_build_leaves_comes_back_without_links_special_files_or_setuid(
    tmp_path: Path, host_listener: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_SECRET", "the coordinator's key")
    folder = copy_of("build_escape", tmp_path)
    argv = prepare(load_manifest(folder))
    assert not (folder / "shadow-link").exists() and not (folder / "shadow-link").is_symlink()
    assert not (folder / "fifo").exists()
    assert not (folder / "sub" / "etc-link").is_symlink()
    assert stat.S_IMODE((folder / "setuid").stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "built").stat().st_mode) == 0o755
    assert not Path("/etc/arena-build-escape").exists()
    assert not Path("/usr/arena-build-escape").exists()
    # The bot it built says whether any attempt worked: it plays a normal match only if none did.
    escapee = BotRef("build_escape", str(folder), tuple(argv))
    result = run_match(spec(escapee, escapee))
    assert result.status is MatchStatus.NORMAL, result.seats[0].detail
    assert [s.status for s in result.seats] == [SeatStatus.OK] * 2


@needs_bwrap
def test_a_build_does_not_replace_the_bots_own_files(tmp_path: Path) -> None:
    folder = tmp_path / "bots" / "overwriter"
    shutil.copytree(TEST_BOTS / "build_daemon", folder)
    toml = (folder / "bot.toml").read_text()
    (folder / "bot.toml").write_text(
        toml.replace('build = ["sh", "-c", "', 'build = ["sh", "-c", "echo evil > bot.py; ')
    )
    prepare(load_manifest(folder))
    assert (folder / "bot.py").read_text() == (TEST_BOTS / "build_daemon" / "bot.py").read_text()


@needs_bwrap
def test_the_bundled_c_bot_builds_in_the_sandbox(tmp_path: Path) -> None:
    folder = tmp_path / "first-legal"
    shutil.copytree(manifest_module.BUNDLED_BOTS / "first-legal", folder)
    (folder / "first-legal").unlink(missing_ok=True)
    argv = prepare(load_manifest(folder))
    assert argv == [str(folder / "first-legal")]
    assert stat.S_IMODE((folder / "first-legal").stat().st_mode) == 0o755
    assert (folder / "first-legal").stat().st_uid == os.geteuid()


def at_the_limits(folder: Path, entries: int, depth: int) -> Path:
    """A first-legal bot with a build that fills the folder to `entries` files and folders,
    one chain of them `depth` deep (issue 30 item 7: what the build adds is counted)."""
    folder.mkdir(parents=True)
    shutil.copy(TEST_BOTS / "build_huge" / "bot.py", folder / "bot.py")  # has a #! line
    flat = entries - 2 - depth - 1  # bot.toml, bot.py, the chain, the built program
    script = (
        f"import os, shutil; os.makedirs('/'.join(['d'] * {depth}));"
        f" [os.mkdir(f'w{{i}}') for i in range({flat})];"
        " shutil.copy('bot.py', 'built'); os.chmod('built', 0o755)"
    )
    toml = f'name = "atlimits"\ncommand = ["./built"]\nbuild = ["python3", "-c", "{script}"]\n'
    toml += 'games = ["take-that"]\n'
    (folder / "bot.toml").write_text(toml)
    return folder


@needs_bwrap
def test_a_build_at_the_limits_registers_and_plays_a_tournament(tmp_path: Path) -> None:
    folder = at_the_limits(tmp_path / "atlimits", botfiles.LIMITS.entries, botfiles.LIMITS.depth)
    home = tmp_path / "home"
    submitted = arena_cli(home, "bot", "submit", str(folder))
    assert submitted.exit_code == 0, submitted.output
    stored_folder = next(p for p in (home / "bots").iterdir() if p.is_dir())
    assert botfiles.count_entries(stored_folder) == botfiles.LIMITS.entries
    bots = "atlimits,random"
    ran = arena_cli(
        home, "tournament", "run", "--game", "take-that", "--bots", bots, "--deals", "1"
    )
    assert ran.exit_code == 0, ran.output
    store = Store(default_url(home))
    try:
        tournament = store.tournaments()[-1].id
        assert tournament is not None
        assert store.void_matches(tournament) == 0
        assert set(store.seat_statuses(tournament)) == {"ok"}
    finally:
        store.close()


@needs_bwrap
def test_a_build_one_past_the_limit_is_a_failed_submission(tmp_path: Path) -> None:
    folder = at_the_limits(tmp_path / "atlimits", botfiles.LIMITS.entries + 1, 3)
    home = tmp_path / "home"
    result = arena_cli(home, "bot", "submit", str(folder))
    assert_error(result, "failed", "build failed: with its output, more than 2000 files")
    assert stored(home) == []
