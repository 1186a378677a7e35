"""The unbounded Twirkle layout: cards on integer cells, lines, and what every turn asks of it.

Coordinates follow ruling W8: the first card lies at (0, 0), x grows to the
right and y grows downwards. A *line* is a maximal run of two or more cards
that touch edge to edge in one row or one column.

Inside, a cell is one integer, ``(y + OFFSET) * WIDTH + x + OFFSET``: a step is
an addition, and sorting cells sorts them by (y, x), the order every legal list
uses. The board keeps up to date, card by card, what the legal lists need: the
empty cells touching a card (the frontier), every card's number of neighbours
(the leaves), the line ends, and a cached mask per empty cell of the kinds it
accepts. The methods taking ``(x, y)`` tuples are the readable interface for
tests and views.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from arena.games.twirkle.cards import ALL_KINDS, COLOUR_MASK, MAX_LINE, SYMBOL_MASK, line_points

Pos = tuple[int, int]
#: A cell as one integer (see the module docstring); far more than 108 cards fit either way.
Cell = int
OFFSET = 256
WIDTH = 512
#: Unit steps as integers.
RIGHT, LEFT, DOWN, UP = 1, -1, WIDTH, -WIDTH
STEPS: tuple[int, ...] = (RIGHT, LEFT, DOWN, UP)
#: Unit steps, named as in decisions (y grows downwards, W8).
DIRECTIONS: dict[str, Pos] = {"right": (1, 0), "left": (-1, 0), "down": (0, 1), "up": (0, -1)}
DIRECTION_NAME: dict[Pos, str] = {step: name for name, step in DIRECTIONS.items()}
STEP_OF: dict[Pos, int] = {(1, 0): RIGHT, (-1, 0): LEFT, (0, 1): DOWN, (0, -1): UP}
STEP_NAME: dict[int, str] = {STEP_OF[pos]: name for pos, name in DIRECTION_NAME.items()}
#: The two axes, as the positive unit step along them.
AXES: tuple[Pos, Pos] = ((1, 0), (0, 1))
#: A line end is ``cell * 4 + rank``: sorting ends sorts them by cell, then by direction
#: in the order puts are listed (left, up, down, right: the order of the (dx, dy) tuples).
RANK_STEP: tuple[int, ...] = (LEFT, UP, DOWN, RIGHT)
STEP_RANK: dict[int, int] = {step: rank for rank, step in enumerate(RANK_STEP)}


def encode(pos: Pos) -> Cell:
    """The integer of an (x, y) cell.

    >>> decode(encode((-3, 7)))
    (-3, 7)
    """
    return (pos[1] + OFFSET) * WIDTH + pos[0] + OFFSET


def decode(cell: Cell) -> Pos:
    """The (x, y) of an integer cell."""
    y, x = divmod(cell, WIDTH)
    return (x - OFFSET, y - OFFSET)


def end_of(cell: Cell, step: int) -> int:
    """The line end at `cell` extending its line along `step`."""
    return cell * 4 + STEP_RANK[step]


#: Every kind's colour and symbol as one bit of a 6-bit set.
COLOUR_BIT: tuple[int, ...] = tuple(1 << (kind // 6) for kind in range(36))
SYMBOL_BIT: tuple[int, ...] = tuple(1 << (kind % 6) for kind in range(36))


def line_mask(kinds: list[int]) -> int:
    """`cards.run_mask` for a list: the kinds that may join these cards in one line."""
    count = len(kinds)
    if count == 0:
        return ALL_KINDS
    if count >= MAX_LINE:
        return 0
    seen = colours = symbols = 0
    for kind in kinds:
        bit = 1 << kind
        if seen & bit:
            return 0
        seen |= bit
        colours |= 1 << (kind // 6)
        symbols |= 1 << (kind % 6)
    result = 0
    if colours & (colours - 1) == 0:  # one colour: any kind of it not there yet
        result |= COLOUR_MASK[colours.bit_length() - 1] & ~seen
    if symbols & (symbols - 1) == 0:  # one symbol: any kind of it not there yet
        result |= SYMBOL_MASK[symbols.bit_length() - 1] & ~seen
    return result


class Board:
    """Cards on the table by cell, with the frontier, leaves, line ends and masks kept current."""

    def __init__(self, cells: Mapping[Pos, int] | None = None):
        """A board holding `cells` ((x, y) -> kind), empty by default."""
        #: Kind by integer cell.
        self.grid: dict[Cell, int] = {}
        #: Changes with every card laid or lifted (callers key their caches on it).
        self.version = 0
        #: Empty cells touching a card by an edge.
        self.frontier: set[Cell] = set()
        #: Cards by how many cards touch them by an edge; `leaves` are those with one.
        self.degrees: dict[Cell, int] = {}
        self.leaf_cells: set[Cell] = set()
        #: Every line end (`end_of`): an empty cell just beyond a run of 2+ cards.
        self.ends: set[int] = set()
        #: Cached `mask_at` values (read them with `mask_at`).
        self.masks: dict[Cell, int] = {}
        self._open: tuple[int, list[tuple[Cell, int]]] = (-1, [])
        self._laid_out: tuple[int, list[tuple[int, int, int]]] = (-1, [])
        for pos, kind in (cells or {}).items():
            self.place(encode(pos), kind)

    def copy(self) -> Board:
        """An independent board with the same cards and bookkeeping."""
        twin = Board.__new__(Board)
        twin.grid = dict(self.grid)
        twin.version = self.version
        twin.frontier = set(self.frontier)
        twin.degrees = dict(self.degrees)
        twin.leaf_cells = set(self.leaf_cells)
        twin.ends = set(self.ends)
        twin.masks = dict(self.masks)
        twin._open = self._open  # never mutated: replaced when stale
        twin._laid_out = self._laid_out
        return twin

    # ----- changing the layout (integer cells) --------------------------------
    def place(self, cell: Cell, kind: int) -> None:
        """Lay a card on an empty cell and update the bookkeeping around it."""
        grid = self.grid
        assert cell not in grid, f"cell {decode(cell)} is taken"
        grid[cell] = kind
        self.version += 1
        self.frontier.discard(cell)
        degrees, leaves = self.degrees, self.leaf_cells
        degree = 0
        for step in STEPS:
            other = cell + step
            if other in grid:
                degree += 1
                touching = degrees[other] + 1
                degrees[other] = touching
                if touching == 1:
                    leaves.add(other)
                elif touching == 2:
                    leaves.discard(other)
            else:
                self.frontier.add(other)
        degrees[cell] = degree
        if degree == 1:
            leaves.add(cell)
        self._changed(cell)

    def remove(self, cell: Cell) -> int:
        """Take the card off a cell, update the bookkeeping, and return its kind."""
        grid = self.grid
        kind = grid.pop(cell)
        self.version += 1
        degrees, leaves = self.degrees, self.leaf_cells
        del degrees[cell]
        leaves.discard(cell)
        touches = False
        for step in STEPS:
            other = cell + step
            if other in grid:
                touches = True
                touching = degrees[other] - 1
                degrees[other] = touching
                if touching == 1:
                    leaves.add(other)
                elif touching == 0:
                    leaves.discard(other)
            elif not any(other + around in grid for around in STEPS):
                self.frontier.discard(other)
        if touches:
            self.frontier.add(cell)
        self._changed(cell)
        return kind

    def _changed(self, cell: Cell) -> None:
        """A card came or went at `cell`: refresh the line ends and masks it can touch.

        A line end (c, step) depends on c, c - step and c - 2 step; a cell's mask on
        the runs beside it, so only `cell` and the first empty cell each way from it
        can change.
        """
        grid, ends, masks = self.grid, self.ends, self.masks
        masks.pop(cell, None)
        for step in STEPS:
            masks.pop(self.beyond(cell, step), None)
            rank = STEP_RANK[step]
            for near in (cell, cell + step, cell + 2 * step):
                end = near * 4 + rank
                if near not in grid and near - step in grid and near - 2 * step in grid:
                    ends.add(end)
                else:
                    ends.discard(end)

    # ----- runs and masks (integer cells) -------------------------------------
    def beyond(self, cell: Cell, step: int) -> Cell:
        """The first empty cell going from `cell` along `step`."""
        grid = self.grid
        cell += step
        while cell in grid:
            cell += step
        return cell

    def cells_along(self, cell: Cell, step: int) -> list[Cell]:
        """The cards met going from `cell` (excluded) along `step` until a gap."""
        grid = self.grid
        found = []
        cell += step
        while cell in grid:
            found.append(cell)
            cell += step
        return found

    def run_cells(self, cell: Cell, step: int) -> list[Cell]:
        """The cells of the run through the card at `cell` along `step`'s axis, in order."""
        before = self.cells_along(cell, -abs(step))
        before.reverse()
        return [*before, cell, *self.cells_along(cell, abs(step))]

    def run_length(self, cell: Cell, step: int) -> int:
        """How many cards the run through `cell` along `step`'s axis holds."""
        grid = self.grid
        count = 1
        for way in (step, -step):
            near = cell + way
            while near in grid:
                count += 1
                near += way
        return count

    def mask_without(self, cell: Cell, gone: Cell | None = None) -> int:
        """The kinds a card on the empty `cell` may have, with the card on `gone` ignored.

        Per axis, the cards on both sides are gathered as bit sets (kinds, colours,
        symbols) on the way: `line_mask` without building a list.
        """
        get = self.grid.get
        mask = ALL_KINDS
        for step in (RIGHT, DOWN):
            seen = colours = symbols = count = 0
            for way in (step, -step):
                near = cell + way
                kind = get(near)
                while kind is not None and near != gone:
                    bit = 1 << kind
                    if seen & bit:
                        return 0  # the same card twice in one line
                    seen |= bit
                    colours |= COLOUR_BIT[kind]
                    symbols |= SYMBOL_BIT[kind]
                    count += 1
                    near += way
                    kind = get(near)
            if count:
                if count >= MAX_LINE:
                    return 0
                accepted = 0
                if colours & (colours - 1) == 0:
                    accepted |= COLOUR_MASK[colours.bit_length() - 1]
                if symbols & (symbols - 1) == 0:
                    accepted |= SYMBOL_MASK[symbols.bit_length() - 1]
                mask &= accepted & ~seen
                if not mask:
                    return 0
        return mask

    def mask_at(self, cell: Cell) -> int:
        """`mask_without` nothing, cached until a change next to the cell's lines."""
        mask = self.masks.get(cell)
        if mask is None:
            mask = self.masks[cell] = self.mask_without(cell)
        return mask

    def open_cells(self) -> list[tuple[Cell, int]]:
        """(cell, mask) for every frontier cell that accepts some kind, by (y, x).

        Cached per version: a turn's first pick and its place both read it.
        """
        version, cells = self._open
        if version != self.version:
            masks, mask_at = self.masks, self.mask_at
            # A cached mask is used as it is (0: nothing fits); -1 means not cached yet.
            cells = [
                (cell, mask)
                for cell in sorted(self.frontier)
                if (mask := masks.get(cell, -1)) > 0 or (mask < 0 and (mask := mask_at(cell)))
            ]
            self._open = (self.version, cells)
        return cells

    def fitting(self, kinds: int) -> int:
        """The kinds among `kinds` (a bit set) that some frontier cell accepts.

        The cached masks are read first; the scan stops once every kind fits.
        """
        masks = self.masks
        fits = 0
        todo = []
        for cell in self.frontier:
            mask = masks.get(cell)
            if mask is None:
                todo.append(cell)
            else:
                fits |= mask
        fits &= kinds
        if fits != kinds:
            mask_at = self.mask_at
            for cell in todo:
                fits |= mask_at(cell) & kinds
                if fits == kinds:
                    break
        return fits

    def laid_out(self) -> list[tuple[int, int, int]]:
        """Every card as (x, y, kind), sorted by (y, x); cached per version for the views."""
        version, cards = self._laid_out
        if version != self.version:
            grid = self.grid
            cards = [(*decode(cell), grid[cell]) for cell in sorted(grid)]
            self._laid_out = (self.version, cards)
        return cards

    def placement_points(self, placed: list[Cell]) -> int:
        """W4: every line of 2+ cards holding a card placed this turn scores (6 scores 12).

        Crossing cards count in both lines; the common line of several placed
        cards counts once.
        """
        if not placed:
            return 0
        if len(placed) == 1:
            return sum(line_points(self.run_length(placed[0], step)) for step in (RIGHT, DOWN))
        main = RIGHT if abs(placed[1] - placed[0]) < WIDTH else DOWN
        cross = DOWN if main == RIGHT else RIGHT
        points = line_points(self.run_length(placed[0], main))
        for cell in placed:
            points += line_points(self.run_length(cell, cross))
        return points

    # ----- the (x, y) interface -----------------------------------------------
    @property
    def cells(self) -> dict[Pos, int]:
        """Kind by (x, y) cell (a fresh dict: change the board with put and lift)."""
        return {decode(cell): kind for cell, kind in self.grid.items()}

    def put(self, pos: Pos, kind: int) -> None:
        """Lay a card on an empty (x, y) cell."""
        self.place(encode(pos), kind)

    def lift(self, pos: Pos) -> int:
        """Take the card off an (x, y) cell and return its kind."""
        return self.remove(encode(pos))

    def compute_mask(self, pos: Pos) -> int:
        """The kinds a card on the empty cell `pos` could have with both its lines valid."""
        return self.mask_without(encode(pos))

    def mask(self, pos: Pos) -> int:
        """`compute_mask`, cached."""
        return self.mask_at(encode(pos))

    def degree(self, pos: Pos) -> int:
        """How many cards touch `pos` by an edge."""
        cell = encode(pos)
        return sum(1 for step in STEPS if cell + step in self.grid)

    def walk(self, pos: Pos, step: Pos) -> Iterator[Pos]:
        """The cells with cards met going from `pos` (excluded) along `step` until a gap."""
        for cell in self.cells_along(encode(pos), STEP_OF[step]):
            yield decode(cell)

    def beyond_pos(self, pos: Pos, step: Pos) -> Pos:
        """The first empty (x, y) cell going from `pos` along `step`."""
        return decode(self.beyond(encode(pos), STEP_OF[step]))

    def run(self, pos: Pos, axis: Pos) -> list[Pos]:
        """The cells of the run through `pos` (which holds a card) along `axis`, in order."""
        return [decode(cell) for cell in self.run_cells(encode(pos), STEP_OF[axis])]

    def leaves(self) -> list[Pos]:
        """Every card touching exactly one other card by an edge, sorted by (y, x)."""
        return [decode(cell) for cell in sorted(self.leaf_cells)]

    def is_connected(self) -> bool:
        """True when all cards form one group connected by edges (an empty board is)."""
        grid = self.grid
        if not grid:
            return True
        start = next(iter(grid))
        seen = {start}
        stack = [start]
        while stack:
            cell = stack.pop()
            for step in STEPS:
                near = cell + step
                if near in grid and near not in seen:
                    seen.add(near)
                    stack.append(near)
        return len(seen) == len(grid)

    def all_lines_valid(self) -> bool:
        """True when every run in every row and column is a valid line (a full check)."""
        grid = self.grid
        for cell in grid:
            for step in (RIGHT, DOWN):
                if cell - step in grid:
                    continue  # not the first card of its run
                kinds = [grid[near] for near in self.cells_along(cell, step)]
                if kinds and not line_mask(kinds) >> grid[cell] & 1:
                    return False
        return True
