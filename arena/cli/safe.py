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
import re
import sys
from typing import Any

import orjson
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


def json_document(data: Any) -> str:
    """`data` as one JSON document, exact, with `json_text`'s escapes.

    A byte a bot wrote that was not UTF-8 is a lone surrogate in arena's text, which
    orjson refuses; JSON allows it as an escape (`\\udcff`), and Python's `json.loads`
    gives the exact text back. So when orjson refuses, every string's surrogates (and
    U+0010, the mark) are marked as U+0010 and four hex digits, and each mark, which
    orjson writes `\\u0010`, becomes the escape of the character it stood for.

    >>> json_document({"k\\udcff": ["\\x10 \\\\u0010dcff \\udcfe"]})
    '{"k\\\\udcff":["\\\\u0010 \\\\\\\\u0010dcff \\\\udcfe"]}'
    """
    try:
        document = orjson.dumps(data, default=str).decode()
    except TypeError:  # a lone surrogate (anything else fails again below)
        marked = orjson.dumps(_marked(data), default=str).decode()
        document = _MARKS.sub(_unmarked, marked)
    return json_text(document)


#: What `_marked` writes as U+0010 and four hex digits.
_UNMARKED = re.compile("[\x10\ud800-\udfff]")
#: In orjson's output: an escaped backslash (skipped whole), or a mark and its digits.
_MARKS = re.compile(r"\\(?:\\|u0010([0-9a-f]{4}))")


def _marked(value: Any) -> Any:
    if isinstance(value, str):
        return _UNMARKED.sub(lambda found: f"\x10{ord(found.group()):04x}", value)
    if isinstance(value, dict):
        return {_marked(k): _marked(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_marked(v) for v in value]
    return value


def _unmarked(found: re.Match[str]) -> str:
    return found.group() if found.group(1) is None else f"\\u{found.group(1)}"


class LineHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Log records to stderr one per line, `logger: message`, nothing wrapped or added.

    A protocol line at -vv is the message exactly as it went over the pipe, so it can be
    copied and sent to a bot by hand; its control characters (none in arena's own JSON)
    are written as escapes, so a record is always one line. A traceback keeps its lines.
    """

    def __init__(self) -> None:
        super().__init__()  # sys.stderr, looked up at each record (captured in tests)

    def format(self, record: logging.LogRecord) -> str:
        """`logger: message`, a warning or worse said so (`arena.sandbox: warning: ...`)."""
        message = visible(record.getMessage())
        if record.levelno >= logging.WARNING:
            message = f"{record.levelname.lower()}: {message}"
        if record.exc_info:
            shown = logging.Formatter().formatException(record.exc_info)
            message += "\n" + visible(shown, block=True)
        return f"{record.name}: {message}"

    def emit(self, record: logging.LogRecord) -> None:
        """Write the record; once the stream is closed (`arena -vv ... | head`), drop records.

        An OSError must not escape: multiprocessing-logging's receiving thread would
        stop, worker records would fill its pipe, and arena would hang at exit.
        """
        if self._closed_stream:
            return
        try:
            self.stream = sys.stderr
            super().emit(record)
        except OSError:
            self._closed_stream = True

    def handleError(self, record: logging.LogRecord) -> None:
        """A closed stderr while writing: stop writing rather than print a traceback."""
        self._closed_stream = True

    _closed_stream = False
