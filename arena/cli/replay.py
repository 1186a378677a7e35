"""`arena replay verify|show FILE`: check a replay against the referee, or print it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from arena.cli.errors import reports_errors
from arena.cli.safe import text

app = typer.Typer(help="Check or print replay files.", no_args_is_help=True)
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
