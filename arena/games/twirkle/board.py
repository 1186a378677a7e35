"""The unbounded Twirkle layout: cards on integer cells, lines, and per-cell masks.

Coordinates follow ruling W8: the first card lies at (0, 0), x grows to the
right and y grows downwards. A *line* is a maximal run of two or more cards
that touch edge to edge in one row or one column.

The board keeps a version number and caches what every turn needs (the
frontier with the kinds each empty cell accepts, the leaves, the ends of all
lines), so that building a legal list does not recompute the whole board per
candidate; a placement then only checks the two runs through one cell.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from arena.games.twirkle.cards import line_points, run_mask

Pos = tuple[int, int]
#: Unit steps, named as in decisions (y grows downwards, W8).
DIRECTIONS: dict[str, Pos] = {"right": (1, 0), "left": (-1, 0), "down": (0, 1), "up": (0, -1)}
DIRECTION_NAME: dict[Pos, str] = {step: name for name, step in DIRECTIONS.items()}
#: The two axes, as the positive unit step along them.
AXES: tuple[Pos, Pos] = ((1, 0), (0, 1))
_STEPS: tuple[Pos, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))


@dataclass(frozen=True)
class LineEnd:
    """An empty cell just beyond one end of a line, and the line it would extend.

    `direction` is the unit step from the line's end card to `cell`; `line` is
    the line's id: its axis and its first card (smallest coordinate).
    """

    cell: Pos
    direction: Pos
    line: tuple[Pos, Pos]


@dataclass
class Board:
    """Cards on the table, as kinds by cell, with caches keyed by a version number."""

    cells: dict[Pos, int] = field(default_factory=dict)
    version: int = 0
    _cache_version: int = -1
    _masks: dict[Pos, int] = field(default_factory=dict)
    _frontier: list[Pos] | None = None
    _leaves: list[Pos] | None = None
    _line_ends: list[LineEnd] | None = None

    # ----- changing the layout -----------------------------------------------
    def put(self, pos: Pos, kind: int) -> None:
        """Lay a card on an empty cell."""
        assert pos not in self.cells, f"cell {pos} is taken"
        self.cells[pos] = kind
        self._changed(pos)

    def lift(self, pos: Pos) -> int:
        """Take the card off a cell and return its kind."""
        kind = self.cells.pop(pos)
        self._changed(pos)
        return kind

    def _changed(self, pos: Pos) -> None:
        """A card came or went at `pos`: new version, and forget the masks it touches.

        A cell's mask depends on the runs next to it in its row and column, so
        only `pos` itself and the first empty cell in each direction from it
        (beyond the runs through `pos`) can change.
        """
        self.version += 1
        masks = self._masks
        masks.pop(pos, None)
        for step in _STEPS:
            masks.pop(self.beyond(pos, step), None)

    def _fresh(self) -> None:
        """Drop the whole-board views after a change (masks are kept up to date by `_changed`)."""
        if self._cache_version != self.version:
            self._cache_version = self.version
            self._frontier = None
            self._leaves = None
            self._line_ends = None

    # ----- runs and masks -----------------------------------------------------
    def walk(self, pos: Pos, step: Pos) -> Iterator[Pos]:
        """The cells with cards met going from `pos` (excluded) along `step` until a gap."""
        x, y = pos
        dx, dy = step
        cells = self.cells
        x += dx
        y += dy
        while (x, y) in cells:
            yield (x, y)
            x += dx
            y += dy

    def beyond(self, pos: Pos, step: Pos) -> Pos:
        """The first empty cell going from `pos` along `step`."""
        x, y = pos
        dx, dy = step
        x += dx
        y += dy
        while (x, y) in self.cells:
            x += dx
            y += dy
        return (x, y)

    def run(self, pos: Pos, axis: Pos) -> list[Pos]:
        """The cells of the run through `pos` (which holds a card) along `axis`, in order."""
        back = (-axis[0], -axis[1])
        before = list(self.walk(pos, back))
        before.reverse()
        return [*before, pos, *self.walk(pos, axis)]

    def _axis_cards(self, pos: Pos, axis: Pos) -> list[int]:
        """The kinds of the cards touching `pos` along `axis` on both sides (pos excluded)."""
        cells = self.cells
        kinds = [cells[p] for p in self.walk(pos, axis)]
        kinds += [cells[p] for p in self.walk(pos, (-axis[0], -axis[1]))]
        return kinds

    def compute_mask(self, pos: Pos) -> int:
        """The kinds a card on the empty cell `pos` could have with both its lines valid."""
        mask = run_mask(self._axis_cards(pos, (1, 0)))
        if mask:
            mask &= run_mask(self._axis_cards(pos, (0, 1)))
        return mask

    def mask(self, pos: Pos) -> int:
        """`compute_mask`, cached until a change next to its lines (see `_changed`)."""
        cached = self._masks.get(pos)
        if cached is None:
            cached = self._masks[pos] = self.compute_mask(pos)
        return cached

    def degree(self, pos: Pos) -> int:
        """How many cards touch `pos` by an edge."""
        x, y = pos
        cells = self.cells
        return sum(1 for dx, dy in _STEPS if (x + dx, y + dy) in cells)

    # ----- whole-board views (cached) ----------------------------------------
    def frontier(self) -> list[Pos]:
        """Every empty cell touching a card by an edge, sorted by (y, x)."""
        self._fresh()
        if self._frontier is None:
            cells = self.cells
            found = {
                (x + dx, y + dy)
                for x, y in cells
                for dx, dy in _STEPS
                if (x + dx, y + dy) not in cells
            }
            self._frontier = sorted(found, key=lambda p: (p[1], p[0]))
        return self._frontier

    def leaves(self) -> list[Pos]:
        """Every card touching exactly one other card by an edge, sorted by (y, x)."""
        self._fresh()
        if self._leaves is None:
            self._leaves = sorted(
                (p for p in self.cells if self.degree(p) == 1), key=lambda p: (p[1], p[0])
            )
        return self._leaves

    def line_ends(self) -> list[LineEnd]:
        """The cells just beyond both ends of every line (run of 2+ cards)."""
        self._fresh()
        if self._line_ends is None:
            ends: list[LineEnd] = []
            cells = self.cells
            for x, y in sorted(cells, key=lambda p: (p[1], p[0])):
                for dx, dy in AXES:
                    if (x - dx, y - dy) in cells or (x + dx, y + dy) not in cells:
                        continue  # not the first card of a line along this axis
                    line = ((dx, dy), (x, y))
                    ends.append(LineEnd((x - dx, y - dy), (-dx, -dy), line))
                    ends.append(LineEnd(self.beyond((x, y), (dx, dy)), (dx, dy), line))
            self._line_ends = ends
        return self._line_ends

    def line_id(self, pos: Pos, axis: Pos) -> tuple[Pos, Pos]:
        """The id of the run through `pos` along `axis`: the axis and the run's first card."""
        first = pos
        for cell in self.walk(pos, (-axis[0], -axis[1])):
            first = cell
        return (axis, first)

    def is_connected(self) -> bool:
        """True when all cards form one group connected by edges (an empty board is)."""
        if not self.cells:
            return True
        start = next(iter(self.cells))
        seen = {start}
        stack = [start]
        while stack:
            x, y = stack.pop()
            for dx, dy in _STEPS:
                nxt = (x + dx, y + dy)
                if nxt in self.cells and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return len(seen) == len(self.cells)

    def all_lines_valid(self) -> bool:
        """True when every run in every row and column is a valid line (a full check)."""
        for pos in self.cells:
            for axis in AXES:
                back = (pos[0] - axis[0], pos[1] - axis[1])
                if back in self.cells:
                    continue
                kinds = [self.cells[p] for p in self.run(pos, axis)]
                if len(kinds) > 1 and not run_mask(kinds[1:]) >> kinds[0] & 1:
                    return False
        return True

    # ----- scoring ---------------------------------------------------------------
    def placement_points(self, placed: list[Pos]) -> int:
        """W4: every line of 2+ cards holding a card placed this turn scores (6 scores 12).

        Crossing cards count in both lines; the common line of several placed
        cards counts once.
        """
        if not placed:
            return 0
        if len(placed) == 1:
            return sum(line_points(len(self.run(placed[0], axis))) for axis in AXES)
        main = (1, 0) if placed[0][1] == placed[1][1] else (0, 1)
        cross = (0, 1) if main == (1, 0) else (1, 0)
        points = line_points(len(self.run(placed[0], main)))
        for pos in placed:
            points += line_points(len(self.run(pos, cross)))
        return points
