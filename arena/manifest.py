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

from arena import names, resources
from arena.botfiles import BotFolderError as BotFolderError  # where it always was
from arena.botfiles import read_manifest_bytes
from arena.sandbox.build import BuildError, run_build
from arena.sandbox.limits import Limits

#: Where the bots shipped with arena live (the repository's top-level bots/).
BUNDLED_BOTS = resources.BUNDLED_BOTS
BUILD_TIMEOUT_S = 120


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
    if any("\0" in v for v in value):  # an argv item cannot hold a NUL byte
        raise BotFolderError(f"{path}: {key} has a NUL character")
    return tuple(value)


def _toml(path: Path, data: bytes) -> dict[str, object]:
    """The manifest's table; every way its bytes can be bad is a BotFolderError."""
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise BotFolderError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise BotFolderError(f"{path}: not valid TOML ({error})") from None
    except RecursionError:  # tomllib recurses once per level of nested arrays and tables
        raise BotFolderError(f"{path}: not valid TOML (nested too deeply)") from None


def parse_manifest(folder: Path, data: bytes) -> Manifest:
    """Check the bytes of `folder/bot.toml`; raises BotFolderError with a one-line reason."""
    path = folder / "bot.toml"
    table = _toml(path, data)
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BotFolderError(f"{path}: name must be a non-empty string")
    problem = names.name_problem(name.strip())
    if problem:
        raise BotFolderError(f"{path}: {problem}")
    command = _str_list(table, "command", path)
    if command is None:
        raise BotFolderError(f"{path}: command (an argv list) is missing")
    description = table.get("description", "")
    return Manifest(
        folder=folder,
        name=name.strip(),
        command=command,
        games=_str_list(table, "games", path) or ("*",),
        build=_str_list(table, "build", path),
        description=description if isinstance(description, str) else "",
    )


def load_manifest(folder: str | Path) -> Manifest:
    """Read and check `folder/bot.toml` (never through a link); BotFolderError if bad."""
    folder = Path(folder).resolve()
    return parse_manifest(folder, read_manifest_bytes(folder))


def bundled_names() -> list[str]:
    """The names of the bots shipped with arena (reserved for them)."""
    return sorted(p.name for p in BUNDLED_BOTS.iterdir() if (p / "bot.toml").is_file())


def is_bundled(manifest: Manifest) -> bool:
    """True when `manifest` is a bundled bot's own folder, under its own name."""
    return manifest.folder == (BUNDLED_BOTS / manifest.name).resolve()


def find_bot(name_or_path: str) -> Manifest:
    """A bot folder path (`./mybot`, see `names.is_path`), or a bundled bot's name (`random`)."""
    if names.is_path(name_or_path):
        return load_manifest(Path(name_or_path).expanduser())
    if name_or_path in bundled_names():
        return load_manifest(BUNDLED_BOTS / name_or_path)
    raise BotFolderError(
        f"no bundled bot {name_or_path!r} and no bot folder (a folder is written "
        f"./{name_or_path}; bundled bots: {', '.join(bundled_names())})"
    )


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
        if not program.startswith("/") and not candidate.is_relative_to(manifest.folder):
            # e.g. ../<sha256>/bot: another stored bot's program is not this bot's
            raise BotFolderError(f"{manifest.name}: command {program} is outside the bot folder")
        if not candidate.is_file() or not os.access(candidate, os.X_OK):
            raise BotFolderError(f"{manifest.name}: command {program} is not an executable file")
        return [str(candidate), *rest]
    real = _real_interpreter(program) if program.startswith("python") else shutil.which(program)
    if real is None:
        raise BotFolderError(f"{manifest.name}: command {program!r} is not installed")
    return [real, *rest]


def prepare(manifest: Manifest) -> list[str]:
    """Run the bot's build step if its program is missing, then resolve its command.

    The build runs in the bot's sandbox on a scratch copy of the folder (see
    `arena.sandbox.build`): it is the author's code, as untrusted as the bot.
    """
    program = manifest.command[0]
    if manifest.build and "/" in program and not (manifest.folder / program).exists():
        limits = Limits().stricter(cpu_seconds=BUILD_TIMEOUT_S)
        try:
            run_build(manifest.build, manifest.folder, limits, BUILD_TIMEOUT_S)
        except BuildError as error:
            raise BotFolderError(f"{manifest.name}: {error}") from None
    return resolve_command(manifest)
