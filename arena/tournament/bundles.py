"""Bot code for workers that cannot see the arena home: archives named by sha256.

A stored bot version is a folder named by the sha256 of its files
(`arena.submissions.submit`). To play it on a remote worker, the coordinator packs those
same files into an archive (`pack`), the executor ships the bytes once per
worker (`ARCHIVES` on the worker), and the worker unpacks them into its own
cache, checks that the unpacked files hash to the version's sha256, runs the
bot's build step there (in the bot's sandbox, on a scratch copy: see
`arena.sandbox.build`), and rewrites the `BotRef` to its local copy
(`localize`). Nothing here assumes a shared file system, and nothing here is
the bot's fault: every failure is a `BundleError`, which voids a match
(platform-error) instead of forfeiting a seat.
"""

from __future__ import annotations

import fcntl
import io
import shutil
import tarfile
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

from arena import ArenaError, settings
from arena.match.run import BotRef
from arena.submissions.manifest import BotFolderError, load_manifest, prepare
from arena.submissions.snapshot import snapshot
from arena.submissions.submit import content_hash

#: Archives this worker process has received, by sha256 (filled by the executor's plugin).
ARCHIVES: dict[str, bytes] = {}
#: Versions unpacked and prepared in this process: (cache root, sha256) -> (folder, argv).
_READY: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
_LOCK = threading.Lock()


class BundleError(ArenaError):
    """A bot version that cannot be made runnable on this worker (a platform failure)."""

    exit_code = 1


def cache_root() -> Path:
    """Where a worker keeps unpacked versions: `ARENA_WORKER_CACHE` or the user cache dir."""
    return settings.worker_cache()


def pack(folder: str | Path, sha256: str) -> bytes:
    """A gzipped tar of a stored version's files; BundleError if they no longer hash to sha256."""
    try:
        manifest = load_manifest(folder)
    except BotFolderError as error:
        raise BundleError(f"stored bot version {sha256[:12]}: {error}") from None
    read = snapshot(manifest.folder)  # exactly the files the sha256 covers, read once
    if read.sha256 != sha256:
        raise BundleError(f"stored bot folder {folder} no longer matches its sha256 {sha256[:12]}")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for parts in read.files:
            path = manifest.folder.joinpath(*parts)
            tar.add(path, arcname=str(path.relative_to(manifest.folder)), recursive=False)
    return buffer.getvalue()


def unpack(sha256: str, data: bytes, root: Path) -> Path:
    """Unpack an archive to `root/<sha256>` unless it is there; verified before it appears."""
    target = root / sha256
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{sha256[:12]}-", dir=root))
    try:
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                tar.extractall(partial, filter="data")
            got = content_hash(load_manifest(partial))
        except (tarfile.TarError, OSError, EOFError, BotFolderError) as error:
            raise BundleError(f"bot archive {sha256[:12]} cannot be unpacked: {error}") from None
        if got != sha256:
            raise BundleError(f"bot archive {sha256[:12]} unpacks to files hashing to {got[:12]}")
        partial.chmod(0o755)  # as a stored version: readable by a sandboxed bot's own uid
        try:
            partial.rename(target)
        except OSError:
            if not target.is_dir():  # another worker process on this host won the race: fine
                raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _prepare(sha256: str, root: Path) -> tuple[str, tuple[str, ...]]:
    """Unpack (if needed) and build one version; worker processes sharing `root` take turns."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".{sha256}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        target = root / sha256
        if not target.is_dir():
            data = ARCHIVES.get(sha256)
            if data is None:
                raise BundleError(f"bot version {sha256[:12]} was never shipped to this worker")
            unpack(sha256, data, root)
        try:
            argv = prepare(load_manifest(target))
        except BotFolderError as error:
            message = f"bot version {sha256[:12]} cannot run on this worker: {error}"
            raise BundleError(message) from None
    return str(target), tuple(argv)


def localize(ref: BotRef, root: Path | None = None) -> BotRef:
    """The same bot, started from this worker's verified copy of its version.

    A ref without a sha256 (a bare folder, not a stored version) is returned as it is.
    """
    if ref.sha256 is None:
        return ref
    root = root or cache_root()
    key = (str(root), ref.sha256)
    with _LOCK:  # the threads of one worker process unpack and build a version once
        ready = _READY.get(key)
        if ready is None or not Path(ready[0]).is_dir():  # a wiped cache is filled again
            ready = _READY[key] = _prepare(ref.sha256, root)
    folder, argv = ready
    return replace(ref, folder=folder, argv=argv)
