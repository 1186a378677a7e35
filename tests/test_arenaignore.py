"""A bot folder's .arenaignore (gitignore syntax) leaves files out of the bot (issue 31 item 5).

After a local `cargo build`, target/ (139 files, 12 MB) was hashed into the submission
and every rebuild made a new version. What .arenaignore names is not read, not counted
toward the limits, not hashed and not stored; bot.toml and .arenaignore itself always
are; .gitignore is not read. A bad ignore file is a one-line error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.submissions import botfiles
from arena.submissions.botfiles import BotFolderError
from arena.submissions.manifest import BUNDLED_BOTS, load_manifest, source_files
from arena.submissions.snapshot import snapshot

BOT_TOML = 'name = "ignoring"\ncommand = ["python3", "bot.py"]\n'


def make_bot(folder: Path, ignore: str | None = "target/\n*.log\n") -> Path:
    folder.mkdir()
    (folder / "bot.toml").write_text(BOT_TOML)
    (folder / "bot.py").write_text("print('hello')\n")
    if ignore is not None:
        (folder / ".arenaignore").write_text(ignore)
    return folder


def local_build(folder: Path, stamp: bytes) -> None:
    """What a local `cargo build` leaves: 139 files and more than the 64 MiB limit."""
    deps = folder / "target" / "release" / "deps"
    deps.mkdir(parents=True)
    for n in range(138):
        (deps / f"lib{n}.rlib").write_bytes(stamp * 100)
    (folder / "target" / "release" / "bot").write_bytes(stamp * (70 * 2**20 // len(stamp)))
    (folder / "build.log").write_bytes(stamp)


def test_what_arenaignore_names_is_not_part_of_the_bot(tmp_path: Path) -> None:
    clean = snapshot(make_bot(tmp_path / "clean"))
    built = make_bot(tmp_path / "built")
    local_build(built, b"first build ")
    first = snapshot(built)  # before the fix: refused (more than 64 MiB in all)
    assert first.sha256 == clean.sha256
    assert sorted(first.files) == [(".arenaignore",), ("bot.py",), ("bot.toml",)]
    shutil.rmtree(built / "target")
    local_build(built, b"a rebuild ")  # no change to the code: no new version
    assert snapshot(built).sha256 == clean.sha256


def test_a_changed_ignore_file_is_a_new_version(tmp_path: Path) -> None:
    folder = make_bot(tmp_path / "bot")
    before = snapshot(folder).sha256
    (folder / ".arenaignore").write_text("target/\n")
    assert snapshot(folder).sha256 != before  # it decides what the bot is


def test_bot_toml_and_the_ignore_file_are_never_ignored(tmp_path: Path) -> None:
    folder = make_bot(tmp_path / "bot", ignore="*\n")
    assert sorted(snapshot(folder).files) == [(".arenaignore",), ("bot.toml",)]


def test_negation_and_anchors_follow_gitignore(tmp_path: Path) -> None:
    folder = make_bot(tmp_path / "bot", ignore="/data/\n*.bin\n!keep.bin\n")
    for name in ("data/a.txt", "sub/data/b.txt", "x.bin", "keep.bin"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(name)
    kept = {"/".join(p) for p in snapshot(folder).files}
    assert kept == {".arenaignore", "bot.toml", "bot.py", "sub/data/b.txt", "keep.bin"}


def test_gitignore_is_not_read(tmp_path: Path) -> None:
    """A .gitignore often names what a bot needs (a committed binary, a table)."""
    folder = make_bot(tmp_path / "bot", ignore=None)
    (folder / ".gitignore").write_text("table.bin\n")
    (folder / "table.bin").write_bytes(b"weights")
    assert ("table.bin",) in snapshot(folder).files


def test_a_stored_version_keeps_its_ignored_build_output(tmp_path: Path) -> None:
    """In a stored folder the ignored paths are what its build made: they stay in it,
    out of the sources (its sha256) and in its outputs."""
    folder = make_bot(tmp_path / "stored")
    (folder / "target").mkdir()
    (folder / "target" / "bot").write_text("built")
    everything = botfiles.read_folder(folder)  # a stored folder is read whole
    assert ("target", "bot") in everything
    sources = source_files(load_manifest(folder), dict(everything))
    assert ("target", "bot") not in sources
    assert snapshot(folder).sha256 == snapshot(make_bot(tmp_path / "c")).sha256


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"a\\\n", "Invalid git pattern"),
        (b"\xff\xfe\n", "not UTF-8"),
        (b"#" * (botfiles.MANIFEST_MAX_BYTES + 1), "larger than"),
    ],
)
def test_a_bad_ignore_file_is_a_one_line_error(tmp_path: Path, content: bytes, says: str) -> None:
    folder = make_bot(tmp_path / "bot", ignore=None)
    (folder / ".arenaignore").write_bytes(content)
    with pytest.raises(BotFolderError) as error:
        snapshot(folder)
    assert says in str(error.value) and ".arenaignore" in str(error.value)
    assert "\n" not in str(error.value)


def test_an_ignore_file_that_is_a_link_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.write_text("bot.py\n")
    folder = make_bot(tmp_path / "bot", ignore=None)
    os.symlink(outside, folder / ".arenaignore")
    with pytest.raises(BotFolderError, match="not a regular file"):
        snapshot(folder)


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed here")
def test_a_local_cargo_build_makes_no_new_version_of_the_rust_kit(tmp_path: Path) -> None:
    kit = BUNDLED_BOTS / "starters" / "rust"
    folder = tmp_path / "rust"
    shutil.copytree(kit, folder, ignore=shutil.ignore_patterns("target"))
    before = snapshot(folder).sha256
    env = {**os.environ, "CARGO_HOME": str(tmp_path / "cargo-home")}
    command = ["cargo", "build", "--release", "--offline"]
    subprocess.run(command, cwd=folder, env=env, check=True, capture_output=True)
    assert (folder / "target" / "release" / "bot").is_file()
    assert snapshot(folder).sha256 == before
