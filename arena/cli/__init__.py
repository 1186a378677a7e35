"""The `arena` command: thin typer commands that parse, call one layer, and render."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Annotated

import multiprocessing_logging
import typer

from arena.cli import (
    bot,
    db,
    demo,
    doctor,
    games,
    init,
    ladder,
    leaderboard,
    play,
    remote,
    replay,
    serve,
    tournament,
    user,
)
from arena.cli import match as match_cli
from arena.cli.common import SETTINGS, fit_output
from arena.cli.group import ArenaGroup
from arena.cli.safe import LineHandler

app = typer.Typer(
    name="arena",
    cls=ArenaGroup,
    rich_markup_mode=None,
    help="Run bots written in any language against each other at card games.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)


@app.callback()
def setup(
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose",
            "-v",
            count=True,
            help="-v: arena's events, -vv: every protocol line, -vvv: libraries' logs too",
        ),
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
    fit_output()
    # -v: arena's own events; -vv: every protocol line too; -vvv: the libraries' logs
    # (Alembic, SQLAlchemy, Dask) as well, which at -v would bury arena's in theirs.
    level = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    logging.getLogger("arena").setLevel(level)
    logging.getLogger().setLevel(logging.DEBUG if verbose >= 3 else logging.WARNING)
    # Logs go to stderr, one record a line: stdout carries only data (tables, --json).
    handler = LineHandler()
    # Worker processes log through a queue to this process, which alone writes the
    # lines: one place, no interleaved half-lines from parallel matches. The local pool
    # forks its workers explicitly (arena.tournament.executors), so this works whatever
    # the interpreter's default start method is (forkserver from Python 3.14 on), which
    # `install_mp_handler()` would insist be fork; hence the handler is installed here.
    logging.getLogger().handlers = [_relay(handler)]


_RELAY: list[_Relay] = []


class _Relay(multiprocessing_logging.MultiProcessingHandler):  # type: ignore[misc]
    """The library's relay, closed without waiting out its thread's 0.2 s poll at exit."""

    def close(self) -> None:
        """Let the thread emit what is queued, then stop; it is a daemon and needs no join."""
        deadline = time.monotonic() + 2.0
        while self.queue.qsize() and time.monotonic() < deadline:
            time.sleep(0.002)  # records of workers still being written out
        self._is_closed = True
        self._receive_thread.join(0.02)  # the last record may be mid-write
        self.sub_handler.close()
        logging.Handler.close(self)


def _relay(handler: logging.Handler) -> logging.Handler:
    """The one relay of this process (a command run twice in a process, as in tests, reuses it)."""
    if not _RELAY:
        _RELAY.append(_Relay("arena-log-relay", handler))
        # Records still unsent when arena exits are dropped rather than waited for: a
        # closed stderr (`arena -vv ... 2>&1 | head`) must not hang the exit.
        _RELAY[0].queue.cancel_join_thread()
    relay = _RELAY[0]
    relay.sub_handler = handler
    relay.setFormatter(handler.formatter)
    return relay


app.command("games")(games.list_games)
app.command("play")(play.play)
app.command("match")(match_cli.match)
app.command("compare")(match_cli.compare)
app.command("demo")(demo.demo)
app.command("leaderboard")(leaderboard.leaderboard)
app.command("doctor")(doctor.doctor)
app.command("init")(init.init)
app.command("docs")(init.docs)
app.command("serve")(serve.serve)
app.add_typer(bot.app, name="bot")
app.add_typer(tournament.app, name="tournament")
app.add_typer(ladder.app, name="ladder")
app.add_typer(replay.app, name="replay")
app.add_typer(db.app, name="db")
app.add_typer(user.app, name="user")
app.add_typer(remote.app, name="remote")


def main() -> None:
    """Console entry point (`arena.cli.group` holds its conventions: errors, closed pipes)."""
    app()
