"""The `arena` command: thin typer commands that parse, call one layer, and render."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import multiprocessing_logging
import typer

from arena.cli import bot, demo, doctor, games, leaderboard, play, replay, tournament
from arena.cli.common import SETTINGS
from arena.cli.safe import SafeRichHandler

app = typer.Typer(
    name="arena",
    help="Run bots written in any language against each other at card games.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)


@app.callback()
def setup(
    verbose: Annotated[
        int, typer.Option("--verbose", "-v", count=True, help="-v: info, -vv: every protocol line")
    ] = 0,
    home: Annotated[
        Path | None,
        typer.Option(envvar="ARENA_HOME", help="Arena home: database and stored bots."),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(envvar="ARENA_DB", help="SQLAlchemy URL (default: SQLite in the home)."),
    ] = None,
) -> None:
    """Run bots written in any language against each other at card games."""
    SETTINGS.home, SETTINGS.db = home, db
    level = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    logging.basicConfig(
        level=level,
        format="%(name)s: %(message)s",
        handlers=[SafeRichHandler(show_path=False, markup=False)],
        force=True,
    )
    # Worker processes log through a queue to this process, which alone writes the
    # lines: one place, no interleaved half-lines from parallel matches.
    multiprocessing_logging.install_mp_handler()


app.command("games")(games.list_games)
app.command("play")(play.play)
app.command("demo")(demo.demo)
app.command("leaderboard")(leaderboard.leaderboard)
app.command("doctor")(doctor.doctor)
app.add_typer(bot.app, name="bot")
app.add_typer(tournament.app, name="tournament")
app.add_typer(replay.app, name="replay")


def main() -> None:
    """Console entry point."""
    app()
