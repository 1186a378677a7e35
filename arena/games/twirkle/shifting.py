"""Ruling W6: the optional shift at the end of a turn, one card at a time.

A shift takes the cards of one *source* line from one of its ends and moves
them, one by one, to one end of a *different* target line of two or more
cards, each moved card extending the target line in its own direction. A card
may be lifted only while it touches exactly one card by an edge (a leaf), and
after every single move all lines must stay valid and the layout connected.

Lifting a leaf never disconnects the layout and never breaks a line (it only
shortens the one line it ends), and a card put next to a line's end touches
the layout; so the only check left per move is the two lines through the
target cell, which the board's masks answer. The first move of a shift offers
every leaf with a put and every line end; the following moves are fixed (the
next card of the source line to the next cell beyond the target line).

Which leaves can start a shift is asked at the end of almost every turn. Lifting a
leaf changes the masks of only its *near* cells: its empty neighbours and the cell
beyond the far end of its line. Before the lift none of them accepts the leaf's own
kind (each lies beside a run holding the leaf: the leaf alone across its line, its
line along it), so every line end that accepts the kind now is a put, none of them
near, and the near cells can only add puts, checked with the leaf taken away.

Cells are the board's integers and a put is a line end (`board.end_of`).
"""

from __future__ import annotations

from arena.games.twirkle.board import (
    LEFT,
    RANK_BIT,
    RANK_STEP,
    RANKS,
    RIGHT,
    WIDTH,
    Board,
    Cell,
    run_accepts,
)

#: The step of the lowest rank in a set of ranks (the direction of one line ending there).
LOWEST_STEP: tuple[int, ...] = (
    0,
    *(RANK_STEP[(ranks & -ranks).bit_length() - 1] for ranks in range(1, 16)),
)


class ShiftStarts:
    """Which leaves can start a shift, and where each may go, for one board version."""

    def __init__(self, board: Board):
        """The shift starts of `board` as it is now."""
        self.board = board
        self.version = board.version
        self._liftable: list[Cell] | None = None

    def liftable(self) -> list[Cell]:
        """The leaves that have at least one put, sorted by (y, x)."""
        if self._liftable is None:
            self._liftable = _leaves_with_puts(self.board)
        return self._liftable

    def puts(self, leaf: Cell) -> list[int]:
        """Every line end the card on `leaf` may go to, sorted (cell, then direction)."""
        board = self.board
        kind = board.grid[leaf]
        end_ranks, bit = board.end_ranks, 1 << kind
        found = [  # the ends accepting the kind now (see the module docstring) ...
            4 * cell + rank
            for cell, mask in board.end_masks.items()
            if mask & bit
            for rank in RANKS[end_ranks[cell]]
        ]
        found += _near_puts(board, leaf, kind)  # ... and those the lift opens
        found.sort()
        return found


def _leaves_with_puts(board: Board) -> list[Cell]:
    """The leaves whose card has somewhere to go (`ShiftStarts.puts` is not empty), sorted.

    A leaf whose kind some line end accepts has a put; the others have one only near.
    """
    grid = board.grid
    taken = board.ends_taking()
    return [
        leaf
        for leaf in sorted(board.leaf_cells)
        if taken >> grid[leaf] & 1 or _near_puts(board, leaf, grid[leaf], first=True)
    ]


def _near_puts(board: Board, leaf: Cell, kind: int, first: bool = False) -> list[int]:
    """The puts lifting `leaf` opens: the line ends on its near cells, less its own line's
    two, whose mask with the leaf taken away accepts `kind` (with `first`, the first cell's).

    Those checks almost always fail, so each first asks whether the line ending on the
    cell (with the lowest of its ranks) can take the kind at all: the lift leaves that
    line as it is (it is not the leaf's), and the cell's mask only takes kinds it takes.
    """
    grid, end_ranks = board.grid, board.end_ranks
    rows, columns = board.row_kinds, board.column_kinds
    step = board.leaf_cells[leaf]  # its line runs that way
    far = leaf + step
    while far in grid:
        far += step
    found: list[int] = []
    for cell in (leaf + 1, leaf - 1, leaf + WIDTH, leaf - WIDTH, far):
        ranks = end_ranks.get(cell)  # none on the neighbour holding a card
        if not ranks:
            continue
        if cell == leaf - step:  # the own line's end beyond the leaf is not a target
            ranks &= ~RANK_BIT[-step]
        elif cell == far:  # nor is its far end
            ranks &= ~RANK_BIT[step]
        if not ranks:
            continue
        way = LOWEST_STEP[ranks]
        line = (rows if way in (RIGHT, LEFT) else columns)[cell - way]
        if run_accepts(line) >> kind & 1 and board.mask_without(cell, leaf) >> kind & 1:
            found += [4 * cell + rank for rank in RANKS[ranks]]
            if first:
                break
    return found


def source_line(board: Board, leaf: Cell) -> list[Cell]:
    """The cards of the line that `leaf` ends, starting with `leaf` (it must be a leaf)."""
    return [leaf, *board.cells_along(leaf, board.leaf_cells[leaf])]


def next_move(board: Board, card: Cell, last: Cell, step: int) -> Cell | None:
    """The cell for the next source card `card` after a card was put on `last`, if legal.

    The card must still be a leaf, must not belong to the target line, and the
    next cell beyond the target line must accept it.
    """
    grid = board.grid
    if card not in board.leaf_cells:
        return None
    cell = last + step  # walk the target line forward; `card` on it may not move
    while cell in grid:
        if cell == card:
            return None
        cell += step
    behind = last - step
    while behind in grid:
        if behind == card:
            return None
        behind -= step
    return cell if board.mask_without(cell, card) >> grid[card] & 1 else None
