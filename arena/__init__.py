"""arena: a tournament and bot-competition platform for card games.

`ArenaError` is here, in the package's face, so that every layer can derive from it,
the referees too: they run inside sandboxes with nothing of arena but arena/games and
this file (arena.sandbox.launcher's referees' copy).
"""

__version__ = "0.1.0"


class ArenaError(Exception):
    """The root of every error arena raises on purpose, with the exit code it ends a
    command with: the command line maps it once (arena.cli.errors.reports_errors) to
    one line on stderr and `exit_code`. 2: bad input (the default); 1: the machine or
    the database failed (an environment error); 130: interrupted (128 + SIGINT);
    3, 4, 5: `arena remote`'s unreachable server, refused token, refused submission.
    `details` (a compiler's error, a bot's stderr) is shown below that line."""

    exit_code = 2
    details = ""
