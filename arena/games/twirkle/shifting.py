"""Ruling W6: the optional shift at the end of a turn, one card at a time.

A shift takes the cards of one *source* line from one of its ends and moves
them, one by one, to one end of a *different* target line of two or more
cards, each moved card extending the target line in its own direction. A card
may be lifted only while it touches exactly one card by an edge (a leaf), and
after every single move all lines must stay valid and the layout connected.

Lifting a leaf never disconnects the layout and never breaks a line (it only
shortens the one line it ends), and a card put next to a line's end touches
the layout; so the only check left per move is the two lines through the
target cell, which `Board.compute_mask` answers. The first move of a shift
offers every leaf and every line end; the following moves are fixed (the next
card of the source line to the next cell beyond the target line).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.twirkle.board import Board, LineEnd, Pos


@dataclass(frozen=True)
class Put:
    """Where a lifted card may go: `cell`, extending a line along `direction`."""

    cell: Pos
    direction: Pos


def _masked_without(board: Board, lifted: Pos, cell: Pos) -> int:
    """The mask of `cell` on the board with the card at `lifted` taken away (restored after)."""
    kind = board.cells.pop(lifted)
    try:
        return board.compute_mask(cell)
    finally:
        board.cells[lifted] = kind


def source_line(board: Board, leaf: Pos) -> list[Pos]:
    """The cards of the line that `leaf` ends, starting with `leaf` (it must be a leaf)."""
    x, y = leaf
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if (x + dx, y + dy) in board.cells:
            return [leaf, *board.walk(leaf, (dx, dy))]
    raise AssertionError(f"{leaf} touches no card")


def first_moves(board: Board) -> dict[Pos, list[Put]]:
    """Every leaf that can start a shift, with the cells it may be put on (sorted).

    Line ends are indexed by the kinds their cell accepts and by cell, so each
    leaf looks only at the ends that take its kind, plus the few cells whose
    lines run through the leaf itself (lifting it may open those to more kinds).
    """
    result: dict[Pos, list[Put]] = {}
    ends = board.line_ends()
    by_kind: dict[int, list[LineEnd]] = {}
    by_cell: dict[Pos, list[LineEnd]] = {}
    for end in ends:
        by_cell.setdefault(end.cell, []).append(end)
        mask = board.mask(end.cell)
        while mask:
            low = mask & -mask
            by_kind.setdefault(low.bit_length() - 1, []).append(end)
            mask ^= low
    for leaf in board.leaves():
        kind = board.cells[leaf]
        line = source_line(board, leaf)
        step = (line[1][0] - leaf[0], line[1][1] - leaf[1])
        axis = (abs(step[0]), abs(step[1]))
        source_id = board.line_id(leaf, axis)
        # Cells whose lines run through the leaf: its neighbours, and the cell
        # beyond the far end of its line. Only their masks change when it is lifted.
        x, y = leaf
        affected = {(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1), board.beyond(leaf, step)}
        puts = [
            Put(end.cell, end.direction)
            for end in by_kind.get(kind, [])
            if end.line != source_id and end.cell not in affected
        ]
        for cell in affected:
            for end in by_cell.get(cell, []):
                if end.line != source_id and _masked_without(board, leaf, cell) >> kind & 1:
                    puts.append(Put(end.cell, end.direction))
        if puts:  # W6: the target is a different line (source_id excluded above)
            puts.sort(key=lambda p: (p.cell[1], p.cell[0], p.direction))
            result[leaf] = puts
    return result


def next_move(board: Board, card: Pos, last: Pos, direction: Pos) -> Pos | None:
    """The cell for the next source card `card` after a card was put on `last`, if legal.

    The card must still be a leaf, must not belong to the target line, and the
    next cell beyond the target line must accept it.
    """
    if card not in board.cells or board.degree(card) != 1:
        return None
    axis = (abs(direction[0]), abs(direction[1]))
    if card in board.run(last, axis):
        return None
    cell = board.beyond(last, direction)
    mask = _masked_without(board, card, cell)
    return cell if mask >> board.cells[card] & 1 else None
