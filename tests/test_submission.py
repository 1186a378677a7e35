"""Issue 11, items 1 and 7 and the check: what a submission may contain, who owns a name.

A submission is read once through descriptors (arena.submissions.botfiles): a link out of the
folder, a link to a folder, a special file or a folder past the limits is refused
with one line naming the path, and nothing is left in the home. Names follow
arena.submissions.names: a safe pattern, bundled names reserved, never a path, one owner.
A submission's check (arena.submissions.check, as `arena bot check` with fewer matches) plays
ordinary matches to the bot.
"""

from __future__ import annotations

import doctest
import json
import os
import random
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from arena.cli import app
from arena.match.run import MatchSpec
from arena.sandbox.bwrap import Staging
from arena.store import NotOwnerError, Store, default_url
from arena.submissions import botfiles, check, names
from arena.submissions import submit as registry
from arena.submissions.botfiles import BotFolderError, Limits
from arena.submissions.manifest import BUNDLED_BOTS, find_bot, load_manifest
from arena.tournament import runner as truns
from arena.tournament.config import TournamentConfig
from arena.tournament.recording import match_spec
from arena.tournament.settings import TournamentSettings
from tests.helpers import TEST_BOTS, bot_ref_for, run_and_capture

LINK_OUT = TEST_BOTS / "link_out"
POLITE = TEST_BOTS / "polite"
runner = CliRunner()


# ----- helpers ------------------------------------------------------------------
def arena(home: Path, *args: str) -> Result:
    """Run one arena command with `home` as the arena home."""
    return runner.invoke(app, ["--home", str(home), *args])


def assert_error(result: Result, *needles: str) -> list[str]:
    """Exit code 2, an `error:` line on stderr naming every needle, no traceback.

    Returns the lines below it (what explains the error: a bot's stderr, a build's output).
    """
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    first, *rest = result.stderr.splitlines()
    assert first.startswith("error: "), result.stderr
    for needle in needles:
        assert needle in first, (needle, result.stderr)
    return rest


def assert_one_line_error(result: Result, *needles: str) -> None:
    """Exit code 2, one `error:` line on stderr naming every needle, no traceback."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


def stored(home: Path) -> list[Path]:
    """Everything under the home's stored bots (empty when nothing was stored)."""
    return sorted((home / "bots").rglob("*")) if (home / "bots").exists() else []


def polite_folder(folder: Path, name: str = "mybot") -> Path:
    """A submittable bot: the polite test bot's code under `name`, declaring take-that only
    (each submission's check plays one game; tests/test_check.py's play every game)."""
    folder.mkdir(parents=True)
    shutil.copy(POLITE / "bot.py", folder / "bot.py")
    toml = f'name = "{name}"\ncommand = ["python3", "bot.py"]\ngames = ["take-that"]\n'
    (folder / "bot.toml").write_text(toml)
    return folder


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty arena home."""
    return tmp_path / "home"


@pytest.fixture
def store(home: Path) -> Iterator[Store]:
    """The home's database."""
    opened = Store(default_url(home))
    yield opened
    opened.close()


# ----- item 1: links, special files, limits ----------------------------------------
def test_the_committed_folder_with_links_to_secrets_is_refused(home: Path) -> None:
    result = arena(home, "bot", "submit", str(LINK_OUT))
    assert_one_line_error(result, str(LINK_OUT / "environ"), "out of the folder")
    assert stored(home) == []


