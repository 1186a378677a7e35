"""The service's errors, and the one place where arena's errors become HTTP statuses.

Every error arena raises on purpose is an `ArenaError` with a one-line message (and
maybe `details`: a build's output, a check's report); the service answers it as
`{"error": LINE, "details": TEXT}` with the status `status_of` gives it.
"""

from __future__ import annotations

from arena import ArenaError
from arena.errors import ReplayError, StoreError, StoreInputError
from arena.store import AccountError, NotOwnerError, Refused
from arena.submissions.botfiles import BotFolderError


class NotFound(ArenaError, LookupError):
    """No such bot, match, replay or submission (404)."""


class Gone(ArenaError, LookupError):
    """What the service no longer knows: it restarted since (410)."""


class Unauthorized(ArenaError, PermissionError):
    """No token where one is needed, or a forged, revoked, replaced or expired one (401)."""


class Forbidden(ArenaError, PermissionError):
    """A valid account that may not do this: another account's bot, an author's try at an
    organiser's work (403)."""


class TooMany(ArenaError, RuntimeError):
    """Over an account's submission rate (429); `retry_after` in seconds."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class TooLarge(ArenaError, ValueError):
    """A request body over the limit (413)."""


class TooSlow(ArenaError, TimeoutError):
    """A request body that did not arrive in time (408)."""


#: arena's errors by HTTP status, the most specific first (`status_of` takes the first match).
STATUSES: tuple[tuple[type[BaseException], int], ...] = (
    (NotFound, 404),
    (Gone, 410),
    (Unauthorized, 401),
    (Forbidden, 403),
    (NotOwnerError, 403),
    (TooMany, 429),
    (TooLarge, 413),
    (TooSlow, 408),
    (ReplayError, 404),
    (Refused, 409),
    (AccountError, 400),
    (BotFolderError, 422),
    (StoreInputError, 400),
    (StoreError, 503),
)


def status_of(error: ArenaError) -> int:
    """The HTTP status of an error arena raised: 400 for bad input not named above,
    500 for the machine's (an `exit_code` of 1)."""
    for kind, status in STATUSES:
        if isinstance(error, kind):
            return status
    return 500 if error.exit_code == 1 else 400
