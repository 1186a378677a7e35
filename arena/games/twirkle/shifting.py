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

from arena.games.twirkle.board import STEPS, WIDTH, Board, Cell, end_of


class ShiftStarts:
    """Which leaves can start a shift, and where each may go, for one board version.

    Line ends are indexed by the kinds their cell accepts. Lifting a leaf changes
    the masks of only a few cells (its neighbours and the cell beyond the far end
    of its line), and the two ends of its own line are among them; so a leaf's
    puts are the indexed ends of its kind away from those cells, plus those cells'
    ends checked with the leaf taken away.
    """

    def __init__(self, board: Board):
        """Index the line ends of `board` by the kinds of its leaves they accept."""
        self.board = board
        self.version = board.version
        grid = board.grid
        leaf_kinds = 0
        for leaf in board.leaf_cells:
            leaf_kinds |= 1 << grid[leaf]
        by_kind: dict[int, list[int]] = {}
        masks = board.masks
        for end in board.ends:
            cell = end >> 2
            mask = masks.get(cell)
            if mask is None:
                mask = board.mask_at(cell)
            mask &= leaf_kinds
            while mask:
                low = mask & -mask
                by_kind.setdefault(low.bit_length() - 1, []).append(end)
                mask ^= low
        self.by_kind = by_kind
        self.end_cells = {end >> 2 for end in board.ends}
        self._liftable: list[Cell] | None = None

    def liftable(self) -> list[Cell]:
        """The leaves that have at least one put, sorted by (y, x)."""
        if self._liftable is None:
            self._liftable = [leaf for leaf in sorted(self.board.leaf_cells) if self._has_put(leaf)]
        return self._liftable

    def puts(self, leaf: Cell) -> list[int]:
        """Every line end the card on `leaf` may go to, sorted (cell, then direction)."""
        kind = self.board.grid[leaf]
        step, far = self._line_of(leaf)
        found = [end for end in self.by_kind.get(kind, ()) if not _is_affected(end >> 2, leaf, far)]
        found += self._near_puts(leaf, kind, step, far, stop_at_first=False)
        return sorted(found)

    def _has_put(self, leaf: Cell) -> bool:
        """True when the card on `leaf` has somewhere to go (`puts` is not empty).

        `_line_of`, `_is_affected` and `_near_puts` inlined: this runs for every leaf
        at the start of every shift.
        """
        board = self.board
        grid = board.grid
        kind = grid[leaf]
        for step in STEPS:
            if leaf + step in grid:
                break
        else:
            raise AssertionError("a leaf touches a card")
        far = leaf + step
        while far in grid:
            far += step
        near = _NEIGHBOUR_OFFSETS
        for end in self.by_kind.get(kind, ()):
            cell = end >> 2
            if cell != far and cell - leaf not in near:
                return True
        end_cells = self.end_cells
        inside = leaf + step
        own_line: tuple[int, int] | None = None
        ends, masks = board.ends, board.masks
        for cell in (leaf + 1, leaf - 1, leaf + WIDTH, leaf - WIDTH, far):
            if cell not in end_cells or cell == inside:
                continue
            if own_line is None:
                own_line = (end_of(leaf - step, -step), end_of(far, step))
            base = 4 * cell
            if not any(
                e in ends and e not in own_line for e in (base, base + 1, base + 2, base + 3)
            ):
                continue
            if masks.get(cell, 0) >> kind & 1 or board.mask_without(cell, leaf) >> kind & 1:
                return True
        return False

    def _line_of(self, leaf: Cell) -> tuple[int, Cell]:
        """The step from `leaf` into its line, and the empty cell beyond the line's far end."""
        board = self.board
        grid = board.grid
        for step in STEPS:
            if leaf + step in grid:
                return step, board.beyond(leaf, step)
        raise AssertionError("a leaf touches a card")

    def _near_puts(
        self, leaf: Cell, kind: int, step: int, far: Cell, stop_at_first: bool
    ) -> list[int]:
        """The puts on the affected cells, checked with the leaf taken away.

        A cached mask is a quick yes: taking a card away never narrows a mask.
        """
        board = self.board
        ends, masks = board.ends, board.masks
        own_line = (end_of(leaf - step, -step), end_of(far, step))
        found = []
        for cell in (leaf + 1, leaf - 1, leaf + WIDTH, leaf - WIDTH, far):
            if cell not in self.end_cells or cell == leaf + step:
                continue  # no line ends there (or it is the card the leaf touches)
            here = [e for e in range(4 * cell, 4 * cell + 4) if e in ends and e not in own_line]
            if not here:
                continue
            if masks.get(cell, 0) >> kind & 1 or board.mask_without(cell, leaf) >> kind & 1:
                found += here
                if stop_at_first:
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
    if card in board.run_cells(last, step):
        return None
    cell = board.beyond(last, step)
    return cell if board.mask_without(cell, card) >> grid[card] & 1 else None
