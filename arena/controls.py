"""The characters arena never shows raw, and how it spells them: one list for every screen.

Text from a bot (its name, stderr, forfeit details, a replay's strings) may hold
characters that steer a display instead of showing: ANSI escapes and CR on a
terminal, a NUL, bidi overrides that draw "evil" as "live" (on a terminal and in a
browser alike), zero-width and tag characters that hide text or make two names look
the same. The terminal (arena.cli.safe) and the HTML replay viewer (arena.viewer,
which hands `RANGES` to its scripts) both spell each of them as an escape with
`visible`, so a text reads the same on both.

The list is every control (Unicode category Cc: C0, DEL, C1), every format character
(Cf: bidi embeddings, overrides, isolates and marks, zero-width space and joiners,
the BOM, the soft hyphen, invisible operators, tag characters) and the line and
paragraph separators (Zl, Zp), of Unicode 15.1 (Python 3.13's), which holds those of
every older Unicode; tests/test_viewer.py checks it against the running Python's tables
(a character that an older table has not assigned yet may be in the list). Written out
because scanning the tables at import costs a tenth of a second on every command.

Bytes a bot writes that are not UTF-8 reach arena's text as lone surrogates
(`surrogateescape`: 0xff is U+DCFF), so that they are stored exactly; `visible` and
`spelled` write them as the byte, `\\xff`. The viewer never gets one: a replay
spells them before it is JSON.
"""

from __future__ import annotations

import re

#: (first, last) code points, inclusive, in order.
RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),  # C0 controls: NUL, ESC, CR, tab, newline ...
    (0x007F, 0x009F),  # DEL and the C1 controls
    (0x00AD, 0x00AD),  # soft hyphen
    (0x0600, 0x0605),  # Arabic number signs
    (0x061C, 0x061C),  # Arabic letter mark
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),  # Mongolian vowel separator
    (0x200B, 0x200F),  # zero-width space, non-joiner, joiner; LRM, RLM
    (0x2028, 0x202E),  # line and paragraph separators; LRE, RLE, PDF, LRO, RLO
    (0x2060, 0x2064),  # word joiner, invisible operators
    (0x2066, 0x206F),  # LRI, RLI, FSI, PDI and the deprecated format characters
    (0xFEFF, 0xFEFF),  # zero-width no-break space (BOM)
    (0xFFF9, 0xFFFB),  # interlinear annotation
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls (0x13439-F: Unicode 15)
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),  # language tag
    (0xE0020, 0xE007F),  # tag characters: invisible ASCII
)
#: Every code point of `RANGES`.
CODES: frozenset[int] = frozenset(c for first, last in RANGES for c in range(first, last + 1))


def escape(code: int) -> str:
    """How a character of the list is shown: `\\x1b`, `\\u202e`, `\\U000e0041`.

    >>> escape(0x1B), escape(0x202E), escape(0xE0041)
    ('\\\\x1b', '\\\\u202e', '\\\\U000e0041')
    """
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def json_escape(code: int) -> str:
    """The same character as a JSON string escape (a surrogate pair beyond U+FFFF).

    >>> json_escape(0x7F), json_escape(0xE0041)
    ('\\\\u007f', '\\\\udb40\\\\udc41')
    """
    if code < 0x10000:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def _surrogate(code: int) -> str:
    """How a lone surrogate is shown: `\\xff` for U+DCFF, the byte 0xff a bot wrote that
    was not UTF-8 (arena reads bot output with `surrogateescape`); `\\ud800` otherwise."""
    return escape(code - 0xDC00) if 0xDC80 <= code <= 0xDCFF else escape(code)


#: Every lone surrogate's spelling. No terminal, file or JSON encoder takes them raw.
SURROGATES: dict[int, str] = {code: _surrogate(code) for code in range(0xD800, 0xE000)}
_LONE = re.compile("[\ud800-\udfff]")


def spelled(text: str) -> str:
    """`text` with its lone surrogates written as escapes (`SURROGATES`), nothing else
    changed: what a JSON document for people (a replay) quotes of a bot's bytes.

    >>> spelled("a\\udcff\\udcfe b \\ud800 \\\\xff")
    'a\\\\xff\\\\xfe b \\\\ud800 \\\\xff'
    """
    return text if _LONE.search(text) is None else text.translate(SURROGATES)


_LINE = {code: escape(code) for code in CODES} | SURROGATES
#: In a multi-line block (a stderr tail) newlines and tabs keep their meaning.
_BLOCK = {code: text for code, text in _LINE.items() if chr(code) not in "\n\t"}


def visible(value: object, *, block: bool = False) -> str:
    """`value` as a string with every character of the list, and every lone surrogate
    (`SURROGATES`: a byte a bot wrote that was not UTF-8 shows as `\\xff`), written as an
    escape.

    With `block`, newlines and tabs stay (a multi-line stderr tail); otherwise the
    result is one line.

    >>> visible("a\\x1b[2Jb\\u202ec\\rd\\n\\x00")
    'a\\\\x1b[2Jb\\\\u202ec\\\\x0dd\\\\x0a\\\\x00'
    >>> visible("bad \\udcff\\udcc0\\udcaf")
    'bad \\\\xff\\\\xc0\\\\xaf'
    >>> visible("line 1\\nline\\t2\\x07\\u200b", block=True)
    'line 1\\nline\\t2\\\\x07\\\\u200b'
    """
    return str(value).translate(_BLOCK if block else _LINE)
