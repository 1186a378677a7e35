"""Submitting bots: read a folder safely, check its name and owner, check the bot, store a copy.

A version is a copy of the bot folder under `<home>/bots/<sha256>/`, named by the
sha256 of its files. Submitting changed code creates version n+1; submitting the
same code again changes nothing. The folder is read once (`arena.submissions.botfiles`:
never through a link out of it, no special files, bounded in size), and that one
reading is hashed, stored, built and checked (`arena.submissions.check`), so what was checked is
what runs. A name follows `arena.submissions.names`: the safe pattern, bundled names only for the
bundled folders, and new versions only from the name's owner.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from arena.home import private_folder
from arena.match.run import BotRef
from arena.store import NotOwnerError, Store, VersionConflict
from arena.store.models import BotVersion
from arena.submissions import botfiles, check, names
from arena.submissions.botfiles import BotFile
from arena.submissions.manifest import (
    BotFolderError,
    Manifest,
    build_stamp,
    bundled_names,
    find_bot,
    is_bundled,
    load_manifest,
    prepare,
    starter_names,
)
from arena.submissions.snapshot import snapshot


def _files(manifest: Manifest) -> list[Path]:
    """The paths of the files a version's sha256 covers (for archives of stored versions)."""
    return [manifest.folder.joinpath(*parts) for parts in snapshot(manifest.folder).files]


def content_hash(manifest: Manifest) -> str:
    """sha256 over the relative paths and contents of the bot's files."""
    return snapshot(manifest.folder).sha256


@contextmanager
def _staged(files: dict[tuple[str, ...], BotFile], target: Path) -> Iterator[Path]:
    """A folder with `files` that becomes `target` when the block ends without error.

    On an error nothing is left in the home. When `target` exists already (the
    same code under another name) it is used as it is. The build stamp of a build
    run in the block (`arena.submissions.manifest.build_stamp`, beside the folder) moves with it.
    """
    if target.is_dir():
        yield target
        return
    private_folder(target.parent)  # stored code is this account's alone (`arena.home`)
    sweep_partials(target.parent)
    prefix = f".{target.name[:12]}-{os.getpid()}-"
    partial = Path(tempfile.mkdtemp(prefix=prefix, dir=target.parent))
    try:
        botfiles.write_folder(files, partial)
        partial.chmod(0o700)  # bots run from staged copies, never from here
        yield partial
        try:
            partial.rename(target)
        except OSError:
            if not target.is_dir():  # another submission of the same code won the race
                raise
        else:
            with contextlib.suppress(FileNotFoundError):
                build_stamp(partial).rename(build_stamp(target))
    finally:
        shutil.rmtree(partial, ignore_errors=True)
        build_stamp(partial).unlink(missing_ok=True)


def sweep_partials(bots: Path) -> None:
    """Remove what submissions that were killed left: `.<sha12>-<pid>-*` of a dead pid
    (each submission does before it stages; the service when it starts)."""
    for stale in bots.glob(".*-*-*"):
        pid = stale.name.split("-")[1]
        if stale.is_dir() and pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(stale, ignore_errors=True)
            build_stamp(stale).unlink(missing_ok=True)


def _check_name(store: Store, manifest: Manifest, owner: str) -> None:
    """The name rules of `arena.submissions.names`; BotFolderError with the reason."""
    problem = names.name_problem(manifest.name)
    if problem:
        raise BotFolderError(problem)
    if manifest.name in bundled_names() and not is_bundled(manifest):
        raise BotFolderError(f"bot name {manifest.name!r} is reserved for the bundled bot")
    if manifest.name in starter_names():
        raise BotFolderError(
            f"bot name {manifest.name!r} is the starter kit's: give your copy a name of its "
            "own in bot.toml (or --name)"
        )
    registered = store.bot_owner(manifest.name)
    if registered is not None and registered != owner:
        raise BotFolderError(
            f"bot {manifest.name!r} belongs to {registered!r}: choose another name (--name)"
        )


def submit(
    store: Store,
    home: Path,
    path: str,
    name: str | None = None,
    games: list[str] | None = None,
    owner: str | None = None,
) -> tuple[BotVersion, bool]:
    """Register a bot folder (a path, or a bundled bot's name); returns (version, created).

    `games` limits its check to those games (a folder named in a tournament is checked
    in the game being played, not in every game it declares).

    Unchanged code is a no-op. The owner is `owner` (an account's, for the service:
    arena.store.accounts), by default the current OS user, "arena" for a bundled
    bot's own folder. Raises BotFolderError for an unsafe folder, a bad,
    reserved or someone else's name, a failing build or a failed check
    (`arena.submissions.check.submission_check`: the matches of `arena bot check`, fewer). A
    bundled bot's own folder is not checked: it ships with arena, whose test suite
    plays it in every game, and a search bot's check matches take the best part of a
    minute (the demo would spend it before its first tournament).
    """
    found = find_bot(path)
    read = snapshot(found.folder)
    manifest = replace(read.manifest, name=name or read.manifest.name)
    if is_bundled(manifest):
        owner = names.BUNDLED_OWNER
    elif owner is None:
        owner = names.current_user()
    _check_name(store, manifest, owner)
    sha = read.sha256
    existing = store.bot_version_by_sha(manifest.name, sha)
    if existing is not None:
        return existing, False
    target = home / "bots" / sha
    with _staged(read.files, target) as folder:
        stored = replace(load_manifest(folder), name=manifest.name)
        if not is_bundled(manifest):  # arena's own bots are its tests' business (see below)
            check.submission_check(stored, games)
    return _add_version(store, manifest.name, sha, str(target), stored, owner)


def _add_version(
    store: Store, name: str, sha: str, folder: str, stored: Manifest, owner: str
) -> tuple[BotVersion, bool]:
    """Store the version; the same code registered at the same moment by another command
    (a unique-constraint conflict) is that command's version, not an error."""
    for _attempt in range(3):
        try:
            version = store.add_bot_version(
                name, sha, folder, stored.command, list(stored.games), owner
            )
            return version, True
        except NotOwnerError as error:  # registered by someone else while this one was tested
            raise BotFolderError(str(error)) from None
        except VersionConflict:
            existing = store.bot_version_by_sha(name, sha)
            if existing is not None:
                return existing, False
            # another version or the bot row itself came first: count again
    raise BotFolderError(f"could not register {name}: other submissions kept conflicting")


def bot_ref(version: BotVersion, name: str) -> BotRef:
    """How to start a stored version (building it first if it has a build step)."""
    manifest = replace(load_manifest(version.folder), name=name)
    if content_hash(manifest) != version.sha256:
        # Changed since its check: neither built nor run (staging refuses it, and the
        # match is void with the reason), so no byte of the change runs.
        argv = manifest.command
    else:
        argv = tuple(prepare(manifest))
    return BotRef(name, str(manifest.folder), argv, version.id, version.sha256, manifest.protocol)
