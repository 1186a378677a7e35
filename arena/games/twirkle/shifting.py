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

Cells are the board's integers and a put is a line end (`board.end_of`).
"""

from __future__ import annotations

from arena.games.twirkle.board import COUNT, FIELD, RANK_BIT, RANKS, STEPS, WIDTH, Board, Cell


class ShiftStarts:
    """Which leaves can start a shift, and where each may go, for one board version.

    Lifting a leaf changes the masks of only a few cells (its neighbours and the
    cell beyond the far end of its line), and the two ends of its own line are
    among them; so a leaf's puts are the line ends accepting its kind away from
    those cells, plus those cells' ends checked with the leaf taken away. The
    board counts the ends accepting every kind, so whether a leaf has a put away
    from its cells is a subtraction.
    """

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
        step, far = self._line_of(leaf)
        end_ranks, shift = board.end_ranks, kind * FIELD
        affected = {leaf + 1, leaf - 1, leaf + WIDTH, leaf - WIDTH, far}  # see `_is_affected`
        found = [  # `end_counted` lists exactly the cells with ends whose mask takes a kind
            4 * cell + rank
            for cell, counts in board.end_counted.items()
            if counts >> shift & COUNT and cell not in affected
            for rank in RANKS[end_ranks[cell]]
        ]
        found += self._near_puts(leaf, kind, step, far)
        return sorted(found)

    def _line_of(self, leaf: Cell) -> tuple[int, Cell]:
        """The step from `leaf` into its line, and the empty cell beyond the line's far end."""
        board = self.board
        grid = board.grid
        for step in STEPS:
            if leaf + step in grid:
                return step, board.beyond(leaf, step)
        raise AssertionError("a leaf touches a card")

    def _near_puts(self, leaf: Cell, kind: int, step: int, far: Cell) -> list[int]:
        """The puts on the affected cells, checked with the leaf taken away.

        A cached mask is a quick yes: taking a card away never narrows a mask.
        """
        board = self.board
        end_ranks, masks = board.end_ranks, board.masks
        found: list[int] = []
        for cell in (leaf + 1, leaf - 1, leaf + WIDTH, leaf - WIDTH, far):
            ranks = end_ranks.get(cell, 0)
            if cell == leaf - step:  # the own line's end beyond the leaf is not a target
                ranks &= ~RANK_BIT[-step]
            elif cell == far:  # nor is its far end
                ranks &= ~RANK_BIT[step]
            if not ranks:
                continue  # no line ends there (the card the leaf touches has none)
            if masks.get(cell, 0) >> kind & 1 or board.mask_without(cell, leaf) >> kind & 1:
                found += [4 * cell + rank for rank in RANKS[ranks]]
        return found


def _leaves_with_puts(board: Board) -> list[Cell]:
    """The leaves whose card has somewhere to go (`ShiftStarts.puts` is not empty), sorted.

    Per leaf: the line ends accepting its kind (the board counts them per kind), less
    those on the cells lifting it affects (`end_counted` holds them per cell); if none
    is left, those cells' ends are checked with the leaf taken away (`_near_puts`,
    stopping at the first; a kept mask is a quick yes). It runs at the start of
    almost every turn's shift, so it is one loop with the board's tables in locals.
    """
    grid, counted, end_counts = board.grid, board.end_counted, board.end_counts
    end_ranks, masks = board.end_ranks, board.masks
    found = []
    for leaf in sorted(board.leaf_cells):
        for step in STEPS:  # the leaf's one neighbour: its line runs that way
            if leaf + step in grid:
                break
        far = leaf + step
        while far in grid:
            far += step
        around = (leaf + 1, leaf - 1, leaf + WIDTH, leaf - WIDTH, far)
        kind = grid[leaf]
        shift = kind * FIELD
        count = end_counts >> shift & COUNT
        if count:
            for cell in around:
                here = counted.get(cell)
                if here:
                    count -= here >> shift & COUNT
            if count:
                found.append(leaf)
                continue
        for cell in around:
            ranks = end_ranks.get(cell)
            if not ranks:
                continue
            if cell == leaf - step:  # the own line's end beyond the leaf is not a target
                ranks &= ~RANK_BIT[-step]
            elif cell == far:  # nor is its far end
                ranks &= ~RANK_BIT[step]
            if ranks and (masks[cell] >> kind & 1 or board.mask_without(cell, leaf) >> kind & 1):
                found.append(leaf)
                break
    return found


def _is_affected(cell: Cell, leaf: Cell, far: Cell) -> bool:
    """True for the cells whose masks lifting `leaf` changes (its neighbours, `far`)."""
    return cell == far or (cell - leaf) in _NEIGHBOUR_OFFSETS


_NEIGHBOUR_OFFSETS = frozenset(STEPS)


def source_line(board: Board, leaf: Cell) -> list[Cell]:
    """The cards of the line that `leaf` ends, starting with `leaf` (it must be a leaf)."""
    grid = board.grid
    for step in STEPS:
        if leaf + step in grid:
            return [leaf, *board.cells_along(leaf, step)]
    raise AssertionError(f"{leaf} touches no card")


def next_move(board: Board, card: Cell, last: Cell, step: int) -> Cell | None:
    """The cell for the next source card `card` after a card was put on `last`, if legal.

    The card must still be a leaf, must not belong to the target line, and the
    next cell beyond the target line must accept it.
    """
    grid = board.grid
    if card not in grid or board.degrees[card] != 1:
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
