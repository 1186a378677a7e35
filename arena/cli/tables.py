"""Tables that fit the width they get: numbers never split, names never broken.

A table wider than its terminal used to be squeezed by rich, which splits a cell
anywhere: `39.76` became `39.7` over `6`, a bot's name `tth-` over `d`. Here a table
is laid out for the width it gets (the terminal's, or `COLUMNS`; 160 when the output
is a pipe or a file), in steps, each taken only when the one before is not enough:

1. every column at its natural width (its widest cell or header);
2. the headers abbreviated (`version` -> `v`, `avg_score` -> `avg`);
3. columns left out, in the order the caller gives (the least needed first), and
   said below the table, so nobody mistakes a missing column for a missing value;
4. the widest name-like cells cut with an ellipsis, the last resort.

Numbers are never wrapped or cut. Prose (a forfeit's detail, a variant's help) wraps
at spaces, as text does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from arena import settings
from arena.cli.safe import text, visible

#: Width for output that is not a terminal and has no COLUMNS: wide enough for every table.
PIPE_WIDTH = 160
#: Shorter headers, tried before any column is left out.
ABBREVIATIONS = {
    "version": "v",
    "shared_1st": "=1st",
    "avg_score": "avg",
    "forfeits": "forf",
    "decisions": "dec",
    "matches": "match",
    "players": "pl",
    "deadline ms": "dl ms",
    "start-up ms": "start",
    "limit MiB": "cap",
    "peak MiB": "peak",
}
#: What a leaderboard or a tournament's standings leave out first when they do not fit.
STANDINGS_DROP = ("shared_1st", "avg_score", "sigma", "mu", "version", "games")
#: What a head-to-head table leaves out first: the score rate and its interval stay.
HEAD_TO_HEAD_DROP = ("draws", "losses", "elo", "wins")
#: Columns whose cells are sentences: they wrap at spaces instead of being cut.
PROSE = frozenset({"detail", "description", "reason", "error", "why", "status", "variants"})
#: What a row costs beyond its cells: two spaces between neighbouring columns.
GAP = 2


def width_for(console: Console) -> int:
    """The width `console` writes in: COLUMNS, else the terminal's, else PIPE_WIDTH."""
    columns = settings.read(settings.COLUMNS)
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return console.size.width if console.is_terminal else PIPE_WIDTH


@dataclass
class Layout:
    """Which columns are shown, under which headers; which were left out."""

    shown: list[str]
    headers: dict[str, str]
    hidden: list[str] = field(default_factory=list)


def _natural(header: str, cells: Sequence[str], prose: bool) -> int:
    """The width a column needs: its widest line; for prose, its longest word (at least 12)."""
    lines = [line for cell in cells for line in cell.split("\n")]
    widest = max((cell_len(line) for line in lines), default=0)
    if prose:  # a sentence may wrap at its spaces
        longest_word = max((cell_len(w) for w in " ".join(lines).split()), default=0)
        widest = min(widest, max(12, longest_word))
    return max(widest, cell_len(header))


def layout(
    columns: Sequence[str],
    cells: dict[str, list[str]],
    width: int,
    drop: Sequence[str],
    prose: frozenset[str] = PROSE,
) -> Layout:
    """The columns and headers that fit `width` (steps 1-3 of the module's list)."""
    plain = {c: c.replace("_", " ") for c in columns}
    short = {c: ABBREVIATIONS.get(c, plain[c]) for c in columns}
    shown = list(columns)

    def needed(headers: dict[str, str]) -> int:
        needs = (_natural(headers[c], cells[c], c in prose) for c in shown)
        return sum(needs) + GAP * (len(shown) - 1)

    if needed(plain) <= width:
        return Layout(shown, plain)
    hidden: list[str] = []
    for column in [c for c in drop if c in shown]:
        if needed(short) <= width:
            break
        shown.remove(column)
        hidden.append(column)
    return Layout(shown, short, hidden)


def fitted(
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    numeric: set[str],
    width: int,
    title: str = "",
    drop: Sequence[str] = (),
    prose: frozenset[str] = frozenset(),
) -> tuple[RenderableType, list[str]]:
    """A table of `rows` (cells as strings, in `columns` order) laid out for `width`.

    `drop` names the columns that may be left out, the first to go first; `prose`
    the columns beyond PROSE whose cells wrap at spaces. Returns the table and the
    columns left out.
    """
    prose = PROSE | prose
    # measured as shown: a control character takes the width of its escape (\x1b: 4)
    cells = {c: [visible(row[i], block=True) for row in rows] for i, c in enumerate(columns)}
    plan = layout(columns, cells, width, drop, prose)
    needs = {c: _natural(plan.headers[c], cells[c], c in prose) for c in plan.shown}
    names = [c for c in plan.shown if c not in numeric and c not in prose]
    cut = _cut_names(needs, names, width - GAP * (len(plan.shown) - 1))
    table = plain_table()
    for column in plan.shown:
        header = text(plan.headers[column])
        if column in numeric:
            table.add_column(header, justify="right", no_wrap=True, min_width=needs[column])
        elif column in prose:
            table.add_column(header, overflow="fold")
        else:  # a name: whole, or cut with an ellipsis when nothing else is left
            table.add_column(header, no_wrap=True, overflow="ellipsis", max_width=cut.get(column))
    for row in rows:
        table.add_row(*(_cell(row[columns.index(c)]) for c in plan.shown))
    # The title is a line of its own: as a table's title it would wrap at the table's width.
    return (Group(text(title), table) if title else table), plan.hidden


def _cut_names(needs: dict[str, int], names: list[str], room: int) -> dict[str, int]:
    """Widths for name columns when even the fewest columns do not fit: the widest
    name column gives up a character at a time (down to 4), so numbers keep theirs."""
    widths = dict(needs)
    cut: dict[str, int] = {}
    while sum(widths.values()) > room:
        widest = max(names, key=lambda c: widths[c], default=None)
        if widest is None or widths[widest] <= 4:
            break
        widths[widest] -= 1
        cut[widest] = widths[widest]
    return cut


def plain_table() -> Table:
    """A table drawn as columns two spaces apart under a rule: no borders to pay for."""
    return Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )


def _cell(value: str) -> Text:
    return text(value, block="\n" in value)


def hidden_note(hidden: Sequence[str], width: int) -> Text | None:
    """The line below a table that says which columns it leaves out, or None."""
    if not hidden:
        return None
    names = ", ".join(c.replace("_", " ") for c in hidden)
    return text((f"(left out at {width} columns: {names})", "dim"))
