"""`arena bot remove`: a bot nothing refers to goes, with the stored folders only it used.

The rows go first, in one transaction that checks that nothing refers to the bot
(`Store.remove_bot`: no recorded seat, rating, schedule or ladder pool). Then each of
its stored folders (`<home>/bots/<sha256>`) that no other version uses is deleted: the
same code submitted under two names is stored once (`arena.submissions.submit`), so a folder
another bot's version names stays. A folder is deleted only when it is where this home
stores versions (a database shared by several homes names others' folders too, and
a path read from a database is never trusted further than that); it is renamed aside
first, so no half-deleted folder is ever seen under its name.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from arena.store import Store
from arena.submissions.manifest import build_stamp

#: A stored version's folder name: the sha256 of its files.
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass
class Removed:
    """What `remove_bot` deleted, and the folders it left (not this home's to delete)."""

    folders: list[Path] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def remove_bot(store: Store, home: Path, name: str, owner: str) -> Removed:
    """Remove the bot `name` of `owner` and its unshared stored folders.

    Refused (arena.store) when anything refers to it; NotOwnerError for another's bot.
    """
    removed = Removed()
    for folder in store.remove_bot(name, owner):
        path = Path(folder)
        if _stored_here(home, path):
            _delete(path)
            removed.folders.append(path)
        else:
            removed.left.append(folder)
    return removed


def _stored_here(home: Path, path: Path) -> bool:
    """True for a real folder `<home>/bots/<sha256>` (not a link, nothing outside)."""
    bots = (home / "bots").resolve()
    return (
        _SHA256.fullmatch(path.name) is not None
        and path.parent.resolve() == bots
        and not path.is_symlink()
    )


def _delete(path: Path) -> None:
    """Rename aside, as a killed submission's partial copy is named (so that the next
    submission sweeps it if this process dies now), then delete, with its build stamp."""
    aside = path.parent / f".{path.name[:12]}-{os.getpid()}-removed"
    try:
        path.rename(aside)
    except FileNotFoundError:
        return  # gone already
    shutil.rmtree(aside, ignore_errors=True)
    build_stamp(path).unlink(missing_ok=True)