@pytest.mark.parametrize(
    ("link", "target", "reason"),
    [
        ("shadow", "/etc/shadow", "out of the folder"),
        ("environ", "/proc/self/environ", "out of the folder"),
        ("db", "DATABASE", "out of the folder"),
        ("up", "../outside.txt", "out of the folder"),
        ("sneaky", "lib/../../outside.txt", "out of the folder"),
        ("through_dot", "zself/../outside.txt", "out of the folder"),  # zself -> . then ..
        ("lib_link", "lib", "a link to a folder"),
        ("dangling", "missing.py", "to nothing"),
        ("loop", "loop", "a loop of links"),
    ],
)
def test_links_that_leave_the_folder_or_lead_to_no_file_are_refused(
    tmp_path: Path, home: Path, store: Store, link: str, target: str, reason: str
) -> None:
    (tmp_path / "outside.txt").write_text("secret\n")
    folder = polite_folder(tmp_path / "bot")
    (folder / "lib").mkdir()
    (folder / "lib" / "x.py").write_text("x = 1\n")
    if link == "through_dot":
        (folder / "zself").symlink_to(".")
    target = str(home / "arena.db") if target == "DATABASE" else target
    (folder / link).symlink_to(target)
    with pytest.raises(BotFolderError, match=reason) as raised:
        registry.submit(store, home, str(folder))
    assert str(folder / link) in str(raised.value)
    assert stored(home) == []
    assert_one_line_error(arena(home, "bot", "submit", str(folder)), str(folder / link))


def test_links_to_files_inside_are_stored_as_copies(
    tmp_path: Path, home: Path, store: Store
) -> None:
    folder = polite_folder(tmp_path / "bot")
    (folder / "bot.py").rename(folder / "real.py")
    (folder / "bot.py").symlink_to("real.py")
    (folder / "lib").mkdir()
    (folder / "lib" / "again.py").symlink_to("../bot.py")  # a link to a link, inside
    version, created = registry.submit(store, home, str(folder))
    assert created
    copy = Path(version.folder)
    code = (folder / "real.py").read_bytes()
    for name in ("bot.py", "real.py", "lib/again.py"):
        assert not (copy / name).is_symlink() and (copy / name).read_bytes() == code
    assert registry.content_hash(load_manifest(copy)) == version.sha256


