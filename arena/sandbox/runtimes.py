"""Toolchains outside the system, configured once per machine and named from bot.toml.

A build and a bot see only the system (`arena.sandbox.bwrap`), so a toolchain
installed the usual way (rustup in ~/.cargo, Go in /usr/local/go, nvm, sdkman) is
not found. As judges configure their languages, the organiser names such toolchains
in a runtimes file, and a bot asks for one with `runtime = "NAME"` in its bot.toml:

    [rust]
    folders = ["/opt/rust"]                   # bound read-only, at the same path
    path = ["/opt/rust/cargo/bin"]            # put before the sandbox's PATH
    env = { RUSTUP_HOME = "/opt/rust/rustup", CARGO_HOME = "/tmp/cargo" }
    check = ["cargo", "--version"]            # what `arena doctor` runs inside

The file is ARENA_RUNTIMES if set, else `runtimes.toml` in the arena home, else
/etc/arena/runtimes.toml. The folders must be readable by the bots' uids, all the way
down from `/` (bubblewrap binds them as the bot's uid): /root is 0700, so a toolchain
under it is installed elsewhere or /root is given `o+x` (`arena doctor` says which).
The same runtime applies to the build and to the bot, with or without bubblewrap.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from arena import ArenaError, settings

#: A runtime's name: what bot.toml's `runtime` says.
NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")
#: Variables arena sets itself (PATH through `path`): a runtime cannot change them.
RESERVED_ENV = frozenset({"PATH", "HOME", "TMPDIR", "PYTHONPATH"})
SYSTEM_FILE = Path("/etc/arena/runtimes.toml")
#: Where the sandbox has folders of its own: a toolchain bound there would be hidden.
SANDBOX_OWN = ("/tmp/", "/dev/", "/proc/", "/bot/", "/arena/")
KEYS = ("folders", "path", "env", "check")


class RuntimeProblem(ArenaError, ValueError):
    """A runtimes file or a runtime that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Runtime:
    """One named toolchain: the folders to bind, PATH entries, environment, a check."""

    name: str
    folders: tuple[str, ...]
    path: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    check: tuple[str, ...] = ()

    def binds(self) -> list[str]:
        """bubblewrap arguments: each folder read-only at its own path."""
        args: list[str] = []
        for folder in self.folders:
            args += ["--ro-bind", folder, folder]
        return args

    def environment(self, base: dict[str, str]) -> dict[str, str]:
        """`base` (the bot's clean environment) with the runtime's PATH and variables."""
        found = {**base, **dict(self.env)}
        found["PATH"] = ":".join([*self.path, base["PATH"]])
        return found

    def owns(self, program: str) -> bool:
        """True when `program` lies in one of the runtime's folders."""
        return any(program == f or program.startswith(f.rstrip("/") + "/") for f in self.folders)


def runtimes_file() -> Path:
    """Where this machine's runtimes are configured (the file need not exist)."""
    chosen = settings.read(settings.RUNTIMES)
    if chosen:
        return Path(chosen)
    in_home = settings.home() / "runtimes.toml"
    return in_home if in_home.is_file() else SYSTEM_FILE


def configured() -> dict[str, Runtime]:
    """The runtimes of this machine, by name ({} without a file); RuntimeProblem if bad."""
    path = runtimes_file()
    try:
        info = path.stat()
    except OSError:
        return {}
    return _parse(path, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=8)
def _parse(path: Path, _mtime_ns: int, _size: int) -> dict[str, Runtime]:
    """The file's runtimes (cached until it changes)."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise RuntimeProblem(f"{path}: cannot be read as TOML ({error})") from None
    return {name: _runtime(path, name, value) for name, value in table.items()}


def _strings(path: Path, name: str, table: dict[str, object], key: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise RuntimeProblem(f"{path}: [{name}] {key} must be a list of strings")
    return tuple(value)


def _runtime(path: Path, name: str, table: object) -> Runtime:
    """One [name] table, checked; RuntimeProblem naming the file and the key."""
    if not NAME.match(name) or not isinstance(table, dict):
        raise RuntimeProblem(f"{path}: [{name}] must be a table named like {NAME.pattern}")
    unknown = [key for key in table if key not in KEYS]
    if unknown:
        raise RuntimeProblem(f"{path}: [{name}] unknown key {unknown[0]!r} (keys: {KEYS})")
    folders = _strings(path, name, table, "folders")
    for entry in (*folders, *_strings(path, name, table, "path")):
        if not entry.startswith("/") or ":" in entry:
            raise RuntimeProblem(f"{path}: [{name}] {entry!r} must be an absolute path")
    for folder in folders:
        if folder == "/" or any(folder.startswith(own) for own in SANDBOX_OWN):
            raise RuntimeProblem(
                f"{path}: [{name}] {folder} is the sandbox's own there (/tmp, /dev, /proc, "
                "/bot, /arena are not the machine's inside): put the toolchain elsewhere"
            )
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise RuntimeProblem(f"{path}: [{name}] env must be a table of strings")
    reserved = sorted(set(env) & RESERVED_ENV)
    if reserved:
        raise RuntimeProblem(f"{path}: [{name}] env cannot set {reserved[0]} (arena sets it)")
    return Runtime(
        name,
        folders,
        _strings(path, name, table, "path"),
        tuple(sorted(env.items())),
        _strings(path, name, table, "check"),
    )


def get(name: str) -> Runtime:
    """The runtime `name`; RuntimeProblem when this machine has none of that name."""
    found = configured()
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        raise RuntimeProblem(
            f"runtime {name!r} is not configured on this machine (configured: {known}; "
            f"in {runtimes_file()}, see `arena doctor`)"
        )
    return found[name]


def for_folder(folder: Path) -> Runtime | None:
    """The runtime the bot folder's bot.toml asks for (None: none, or no bot.toml)."""
    from arena.submissions.botfiles import BotFolderError, read_manifest_bytes

    try:
        table = tomllib.loads(read_manifest_bytes(folder).decode("utf-8"))
    except (BotFolderError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None  # no manifest (a probe, doctor's check): no runtime
    name = table.get("runtime")
    return get(name) if isinstance(name, str) else None
