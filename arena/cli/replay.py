"""`arena replay verify|show|html|export`: check a replay against the referee, print it,
write it as an HTML page (arena.viewer), or write a stored match's replay to a file.

Every command reads a replay FILE or a stored match (`--match ID`, as `arena bot show`
and `arena tournament show --matches` list them).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from arena.cli.common import variant_text
from arena.cli.errors import UserError, reports_errors
from arena.cli.safe import text

app = typer.Typer(
    rich_markup_mode=None, help="Check, print or view replay files.", no_args_is_help=True
)
out = Console(highlight=False, soft_wrap=True)


FileArgument = Annotated[
    Path | None, typer.Argument(help="A replay written by --replay (or use --match).")
]
MatchOption = Annotated[
    str | None,
    typer.Option(
        "--match",
        help="A stored match: its id (as `arena bot show` lists it) or label (t3-m17).",
    ),
]


def replay_data(file: Path | None, match: str | None) -> dict[str, Any]:
    """The replay in `file`, or the stored replay of `match`: exactly one of them is given."""
    from arena import viewer
    from arena.cli.common import open_store
    from arena.match import replay as replays

    if (file is None) == (match is None):
        raise UserError("give either a replay FILE or --match ID")
    if file is not None:
        return replays.load(file)
    assert match is not None
    store = open_store()
    try:
        return viewer.stored_replay(store, match)
    finally:
        store.close()


@app.command()
@reports_errors
def verify(
    file: FileArgument = None,
    match: MatchOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Re-run a replay through the referee; exit 0 only if the outcome matches."""
    from arena.cli.common import echo_json
    from arena.errors import ReplayError
    from arena.match import replay as replays

    data = replay_data(file, match)
    try:
        outcome = replays.verify(data)
    except ReplayError as error:
        if not as_json:
            raise
        echo_json({"ok": False, "game": data.get("game"), "error": str(error)})
        raise typer.Exit(2) from None
    if as_json:
        echo_json({"ok": True, "game": data["game"], "scores": list(outcome.scores)})
        return
    scores = " ".join(f"{s:g}" for s in outcome.scores)
    out.print(text(f"ok: {data['game']} replay checks out (scores {scores})"))


@app.command()
@reports_errors
def show(file: FileArgument = None, match: MatchOption = None) -> None:
    """Print a replay turn by turn.

    A replay file holds bot names, forfeit details and decisions: every line is
    shown through `safe.text`.
    """
    print_replay(replay_data(file, match))


def print_replay(data: dict[str, Any]) -> None:
    """A replay turn by turn, every line through `safe.text` (`arena replay show`)."""
    from arena.match import replay as replays

    turns = list(replays.lines(data))  # the whole file is checked before anything is shown
    variant = variant_text(data["variant"])
    clock = f"  time={data['time_control']}" if "time_control" in data else ""
    out.print(
        text(f"{data['game']} v{data['game_version']}  seed={data.get('seed')}{clock}  {variant}")
    )
    for seat in data["seats"]:
        out.print(text(f"  seat {seat['seat']}: {seat['bot']}"))
    for line in turns:
        out.print(text(line))
    result = data["outcome"]
    if "void" in result:  # a decision-limit replay: cut off where the referee overran
        out.print(text(f"  void match ({result['void']}): no scores or ranks, never rated"))
    for seat in data["seats"]:
        i = seat["seat"]
        if "void" in result:
            out.print(text(f"  seat {i} ({seat['bot']}): {result['status'][i]}"))
            continue
        out.print(
            text(
                f"  seat {i} ({seat['bot']}): score {result['scores'][i]}, "
                f"rank {result['ranks'][i]}, {result['status'][i]}"
            )
        )


@app.command()
@reports_errors
def html(
    file: FileArgument = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="The HTML file to write (default: FILE.html, match-ID.html)."
        ),
    ] = None,
    match: MatchOption = None,
) -> None:
    """Write a replay as one self-contained HTML page: the table, step by step.

    The page needs no network and no server: open it in a browser. Step with the
    buttons or the arrow keys, play and pause at a chosen speed, jump with the slider,
    and switch between the all-seeing view and what one seat was shown (the others'
    moves as that seat saw them). The end names the winner and every rank.
    """
    from arena import viewer

    if (file is None) == (match is None):
        raise UserError("give either a replay FILE or --match ID")
    check_match(match)
    if output is None:
        output = file.with_suffix(".html") if file is not None else Path(f"match-{match}.html")
    if file is not None and output.resolve() == file.resolve():
        raise UserError(f"-o {output} is the replay file itself")
    check_output(output)
    data = replay_data(file, match)
    write(output, viewer.build(data).encode())
    out.print(text(f"wrote {output} ({len(data['events'])} events of {data['game']})"))


@app.command()
@reports_errors
def export(
    match: MatchOption = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="The replay file to write (default: match-ID.json)."),
    ] = None,
) -> None:
    """Write a stored match's replay to a file, as `arena play --replay` writes one."""
    from arena.match import replay as replays

    if match is None:
        raise UserError("give the stored match to export: --match ID")
    check_match(match)
    output = output or Path(f"match-{match}.json")
    check_output(output)
    data = replay_data(None, match)
    write(output, replays.dumps(data))
    out.print(text(f"wrote {output} ({len(data['events'])} events of {data['game']})"))


def check_match(match: str | None) -> None:
    """UserError unless `match` (when given) looks like a match id or label."""
    if match is not None and re.fullmatch(r"\d+|t\d+-m\d+", match.strip().lower()) is None:
        raise UserError(f"--match takes a match id (17) or label (t3-m17), not {match!r}")


def write(output: Path, data: bytes) -> None:
    """Write `data` to `output`; a one-line UserError when the system refuses."""
    try:
        output.write_bytes(data)
    except OSError as error:
        raise UserError(f"cannot write {output}: {error.strerror or error}") from None


def check_output(path: Path) -> None:
    """UserError unless a file can be written at `path` (checked before any work)."""
    folder = path.parent
    if path.is_dir():
        raise UserError(f"-o {path} is a folder; give a file name")
    if not folder.is_dir():
        raise UserError(f"-o {path}: there is no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"-o {path}: not writable")
