"""What several commands share: the arena home and database, and printing rows."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import typer
from rich.console import Console

from arena.cli.errors import UserError
from arena.cli.safe import json_document, text
from arena.cli.tables import fitted, hidden_note, width_for

if TYPE_CHECKING:  # imported where used: `arena --help` loads no database code
    from arena.store import Store

out = Console(highlight=False)


def fit_output() -> None:
    """Give `out` the width this invocation has (COLUMNS, the terminal's, else PIPE_WIDTH).

    Called once per command: COLUMNS may change between invocations in one process.
    """
    out.width = width_for(out)


@dataclass
class Settings:
    """Global options, set by the app callback."""

    home: Path | None = None
    db: str | None = None


SETTINGS = Settings()


def home() -> Path:
    """The arena home (created if missing); UserError when it cannot be one."""
    from arena.home import HomeError, prepare_home
    from arena.store import default_home

    path = SETTINGS.home or default_home()
    try:
        prepare_home(path)
    except HomeError as error:
        raise UserError(f"{error} (--home / ARENA_HOME)") from None
    except (FileExistsError, NotADirectoryError):
        raise UserError(
            f"arena home {path} is a file, not a folder (--home / ARENA_HOME)"
        ) from None
    except OSError as error:
        raise UserError(f"cannot create the arena home {path}: {error.strerror}") from None
    if not path.is_dir():
        raise UserError(f"arena home {path} is not a folder (--home / ARENA_HOME)")
    if not os.access(path, os.W_OK | os.X_OK):
        raise UserError(f"arena home {path} is not writable (--home / ARENA_HOME)")
    return path


def open_store() -> Store:
    """The database named by --db / ARENA_DB, or the SQLite file in the home; a bot's
    new version starts its rating from its predecessor's (rating.inherited)."""
    from arena.results import rating
    from arena.store import Store, default_url

    if SETTINGS.db:
        check_database_folder(SETTINGS.db)
    return Store(SETTINGS.db or default_url(home()), inherit=rating.inherited)


def check_database_folder(url: str) -> None:
    """UserError for a SQLite `--db` file in a folder that does not exist: a typo makes
    no folders, as `--replay` and `-o` refuse one (the home's own file is made there)."""
    from arena.store import safe_url, sqlite_file

    file = sqlite_file(url)  # None: not a SQLite file, or a URL the store refuses itself
    if file is not None and not file.parent.is_dir():
        raise UserError(f"--db {safe_url(url)}: there is no folder {file.parent}")


def echo_json(data: Any) -> None:
    """Print data as one JSON document (exact texts; display controls spelled as escapes)."""
    typer.echo(json_document(data))


def print_rows(
    rows: list[dict[str, Any]],
    title: str = "",
    columns: list[str] | None = None,
    drop: Sequence[str] | None = None,
    prose: frozenset[str] = frozenset(),
) -> None:
    """Print a list of dicts as a table that fits the terminal (`arena.cli.tables`).

    Every title and cell is shown literally (`safe.text`). `drop` names the columns
    that may be left out when the table is too wide, the least needed first (default:
    from the right, the first two columns kept); `prose` the columns beyond
    `tables.PROSE` that wrap at spaces.
    """
    if not rows:
        out.print(text(f"{title}: nothing yet" if title else "nothing yet"))
        return
    columns = columns or list(rows[0])
    numeric = {c for c in columns if all(isinstance(r.get(c), int | float) for r in rows)}
    numeric -= prose
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    width = out.width
    order = list(reversed(columns[2:])) if drop is None else list(drop)
    table, hidden = fitted(
        columns, cells, numeric=numeric, width=width, title=title, drop=order, prose=prose
    )
    out.print(table, width=width)
    note = hidden_note(hidden, width)
    if note is not None:
        out.print(note, width=width)


def variant_text(variant: dict[str, Any]) -> str:
    """A variant as it is typed on the command line: `rounds=2 pro=true`, never `pro=False`."""
    return " ".join(
        f"{k}={orjson.dumps(v).decode() if isinstance(v, bool) else v}" for k, v in variant.items()
    )


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)
