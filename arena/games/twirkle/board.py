"""The unbounded Twirkle layout: cards on integer cells, lines, and what every turn asks of it.

Coordinates follow ruling W8: the first card lies at (0, 0), x grows to the
right and y grows downwards. A *line* is a maximal run of two or more cards
that touch edge to edge in one row or one column.

Inside, a cell is one integer, ``(y + OFFSET) * WIDTH + x + OFFSET``: a step is
an addition, and sorting cells sorts them by (y, x), the order every legal list
uses. The board keeps up to date, card by card, what the legal lists need: the
empty cells touching a card (the frontier), every cell's number of neighbours
(the leaves, with the way their line runs), per card the kinds of its run along
each axis, the line ends, and the mask of every frontier cell (the kinds it
accepts, read off the kind sets of the runs beside it) and of every line end.
A card laid or lifted changes only its own cell and the first empty cell each
way from it, so each change walks the two runs through it once and refreshes
five cells. Which kinds fit anywhere, or at any line end, is one union of the
kept masks when asked (about once a turn): cheaper than counters kept per change.
The methods taking ``(x, y)`` tuples are the readable interface for tests and views.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import reduce
from operator import or_

from arena.games.twirkle.cards import (
    ALL_KINDS,
    COLOUR_MASK,
    MAX_LINE,
    NAMES,
    SYMBOL_MASK,
    line_points,
)

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
#: The ranks a 4-bit set of ranks holds.
RANKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(rank for rank in range(4) if ranks >> rank & 1) for ranks in range(16)
)
#: The rank of a step as a one-bit set.
RANK_BIT: dict[int, int] = {step: 1 << rank for step, rank in STEP_RANK.items()}


#: The offsets of the four cells beside a cell.
_BESIDE = frozenset(STEPS)


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


#: `decode` memoised for the views, which decode every card whenever the board changed.
_POS: dict[Cell, Pos] = {}


def _pos(cell: Cell) -> Pos:
    """`decode`, remembered in `_POS`."""
    pos = _POS[cell] = decode(cell)
    return pos


def end_of(cell: Cell, step: int) -> int:
    """The line end at `cell` extending its line along `step`."""
    return cell * 4 + STEP_RANK[step]


def _set_accepts(seen: int) -> int:
    """`run_accepts` computed with bit operations (the table below is built with it)."""
    if not seen:
        return ALL_KINDS
    if seen.bit_count() >= MAX_LINE:
        return 0
    low = (seen & -seen).bit_length() - 1  # any card of the set names its colour and symbol
    same_colour, same_symbol = COLOUR_MASK[low // 6], SYMBOL_MASK[low % 6]
    accepted = 0
    if not seen & ~same_colour:  # one colour
        accepted |= same_colour
    if not seen & ~same_symbol:  # one symbol
        accepted |= same_symbol
    return accepted & ~seen


def _subsets(kinds: int) -> Iterator[int]:
    """Every subset of a kind set, the empty one included."""
    subset = kinds
    while subset:
        yield subset
        subset = (subset - 1) & kinds
    yield 0


#: `run_accepts` of every set that some kinds may still join: the subsets of one
#: colour's or one symbol's six kinds (721 sets). Any other set mixes two colours and
#: two symbols and accepts nothing, so the table is complete: a lookup never misses
#: and never grows (a memo of the unions met in play grew to tens of thousands).
_ACCEPTS: dict[int, int] = {
    seen: _set_accepts(seen) for line in (*COLOUR_MASK, *SYMBOL_MASK) for seen in _subsets(line)
}


def run_accepts(seen: int) -> int:
    """The kinds that may join a run holding the kinds `seen` (no repeats).

    `line_mask` for a set: the kinds of its one colour or one symbol not in it yet;
    nothing once it holds six cards or mixes both; every kind for an empty run.
    """
    return _ACCEPTS.get(seen, 0)


#: Every kind's colour and symbol as one bit of a 6-bit set.
COLOUR_BIT: tuple[int, ...] = tuple(1 << (kind // 6) for kind in range(36))
SYMBOL_BIT: tuple[int, ...] = tuple(1 << (kind % 6) for kind in range(36))


#: The kind set of a run in which some kind repeats (no card can join it).
RUN_REPEATS = -1


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


def _set_run(grid: dict[Cell, int], cells: list[Cell], runs: dict[Cell, int]) -> None:
    """Record the kind set of the run `cells` for each of its cards (`RUN_REPEATS` if a kind
    repeats)."""
    seen = 0
    for cell in cells:
        bit = 1 << grid[cell]
        if seen & bit:
            seen = RUN_REPEATS
            break
        seen |= bit
    for cell in cells:
        runs[cell] = seen


def _clear(ranks: dict[Cell, int], cell: Cell, bit: int) -> None:
    """Clear one rank bit of a cell's line ends (an empty set is no entry)."""
    left = ranks[cell] & ~bit
    if left:
        ranks[cell] = left
    else:
        del ranks[cell]


