"""The root command's conventions: one-line usage errors, quiet closed pipes, plain help.

Click's own reports of bad command lines are a usage block and a boxed message; the
user asked for one thing and gets five lines. arena says `error: MESSAGE (see
'arena CMD --help')` on one line and exits 2, as its own bad-input errors do
(`arena.cli.errors`).

A closed stdout (`arena tournament show 3 | head`) is not a failure of arena's: it
ends quietly with exit status 141 (128 + SIGPIPE), what a shell reports for a program
killed by SIGPIPE, the convention of git, cat and Python's own advice, so that
`set -o pipefail` scripts can still tell a cut-off listing from a complete one.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import typer
import typer.core

try:  # typer 0.2x runs on its own copy of click, older typer on click itself
    from typer import _click as click  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # pragma: no cover - depends on the installed typer
    import click  # type: ignore[no-redef,unused-ignore]

from arena.cli.safe import visible

#: The exit status of a command whose output was closed early (128 + SIGPIPE).
CLOSED_PIPE = 128 + signal.SIGPIPE
#: The exit status of a command line that could not be parsed.
USAGE = 2


class ArenaGroup(typer.core.TyperGroup):
    """The `arena` group: reports parser errors in one line and ends quietly on a closed pipe."""

    def main(self, args: Sequence[str] | None = None, *rest: Any, **extra: Any) -> Any:
        extra["standalone_mode"] = False
        was_null = _is_devnull(sys.stdout)
        try:
            code = super().main(args, *rest, **extra)
        except SystemExit as exit:
            # typer's and rich's own handlers of a closed pipe exit 1, after pacifying
            # stdout (typer) or pointing it at /dev/null (rich's Console.on_broken_pipe)
            closed = _pacified(sys.stdout) or (not was_null and _is_devnull(sys.stdout))
            raise SystemExit(CLOSED_PIPE if closed else exit.code) from None
        except click.exceptions.NoArgsIsHelpError as error:
            error.show()  # `arena bot` alone: the group's help, as asked for
            raise SystemExit(USAGE) from None
        except click.exceptions.UsageError as error:
            raise SystemExit(usage_error(error)) from None
        except click.exceptions.ClickException as error:
            click.echo(f"error: {visible(error.format_message())}", err=True)
            raise SystemExit(error.exit_code) from None
        except typer.Abort:
            click.echo("error: aborted", err=True)
            raise SystemExit(1) from None
        except BrokenPipeError:
            raise SystemExit(closed_pipe()) from None
        raise SystemExit(code if isinstance(code, int) else 0)


def usage_error(error: click.exceptions.UsageError) -> int:
    """Print a parser error as one line naming the help to read; its exit status."""
    where = error.ctx.command_path if error.ctx is not None else "arena"
    message = visible(error.format_message()).rstrip(".")
    click.echo(f"error: {message} (see '{where} --help')", err=True)
    return USAGE


def closed_pipe() -> int:
    """Point stdout at /dev/null, so the flush at exit cannot fail again; the exit status."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return CLOSED_PIPE


def _pacified(stream: object) -> bool:
    return type(stream).__name__ == "PacifyFlushWrapper"


def _is_devnull(stream: TextIO) -> bool:
    """True when `stream`'s descriptor is /dev/null (where a closed pipe's output goes)."""
    try:
        here, null = os.fstat(stream.fileno()), os.stat(os.devnull)
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's captured stream)
        return False
    return (here.st_dev, here.st_ino) == (null.st_dev, null.st_ino)
