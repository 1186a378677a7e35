"""A bot folder's manifest (`bot.toml`), finding bundled bots, and preparing a bot to run.

A bot is a folder with `bot.toml`: at least `name` and `command` (an argv list
run inside the folder). Optional: `games` (ids it plays, "*" for all),
`build` (an argv list run once in the folder before the first start, e.g. a
compiler call) and `description`.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from arena import resources

#: Where the bots shipped with arena live (the repository's top-level bots/).
BUNDLED_BOTS = resources.BUNDLED_BOTS
BUILD_TIMEOUT_S = 120


class BotFolderError(ValueError):
    """A bot folder that cannot be used: missing, no manifest, or a bad manifest."""


@dataclass(frozen=True)
class Manifest:
    """What `bot.toml` says, with the folder it came from."""

    folder: Path
    name: str
    command: tuple[str, ...]
    games: tuple[str, ...] = ("*",)
    build: tuple[str, ...] | None = None
    description: str = ""

    def plays(self, game_id: str) -> bool:
        """True when the bot says it plays `game_id`."""
        return "*" in self.games or game_id in self.games


def _str_list(data: dict[str, object], key: str, path: Path) -> tuple[str, ...] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise BotFolderError(f"{path}: {key} must be a non-empty list of strings")
    return tuple(str(v) for v in value)


def load_manifest(folder: str | Path) -> Manifest:
    """Read and check `folder/bot.toml`; raises BotFolderError with a one-line reason."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BotFolderError(f"no bot folder at {folder}")
    path = folder / "bot.toml"
    if not path.is_file():
        raise BotFolderError(f"{folder} has no bot.toml manifest")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise BotFolderError(f"{path}: not valid TOML ({error})") from None
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BotFolderError(f"{path}: name must be a non-empty string")
    command = _str_list(data, "command", path)
    if command is None:
        raise BotFolderError(f"{path}: command (an argv list) is missing")
    description = data.get("description", "")
    return Manifest(
        folder=folder.resolve(),
        name=name.strip(),
        command=command,
        games=_str_list(data, "games", path) or ("*",),
        build=_str_list(data, "build", path),
        description=description if isinstance(description, str) else "",
    )


def find_bot(name_or_path: str) -> Manifest:
    """A bot folder path, or the name of a bundled bot (`random`)."""
    path = Path(name_or_path)
    if path.is_dir():
        return load_manifest(path)
    bundled = BUNDLED_BOTS / name_or_path
    if "/" not in name_or_path and bundled.is_dir():
        return load_manifest(bundled)
    known = ", ".join(sorted(p.name for p in BUNDLED_BOTS.iterdir() if (p / "bot.toml").is_file()))
    raise BotFolderError(f"no bot folder {name_or_path!r} (bundled bots: {known})")


@functools.cache
def _real_interpreter(name: str) -> str | None:
    """The real path of a Python found on PATH, past version-manager shims (~100 ms each)."""
    found = shutil.which(name)
    if found is None:
        return None
    try:
        out = subprocess.run(
            [found, "-c", "import sys; print(sys.executable)"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return found
    return out.stdout.strip() or found


def resolve_command(manifest: Manifest) -> list[str]:
    """The argv to start: relative programs in the folder, Pythons resolved past shims.

    Raises BotFolderError when the program does not exist.
    """
    program, *rest = manifest.command
    if "/" in program:
        candidate = (manifest.folder / program).resolve()
        if not candidate.is_file() or not os.access(candidate, os.X_OK):
            raise BotFolderError(f"{manifest.name}: command {program} is not an executable file")
        return [str(candidate), *rest]
    real = _real_interpreter(program) if program.startswith("python") else shutil.which(program)
    if real is None:
        raise BotFolderError(f"{manifest.name}: command {program!r} is not installed")
    return [real, *rest]


def prepare(manifest: Manifest) -> list[str]:
    """Run the bot's build step if its program is missing, then resolve its command."""
    program = manifest.command[0]
    if manifest.build and "/" in program and not (manifest.folder / program).exists():
        try:
            done = subprocess.run(
                list(manifest.build),
                cwd=manifest.folder,
                capture_output=True,
                text=True,
                timeout=BUILD_TIMEOUT_S,
            )
        except (OSError, subprocess.SubprocessError) as error:
            raise BotFolderError(f"{manifest.name}: build failed: {error}") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise BotFolderError(f"{manifest.name}: build failed: {last}")
    return resolve_command(manifest)
