"""Bot text as the database stores it: every Python string, on SQLite and PostgreSQL.

A bot writes what it likes to stderr and into its answers, and arena keeps some
of it (a seat's stderr tail, a forfeit's detail quoting an invalid line, a void
match's reason, the replay). PostgreSQL text cannot hold NUL, and neither
database takes a lone surrogate (what `surrogateescape` makes of invalid UTF-8):
both made the whole transaction fail. So those characters are written as
ESCAPE (U+0010, DLE) and four hex digits of their code, ESCAPE itself too, and
read back as they were. Text without them, nearly all, is stored as it is.

Revision 0004 wrote every ESCAPE already stored as ESCAPE "0010", so that older
rows read back unchanged.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import String, Text
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

ESCAPE = "\x10"
#: What neither database stores as text (NUL, lone surrogates), and ESCAPE itself.
_UNSTORABLE = re.compile("[\x00\x10\ud800-\udfff]")
_ESCAPED = re.compile("\x10([0-9a-f]{4})")


def to_stored(text: str) -> str:
    """`text` with NUL, lone surrogates and ESCAPE written as ESCAPE + 4 hex digits.

    >>> to_stored("a\\x00b\\udc80\\x10")
    'a\\x100000b\\x10dc80\\x100010'
    """
    if _UNSTORABLE.search(text) is None:
        return text
    return _UNSTORABLE.sub(lambda found: f"{ESCAPE}{ord(found.group()):04x}", text)


def from_stored(text: str) -> str:
    """The text `to_stored` was given.

    >>> from_stored(to_stored("a\\x00b\\udc80\\x10c")) == "a\\x00b\\udc80\\x10c"
    True
    """
    if ESCAPE not in text:
        return text
    return _ESCAPED.sub(lambda found: chr(int(found.group(1), 16)), text)


class _AnyText(TypeDecorator[str]):
    """A text column that stores any Python string (`to_stored`, `from_stored`)."""

    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return to_stored(value) if isinstance(value, str) else value

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        return from_stored(value) if isinstance(value, str) else value


class BotText(_AnyText):
    """A TEXT column that stores any Python string."""

    impl = Text
    cache_ok = True


class BotString(_AnyText):
    """A VARCHAR column that stores any Python string."""

    impl = String
    cache_ok = True
