"""Every environment variable arena reads, read here and only here.

Each is read when it is asked for, not at import, so a test (or a worker started
with another environment) sees the value it set. What a value means is decided by
the module that uses it (arena.sandbox for ARENA_SANDBOX, arena.match.seeds for
ARENA_SECRET); this module only names the variables and reads them, so that one
list tells an organiser everything arena can be told from outside.

| variable | what it sets | read by |
|---|---|---|
| ARENA_HOME | the arena home (bots, database, runtimes.toml) | store, sandbox.runtimes |
| ARENA_DB | the database URL (default: SQLite in the home) | store |
| ARENA_SECRET | the secret key for match seeds (hex) | match.seeds |
| ARENA_SANDBOX | auto, bwrap or none | sandbox |
| ARENA_SANDBOX_CGROUP | auto, off, or the controllers to use | sandbox.cgroup |
| ARENA_SANDBOX_UIDS | the uid range for bots, LOW-HIGH | sandbox.uids |
| ARENA_RUNTIMES | the runtimes file (default: in the home, then /etc) | sandbox.runtimes |
| ARENA_WORKER_CACHE | where a Dask worker unpacks bot versions | tournament.bundles |
| ARENA_TWIRKLE_ENGINE | `python`: Twirkle's playouts without the C engine | games.twirkle.fast |
| ARENA_TOKEN | an account's token for `arena remote login` (else a prompt) | cli.remote |
| COLUMNS | the width of tables when stdout is not a terminal | cli.tables |

One exception: ARENA_TWIRKLE_ENGINE is read by arena.games.twirkle.fast itself, since
the referees also run inside sandboxes, for bots to import, with nothing of arena but
arena/games (tests/test_games_in_sandbox.py): they cannot import this module.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

HOME = "ARENA_HOME"
DB = "ARENA_DB"
SECRET = "ARENA_SECRET"
SANDBOX = "ARENA_SANDBOX"
SANDBOX_CGROUP = "ARENA_SANDBOX_CGROUP"
SANDBOX_UIDS = "ARENA_SANDBOX_UIDS"
RUNTIMES = "ARENA_RUNTIMES"
WORKER_CACHE = "ARENA_WORKER_CACHE"
TOKEN = "ARENA_TOKEN"
COLUMNS = "COLUMNS"


def read(name: str, default: str = "") -> str:
    """The variable's value, or `default` when it is unset."""
    return os.environ.get(name, default)


def home() -> Path:
    """ARENA_HOME, or the per-user data directory."""
    return Path(read(HOME) or platformdirs.user_data_dir("arena"))


def database_url(home_folder: Path) -> str:
    """ARENA_DB, or the SQLite file in the arena home."""
    return read(DB) or f"sqlite:///{home_folder / 'arena.db'}"


def worker_cache() -> Path:
    """ARENA_WORKER_CACHE, or the per-user cache directory's `bots` folder."""
    configured = read(WORKER_CACHE)
    return Path(configured) if configured else Path(platformdirs.user_cache_dir("arena")) / "bots"
