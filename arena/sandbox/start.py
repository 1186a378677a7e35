"""`launch`: the one way arena starts a bot, confined as well as this machine allows.

It asks `arena.sandbox.detection` what confines bots here and starts the bot by
the matching path of `arena.sandbox.spawn`: under bubblewrap, or (refused under
ARENA_SANDBOX=bwrap) plain with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena import settings
from arena.sandbox import detection, runtimes, spawn
from arena.sandbox.handle import Sandboxed
from arena.sandbox.limits import Limits
from arena.sandbox.uids import SandboxError


def launch(
    argv: Sequence[str],
    folder: Path,
    limits: Limits,
    *,
    writable: bool = False,
    runtime: runtimes.Runtime | None = None,
) -> Sandboxed:
    """Start a bot with pipes on stdin, stdout and stderr, confined as well as this machine allows.

    `writable` (a build step): `folder` is a scratch copy, mounted itself and
    writable (and handed to the sandbox's uid), instead of a read-only staged copy.
    `runtime` (by default the one the folder's bot.toml names, `arena.sandbox.runtimes`)
    adds its folders read-only, its PATH entries and its environment.
    A program that cannot be executed is the bot's exit 127 (the held shell's `exec`
    fails, and says so on the bot's stderr); SandboxError when the sandbox cannot be set
    up (the platform's fault).
    """
    found = detection.protections()
    try:
        runtime = runtime or runtimes.for_folder(folder)
    except runtimes.RuntimeProblem as error:
        raise SandboxError(str(error)) from None
    if found.bwrap is None:
        if settings.read(settings.SANDBOX) == "bwrap":
            raise SandboxError(f"ARENA_SANDBOX=bwrap but {found.bwrap_reason}")
        detection.warn_unconfined(found.bwrap_reason)
        return spawn.start_plain(list(argv), folder, limits, found.cgroup, runtime)
    try:
        return spawn.start_bwrap(
            list(argv),
            folder,
            limits,
            found.bwrap,
            found.drop_uid,
            found.cgroup,
            found.seccomp,
            writable,
            runtime,
        )
    except OSError as error:  # inside bubblewrap even a missing program is the bot's exit 127
        raise SandboxError(f"could not set the sandbox up: {error}") from error
