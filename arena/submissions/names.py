"""Bot names: the safe pattern, telling a name from a folder path, and who owns a name.

A bot name is what `--bots random` and `arena bot show` look up, so a name must
never be mistaken for a folder (or the other way round), must be safe to print
and to use as a file name, and must stay with whoever registered it first:

- a name matches `NAME_PATTERN`: lowercase letters, digits, `-` and `_`, at most
  40 characters, starting with a letter or digit;
- an argument is a folder path when it contains `/` or starts with `.` or `~`
  (`./mybot`, `../bots/x`, `/srv/bots/x`, `~/mybot`); anything else is a name.
  A valid name never contains `/` nor starts with `.` or `~`, so no text is both;
- the bundled bots' names are reserved for the bundled folders themselves, and the
  starter kits' names (bots/starters) for nobody: a kit is copied and renamed;
- the owner of a name is the OS user who registered it (`BUNDLED_OWNER` for the
  bundled bots); only that user may add versions.

This module is pure: it raises nothing and knows no folders or database.
"""

from __future__ import annotations

import os
import pwd
import re

#: What a bot name may look like (documented in the README).
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
#: The owner recorded for the bots shipped with arena.
BUNDLED_OWNER = "arena"


def name_problem(name: str) -> str | None:
    """Why `name` is not a valid bot name, or None when it is.

    >>> name_problem("take-that-heuristic") is None
    True
    >>> name_problem("My Bot")
    "bot name 'My Bot' is not allowed: use 1-40 of a-z, 0-9, '-', '_', starting with a-z or 0-9"
    """
    if NAME_PATTERN.fullmatch(name):
        return None
    return (
        f"bot name {name!r} is not allowed: "
        "use 1-40 of a-z, 0-9, '-', '_', starting with a-z or 0-9"
    )


def is_path(argument: str) -> bool:
    """True when a bot argument names a folder rather than a bot.

    >>> [is_path(a) for a in ("./mybot", "/srv/x", "~/x", "..", "bots/x", "random", "mybot")]
    [True, True, True, True, True, False, False]
    """
    return "/" in argument or argument.startswith((".", "~"))


def current_user() -> str:
    """The owner of what this process submits: the user name of its effective uid."""
    uid = os.geteuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # a uid without a passwd entry (containers): still one owner per uid
        return f"uid-{uid}"
