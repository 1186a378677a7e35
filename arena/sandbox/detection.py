"""What confines bots on this machine (`protections()`, detected once per process).

bubblewrap counts only once a trivial sandbox has started through it (`_probe`);
a uid per bot needs root, a cgroup a delegated hierarchy (`arena.sandbox.cgroup`),
seccomp bubblewrap and a filter this kernel takes (`arena.sandbox.seccomp`). Bots
that run without bubblewrap are announced once, loudly (`warn_unconfined`).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import shutil
from dataclasses import dataclass
from typing import Any

from arena import settings
from arena.sandbox import cgroup, seccomp, uids
from arena.sandbox.limits import Limits
from arena.sandbox.spawn import start_bwrap
from arena.sandbox.uids import SandboxError

#: The sandbox's logger, by the package's name (what a user sees before the warning).
LOG = logging.getLogger("arena.sandbox")


@dataclass(frozen=True)
class Protections:
    """Which protections bots get in this process, each with a one-line reason."""

    bwrap: str | None
    bwrap_reason: str
    drop_uid: bool
    uid_reason: str
    cgroup: bool
    cgroup_reason: str
    seccomp: bool = False
    seccomp_reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        """For `arena doctor --json`."""
        return {
            "bubblewrap": {"active": self.bwrap is not None, "detail": self.bwrap_reason},
            "uid_per_bot": {"active": self.drop_uid, "detail": self.uid_reason},
            "cgroup": {"active": self.cgroup, "detail": self.cgroup_reason},
            "seccomp": {"active": self.seccomp, "detail": self.seccomp_reason},
        }


@functools.cache
def protections() -> Protections:
    """Detect (once per process) what confines bots here."""
    root = os.geteuid() == 0
    if root:
        low, high = uids.uid_range()
        uid_reason = f"arena runs as root: each bot runs as its own uid from {low}-{high}"
    else:
        uid_reason = f"arena runs as uid {os.geteuid()}: bots run as that user"
    group, group_reason = cgroup.status()
    mode = settings.read(settings.SANDBOX, "auto")
    path = shutil.which("bwrap")
    filtered, filter_reason = seccomp.status()
    if mode == "none":
        found, reason = None, "turned off by ARENA_SANDBOX=none"
    elif path is None:
        found, reason = None, "bwrap is not installed (apt-get install bubblewrap)"
    else:
        error = _probe(path, root, filtered)
        found, reason = (path, f"{path} works") if error is None else (None, error)
    if found is None:
        filtered, filter_reason = False, "needs bubblewrap"
    protected = Protections(found, reason, root, uid_reason, group, group_reason)
    return dataclasses.replace(protected, seccomp=filtered, seccomp_reason=filter_reason)


def _probe(path: str, drop_uid: bool, filtered: bool) -> str | None:
    """Start one trivial sandbox; None when it works, else why not."""
    try:
        folder = uids.runtime_dir() / "probe"  # an empty folder the bot's uid may read
        folder.mkdir(mode=0o755, exist_ok=True)
        command = ["/bin/sh", "-c", "exit 0"]
        box = start_bwrap(command, folder, Limits(), path, drop_uid, False, filtered)
    except uids.UidsInUse:
        # Other arenas' bots hold every uid: bubblewrap is not at fault, so probe it as
        # root (never run bots unconfined for that); each bot refused meanwhile is void.
        return _probe(path, False, filtered) if drop_uid else None
    except (SandboxError, OSError) as error:
        return f"bwrap does not work here: {error}"
    code = box.process.wait(timeout=10)
    box.kill()
    return None if code == 0 else f"bwrap does not work here: exit code {code}"


_WARNED = False


def warn_unconfined(reason: str) -> None:
    """Say once per process that bots run without bubblewrap, and why."""
    global _WARNED
    if not _WARNED:
        _WARNED = True
        LOG.warning(
            "BOTS ARE NOT SANDBOXED (%s): they run with rlimits and process-group clean-up "
            "only, can read what arena can read and use the network; see `arena doctor`",
            reason,
        )
