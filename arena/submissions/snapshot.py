"""A bot folder read once: its manifest and the files that make its identity (sha256).

Both a submission (arena.submissions.submit) and `bot check` (arena.submissions.check)
read a folder through `snapshot`, so what was checked is what is stored and runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.submissions import botfiles
from arena.submissions.botfiles import BotFile
from arena.submissions.manifest import (
    BotFolderError,
    Manifest,
    build_outputs,
    files_digest,
    parse_manifest,
    source_files,
)


@dataclass(frozen=True)
class Snapshot:
    """A bot folder as read once: its manifest and the files that make its identity."""

    manifest: Manifest
    files: dict[tuple[str, ...], BotFile]

    @property
    def sha256(self) -> str:
        """sha256 over the relative paths and contents of the bot's files."""
        return files_digest(self.files)


def snapshot(folder: str | Path) -> Snapshot:
    """Read a bot folder once (`arena.submissions.botfiles`); BotFolderError for anything unsafe.

    The manifest is parsed from the same bytes that are stored; what its build
    step made and what its .arenaignore names are left out, unread
    (`arena.submissions.manifest.source_files`).
    """
    folder = Path(folder).resolve()
    files = botfiles.read_folder(folder, skip=build_outputs(folder), honour_ignore=True)
    toml = files.get(("bot.toml",))
    if toml is None:
        raise BotFolderError(f"{folder} has no bot.toml manifest")
    manifest = parse_manifest(folder, toml.data)
    return Snapshot(manifest, source_files(manifest, files))
