"""Showing text that came from a bot (or a file a bot wrote) on a terminal, safely.

Bot names, stderr, forfeit details and replay contents are untrusted. Printed as
rich markup, `[/]` crashes the command and `[link=...]` forges a link; printed raw,
ANSI escapes clear the screen or retitle the window, CR and backspace overwrite
what arena wrote, and bidi overrides reorder a line. So every command renders
such text through `Text` objects built here (never markup) after `visible`, which
spells control characters out as escapes (``\\x1b``, ``\\u202e``; the list is
`arena.controls`, which the HTML viewer shares). JSON output
keeps the exact text; `json_text` only writes the same characters as JSON escapes.
"""

from __future__ import annotations

import logging

from rich.console import ConsoleRenderable
from rich.logging import RichHandler
from rich.text import Text

from arena.controls import CODES, json_escape
from arena.controls import visible as visible  # the one list, shared with the HTML viewer

#: JSON from orjson already escapes U+0000-U+001F; these are the rest, as JSON escapes.
_JSON = {code: json_escape(code) for code in CODES if code >= 0x20}


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
    """JSON text with DEL, C1 controls, bidi and other format characters as JSON escapes.

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
