"""arena's one status vocabulary: how a seat, a match and a tournament stand.

Every outcome arena records or shows is a member of one of these enums; nothing else
spells one (tests/test_status_vocabulary.py greps the package for stray literals). They
are `StrEnum`s, so a member is stored and written to JSON as its value ("timeout"), and
the database, replays and `--json` output of before read the same.

Adding an outcome means adding a member here (with its docstring: what happened and
who is to blame), then teaching the places that decide it; nothing that only stores or
shows a status has to change.
"""

from __future__ import annotations

from enum import StrEnum


class SeatStatus(StrEnum):
    """How a seat's game ended."""

    OK = "ok"
    """Played every decision itself."""
    CRASH = "crash"
    """The bot exited, closed its output, or could not start."""
    TIMEOUT = "timeout"
    """The bot did not answer, or did not read, before a deadline."""
    INVALID = "invalid"
    """The bot sent something that is not a valid protocol message."""
    ILLEGAL = "illegal"
    """The bot answered a decision that was not offered."""
    SUSPENDED = "suspended"
    """Not played: the bot was suspended from the tournament after repeated forfeits."""


class MatchStatus(StrEnum):
    """How a whole match ended."""

    NORMAL = "normal"
    """Every seat played to the end."""
    FORFEIT = "forfeit"
    """At least one seat was forfeited; the game was finished by the fallback policy."""
    PLATFORM_ERROR = "platform-error"
    """arena failed (not a bot): the match is void and never rated."""
    DECISION_LIMIT = "decision-limit"
    """The game was not over after its `max_decisions` (arena.games.GameSpec), a bound
    that every legal game stays within: the referee, so arena, is at fault, never a bot.
    The match is void and never rated; the seats keep their own statuses (a forfeit
    before the limit stays one) and the replay up to the limit is kept to investigate."""

    @property
    def void(self) -> bool:
        """Whether a match that ended so is void: arena's fault, never rated or counted."""
        return self in VOID


#: The statuses of a void match, in a fixed order (a query's `IN (...)` stays the same).
VOID: tuple[MatchStatus, ...] = (MatchStatus.PLATFORM_ERROR, MatchStatus.DECISION_LIMIT)


class TournamentStatus(StrEnum):
    """Where a tournament stands."""

    SCHEDULED = "scheduled"
    """Its schedule is written; no match has started."""
    RUNNING = "running"
    """A runner is playing it (or was, and died without a word: `tournament resume`)."""
    INTERRUPTED = "interrupted"
    """Stopped by Ctrl-C or a signal; `tournament resume` plays what is left."""
    FINISHED = "finished"
    """Every scheduled match is recorded."""
    CANCELLED = "cancelled"
    """Stopped for good by `tournament cancel`: what was played stays, nothing more runs."""
