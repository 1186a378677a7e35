"""Errors that end a command with a one-line message, kept apart from the code that
raises them so that the command line can name them without importing that code
(`arena --help` loads no database or schema code)."""

from __future__ import annotations

from arena import ArenaError


class StoreError(ArenaError, RuntimeError):
    """The database cannot be opened or used (a one-line reason for the user).

    An environment error (unreachable, locked, full, read-only): exit code 1.
    """

    exit_code = 1


class StoreInputError(StoreError):
    """Bad input about the database (a malformed URL or ARENA_SECRET): exit code 2."""

    exit_code = 2


class ReplayError(ArenaError, ValueError):
    """A replay file that cannot be read or does not check out."""
