"""Twirkle: the best placement value of many hands on one board, fast.

twirkle_plan's Planner walks every placement card by card (3-7 ms a hand in mid-game);
a threat estimate needs the best placement of dozens of sampled hands on dozens of
boards. Here the board is read once into *windows*, every run of cells a placement can
end as, and each sampled hand only checks which windows it can fill:

- A placement lays its cards in one row or column so that, with the cards already
  there, they form one contiguous line. So it is fixed by that final line: a window of
  2-6 cells along one axis, the cells beyond both ends empty, holding at least one
  empty cell (the cards placed), touching the layout. (A single card with no
  neighbour along one axis is the window of its line along the other.)
- Its points depend on the window alone: the window's line, plus every crossing line
  through a placed cell (a crossing line lies across the window: the other cards of
  the window never change it). So does the greedy value the heuristic plans with.
- A hand can fill a window when it holds distinct cards, one per empty cell, each
  accepted by its crossing line, and all together with the window's cards forming
  one line: one colour or one symbol (a *group*). Per group that is a matching of
  cells to hand cards, a few bit operations for at most six cells.

Windows are sorted by value, so a hand's best is the first window it can fill. A hand
is a bit set of kinds (kind = 6 * colour + symbol, the card order of the rules page):
a line never holds a card twice, so copies in a hand do not matter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

WIDTH = 512
OFFSET = 256
ALL_KINDS = (1 << 36) - 1
COLOUR_MASK: tuple[int, ...] = tuple(sum(1 << (6 * c + s) for s in range(6)) for c in range(6))
SYMBOL_MASK: tuple[int, ...] = tuple(sum(1 << (6 * c + s) for c in range(6)) for s in range(6))
GROUPS: tuple[int, ...] = COLOUR_MASK + SYMBOL_MASK
#: The heuristic's greedy value, which is also the one twirkle_plan plans with.
PLAY_BONUS = 0.3
ENDGAME_PLAY_BONUS = 1.0
OPEN_FIVE_PENALTY = 4.0
OUT_BONUS = 6.0


def cell_of(x: int, y: int) -> int:
    """One integer per (x, y): a step right is +1, a step down +WIDTH."""
    return (y + OFFSET) * WIDTH + x + OFFSET


def xy_of(cell: int) -> tuple[int, int]:
    """The (x, y) of `cell_of`'s integer."""
    y, x = divmod(cell, WIDTH)
    return (x - OFFSET, y - OFFSET)


def line_points(length: int) -> int:
    """A line scores its length, a line of six 12, a single card nothing."""
    return 0 if length < 2 else 12 if length == 6 else length


