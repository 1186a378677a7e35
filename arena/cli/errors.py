"""Turning expected failures into a one-line message and exit code 2, never a traceback."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console

from arena import ArenaError
from arena.cli.safe import text

P = ParamSpec("P")
R = TypeVar("R")

#: Messages for people go to stderr; data (tables, JSON) goes to stdout.
err = Console(stderr=True, highlight=False)


class UserError(ArenaError, ValueError):
    """Bad input from the command line: reported in one line, exit code 2."""


#: Every error arena raises on purpose: one line and its `exit_code`, never a traceback.
EXPECTED = ArenaError
#: The exit code of a command stopped by Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130


def fail(message: str, code: int = 2, details: str = "") -> typer.Exit:
    """Print `error: message` to stderr and return the Exit to raise.

    The message may quote a bot (its name, stderr, output), so it is shown
    literally and on one line: control characters, newlines included, as escapes.
    `details` (a compiler's error, a bot's stderr) follows as a block below that
    line, its newlines kept and every other control character escaped.
    """
    err.print(text(("error:", "bold red"), " ", message), soft_wrap=True)
    if details.strip():
        err.print(text(details.strip("\n"), block=True), soft_wrap=True)
    return typer.Exit(code)


def reports_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Wrap a command so that expected errors end it with one line and exit code 2
    (1 for a database that cannot be used: unreachable, locked, full, read-only)."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except EXPECTED as error:
            # each error says its own code (2: bad input; 1: the machine or database)
            raise fail(str(error), error.exit_code, error.details) from None
        except KeyboardInterrupt:  # a tournament run reports its own, with a resume hint
            raise fail("interrupted", code=INTERRUPTED) from None

    return wrapper
