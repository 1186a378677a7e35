"""`arena bot submit|list|show`: the bot registry."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import echo_json, home, open_store, out, print_rows
from arena.cli.errors import UserError, reports_errors
from arena.cli.safe import text

app = typer.Typer(help="Submit and inspect bots.", no_args_is_help=True)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@app.command()
@reports_errors
def submit(
    folder: Annotated[
        str,
        typer.Argument(
            help="The bot folder (with bot.toml), written as a path: ./mybot, ~/x, /srv/x.",
            show_default=False,
        ),
    ],
    name: Annotated[
        str | None,
        typer.Option(help="Register under this name (a-z, 0-9, -, _; at most 40)."),
    ] = None,
) -> None:
    """Validate a bot folder, smoke-test it against random, and store a new version.

    A new name belongs to the OS user who submits it; only that user may add versions.
    """
    from arena import registry

    store = open_store()
    version, created = registry.submit(store, home(), folder, name)
    bot = name or store.version_names()[version.id or 0][0]
    if created:
        out.print(text(f"registered {bot} version {version.number} ({version.sha256[:12]})"))
    else:
        out.print(text(f"{bot} version {version.number} has the same code; nothing changed"))


@app.command("list")
@reports_errors
def list_bots(as_json: JsonFlag = False) -> None:
    """Every registered bot."""
    from arena import reports

    rows = reports.bots(open_store())
    echo_json(rows) if as_json else print_rows(rows, "bots")


@app.command()
@reports_errors
def show(name: Annotated[str, typer.Argument(help="Bot name.")], as_json: JsonFlag = False) -> None:
    """Versions, games played, ratings and recent forfeits of one bot."""
    from arena import reports

    details = reports.bot_details(open_store(), name)
    if details is None:
        raise UserError(f"no bot called {name!r} (see `arena bot list`)")
    if as_json:
        echo_json(details)
        return
    print_rows(details["versions"], f"{name}: versions")
    print_rows(details["ratings"], "ratings")
    print_rows(
        [{k: v for k, v in f.items() if k != "stderr_tail"} for f in details["recent_forfeits"]],
        "recent forfeits",
    )
    for forfeit in details["recent_forfeits"][:3]:
        if forfeit["stderr_tail"].strip():
            heading = text((f"stderr, match {forfeit['match']}:", "dim"))
            out.print(heading, text(forfeit["stderr_tail"].strip(), block=True), sep="\n")
