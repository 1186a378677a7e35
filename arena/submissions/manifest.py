"""A bot folder's manifest (`bot.toml`), finding bundled bots, and preparing a bot to run.

A bot is a folder with `bot.toml`: at least `name` and `command` (an argv list
run inside the folder). Optional: `games` (ids it plays, "*" for all, the default),
`build` (an argv list run once in the folder before the first start, e.g. a
compiler call), `description`, `runtime` (a toolchain the machine's organiser
configured, `arena.sandbox.runtimes`), `protocol` (the protocol version the bot
speaks: 1 when absent, 2 for new bots), and a `[tool]` table that arena never reads (other
tools' settings). Any other key is an error (protocol/PROTOCOL.md, "The bot folder").

Whether a folder was built is told by its build stamp, a file beside the folder
(out of reach of the bot and of its build, which see only copies of the folder):
it lists the files the build added, which are not the bot's code (they are left
out of its sha256), and the digest of the code it built.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from arena import resources
from arena.protocol.messages import PROTOCOL_VERSION, PROTOCOL_VERSIONS
from arena.sandbox import runtimes
from arena.sandbox.build import OUTPUT_BUDGET_BYTES, BuildError, run_build
from arena.sandbox.bwrap import SANDBOX_PATH
from arena.sandbox.limits import Limits
from arena.submissions import botfiles, names
from arena.submissions.botfiles import BotFile, read_folder, read_manifest_bytes
from arena.submissions.botfiles import BotFolderError as BotFolderError  # where it always was

#: Where the bots shipped with arena live (the repository's top-level bots/).
BUNDLED_BOTS = resources.BUNDLED_BOTS
BUILD_TIMEOUT_S = 120
#: Every key bot.toml may have (PROTOCOL.md, "The bot folder").
KEYS = ("name", "command", "games", "build", "description", "runtime", "protocol", "tool")


@dataclass(frozen=True)
class Manifest:
    """What `bot.toml` says, with the folder it came from."""

    folder: Path
    name: str
    command: tuple[str, ...]
    games: tuple[str, ...] = ("*",)
    build: tuple[str, ...] | None = None
    description: str = ""
    #: A toolchain configured on the machine (`arena.sandbox.runtimes`), by name.
    runtime: str | None = None
    #: The protocol version the bot speaks (arena.protocol.messages.PROTOCOL_VERSIONS).
    protocol: int = PROTOCOL_VERSION

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
    unknown = [key for key in table if key not in KEYS]
    if unknown:
        raise BotFolderError(
            f"{path}: unknown key {unknown[0]!r} (bot.toml has only {', '.join(KEYS)})"
        )
    if not isinstance(table.get("tool", {}), dict):
        raise BotFolderError(f"{path}: tool must be a table")
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
    if not isinstance(description, str):
        raise BotFolderError(f"{path}: description must be a string")
    runtime = table.get("runtime")
    if runtime is not None and (not isinstance(runtime, str) or not runtimes.NAME.match(runtime)):
        raise BotFolderError(f"{path}: runtime must be a runtime's name (see `arena doctor`)")
    protocol = table.get("protocol", PROTOCOL_VERSION)
    if type(protocol) is not int or protocol not in PROTOCOL_VERSIONS:
        versions = " or ".join(map(str, PROTOCOL_VERSIONS))
        raise BotFolderError(f"{path}: protocol must be {versions}, not {protocol!r}")
    return Manifest(
        folder=folder,
        name=name.strip(),
        command=command,
        games=_str_list(table, "games", path) or ("*",),
        build=_str_list(table, "build", path),
        description=description,
        runtime=runtime,
        protocol=protocol,
    )


def load_manifest(folder: str | Path) -> Manifest:
    """Read and check `folder/bot.toml` (never through a link); BotFolderError if bad."""
    folder = Path(folder).resolve()
    return parse_manifest(folder, read_manifest_bytes(folder))


def bundled_names() -> list[str]:
    """The names of the bots shipped with arena (reserved for them)."""
    return sorted(p.name for p in BUNDLED_BOTS.iterdir() if (p / "bot.toml").is_file())


def starter_names() -> list[str]:
    """The starter kits' names (bots/starters/*/bot.toml), reserved for nobody: a kit is
    copied and renamed, and an unrenamed copy must not take the name for everyone."""
    found = []
    for kit in sorted((BUNDLED_BOTS / "starters").glob("*/bot.toml")):
        with contextlib.suppress(BotFolderError):  # a broken kit fails its own tests
            found.append(load_manifest(kit.parent).name)
    return found


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
    if manifest.runtime is not None:  # looked up as the sandbox will: the runtime's PATH first
        real = shutil.which(program, path=":".join([*_runtime(manifest).path, SANDBOX_PATH]))
    elif program.startswith("python"):
        real = _real_interpreter(program)
    else:
        real = shutil.which(program)
    if real is None:
        raise BotFolderError(f"{manifest.name}: command {program!r} is not installed")
    return [real, *rest]


def _runtime(manifest: Manifest) -> runtimes.Runtime:
    """The runtime the bot asks for; BotFolderError when this machine has none of that name."""
    assert manifest.runtime is not None
    try:
        return runtimes.get(manifest.runtime)
    except runtimes.RuntimeProblem as error:
        raise BotFolderError(f"{manifest.name}: {error}") from None


def build_stamp(folder: Path) -> Path:
    """Where the build stamp of `folder` is kept: beside it, `.<folder name>.arena-build`."""
    return folder.parent / f".{folder.name}.arena-build"


def _stamp(folder: Path) -> dict[str, object]:
    """The folder's build stamp, {} when it has none (or one that arena cannot read)."""
    try:
        stamp = json.loads(build_stamp(folder).read_text())
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def build_outputs(folder: Path) -> frozenset[tuple[str, ...]]:
    """The relative paths of the files the folder's last build added (none if never built)."""
    outputs = _stamp(folder).get("outputs")
    if not isinstance(outputs, list):
        return frozenset()
    return frozenset(
        tuple(p) for p in outputs if isinstance(p, list) and all(isinstance(x, str) for x in p)
    )


