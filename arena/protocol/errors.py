"""The bot errors: a bot broke its side of the protocol, and the seat status that causes.

A transport raises them for what it sees of the bytes (the bot ended or stopped
reading, a deadline passed, a line or the output was too long), a session for what
the lines say (not a protocol message, not the answer asked for). Each kind carries
the status its seat is forfeited with (`status`), so the match runner forfeits with
`error.status` and spells no outcome itself; the message is the detail shown.
"""

from __future__ import annotations

from typing import ClassVar

from arena import ArenaError
from arena.status import SeatStatus


class BotError(ArenaError):
    """A bot broke the protocol contract; its seat is forfeited with `status`."""

    #: How the seat's game ends.
    status: ClassVar[SeatStatus] = SeatStatus.CRASH


class BotCrashed(BotError):
    """The bot exited, closed its output, stopped reading, or could not be started."""

    status = SeatStatus.CRASH


class BotTimeout(BotError):
    """The bot did not answer (or read its input) before the deadline."""

    status = SeatStatus.TIMEOUT


class BotProtocolError(BotError):
    """The bot sent something that is not a valid answer (bad JSON, wrong type, too long)."""

    status = SeatStatus.INVALID