def stored_bytes(root: Path) -> int:
    """The bytes of the files under `root` (a link costs nothing: it is not followed)."""
    return sum(p.lstat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def test_links_to_a_big_file_are_refused_past_the_size_limit(tmp_path: Path, home: Path) -> None:
    """Issue 30 item 3: 30 links to a 16 MiB file were stored and staged as 496 MiB."""
    folder = polite_folder(tmp_path / "bot")
    with open(folder / "model.bin", "wb") as sparse:
        sparse.truncate(botfiles.LIMITS.file_bytes)  # as big as a file may be
    for i in range(30):
        (folder / f"copy{i:02}.bin").symlink_to("model.bin")
    result = arena(home, "bot", "submit", str(folder))
    assert_one_line_error(result, "copy02.bin", "more than 64 MiB in all", "a link counts")
    assert stored(home) == []


def test_what_links_store_and_stage_stays_within_the_limits(tmp_path: Path) -> None:
    folder = polite_folder(tmp_path / "bot")
    (folder / "model.bin").write_bytes(b"m" * 900)
    for i in range(2):
        (folder / f"copy{i}.bin").symlink_to("model.bin")
    small = Limits(file_bytes=1000, total_bytes=2800 + (folder / "bot.py").stat().st_size)
    botfiles.write_folder(botfiles.read_folder(folder, small), tmp_path / "stored")
    assert stored_bytes(tmp_path / "stored") <= small.total_bytes
    staging = Staging(tmp_path / "stage")
    staged = staging.acquire(tmp_path / "stored")
    assert stored_bytes(staged) == stored_bytes(tmp_path / "stored")
    staging.release(staged)
    (folder / "copy2.bin").symlink_to("copy1.bin")  # a link to a link costs its file too
    with pytest.raises(BotFolderError, match=r"copy2\.bin: more than 0 MiB in all"):
        botfiles.read_folder(folder, small)


@pytest.mark.parametrize("kind", ["fifo", "socket", "device"])
def test_special_files_are_refused(tmp_path: Path, home: Path, kind: str) -> None:
    folder = polite_folder(tmp_path / "bot")
    special = folder / "special"
    if kind == "fifo":
        os.mkfifo(special)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(special))
        server.close()
    else:
        try:
            os.mknod(special, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # like /dev/null
        except PermissionError:
            pytest.skip("making a device file needs root")
    result = arena(home, "bot", "submit", str(folder))
    assert_one_line_error(result, str(special), "a device, FIFO or socket")
    assert stored(home) == []


def test_a_file_swapped_for_a_link_while_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race: bot.py is a file when listed and a link to /etc/passwd when opened."""
    folder = polite_folder(tmp_path / "bot")
    opened = botfiles._open_regular

    def swap_then_open(dir_fd: int, name: str) -> tuple[int, os.stat_result]:
        if name == "bot.py":
            (folder / "bot.py").unlink()
            (folder / "bot.py").symlink_to("/etc/passwd")
        return opened(dir_fd, name)

    monkeypatch.setattr(botfiles, "_open_regular", swap_then_open)
    with pytest.raises(BotFolderError, match="changed while it was read"):
        botfiles.read_folder(folder)


def test_what_is_stored_is_what_was_read(tmp_path: Path) -> None:
    """Hash and copy come from one reading: a later change of the folder reaches neither."""
    folder = polite_folder(tmp_path / "bot")
    read = registry.snapshot(folder)
    code = (folder / "bot.py").read_bytes()
    (folder / "bot.py").unlink()
    (folder / "bot.py").symlink_to("/etc/passwd")
    botfiles.write_folder(read.files, tmp_path / "copy")
    assert (tmp_path / "copy" / "bot.py").read_bytes() == code
    assert not (tmp_path / "copy" / "bot.py").is_symlink()
    assert registry.snapshot(tmp_path / "copy").sha256 == read.sha256


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda f: (f / "big.bin").write_bytes(b"x" * 1001), "larger than"),
        (lambda f: [(f / f"{i}.txt").write_bytes(b"x" * 600) for i in range(4)], "in all"),
        (lambda f: [(f / f"{i}.txt").touch() for i in range(10)], "more than 8 files"),
        (lambda f: (f / "a" / "b" / "c").mkdir(parents=True), "nested deeper than 2"),
    ],
)
def test_limits_are_checked_while_reading(tmp_path: Path, make: object, reason: str) -> None:
    folder = polite_folder(tmp_path / "bot")
    small = Limits(
        file_bytes=1000, total_bytes=2000 + (folder / "bot.py").stat().st_size, entries=8, depth=2
    )
    botfiles.read_folder(folder, small)  # the bot itself fits
    make(folder)  # type: ignore[operator]
    with pytest.raises(BotFolderError, match=reason):
        botfiles.read_folder(folder, small)


def test_the_real_limits_through_the_cli(tmp_path: Path, home: Path) -> None:
    folder = polite_folder(tmp_path / "bot")
    with open(folder / "model.bin", "wb") as sparse:
        sparse.truncate(16 * 2**20 + 1)
    assert_one_line_error(arena(home, "bot", "submit", str(folder)), "model.bin", "16 MiB")
    (folder / "model.bin").unlink()
    (folder / "many").mkdir()
    for i in range(botfiles.LIMITS.entries):
        (folder / "many" / str(i)).touch()
    assert_one_line_error(arena(home, "bot", "submit", str(folder)), "more than 2000")
    assert stored(home) == []


def test_a_failed_check_leaves_nothing_in_the_home(tmp_path: Path, home: Path) -> None:
    folder = polite_folder(tmp_path / "bot")
    (folder / "bot.py").write_text("import sys\nprint('no luck', file=sys.stderr)\nsys.exit(3)\n")
    below = assert_error(arena(home, "bot", "submit", str(folder)), "failed its check", "crash")
    assert "no luck" in below  # the bot's stderr, below the one-line error
    assert stored(home) == []


def test_play_and_tournament_refuse_a_folder_with_a_link_out(home: Path) -> None:
    """Folders that run in place are checked as a submission is, before a bot starts."""
    played = arena(home, "play", "take-that", "random", str(LINK_OUT))
    assert_one_line_error(played, str(LINK_OUT / "environ"))
    assert "seat" not in played.stdout
    bots = f"{LINK_OUT},random"
    ran = arena(home, "tournament", "run", "--game", "take-that", "--bots", bots, "--deals", "1")
    assert_one_line_error(ran, str(LINK_OUT / "environ"))
    assert stored(home) == []


def test_a_relative_command_must_stay_in_the_folder(tmp_path: Path, home: Path) -> None:
    other = polite_folder(tmp_path / "other")
    (other / "run").write_text("#!/bin/sh\nexec python3 bot.py\n")
    (other / "run").chmod(0o755)
    folder = polite_folder(tmp_path / "bot")
    (folder / "bot.toml").write_text('name = "mybot"\ncommand = ["../other/run"]\n')
    result = arena(home, "bot", "submit", str(folder))
    assert_one_line_error(result, "command ../other/run is outside the bot folder")
    assert stored(home) == []


# ----- item 1: the manifest is untrusted bytes -------------------------------------
@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'name = "x"\ncommand = ["python3"]\n# ' + b"y" * 70_000, "larger than"),
        (b"\x00\x01\x02\xff\xfe", "not UTF-8"),
        (b'name = "caf\xe9"\n', "not UTF-8"),
        (b"name = " + b"[" * 2000 + b"]" * 2000, "nested too deeply"),
        (b"x = {" * 3000, "TOML"),
        (b'name = 3\ncommand = ["python3"]\n', "name must be"),
        (b'name = "x"\ncommand = "python3 bot.py"\n', "command must be"),
        (b'name = "x"\ncommand = []\n', "command must be"),
        (b'name = "x"\ncommand = ["python3"]\ngames = [1]\n', "games must be"),
        (b'name = "x"\ncommand = ["python3"]\nbuild = "make"\n', "build must be"),
        (b'name = "x"\ncommand = ["python3\\u0000"]\n', "NUL"),
        (b'name = "a\\u001b[2Jb"\ncommand = ["python3"]\n', "is not allowed"),
        (b'name = "Mark[/]up"\ncommand = ["python3"]\n', "is not allowed"),
        (b'command = ["python3"]\n', "name must be"),
        (b'name = "x"\ncommand = ["python3"]\ngame = ["leylo"]\n', "unknown key 'game'"),
        (b'name = "x"\ncommand = ["python3"]\n[expect]\nstatus = "ok"\n', "unknown key 'expect'"),
        (b'name = "x"\ncommand = ["python3"]\ntool = 3\n', "tool must be a table"),
        (b'name = "x"\ncommand = ["python3"]\ndescription = 3\n', "description must be"),
    ],
)
def test_a_bad_manifest_is_one_line(
    tmp_path: Path, home: Path, content: bytes, reason: str
) -> None:
    folder = polite_folder(tmp_path / "bot")
    (folder / "bot.toml").write_bytes(content)
    with pytest.raises(BotFolderError, match=reason):
        load_manifest(folder)
    assert_one_line_error(arena(home, "bot", "submit", str(folder)), reason)
    assert_one_line_error(arena(home, "play", "take-that", "random", str(folder)), reason)


@pytest.mark.parametrize("kind", ["link", "fifo", "folder"])
def test_the_manifest_is_never_read_through_a_link(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    if kind == "link":
        (folder / "bot.toml").symlink_to(POLITE / "bot.toml")
    elif kind == "fifo":
        os.mkfifo(folder / "bot.toml")  # must not block
    else:
        (folder / "bot.toml").mkdir()
    with pytest.raises(BotFolderError, match=r"bot\.toml: not a regular file"):
        load_manifest(folder)


def test_a_file_name_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    folder = polite_folder(tmp_path / "bot")
    (folder / "\udcff.py").touch()  # the file name b"\xff.py"
    with pytest.raises(BotFolderError, match="not UTF-8"):
        botfiles.read_folder(folder)


@pytest.mark.parametrize("name", ["evil\x1b[2J\nline.py", "tab\there", "del\x7f", "c1\x9b"])
def test_a_file_name_with_a_control_character_is_refused(
    tmp_path: Path, home: Path, name: str
) -> None:
    """Issue 30 item 7: such a name is refused in a folder as in what its build adds."""
    folder = polite_folder(tmp_path / "bot")
    (folder / name).touch()
    result = arena(home, "bot", "submit", str(folder))
    assert_one_line_error(result, "a file name with a control character", repr(name))
    assert stored(home) == []


# ----- item 7: names --------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["My-Bot", "a/b", "./x", "~x", ".hidden", "-x", "_x", "x" * 41, "a b", "é"]
)
def test_names_outside_the_pattern_are_refused(
    tmp_path: Path, home: Path, store: Store, name: str
) -> None:
    folder = polite_folder(tmp_path / "bot")
    assert names.name_problem(name) is not None
    with pytest.raises(BotFolderError, match="is not allowed"):
        registry.submit(store, home, str(folder), name)
    assert_one_line_error(arena(home, "bot", "submit", str(folder), "--name", name))
    assert stored(home) == []


def test_every_bundled_and_test_bot_name_fits_the_pattern() -> None:
    for folder in [*BUNDLED_BOTS.iterdir(), *TEST_BOTS.iterdir()]:
        if (folder / "bot.toml").is_file():
            assert names.name_problem(load_manifest(folder).name) is None, folder


@pytest.mark.parametrize("name", ["random", "first-legal", "take-that-heuristic"])
def test_bundled_names_are_reserved(tmp_path: Path, home: Path, store: Store, name: str) -> None:
    folder = polite_folder(tmp_path / "bot", name="other")
    with pytest.raises(BotFolderError, match="reserved for the bundled bot"):
        registry.submit(store, home, str(folder), name)
    result = arena(home, "bot", "submit", str(folder), "--name", name)
    assert_one_line_error(result, f"{name!r} is reserved")
    squatter = polite_folder(tmp_path / name, name=name)  # its manifest claims the name
    assert_one_line_error(arena(home, "bot", "submit", str(squatter)), "reserved")
    assert store.bot_owner(name) is None and stored(home) == []


def test_a_bundled_bot_is_registered_from_its_own_folder_owned_by_arena(
    home: Path, store: Store
) -> None:
    version, created = registry.submit(store, home, "random")
    assert created and store.bot_owner("random") == names.BUNDLED_OWNER
    again, created = registry.submit(store, home, str(BUNDLED_BOTS / "random"))
    assert (again.id, created) == (version.id, False)


def test_only_a_bundled_bots_own_folder_skips_the_check(
    tmp_path: Path, home: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """arena's own bots are played by its suite; a copy of one, renamed, is a submission."""
    played: list[str] = []
    monkeypatch.setattr(
        check, "submission_check", lambda manifest, games=None: played.append(manifest.name)
    )
    registry.submit(store, home, "ismcts")
    assert played == []
    copy = tmp_path / "copy"
    shutil.copytree(BUNDLED_BOTS / "ismcts", copy)
    registry.submit(store, home, str(copy), name="my-search")
    assert played == ["my-search"]


def test_a_name_is_never_a_folder(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder called `random` in the working directory never stands in for the bundled bot."""
    monkeypatch.chdir(tmp_path)
    impostor = polite_folder(tmp_path / "random", name="impostor")
    (impostor / "bot.py").write_text("raise SystemExit('impostor ran')\n")
    assert find_bot("random").folder == (BUNDLED_BOTS / "random").resolve()
    assert find_bot("./random").folder == impostor.resolve()
    played = arena(home, "play", "take-that", "random", "random", "--json", "--seed", "3")
    assert played.exit_code == 0, played.output
    assert "impostor" not in played.stdout and '"crash"' not in played.stdout
    # A folder is written as a path; its bare name is refused with a hint.
    polite_folder(tmp_path / "mybot")
    result = arena(home, "bot", "submit", "mybot")
    assert_one_line_error(result, "no bundled bot 'mybot'", "./mybot")
    submitted = arena(home, "bot", "submit", "./mybot")
    assert submitted.exit_code == 0, submitted.output
    assert "registered mybot version 1" in submitted.stdout


# ----- item 7: owners -------------------------------------------------------------
def as_user(monkeypatch: pytest.MonkeyPatch, user: str) -> None:
    """Submit as OS user `user` from now on."""
    monkeypatch.setattr(names, "current_user", lambda: user)


def test_only_the_owner_adds_versions(
    tmp_path: Path, home: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = polite_folder(tmp_path / "bot")
    as_user(monkeypatch, "alice")
    registry.submit(store, home, str(folder))
    assert store.bot_owner("mybot") == "alice"
    as_user(monkeypatch, "mallory")
    (folder / "bot.py").write_text((folder / "bot.py").read_text() + "\n# mallory's\n")
    with pytest.raises(BotFolderError, match="belongs to 'alice'"):
        registry.submit(store, home, str(folder))
    assert_one_line_error(arena(home, "bot", "submit", str(folder)), "belongs to 'alice'")
    # Not even a no-op answer for someone else's code under alice's name.
    as_user(monkeypatch, "alice")
    version, created = registry.submit(store, home, str(folder))
    assert created and version.number == 2
    as_user(monkeypatch, "mallory")
    assert_one_line_error(arena(home, "bot", "submit", str(folder)), "belongs to 'alice'")
    # mallory may register the same code under a name of her own.
    mine = arena(home, "bot", "submit", str(folder), "--name", "mallorys-bot")
    assert mine.exit_code == 0, mine.output
    assert store.bot_owner("mallorys-bot") == "mallory"


def test_the_store_checks_the_owner_in_the_same_transaction(store: Store) -> None:
    store.add_bot_version("alpha", "a" * 64, "/x", ["python3"], ["*"], owner="alice")
    with pytest.raises(NotOwnerError, match="belongs to 'alice'"):
        store.add_bot_version("alpha", "b" * 64, "/y", ["python3"], ["*"], owner="mallory")
    assert [v.sha256 for v in store.versions(name="alpha")] == ["a" * 64]
    assert store.bot_owner("nobody") is None


def test_an_old_database_gets_owners(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database made before owners: bundled bots are arena's, the others its user's."""
    path = tmp_path / "arena.db"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE bot (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL UNIQUE,"
            " created_at DATETIME NOT NULL)"
        )
        db.executemany(
            "INSERT INTO bot (name, created_at) VALUES (?, '2025-01-01 00:00:00')",
            [("random",), ("mybot",)],
        )
    as_user(monkeypatch, "carol")
    store = Store(f"sqlite:///{path}")
    try:
        assert store.bot_owner("random") == names.BUNDLED_OWNER
        assert store.bot_owner("mybot") == "carol"
    finally:
        store.close()
    reopened = Store(f"sqlite:///{path}")  # a second open changes nothing
    assert reopened.bot_owner("mybot") == "carol"
    reopened.close()


# ----- the check of a submission ----------------------------------------------------
def test_a_bot_that_behaves_only_in_smoke_matches_cannot_be_submitted(home: Path) -> None:
    """tests/bots/flaky plays only when its match id starts with "smoke"."""
    result = arena(home, "bot", "submit", str(TEST_BOTS / "flaky"))
    below = assert_error(result, "flaky failed its check", "crash")
    assert "flaky: crashing on purpose" in below
    assert stored(home) == []


def start_of(spec: MatchSpec, seat: int) -> dict[str, object]:
    """The start message the bot at `seat` of a match receives."""
    _result, lines = run_and_capture(spec)
    starts = [json.loads(line) for _n, way, line in lines if way == "to-bot" and '"start"' in line]
    return next(s for s in starts if s["seat"] == seat)


def shape(value: object) -> object:
    """What a value looks like, not what it is: its type, and for text its length and alphabet."""
    if isinstance(value, str):
        return ("str", len(value), value.isalnum(), value == value.lower())
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    return type(value).__name__


def test_a_check_match_looks_like_a_tournament_match(home: Path, store: Store) -> None:
    bot = bot_ref_for("polite")
    other = registry.bot_ref(registry.submit(store, home, "random")[0], "random")
    smoke, seat = check.match_spec("take-that", 2, bot, other, random.Random(), None)

    config = TournamentConfig(game="take-that", bots=("random", str(POLITE)), rounds=1)
    tid = truns.create(store, home, config)
    tournament = store.tournament(tid)
    assert tournament is not None
    match = store.matches(tid)[0]
    refs = {v.id or 0: registry.bot_ref(v, "x") for v in store.versions(ids=match.lineup)}
    settings = TournamentSettings.from_json(tournament.settings)
    real = match_spec(tournament, settings, match, refs, store.secret())

    # the same protocol version on both sides (random speaks 2, polite 1): the same shape
    same = next(i for i, ref in enumerate(real.seats) if ref.protocol == smoke.seats[seat].protocol)
    smoke_start, real_start = start_of(smoke, seat), start_of(real, same)
    assert shape(smoke_start) == shape(real_start)
    assert smoke_start["decision_timeout_ms"] == real_start["decision_timeout_ms"]
    assert smoke.startup_timeout == real.startup_timeout and smoke.limits == real.limits
    assert "smoke" not in str(smoke_start) and "polite" not in str(smoke_start)
    assert smoke_start["seed"] not in (0, 1)
    again, _seat = check.match_spec("take-that", 2, bot, other, random.Random(), None)
    assert (again.seed, again.match_id) != (smoke.seed, smoke.match_id)


def test_names_doctests() -> None:
    assert doctest.testmod(names).failed == 0


def test_a_stored_copy_is_readable_whatever_the_umask(tmp_path: Path) -> None:
    """A sandboxed bot runs under its own uid: it must read its stored files."""
    folder = polite_folder(tmp_path / "bot")
    (folder / "lib").mkdir()
    (folder / "lib" / "run").write_text("#!/bin/sh\n")
    (folder / "lib" / "run").chmod(0o700)
    read = registry.snapshot(folder)
    old = os.umask(0o077)
    try:
        botfiles.write_folder(read.files, tmp_path / "copy")
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "copy").rglob("*")}
    assert modes == {"bot.py": 0o644, "bot.toml": 0o644, "lib": 0o755, "run": 0o755}


def test_the_same_bot_submitted_by_several_commands_at_once_is_one_version(
    tmp_path: Path,
) -> None:
    """Once an IntegrityError traceback, 3 of 3 tries: now every command succeeds."""
    env = {**os.environ, "ARENA_HOME": str(tmp_path / "home")}
    folder = str(polite_folder(tmp_path / "polite", "polite"))
    commands = [
        subprocess.Popen(
            [sys.executable, "-m", "arena", "bot", "submit", folder],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(4)
    ]
    outcomes = [(c.wait(timeout=120), c.communicate()[1].decode()) for c in commands]
    assert [code for code, _err in outcomes] == [0] * 4, outcomes
    assert all("Traceback" not in err for _code, err in outcomes)
    store = Store(f"sqlite:///{tmp_path / 'home' / 'arena.db'}")
    assert [v.number for v in store.versions(name="polite")] == [1]