def source_files(
    manifest: Manifest, files: dict[tuple[str, ...], BotFile] | None = None
) -> dict[tuple[str, ...], BotFile]:
    """The bot's own files (`files`, or its folder read once): what its build made and
    what its .arenaignore names left out.

    That is what the last build added (its stamp), and the command's program for a
    folder built before stamps existed (the program a build makes, `./bot`).
    """
    built = build_outputs(manifest.folder)
    if files is None:
        files = read_folder(manifest.folder, skip=built, honour_ignore=True)
    ignore = botfiles.IgnoreFile.of(files, manifest.folder)
    for parts in [p for p in files if ignore is not None and ignore.leaves_out(p)]:
        del files[parts]
    for made in built:
        files.pop(made, None)
    if manifest.build:
        files.pop(tuple(Path(manifest.command[0]).parts), None)
    return files


def files_digest(files: dict[tuple[str, ...], BotFile]) -> str:
    """sha256 over the relative paths and contents of a bot's files (its version's identity)."""
    digest = hashlib.sha256()
    for item in files.values():
        digest.update(item.relative.encode() + b"\0")
        digest.update(hashlib.sha256(item.data).digest())
    return digest.hexdigest()


def build(manifest: Manifest) -> None:
    """Run the bot's build step in its sandbox, then write the folder's build stamp.

    The build runs on a scratch copy of the folder (see `arena.sandbox.build`): it is
    the author's code, as untrusted as the bot. What an earlier build of other code
    added is removed first (a build adds files, it never replaces one). BotFolderError
    with the build's output as `details` when it fails.
    """
    assert manifest.build
    sources = files_digest(source_files(manifest))
    inside = manifest.folder.resolve()
    for made in build_outputs(manifest.folder):
        old = manifest.folder.joinpath(*made)
        if old.is_file() and not old.is_symlink() and old.resolve().is_relative_to(inside):
            old.unlink()
    build_stamp(manifest.folder).unlink(missing_ok=True)
    limits = Limits().stricter(cpu_seconds=BUILD_TIMEOUT_S)
    try:
        added = run_build(manifest.build, manifest.folder, limits, BUILD_TIMEOUT_S)
    except BuildError as error:
        raise BotFolderError(f"{manifest.name}: {error}", error.output) from None
    stamp: dict[str, object] = {"sources": sources, "outputs": [list(p) for p in added]}
    with contextlib.suppress(OSError):  # a read-only place: the next start builds again
        build_stamp(manifest.folder).write_text(json.dumps(stamp))
        # what `verified_files` will find besides the sources (read with the stamp in place)
        built = _built_files(manifest, _stored_files(manifest.folder))
        stamp["outputs_sha256"] = files_digest(built)
        build_stamp(manifest.folder).write_text(json.dumps(stamp))


