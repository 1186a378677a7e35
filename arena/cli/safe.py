"""Showing text that came from a bot (or a file a bot wrote) on a terminal, safely.

Bot names, stderr, forfeit details and replay contents are untrusted. Printed as
rich markup, `[/]` crashes the command and `[link=...]` forges a link; printed raw,
ANSI escapes clear the screen or retitle the window, CR and backspace overwrite
what arena wrote, and bidi overrides reorder a line. So every command renders
such text through `Text` objects built here (never markup) after `visible`, which
spells control characters out as escapes (``\\x1b``, ``\\u202e``). JSON output
keeps the exact text; `json_text` only writes the same characters as JSON escapes.
"""

from __future__ import annotations

import logging
import unicodedata

from rich.console import ConsoleRenderable
from rich.logging import RichHandler
from rich.text import Text

#: Characters that steer the display rather than show: bidi embeddings, overrides,
#: isolates and marks, and the Unicode line and paragraph separators.
_STEERING = (0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
#: Every C0 and C1 control, DEL, and the steering characters.
_UNSAFE = sorted({c for c in range(0xA0) if unicodedata.category(chr(c)) == "Cc"} | set(_STEERING))


def _escape(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_LINE = {code: _escape(code) for code in _UNSAFE}
#: In a multi-line block (a stderr tail) newlines and tabs keep their meaning.
_BLOCK = {code: text for code, text in _LINE.items() if chr(code) not in "\n\t"}
#: JSON from orjson already escapes U+0000-U+001F; these are the rest, as JSON escapes.
_JSON = {code: f"\\u{code:04x}" for code in _UNSAFE if code >= 0x20}


def visible(value: object, *, block: bool = False) -> str:
    """`value` as a string with every control character written as an escape.

    With `block`, newlines and tabs stay (a multi-line stderr tail); otherwise the
    result is one line.

    >>> visible("a\\x1b[2Jb\\u202ec\\rd\\n")
    'a\\\\x1b[2Jb\\\\u202ec\\\\x0dd\\\\x0a'
    >>> visible("line 1\\nline\\t2\\x07", block=True)
    'line 1\\nline\\t2\\\\x07'
    """
    return str(value).translate(_BLOCK if block else _LINE)


def text(*parts: object | tuple[object, str], block: bool = False) -> Text:
    """A rich Text of `parts`, each shown literally (no markup) and `visible`.

    A part is a value, or a (value, style) pair for arena's own emphasis, e.g.
    ``text(("error:", "bold red"), " ", message)``.

    >>> text(("error:", "bold"), " mark[/]up\\x1b").plain
    'error: mark[/]up\\\\x1b'
    """
    shown = Text()
    for part in parts:
        value, style = part if isinstance(part, tuple) else (part, "")
        shown.append(visible(value, block=block), style=style)
    return shown


def json_text(document: str) -> str:
    """JSON text with DEL, C1 controls and bidi characters written as JSON escapes.

    Outside strings JSON text is plain ASCII, so this changes only how string
    contents are spelled: the parsed value is exactly the same.

    >>> json_text('["\\u202e\\x7f"]')
    '["\\\\u202e\\\\u007f"]'
    """
    return document.translate(_JSON)


class SafeRichHandler(RichHandler):
    """RichHandler that shows control characters in log messages as escapes.

    Log lines carry bot text (protocol lines at -vv, forfeit details at -v).
    Newlines stay, so that a logged traceback keeps its lines; bot lines are split
    at newlines before they are logged.
    """

    def render_message(self, record: logging.LogRecord, message: str) -> ConsoleRenderable:
        """Render the message with markup off and control characters visible."""
        record.markup = False
        return super().render_message(record, visible(message, block=True))

    def emit(self, record: logging.LogRecord) -> None:
        """Write the record; once the stream is closed (`arena -vv ... | head`), drop records.

        An OSError must not escape: multiprocessing-logging's receiving thread would
        stop, worker records would fill its pipe, and arena would hang at exit.
        """
        if self._closed_stream:
            return
        try:
            super().emit(record)
        except OSError:
            self._closed_stream = True

    _closed_stream = False
