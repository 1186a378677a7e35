"""LEYLO cards: the default deck as one data table (ruling L1), card values and lines.

The referee works with small integer codes for speed; bots and replays only
ever see the card names of the table (``"7"``, ``"joker-red"``, ``"action"``).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Code of a cleared (empty) cell of a grid.
EMPTY = -1

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


def is_line(codes: Sequence[int]) -> bool:
    """True when four face-up cards are equal (L4): one value, or action cards only.

    A joker stands for any number card of its own colour.

    >>> is_line([10, 10, 10, JOKER_RED]), is_line([10, 10, 10, JOKER_YELLOW])
    (True, False)
    >>> is_line([ACTION] * 4), is_line([ACTION, ACTION, ACTION, JOKER_RED])
    (True, False)
    """
    if EMPTY in codes:
        return False
    if ACTION in codes:
        return all(code == ACTION for code in codes)
    numbers = {code for code in codes if code < JOKER_GREEN}
    colours = {COLOURS[code] for code in codes}
    return len(numbers) <= 1 and len(colours) == 1


def codes_from_names(names: Sequence[str]) -> list[int]:
    """Card codes of a list of card names; ValueError on an unknown name."""
    try:
        return [CODES[name] for name in names]
    except KeyError as error:
        raise ValueError(f"unknown LEYLO card {error.args[0]!r}") from None