def one_group(kinds: int) -> bool:
    """Whether these kinds (a bit set) share one colour or one symbol."""
    low = (kinds & -kinds).bit_length() - 1
    return not kinds & ~COLOUR_MASK[low // 6] or not kinds & ~SYMBOL_MASK[low % 6]


Line = tuple[int, int]  # (step along it, its row or column number)
#: Per group a window may be of: (the kinds it may add, one mask per empty cell). Tuples
#: of numbers only: the garbage collector stops tracking them, so a big memo of them
#: does not make every full collection slow (lists in it made some take 100+ ms).
Variants = tuple[tuple[int, tuple[int, ...]], ...]


class Window:
    """One final line a placement can make: its value and, per group, the kinds each of
    its empty cells may take."""

    __slots__ = ("cells", "line", "size", "union", "value", "variants")

    def __init__(self, value: float, cells: list[int], variants: Variants, line: Line) -> None:
        self.line = line
        self.value = value
        self.cells = cells  # the empty cells a placement fills
        self.size = len(cells)
        #: Per group: the kinds it may use, and one mask per empty cell (fewest kinds first).
        self.variants = variants
        self.union = 0  # every kind any variant may use
        for union, _ in variants:
            self.union |= union

    def fits(self, hand: int) -> bool:
        """Whether a hand (a kind set) can fill every empty cell with distinct cards."""
        size = self.size
        if (self.union & hand).bit_count() < size:
            return False
        for union, masks in self.variants:
            if (union & hand).bit_count() < size:
                continue  # too few of the group's cards in hand
            if size == 1 or distinct_cover([m & hand for m in masks], 0):
                return True
        return False


def distinct_cover(masks: list[int], used: int) -> bool:
    """Whether one kind per mask can be chosen, all different (a tiny matching)."""
    if not masks:
        return True
    first = masks[0] & ~used
    rest = masks[1:]
    while first:
        low = first & -first
        if distinct_cover(rest, used | low):
            return True
        first ^= low
    return False


def line_of(cell: int, step: int) -> Line:
    """The row (step 1) or column (step WIDTH) through `cell`."""
    return (step, cell // WIDTH if step == 1 else cell % WIDTH)


def touched_lines(grid: Mapping[int, int], cell: int) -> set[Line]:
    """The lines whose windows a card laid on or lifted from `cell` can change: the row
    and column through it, and the lines through the empty cells at the ends of the
    runs beside it (their crossing masks change). The same before and after."""
    lines = {line_of(cell, 1), line_of(cell, WIDTH)}
    for way, step in ((1, WIDTH), (-1, WIDTH), (WIDTH, 1), (-WIDTH, 1)):
        near = cell + way
        while near in grid:
            near += way
        lines.add(line_of(near, step))
    return lines


def window_starts(cells: Iterable[int], lines: set[Line] | None) -> dict[Line, set[int]]:
    """Per line (all, or those of `lines`), the cells a window on it may start from:
    within five cells before a card (of `cells`) of the line or of a line beside it."""
    starts: dict[Line, set[int]] = {}
    for cell in cells:
        for step, across in ((1, WIDTH), (WIDTH, 1)):
            for anchor in (cell, cell + across, cell - across):
                line = line_of(anchor, step)
                if lines is not None and line not in lines:
                    continue
                found = starts.setdefault(line, set())
                for back in range(6):
                    found.add(anchor - back * step)
    return starts


def near_lines(grid: Mapping[int, int], lines: set[Line]) -> list[int]:
    """The cards of `grid` on `lines` or on a line beside one of them."""
    rows = {number + d for step, number in lines if step == 1 for d in (-1, 0, 1)}
    columns = {number + d for step, number in lines if step != 1 for d in (-1, 0, 1)}
    return [c for c in grid if c // WIDTH in rows or c % WIDTH in columns]


class Threats:
    """The windows of one board by line, and all of them sorted by value, best first.

    `changed` builds the windows of a board that differs in a few cells, recomputing
    only the lines those cells touch: a shift or a placement compared against the
    board as it is."""

    def __init__(self, grid: Mapping[int, int], bag: int, lines: set[Line] | None = None) -> None:
        self.grid = grid
        self.bag = bag
        self.bonus = ENDGAME_PLAY_BONUS if bag == 0 else PLAY_BONUS
        self.cross_cache: dict[tuple[int, int], tuple[int, int]] = {}
        starts = window_starts(grid if lines is None else near_lines(grid, lines), lines)
        self.lines = set(starts) if lines is None else lines
        self.windows: list[Window] = []
        for line, cells in starts.items():
            across = WIDTH if line[0] == 1 else 1
            for start in cells:
                if start - line[0] not in grid:
                    self.grow(start, line[0], across, line)
        self.windows.sort(key=lambda w: -w.value)

    def changed(self, grid: Mapping[int, int], cells: Iterable[int]) -> Threats:
        """The windows of `grid` (this board with `cells` changed) on the lines those
        cells touch; `best_after` combines them with this board's other windows."""
        lines: set[Line] = set()
        for cell in cells:
            lines |= touched_lines(self.grid, cell) | touched_lines(grid, cell)
        return Threats(grid, self.bag, lines)

    def cross(self, cell: int, across: int) -> tuple[int, int]:
        """(kinds a card on the empty `cell` may have for its line along `across`, that
        line's length with the card)."""
        key = (cell, across)
        known = self.cross_cache.get(key)
        if known is not None:
            return known
        grid = self.grid
        seen, length = 0, 1
        for way in (across, -across):
            near = cell + way
            while near in grid:
                bit = 1 << grid[near]
                if seen & bit:
                    seen = -1
                    break
                seen |= bit
                length += 1
                near += way
            if seen < 0:
                break
        if seen < 0 or length > 6 or (seen and not one_group(seen)):
            found = (0, length)
        else:
            found = (accepts(seen), length)
        self.cross_cache[key] = found
        return found

    def grow(self, start: int, step: int, across: int, line: Line) -> None:
        """The windows beginning at `start` (the cell before it is empty)."""
        grid = self.grid
        seen = 0
        empty: list[tuple[int, int, int]] = []  # (cell, crossing mask, crossing length)
        touches = False
        cell = start
        for length in range(1, 7):
            kind = grid.get(cell)
            if kind is not None:
                bit = 1 << kind
                if seen & bit or not one_group(seen | bit):
                    return
                seen |= bit
                touches = True
            else:
                mask, cross_length = self.cross(cell, across)
                if not mask:
                    return
                touches = touches or cross_length > 1
                empty.append((cell, mask, cross_length))
            cell += step
            if empty and touches and cell not in grid and length > 1:
                self.add(length, seen, empty, line)

    def add(self, length: int, seen: int, empty: list[tuple[int, int, int]], line: Line) -> None:
        """Record the window of `length` cells holding `seen` and the cells `empty`."""
        value = line_points(length) - (OPEN_FIVE_PENALTY if length == 5 else 0.0)
        for _, _, cross_length in empty:
            value += line_points(cross_length)
            if cross_length == 5:
                value -= OPEN_FIVE_PENALTY
        value += len(empty) * self.bonus
        variants = variants_of(seen, tuple(mask for _, mask, _ in empty))
        if variants:
            self.windows.append(Window(value, [cell for cell, _, _ in empty], variants, line))

    def best(self, hand: int, hand_size: int = 6, skip: set[Line] | None = None) -> float:
        """The best value of a placement by a hand (a kind set of `hand_size` cards),
        leaving out the windows on the lines `skip`; 0 when it can place nothing."""
        out = self.bag == 0
        best = 0.0
        for window in self.windows:
            if window.value + (OUT_BONUS if out else 0.0) <= best:
                break  # sorted: nothing later beats it
            if skip and window.line in skip:
                continue
            value = window.value + (OUT_BONUS if out and window.size == hand_size else 0.0)
            if value > best and window.fits(hand):
                best = value
        return best

    def best_after(self, change: Threats, hand: int, hand_size: int = 6) -> float:
        """`best` on the board `change` (from `changed`) describes."""
        return max(change.best(hand, hand_size), self.best(hand, hand_size, change.lines))

    def fitting(self, hand: int, hand_size: int = 6) -> Fitting:
        """The windows a hand can fill, best first, enough of them to answer `best` with
        any few lines left out (`Fitting.best`)."""
        out = self.bag == 0
        found: list[tuple[float, Line]] = []
        lines: set[Line] = set()
        for window in self.windows:
            if not out and len(lines) >= FITTING_LINES:
                return Fitting(found, complete=False)
            if window.fits(hand):
                bonus = OUT_BONUS if out and window.size == hand_size else 0.0
                found.append((window.value + bonus, window.line))
                lines.add(window.line)
        found.sort(key=lambda entry: -entry[0])
        return Fitting(found, complete=True)


#: How many lines of fitting windows a hand keeps: more than a few changed cells touch.
FITTING_LINES = 24


class Fitting:
    """The windows one hand can fill on one board: (value, line), best first."""

    def __init__(self, found: list[tuple[float, Line]], complete: bool) -> None:
        self.found = found
        self.complete = complete  # every fitting window is listed

    def best(self, skip: set[Line]) -> float | None:
        """The best value off the lines `skip` (None: not known from the list kept)."""
        for value, line in self.found:
            if line not in skip:
                return max(value, 0.0)
        return 0.0 if self.complete else None


_VARIANTS: dict[tuple[int, tuple[int, ...]], Variants] = {}
#: The memo is dropped when it holds this many entries (a few MB).
VARIANTS_KEPT = 100_000


def variants_of(seen: int, masks: tuple[int, ...]) -> Variants:
    """Per group a line holding `seen` may be of: (the kinds it may add, the kinds each
    empty cell with these crossing masks may take), for the groups that fill them all.
    Memoised: the same runs and crossings recur on every board a decision compares."""
    key = (seen, masks)
    known = _VARIANTS.get(key)
    if known is not None:
        return known
    variants = []
    for group in groups_of(seen):
        allowed = [mask & group & ~seen for mask in masks]
        if all(allowed):
            allowed.sort(key=int.bit_count)
            union = 0
            for mask in allowed:
                union |= mask
            variants.append((union, tuple(allowed)))
    if len(_VARIANTS) >= VARIANTS_KEPT:
        _VARIANTS.clear()
    found = _VARIANTS[key] = tuple(variants)
    return found


def groups_of(seen: int) -> tuple[int, ...]:
    """The groups (colours, symbols) a line holding the kinds `seen` may belong to."""
    if not seen:
        return GROUPS
    low = (seen & -seen).bit_length() - 1
    colour, symbol = COLOUR_MASK[low // 6], SYMBOL_MASK[low % 6]
    return tuple(group for group in (colour, symbol) if not seen & ~group)


def accepts(seen: int) -> int:
    """The kinds that may join a valid run holding the kinds `seen` (every kind for none)."""
    if not seen:
        return ALL_KINDS
    if seen.bit_count() >= 6:
        return 0
    low = (seen & -seen).bit_length() - 1
    accepted = 0
    if not seen & ~COLOUR_MASK[low // 6]:
        accepted |= COLOUR_MASK[low // 6]
    if not seen & ~SYMBOL_MASK[low % 6]:
        accepted |= SYMBOL_MASK[low % 6]
    return accepted & ~seen


def hand_bits(kinds: Iterable[int]) -> int:
    """A hand's kinds as a bit set."""
    bits = 0
    for kind in kinds:
        bits |= 1 << kind
    return bits