class Board:
    """Cards on the table by cell, with the frontier, leaves, line ends and masks kept current."""

    def __init__(self, cells: Mapping[Pos, int] | None = None):
        """A board holding `cells` ((x, y) -> kind), empty by default."""
        #: Kind by integer cell.
        self.grid: dict[Cell, int] = {}
        #: Changes with every card laid or lifted (callers key their caches on it).
        self.version = 0
        #: Per card, the kinds of its run along each axis as a bit set (`RUN_REPEATS`
        #: when a kind repeats): the masks beside a run read it instead of walking it.
        self.row_kinds: dict[Cell, int] = {}
        self.column_kinds: dict[Cell, int] = {}
        #: Empty cells touching a card by an edge.
        self.frontier: set[Cell] = set()
        #: How many cards touch a cell by an edge, for every cell some card touches (the
        #: frontier is the empty ones) ...
        self.degrees: dict[Cell, int] = {}
        #: ... and the cards one card touches, each with the step towards that card.
        self.leaf_cells: dict[Cell, int] = {}
        #: Every line end (`end_of`: an empty cell just beyond a run of 2+ cards) by
        #: cell, as a bit set of their ranks (``1 << (end & 3)``); `ends` lists them.
        self.end_ranks: dict[Cell, int] = {}
        #: `mask_without` of every frontier cell that accepts some kind, kept current (a
        #: frontier cell accepting none has no entry: most questions ask for some kind) ...
        self.masks: dict[Cell, int] = {}
        #: ... and of those the line ends, the cells a lifted card may go to.
        self.end_masks: dict[Cell, int] = {}
        self._laid_out: tuple[int, list[tuple[int, int, int]]] = (-1, [])
        self._views: tuple[int, list[dict[str, int | str]]] = (-1, [])
        for pos, kind in (cells or {}).items():
            self.place(encode(pos), kind)

    def copy(self) -> Board:
        """An independent board with the same cards and bookkeeping."""
        twin = Board.__new__(Board)
        twin.grid = dict(self.grid)
        twin.version = self.version
        twin.frontier = set(self.frontier)
        twin.degrees = dict(self.degrees)
        twin.leaf_cells = dict(self.leaf_cells)
        twin.end_ranks = dict(self.end_ranks)
        twin.masks = dict(self.masks)
        twin.end_masks = dict(self.end_masks)
        twin.row_kinds = dict(self.row_kinds)
        twin.column_kinds = dict(self.column_kinds)
        twin._laid_out = self._laid_out
        twin._views = self._views  # never handed out: callers get copies
        return twin

    # ----- changing the layout (integer cells) --------------------------------
    def place(self, cell: Cell, kind: int) -> None:
        """Lay a card on an empty cell and update the bookkeeping around it."""
        grid, degrees, leaves, frontier = self.grid, self.degrees, self.leaf_cells, self.frontier
        assert cell not in grid, f"cell {decode(cell)} is taken"
        grid[cell] = kind
        self.version += 1
        frontier.discard(cell)
        self.masks.pop(cell, None)
        self.end_masks.pop(cell, None)
        self.end_ranks.pop(cell, None)  # a card is no line end
        along = 0  # the step to the one neighbour, if there is one
        for step in STEPS:
            other = cell + step
            touching = degrees.get(other, 0) + 1
            degrees[other] = touching
            if other in grid:
                along = step
                if touching == 1:
                    leaves[other] = -step
                elif touching == 2:
                    del leaves[other]
            elif touching == 1:
                frontier.add(other)
        if degrees.get(cell) == 1:
            leaves[cell] = along
        self._laid(cell, kind)

    def _laid(self, cell: Cell, kind: int) -> None:
        """`_lifted`'s bookkeeping for a card just laid on `cell`.

        Laying only merges runs: per axis, the merged run's kind set is the union of the
        runs beside (kept on their end cards), and line ends only appear, on the first
        empty cell each way (`low`, `high`) once the run holds two cards. The cell leaves
        the frontier; `low` and `high` of both axes are frontier cells and get fresh masks.
        """
        grid, end_ranks = self.grid, self.end_ranks
        bit = 1 << kind
        touched: list[Cell] = []
        for step, runs in ((RIGHT, self.row_kinds), (DOWN, self.column_kinds)):
            low, high = cell - step, cell + step
            if low not in grid and high not in grid:  # a run of one: no line end appears
                runs[cell] = bit
                touched += (low, high)
                continue
            before, after = runs.get(low, 0), runs.get(high, 0)
            if before < 0 or after < 0 or before & after or (before | after) & bit:
                seen = RUN_REPEATS  # some kind repeats in the merged run
            else:
                seen = before | after | bit
            runs[cell] = seen
            while low in grid:
                runs[low] = seen
                low -= step
            while high in grid:
                runs[high] = seen
                high += step
            end_ranks[low] = end_ranks.get(low, 0) | RANK_BIT[-step]
            end_ranks[high] = end_ranks.get(high, 0) | RANK_BIT[step]
            touched += (low, high)
        self._refresh(touched)

    def remove(self, cell: Cell) -> int:
        """Take the card off a cell, update the bookkeeping, and return its kind."""
        grid, degrees, leaves, frontier = self.grid, self.degrees, self.leaf_cells, self.frontier
        kind = grid.pop(cell)
        self.version += 1
        leaves.pop(cell, None)
        for step in STEPS:
            other = cell + step
            touching = degrees[other] - 1
            if touching:
                degrees[other] = touching
            else:
                del degrees[other]
            if other in grid:
                if touching == 1:
                    for way in STEPS:  # its one neighbour left
                        if other + way in grid:
                            leaves[other] = way
                            break
                elif touching == 0:
                    del leaves[other]
            elif not touching:  # no card touches it any more
                frontier.discard(other)
        if cell in degrees:  # the cell's own count is its card neighbours, as an empty cell
            frontier.add(cell)
        self._lifted(cell, kind)
        return kind

    def _lifted(self, cell: Cell, kind: int) -> None:
        """The card `kind` left `cell`: refresh the runs, line ends and masks.

        Per axis, the runs beside `cell` are walked once, to the first empty cell each
        way (`low`, `high`). Only those can change: a line end (c, step) depends on c,
        c - step and c - 2 step, so ends change only on `cell`, `low` and `high`, and a
        mask depends on the runs beside its cell, so masks change only there too.
        """
        grid, end_ranks = self.grid, self.end_ranks
        touched = [cell]
        ends_here = 0  # the ranks of the runs beside that now end on `cell`
        for step, runs in ((RIGHT, self.row_kinds), (DOWN, self.column_kinds)):
            seen = runs.pop(cell)
            low, high = cell - step, cell + step
            if low not in grid and high not in grid:
                # a lone card on this axis (a lifted leaf, across its line): it ended no
                # run of two, so no line end changes
                touched += (low, high)
                continue
            before: list[Cell] = []
            while low in grid:
                before.append(low)
                low -= step
            after: list[Cell] = []
            while high in grid:
                after.append(high)
                high += step
            if seen < 0 or (before and after):  # a repeat may be gone, or a run split
                _set_run(grid, before, runs)
                _set_run(grid, after, runs)
            else:  # a leaf: its run lost its end card and that card's kind
                rest = seen & ~(1 << kind)
                for near in before or after:
                    runs[near] = rest
            # `low` and `high` ended the run through `cell`: they go on ending runs of two
            # or more (now ending beside `cell`, which ends them too) or stop being ends
            if len(before) >= 2:
                ends_here |= RANK_BIT[step]
            else:
                _clear(end_ranks, low, RANK_BIT[-step])
            if len(after) >= 2:
                ends_here |= RANK_BIT[-step]
            else:
                _clear(end_ranks, high, RANK_BIT[step])
            touched += (low, high)
        if ends_here:
            end_ranks[cell] = ends_here
        self._refresh(touched)

    def _refresh(self, cells: list[Cell]) -> None:
        """Recompute the masks of `cells` (their line ends are up to date).

        `fresh_mask` inlined: this runs five times per card laid or lifted.
        """
        masks, end_masks, frontier = self.masks, self.end_masks, self.frontier
        rows, columns, end_ranks = self.row_kinds, self.column_kinds, self.end_ranks
        accepts = _ACCEPTS.get
        for near in cells:
            mask = 0
            if near in frontier:
                left, right = rows.get(near - 1, 0), rows.get(near + 1, 0)
                up, down = columns.get(near - WIDTH, 0), columns.get(near + WIDTH, 0)
                # a kind on both sides of an axis would repeat (a side whose kind repeats
                # already, `RUN_REPEATS`, makes a negative union: no table entry, no kind)
                if not (left & right or up & down):
                    mask = accepts(left | right, 0) & accepts(up | down, 0)
            if mask:
                masks[near] = mask
                if near in end_ranks:
                    end_masks[near] = mask
                    continue
            else:
                masks.pop(near, None)
            end_masks.pop(near, None)

    @property
    def ends(self) -> set[int]:
        """Every line end (`end_of`) as a set, built from `end_ranks`."""
        return {4 * cell + rank for cell, ranks in self.end_ranks.items() for rank in RANKS[ranks]}

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
        """How many cards the run through the card on `cell` along `step`'s axis holds."""
        seen = (self.row_kinds if step in (RIGHT, LEFT) else self.column_kinds)[cell]
        if seen >= 0:  # no kind repeats: one kind per card
            return seen.bit_count()
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

        The runs' kept kind sets answer (`fresh_mask`): a side is read from the cell
        outwards and stops at `gone`, so `gone` right beside the cell empties its side,
        `gone` ending the run beside the cell takes its kind out of that run, and a
        card elsewhere changes nothing. Only `gone` inside a run, or a run in which
        a kind repeats, is walked (`walked_mask`).
        """
        if gone is None or gone == cell:  # nothing ignored (the empty cell holds no card)
            return self.fresh_mask(cell)
        offset = gone - cell
        if offset in _BESIDE:
            return self.fresh_mask(cell, offset, 0)
        if offset % WIDTH == 0:
            way, runs = (WIDTH if offset > 0 else -WIDTH), self.column_kinds
        elif gone // WIDTH == cell // WIDTH:
            way, runs = (1 if offset > 0 else -1), self.row_kinds
        else:
            return self.fresh_mask(cell)  # not on the cell's row or column
        side = runs.get(cell + way, 0)
        if side >= 0:
            length, distance = side.bit_count(), offset // way
            if length < distance:
                return self.fresh_mask(cell)  # beyond the run beside the cell
            if length == distance:  # the last card of that run
                return self.fresh_mask(cell, way, side & ~(1 << self.grid[gone]))
        return self.walked_mask(cell, gone)

    def walked_mask(self, cell: Cell, gone: Cell | None = None) -> int:
        """`mask_without` by walking: per axis, the cards on both sides (stopping at `gone`)
        gathered as bit sets (kinds, colours, symbols), `line_mask` without a list."""
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

    def fresh_mask(self, cell: Cell, way: int = 0, side: int = 0) -> int:
        """`mask_without(cell)` from the kind sets of the runs beside the empty `cell`; with
        `way`, the kinds `side` stand for the run on that side (a run read up to a gone card)."""
        rows, columns = self.row_kinds, self.column_kinds
        left, right = rows.get(cell - 1, 0), rows.get(cell + 1, 0)
        up, down = columns.get(cell - WIDTH, 0), columns.get(cell + WIDTH, 0)
        if way:
            if way == -1:
                left = side
            elif way == 1:
                right = side
            elif way < 0:
                up = side
            else:
                down = side
        if left & right or up & down:
            return 0  # a kind repeats on an axis (a negative side is no table entry: none)
        accepts = _ACCEPTS.get
        return accepts(left | right, 0) & accepts(up | down, 0)

    def mask_at(self, cell: Cell) -> int:
        """`mask_without` nothing: kept for frontier cells, computed for any other."""
        mask = self.masks.get(cell)
        if mask is None:
            return 0 if cell in self.frontier else self.mask_without(cell)
        return mask

    def open_cells(self) -> list[tuple[Cell, int]]:
        """(cell, mask) for every frontier cell that accepts some kind, by (y, x)."""
        return sorted(self.masks.items())

    def next_cells(self, placed: list[Cell]) -> list[tuple[Cell, int]]:
        """(cell, mask) for every cell accepting some kind where the next card of a
        placement may go, by (y, x): after the first card (`placed[0]`) either end of
        either line through it, after two the ends of the line they are in."""
        first = placed[0]
        if len(placed) == 1:
            steps: tuple[int, ...] = STEPS
        else:
            steps = (RIGHT, LEFT) if abs(placed[1] - first) < WIDTH else (DOWN, UP)
        masks = self.masks  # line ends lie on the frontier: kept (or accepting nothing)
        ends = sorted(self.beyond(first, step) for step in steps)
        return [(cell, mask) for cell in ends if (mask := masks.get(cell, 0))]

    def cells_taking(self, kind: int) -> list[Cell]:
        """The frontier cells that accept `kind`, by (y, x): `open_cells` filtered by one kind,
        without sorting the whole frontier (a turn's first card asks this once per version)."""
        bit = 1 << kind
        found = [cell for cell, mask in self.masks.items() if mask & bit]
        found.sort()
        return found

    def fitting(self) -> int:
        """The kinds some frontier cell accepts (a turn's first card may be any of them)."""
        return reduce(or_, self.masks.values(), 0)

    def ends_taking(self) -> int:
        """The kinds some line end accepts (a card of such a kind has a put when lifted)."""
        return reduce(or_, self.end_masks.values(), 0)

    def laid_out(self) -> list[tuple[int, int, int]]:
        """Every card as (x, y, kind), sorted by (y, x); cached per version for the views."""
        version, cards = self._laid_out
        if version != self.version:
            grid = self.grid
            cards = [(*(_POS.get(cell) or _pos(cell)), grid[cell]) for cell in sorted(grid)]
            self._laid_out = (self.version, cards)
        return cards

    def card_views(self) -> list[dict[str, int | str]]:
        """Every card as an observation shows it, ``{"x", "y", "card"}``, sorted by (y, x).

        Cached per version and handed out as fresh copies (a caller may change them):
        copying a small dict is cheaper than building it, and the board changes on
        fewer than half the decisions of a match.
        """
        version, views = self._views
        if version != self.version:
            views = [{"x": x, "y": y, "card": NAMES[kind]} for x, y, kind in self.laid_out()]
            self._views = (self.version, views)
        return list(map(dict.copy, views))

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
