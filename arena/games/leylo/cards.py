"""LEYLO's fixed facts: the default deck as one data table (ruling L1), card values,
the grid's lines, and the phases and limits of a round.

The referee works with small integer codes for speed; bots and replays only
ever see the card names of the table (``"7"``, ``"joker-red"``, ``"action"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, compress

#: Code of a cleared (empty) cell of a grid.
EMPTY = -1
#: Cells of a grid, and all of them in ascending order.
CELLS = 16
ALL_CELLS = range(CELLS)

#: Phases of a round; the observation's "phase" says which one asks the seats now.
FLIP, TURN, PLACE, CLEAR, CLAIM, OVER = "flip", "turn", "place", "clear", "claim", "over"
#: Cards every player turns up before the first turn (L2).
OPENING_FLIPS = 2
#: L10: a round also ends after this many turns per player (unless its final lap runs).
TURNS_PER_PLAYER = 60

#: The default deck (ruling L1): one row per kind of card as (name, colour, copies).
#: The row index is the card's code: 0..11 are the number cards, whose value is
#: their code; then the three jokers; then the action card (no colour). 111 cards.
DECK_TABLE: tuple[tuple[str, str | None, int], ...] = (
    ("0", "green", 8),
    ("1", "green", 8),
    ("2", "green", 8),
    ("3", "green", 8),
    ("4", "yellow", 8),
    ("5", "yellow", 8),
    ("6", "yellow", 8),
    ("7", "yellow", 8),
    ("8", "red", 8),
    ("9", "red", 8),
    ("10", "red", 8),
    ("11", "red", 8),
    ("joker-green", "green", 3),
    ("joker-yellow", "yellow", 3),
    ("joker-red", "red", 3),
    ("action", None, 6),
)

#: Codes of the special cards.
JOKER_GREEN, JOKER_YELLOW, JOKER_RED, ACTION = 12, 13, 14, 15
JOKERS = frozenset((JOKER_GREEN, JOKER_YELLOW, JOKER_RED))

#: Card name by code, and code by name.
NAMES: tuple[str, ...] = tuple(row[0] for row in DECK_TABLE)
CODES: dict[str, int] = {name: code for code, name in enumerate(NAMES)}
#: Colour by code (None for the action card).
COLOURS: tuple[str | None, ...] = tuple(row[1] for row in DECK_TABLE)

#: What jokers and action cards count in scoring (L6); action cards count 0 with 2 players.
SPECIAL_VALUE = 12

#: The ten lines of a 4x4 grid, as (kind, index, cells); cell = 4 * row + column.
LINES: tuple[tuple[str, int, tuple[int, int, int, int]], ...] = tuple(
    ("row", r, (4 * r, 4 * r + 1, 4 * r + 2, 4 * r + 3)) for r in range(4)
) + tuple(("column", c, (c, c + 4, c + 8, c + 12)) for c in range(4))

#: Orthogonally adjacent cell pairs (a, b) with a < b, in ascending order.
ADJACENT: tuple[tuple[int, int], ...] = tuple(
    sorted(
        [(4 * r + c, 4 * r + c + 1) for r in range(4) for c in range(3)]
        + [(4 * r + c, 4 * r + c + 4) for r in range(3) for c in range(4)]
    )
)


def full_deck() -> list[int]:
    """Every card of the default deck as codes, in table order.

    >>> len(full_deck())
    111
    """
    return [code for code, (_, _, copies) in enumerate(DECK_TABLE) for _ in range(copies)]


def card_value(code: int, players: int) -> int:
    """Points of a card (L6): number cards their value, jokers 12, action cards 12 (0 with 2).

    >>> card_value(7, 3), card_value(JOKER_RED, 2), card_value(ACTION, 3), card_value(ACTION, 2)
    (7, 12, 12, 0)
    """
    if code < JOKER_GREEN:
        return code
    if code == ACTION and players == 2:
        return 0
    return SPECIAL_VALUE


#: The cells of every line, in the order of LINES.
LINE_CELLS: tuple[tuple[int, int, int, int], ...] = tuple(cells for _, _, cells in LINES)

#: The bit of every cell in a face-up mask (bit c set: cell c is face up).
BITS: tuple[int, ...] = tuple(1 << cell for cell in ALL_CELLS)
#: The face-up mask of a grid with every cell face up.
ALL_UP = (1 << CELLS) - 1


def up_mask(up: Sequence[bool]) -> int:
    """The face-up mask of a grid.

    >>> up_mask([True, False, True] + [False] * 13)
    5
    """
    return sum(compress(BITS, up))


class _LinesByMask(dict[int, tuple[int, ...]]):
    """Indexes into LINES of the lines whose four cells are face up, by face-up mask.

    Filled on demand (at most 65,536 masks), so that a lookup is one dict access,
    what a random playout does after every turn; a new mask costs three small-table
    lookups (two rows at a time, then the columns).

    >>> FULL_LINES[0b1111], FULL_LINES[0b0001_0001_0001_0001 | 0b0100_0100_0100_0100]
    ((0,), (4, 6))
    """

    def __missing__(self, mask: int) -> tuple[int, ...]:
        columns = mask & mask >> 4 & mask >> 8 & mask >> 12 & 0xF  # bit c: column c is up
        lines = _ROWS_UP[mask & 0xFF] + _ROWS_UP_BELOW[mask >> 8] + _COLUMNS_UP[columns]
        self[mask] = lines
        return lines


def _full_rows(byte: int, first: int) -> tuple[int, ...]:
    """Rows `first` and `first` + 1 whose cells are all up in `byte` (their 8 bits)."""
    return tuple(first + half for half in (0, 1) if byte >> 4 * half & 0xF == 0xF)


_ROWS_UP = tuple(_full_rows(byte, 0) for byte in range(256))
_ROWS_UP_BELOW = tuple(_full_rows(byte, 2) for byte in range(256))
_COLUMNS_UP = tuple(tuple(4 + c for c in range(4) if bits >> c & 1) for bits in range(16))
FULL_LINES = _LinesByMask()


def cells_down(mask: int) -> tuple[int, ...]:
    """The face-down cells of a grid without empty cells, ascending, by face-up mask:
    two small-table lookups (the upper and lower eight cells), where a scan of the grid
    would look at all 16.

    >>> cells_down(ALL_UP ^ 0b1010), cells_down(ALL_UP ^ (1 << 15 | 1 << 8))
    ((1, 3), (8, 15))
    """
    return _DOWN_LOW[mask & 0xFF] + _DOWN_HIGH[mask >> 8]


def _cells_down_of_byte(byte: int, first: int) -> tuple[int, ...]:
    """Cells `first` .. `first` + 7 whose bit in `byte` is clear."""
    return tuple(first + bit for bit in range(8) if not byte >> bit & 1)


_DOWN_LOW = tuple(_cells_down_of_byte(byte, 0) for byte in range(256))
_DOWN_HIGH = tuple(_cells_down_of_byte(byte, 8) for byte in range(256))


#: Which cards may share a line, by code: the colour (0-2) of a number card or joker,
#: 3 for the action card. Cards of different groups never form a line.
_LINE_GROUP: tuple[int, ...] = tuple(
    3 if colour is None else ("green", "yellow", "red").index(colour) for _, colour, _ in DECK_TABLE
)


def line_by_rule(codes: Sequence[int]) -> bool:
    """True when four face-up cards are equal (L4): one value, or action cards only.

    A joker stands for any number card of its own colour. The rule as written; the
    referee asks `is_line`, which gives the same answer with one lookup.

    >>> line_by_rule([10, 10, 10, JOKER_RED]), line_by_rule([10, 10, 10, JOKER_YELLOW])
    (True, False)
    """
    if EMPTY in codes:
        return False
    group = _LINE_GROUP[codes[0]]
    if any(_LINE_GROUP[code] != group for code in codes):  # also tells actions from jokers
        return False
    numbers = {code for code in codes if code < JOKER_GREEN}
    return len(numbers) <= 1  # jokers fill in the one number of their colour


#: The sets of distinct codes a line can show (`line_by_rule` depends on that set only):
#: one code, or a number and the joker of its colour. Three distinct codes never form a
#: line (two numbers, or two groups); a test checks every four cards against the rule.
_LINE_KINDS: frozenset[frozenset[int]] = frozenset(
    frozenset(kinds)
    for size in (1, 2)
    for kinds in combinations(range(EMPTY, len(NAMES)), size)
    if line_by_rule(kinds)
)


def is_line(codes: Iterable[int]) -> bool:
    """True when four face-up cards are equal (L4), as `line_by_rule` says: one lookup.

    >>> is_line([10, 10, 10, JOKER_RED]), is_line([10, 10, 10, JOKER_YELLOW])
    (True, False)
    >>> is_line([ACTION] * 4), is_line([ACTION, ACTION, ACTION, JOKER_RED])
    (True, False)
    """
    return frozenset(codes) in _LINE_KINDS


def shows_action(cards: list[int], up: list[bool]) -> bool:
    """True when a grid has a face-up action card (who may claim, L5).

    >>> shows_action([ACTION, ACTION] + [0] * 14, [False, True] + [False] * 14)
    True
    """
    if ACTION not in cards:  # the usual case, settled by one scan in C
        return False
    cell = -1
    for _ in range(cards.count(ACTION)):
        cell = cards.index(ACTION, cell + 1)
        if up[cell]:
            return True
    return False


def codes_from_names(names: Sequence[str]) -> list[int]:
    """Card codes of a list of card names; ValueError on an unknown name."""
    try:
        return [CODES[name] for name in names]
    except KeyError as error:
        raise ValueError(f"unknown LEYLO card {error.args[0]!r}") from None
