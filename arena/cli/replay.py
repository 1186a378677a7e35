"""`arena replay verify|show|html`: check a replay against the referee, print it, or
write it as an HTML page (arena.viewer)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from arena.cli.errors import UserError, reports_errors
from arena.cli.safe import text

app = typer.Typer(
    rich_markup_mode=None, help="Check, print or view replay files.", no_args_is_help=True
)
out = Console(highlight=False, soft_wrap=True)


@app.command()
@reports_errors
def verify(file: Annotated[Path, typer.Argument(help="A replay written by --replay.")]) -> None:
    """Re-run a replay through the referee; exit 0 only if the outcome matches."""
    from arena import replay as replays

    data = replays.load(file)
    outcome = replays.verify(data)
    scores = " ".join(f"{s:g}" for s in outcome.scores)
    out.print(text(f"ok: {data['game']} replay checks out (scores {scores})"))


@app.command()
@reports_errors
def show(file: Annotated[Path, typer.Argument(help="A replay written by --replay.")]) -> None:
    """Print a replay turn by turn.

    A replay file holds bot names, forfeit details and decisions: every line is
    shown through `safe.text`.
    """
    from arena import replay as replays

    data = replays.load(file)
    turns = list(replays.lines(data))  # the whole file is checked before anything is shown
    variant = " ".join(f"{k}={v}" for k, v in data["variant"].items())
    out.print(text(f"{data['game']} v{data['game_version']}  seed={data.get('seed')}  {variant}"))
    for seat in data["seats"]:
        out.print(text(f"  seat {seat['seat']}: {seat['bot']}"))
    for line in turns:
        out.print(text(line))
    result = data["outcome"]
    for seat in data["seats"]:
        i = seat["seat"]
        out.print(
            text(
                f"  seat {i} ({seat['bot']}): score {result['scores'][i]}, "
                f"rank {result['ranks'][i]}, {result['status'][i]}"
            )
        )


@app.command()
@reports_errors
def html(
    file: Annotated[
        Path | None, typer.Argument(help="A replay written by --replay (or use --match).")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="The HTML file to write (default: FILE.html, match-ID.html)."
        ),
    ] = None,
    match: Annotated[
        str | None,
        typer.Option(
            "--match",
            help="A stored match: its id (as `arena bot show` lists it) or label (t3-m17).",
        ),
    ] = None,
) -> None:
    """Write a replay as one self-contained HTML page: the table, step by step.

    The page needs no network and no server: open it in a browser. Step with the
    buttons or the arrow keys, jump with the slider, and switch between the
    all-seeing view and what one seat was shown.
    """
    from arena import replay as replays
    from arena import viewer
    from arena.cli.common import open_store

    if (file is None) == (match is None):
        raise UserError("give either a replay FILE or --match ID")
    if match is not None and re.fullmatch(r"\d+|t\d+-m\d+", match.strip().lower()) is None:
        raise UserError(f"--match takes a match id (17) or label (t3-m17), not {match!r}")
    if output is None:
        output = file.with_suffix(".html") if file is not None else Path(f"match-{match}.html")
    if file is not None and output.resolve() == file.resolve():
        raise UserError(f"-o {output} is the replay file itself")
    check_output(output)
    if file is not None:
        data = replays.load(file)
    else:
        assert match is not None
        store = open_store()
        try:
            data = viewer.stored_replay(store, match)
        finally:
            store.close()
    page = viewer.build(data)
    try:
        output.write_text(page, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {output}: {error.strerror or error}") from None
    out.print(text(f"wrote {output} ({len(data['events'])} events of {data['game']})"))


def check_output(path: Path) -> None:
    """UserError unless a file can be written at `path` (checked before any work)."""
    folder = path.parent
    if path.is_dir():
        raise UserError(f"-o {path} is a folder; give a file name")
    if not folder.is_dir():
        raise UserError(f"-o {path}: there is no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"-o {path}: not writable")