def is_built(manifest: Manifest) -> bool:
    """True when the folder's build stamp is for its code as it is now (and records its
    outputs' digest, which `verified_files` checks: an older stamp means a new build)."""
    stamp = _stamp(manifest.folder)
    return isinstance(stamp.get("outputs_sha256"), str) and stamp.get("sources") == files_digest(
        source_files(manifest)
    )


#: What a stored version may hold: its sources and what its build added.
STORED_LIMITS = botfiles.Limits(
    file_bytes=botfiles.LIMITS.file_bytes + OUTPUT_BUDGET_BYTES,
    total_bytes=botfiles.LIMITS.total_bytes + OUTPUT_BUDGET_BYTES,
)


def _stored_files(folder: Path) -> dict[tuple[str, ...], BotFile]:
    """Every file of a stored folder, sources and build outputs, read once."""
    return read_folder(folder, STORED_LIMITS)


def _built_files(
    manifest: Manifest, files: dict[tuple[str, ...], BotFile]
) -> dict[tuple[str, ...], BotFile]:
    """Of a folder's `files`, those that are not its sources: what its build added."""
    sources = source_files(manifest, dict(files))
    return {parts: item for parts, item in files.items() if parts not in sources}


def verified_files(folder: Path, sha256: str) -> dict[tuple[str, ...], BotFile]:
    """A stored version's files, read once, if they are exactly what was checked.

    The sources must hash to the version's `sha256` (recorded in the database at
    submission) and what the build added to the digest its build stamp recorded.
    BotFolderError (one line) otherwise: the caller runs nothing of it.
    """
    files = _stored_files(folder)
    toml = files.get(("bot.toml",))
    if toml is None:
        raise BotFolderError(f"stored bot version {sha256[:12]} has lost its bot.toml")
    manifest = parse_manifest(folder, toml.data)
    if files_digest(source_files(manifest, dict(files))) != sha256:
        raise BotFolderError(
            f"stored bot version {sha256[:12]} was changed after its check: its files "
            f"no longer hash to its sha256; not run (submit the bot again)"
        )
    built = _built_files(manifest, files)
    recorded = _stamp(folder).get("outputs_sha256")
    if (built or manifest.build) and files_digest(built) != recorded:
        raise BotFolderError(
            f"stored bot version {sha256[:12]} was changed after its check: what its build "
            f"made no longer matches its build stamp; not run (submit the bot again)"
        )
    return files


def prepare(manifest: Manifest) -> list[str]:
    """Build the bot unless its folder was built for its code as it is, then resolve its command.

    A build runs whatever the command is (`java Bot` needs `javac Bot.java` as much as
    `./bot` needs `cc`), once per version of the code: the build stamp tells.
    """
    if manifest.runtime is not None:
        _runtime(manifest)  # before a build that could not find its compiler
    if manifest.build and not is_built(manifest):
        build(manifest)
    return resolve_command(manifest)
