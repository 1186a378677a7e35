"""What several commands share: the arena home and database, and printing rows."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import typer
from rich.console import Console
from rich.table import Table

from arena.cli.errors import UserError
from arena.cli.safe import json_text, text

if TYPE_CHECKING:  # imported where used: `arena --help` loads no database code
    from arena.store import Store

out = Console(highlight=False)
if not out.is_terminal:  # piped or captured: do not squeeze tables into 80 columns
    out = Console(highlight=False, width=160)


@dataclass
class Settings:
    """Global options, set by the app callback."""

    home: Path | None = None
    db: str | None = None


SETTINGS = Settings()


def home() -> Path:
    """The arena home (created if missing); UserError when it cannot be one."""
    from arena.store import default_home

    path = SETTINGS.home or default_home()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
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
    """The database named by --db / ARENA_DB, or the SQLite file in the home."""
    from arena.store import Store, default_url

    return Store(SETTINGS.db or default_url(home()))


def echo_json(data: Any) -> None:
    """Print data as one JSON document (exact texts; display controls spelled as escapes)."""
    typer.echo(json_text(orjson.dumps(data, default=str).decode()))


def print_rows(
    rows: list[dict[str, Any]], title: str = "", columns: list[str] | None = None
) -> None:
    """Print a list of dicts as a table; every title and cell is shown literally (`safe.text`)."""
    if not rows:
        out.print(text(f"{title}: nothing yet" if title else "nothing yet"))
        return
    columns = columns or list(rows[0])
    table = Table(title=text(title) if title else None, title_justify="left")
    for column in columns:
        numeric = all(isinstance(r.get(column), int | float) for r in rows)
        # fold, never cut: all of a name or detail is shown
        table.add_column(text(column), justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        table.add_row(*[text(_cell(row.get(c))) for c in columns])
    out.print(table)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)
