"""Issue 30, items 4, 5 and 10: a home is its account's alone, and a version runs as checked.

Item 4: whatever the umask, no other account can read the database (its secret) or a
stored bot. Item 5: a stored version whose sources or build output changed after its
submission is never run (its matches are void). Item 10: another account's command,
read-only ones included, leaves the owner's home working, and a failed submission
leaves nothing. Another account is played by a forked child that drops to `nobody`.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from arena.cli import app
from arena.store import Store, default_url
from arena.submissions.botfiles import BotFolderError
from arena.submissions.manifest import BUNDLED_BOTS, verified_files
from tests.helpers import TEST_BOTS, sandboxed

NOBODY = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="acting as another account needs root")
needs_bwrap = pytest.mark.skipif(not sandboxed(), reason="bubblewrap is not available here")
runner = CliRunner()


@pytest.fixture
def reachable() -> Iterator[Path]:
    """A folder every account can reach (pytest's own tmp folders are 0700 to others):
    only the home's own modes may keep another account out."""
    folder = Path(tempfile.mkdtemp(prefix="arena-home-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def arena(home: Path, *args: str) -> Result:
    return runner.invoke(app, ["--home", str(home), *args])


def as_nobody(action: Callable[[], int]) -> int:
    """Run `action` in a forked child as uid `nobody`; its return value is the exit code."""
    pid = os.fork()
    if pid == 0:  # the child: never back into pytest
        code = 99
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            code = action()
        finally:
            os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def readable_by_nobody(paths: list[Path]) -> list[str]:
    """The paths that uid nobody can open for reading (or list), as a child's exit code."""
    found: list[str] = []
    for path in paths:

        def attempt(path: Path = path) -> int:
            try:
                if path.is_dir():
                    os.listdir(path)
                else:
                    with open(path, "rb") as handle:
                        handle.read(1)
            except OSError:
                return 0
            return 1

        if as_nobody(attempt):
            found.append(str(path))
    return found


def bot_copy(tmp_path: Path, source: Path, name: str) -> Path:
    """A copy of `source` named `name`, declaring take-that only: the games these tests play
    (its submission check then plays one game, not four)."""
    folder = tmp_path / name
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("first-legal", "__pycache__"))
    toml = folder / "bot.toml"
    lines = [line for line in toml.read_text().splitlines()[1:] if not line.startswith("games")]
    toml.write_text("\n".join([f'name = "{name}"', 'games = ["take-that"]', *lines]) + "\n")
    return folder


def submitted(home: Path, folder: Path) -> None:
    result = arena(home, "bot", "submit", str(folder))
    assert result.exit_code == 0, result.output


def play(home: Path, a: str, b: str) -> Result:
    return arena(home, "match", a, b, "-g", "take-that", "--max-matches", "2", "-q")


def statuses(home: Path) -> list[str]:
    store = Store(default_url(home))
    try:
        last = max(t.id or 0 for t in store.tournaments())
        return [m.status for m in store.matches(last)]
    finally:
        store.close()


def void_reasons(home: Path) -> list[str]:
    store = Store(default_url(home))
    try:
        last = max(t.id or 0 for t in store.tournaments())
        return [m.error for m in store.void_match_rows(last)]
    finally:
        store.close()


# ----- item 4: nothing in a home is readable by another account ------------------------
@needs_root
@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_a_home_is_private_to_its_account_whatever_the_umask(reachable: Path, umask: int) -> None:
    tmp_path = reachable
    home = tmp_path / "home"
    old = os.umask(umask)
    try:
        submitted(home, bot_copy(tmp_path, TEST_BOTS / "polite", "privy"))
        assert play(home, "privy", "random").exit_code == 0
        store = Store(default_url(home))  # open: its -wal and -shm are there
        try:
            everything = [home, *home.rglob("*")]
            names = {p.name for p in everything}
            assert {"arena.db", "arena.db-wal", "arena.db-shm"} <= names
            assert readable_by_nobody(everything) == []
            for path in everything:
                mode = stat.S_IMODE(path.lstat().st_mode)
                assert path.lstat().st_uid == os.geteuid(), path
                if path == home or path.parent in (home, home / "bots"):
                    assert mode & 0o077 == 0, f"{path} is {mode:o}"
        finally:
            store.close()
    finally:
        os.umask(old)


@needs_root
def test_an_older_home_readable_by_others_is_made_private(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    Store(default_url(home)).close()
    (home / "arena.db").chmod(0o644)
    home.chmod(0o755)
    assert arena(home, "leaderboard", "take-that").exit_code == 0
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "arena.db").stat().st_mode) == 0o600


# ----- item 10: another account cannot lock the owner out ------------------------------
@needs_root
def test_another_accounts_read_only_command_leaves_the_home_working(reachable: Path) -> None:
    tmp_path = reachable
    home = tmp_path / "home"
    submitted(home, bot_copy(tmp_path, TEST_BOTS / "polite", "owned"))
    assert arena(home, "leaderboard", "take-that").exit_code == 0  # imports done here
    home.chmod(0o777)  # the shared home: group- and world-writable
    (home / "arena.db").chmod(0o666)
    before = sorted((p.name, p.lstat().st_uid) for p in home.iterdir())

    def leaderboard() -> int:
        result = arena(home, "leaderboard", "take-that")
        lines = result.stderr.splitlines()
        one_line = len(lines) == 1 and lines[0].startswith("error: ")
        return 3 if result.exit_code == 2 and one_line and "belongs to" in lines[0] else 4

    assert as_nobody(leaderboard) == 3
    assert sorted((p.name, p.lstat().st_uid) for p in home.iterdir()) == before
    refused = arena(home, "leaderboard", "take-that")  # the owner too, until it is private
    assert refused.exit_code == 2 and "writable by other accounts" in refused.stderr
    home.chmod(0o700)
    (home / "arena.db").chmod(0o600)
    assert play(home, "owned", "random").exit_code == 0
    assert statuses(home) == ["normal", "normal"]


@pytest.mark.parametrize("bot", ["build_fails", "crash_at_start"])
def test_a_failed_submission_leaves_no_folder_and_no_rows(tmp_path: Path, bot: str) -> None:
    home = tmp_path / "home"
    killed = home / "bots" / ".0123456789ab-999999999-xyz"  # a killed submission's partial
    killed.mkdir(parents=True)
    result = arena(home, "bot", "submit", str(TEST_BOTS / bot))
    assert result.exit_code == 2, result.output
    assert list((home / "bots").iterdir()) == []
    store = Store(default_url(home))
    try:
        assert store.bot_names() == {} and store.versions() == []
    finally:
        store.close()


# ----- item 5: a version runs exactly what was checked --------------------------------
def stored_folder(home: Path, name: str) -> Path:
    store = Store(default_url(home))
    try:
        version = store.latest_version(name)
        assert version is not None
        return Path(version.folder)
    finally:
        store.close()


@needs_bwrap
def test_a_stored_version_changed_after_its_check_is_never_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    submitted(home, bot_copy(tmp_path, TEST_BOTS / "polite", "tamper-src"))
    submitted(home, bot_copy(tmp_path, BUNDLED_BOTS / "first-legal", "tamper-out"))
    assert play(home, "tamper-src", "tamper-out").exit_code == 0
    assert statuses(home) == ["normal", "normal"]
    # Another account's code, planted in the checked bot's source and in the built program.
    source = stored_folder(home, "tamper-src") / "bot.py"
    source.write_text("import sys\nsys.exit(7)\n" + source.read_text())
    program = stored_folder(home, "tamper-out") / "first-legal"
    program.write_bytes(b"#!/bin/sh\nexit 7\n")
    for a, b, changed in (
        ("tamper-src", "random", "its files no longer hash"),
        ("random", "tamper-out", "what its build made no longer matches"),
    ):
        assert play(home, a, b).exit_code == 0
        assert statuses(home) == ["platform-error", "platform-error"]
        reasons = void_reasons(home)
        assert all("was changed after its check" in r and changed in r for r in reasons), reasons
    assert program.read_bytes() == b"#!/bin/sh\nexit 7\n"  # never rebuilt from changed files


def test_verified_files_refuses_a_changed_source_or_build_output(tmp_path: Path) -> None:
    home = tmp_path / "home"
    submitted(home, bot_copy(tmp_path, BUNDLED_BOTS / "first-legal", "sealed"))
    folder = stored_folder(home, "sealed")
    sha = folder.name
    files = verified_files(folder, sha)
    assert ("first-legal",) in files and ("first-legal.c",) in files
    (folder / "first-legal").write_bytes(b"other")
    with pytest.raises(BotFolderError, match="what its build made"):
        verified_files(folder, sha)
    (folder / "first-legal").unlink()
    with pytest.raises(BotFolderError, match="what its build made"):
        verified_files(folder, sha)
    (folder / "extra.py").write_text("")
    with pytest.raises(BotFolderError, match="no longer hash"):
        verified_files(folder, sha)
