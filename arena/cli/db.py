"""`arena db current|upgrade`: the database's schema revision, and bringing it to the newest.

Every other command upgrades an older database on first use too (saying so on
stderr); `arena db upgrade` does it on purpose, e.g. before a long tournament or
on a shared PostgreSQL database before the organisers' machines use it.
"""

from __future__ import annotations

import typer

from arena.cli.common import SETTINGS, echo_json, home, out
from arena.cli.errors import reports_errors
from arena.cli.safe import text

app = typer.Typer(
    rich_markup_mode=None,
    help="The database's schema: which revision, and upgrading it.",
    no_args_is_help=True,
)


def _url() -> str:
    from arena.cli.common import check_database_folder
    from arena.store import default_url

    if SETTINGS.db:
        check_database_folder(SETTINGS.db)
    return SETTINGS.db or default_url(home())


@app.command()
@reports_errors
def current(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a line."),
) -> None:
    """The database's schema revision and the newest one this arena knows (changes nothing)."""
    from arena.store import NEW_DATABASE, safe_url, schema_revision
    from arena.store.migrations import UNVERSIONED

    url = _url()
    found, newest = schema_revision(url)
    if as_json:
        echo_json({"database": safe_url(url), "revision": found, "newest": newest})
        return
    if found == NEW_DATABASE:
        line = f"no database yet (the first command that uses it creates it at {newest})"
    elif found == newest:
        line = f"revision {found}, the newest (up to date)"
    else:
        line = (
            f"revision {found or UNVERSIONED}, newest {newest} (arena db upgrade brings it there)"
        )
    out.print(text(f"{safe_url(url)}: {line}"))


@app.command()
@reports_errors
def upgrade() -> None:
    """Bring the database to the newest schema revision (a new one is created there)."""
    from arena.store import Store, safe_url, schema_revision

    url = _url()
    Store(url).close()
    found, _newest = schema_revision(url)
    out.print(text(f"{safe_url(url)}: at revision {found} (the newest)"))
