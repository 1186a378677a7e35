"""`arena ladder run`: keep playing matches chosen from the bots' current ratings."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from arena.cli.common import echo_json, home, open_store
from arena.cli.errors import UserError, err, reports_errors
from arena.cli.leaderboard import print_standings
from arena.cli.tournament import ExecutorOption, play

app = typer.Typer(
    rich_markup_mode=None, help="Rating ladders: matches chosen by TrueSkill match quality."
)


@app.command()
@reports_errors
def run(
    game: Annotated[str, typer.Option(help="Game id.")],
    matches: Annotated[int, typer.Option(help="Matches to play (whole seat rotations).")],
    bots: Annotated[str | None, typer.Option(help="Comma-separated bot names or folders.")] = None,
    all_bots: Annotated[
        bool, typer.Option("--all", help="Every registered or bundled bot that plays the game.")
    ] = False,
    players: Annotated[int, typer.Option(help="Players per match.")] = 2,
    workers: Annotated[int, typer.Option(help="Parallel worker processes (local executor).")] = 1,
    executor: ExecutorOption = None,
    seed: Annotated[
        int, typer.Option(help="Ladder seed: with the results, fixes every choice.")
    ] = 0,
    batch: Annotated[
        int, typer.Option(help="Groups chosen at once from the same ratings (0: 2 per worker).")
    ] = 0,
    max_gap: Annotated[
        int,
        typer.Option(help="Every bot plays in any MAX_GAP consecutive groups (0: 2 x bots)."),
    ] = 0,
    variant: Annotated[
        list[str] | None, typer.Option("--variant", help="KEY=VALUE, repeatable.")
    ] = None,
    decision_timeout: Annotated[float, typer.Option(help="Seconds per decision.")] = 1.0,
    time_control: Annotated[
        str | None,
        typer.Option(
            "--time-control",
            help="2s/decision, or a bank and an increment such as 10s+100ms "
            "(replaces --decision-timeout; PROTOCOL.md, Time).",
        ),
    ] = None,
    no_pin: Annotated[bool, typer.Option("--no-pin", help="Do not pin workers to cores.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Play a ladder: new and uncertain bots first, opponents of close rating, nobody starved.

    It is a tournament (format ladder): `arena tournament resume ID` finishes a
    stopped one with the same choices, `arena tournament show ID` shows it.
    """
    from arena.match.lineup import parse_variant_pairs
    from arena.results import reports
    from arena.tournament import config as tconfig
    from arena.tournament import ladder

    if (bots is None) == (not all_bots):
        raise UserError("name the bots with --bots A,B,... or take every bot with --all")
    store = open_store()
    names = ladder.every_bot(store, game) if all_bots else bots
    flags: dict[str, Any] = {
        "game": game,
        "bots": names,
        "players": players,
        "workers": workers,
        "seed": seed,
        "decision_timeout": decision_timeout,
        "time_control": time_control,
        "variant": parse_variant_pairs(variant or []),
        "name": f"{game}-ladder",
    }
    if executor is not None:
        flags["executor"] = executor
    settings = tconfig.from_mapping(flags)
    tournament_id = ladder.create(
        store, home(), settings, ladder.LadderSettings(matches, batch, max_gap)
    )
    err.print(f"ladder {tournament_id} started (resume: arena tournament resume {tournament_id})")
    seconds = play(
        store,
        tournament_id,
        settings.workers,
        settings.fresh_processes,
        settings.pin_workers and not no_pin,
        quiet,
        settings.executor,
    )
    err.print(f"finished in {seconds:.1f} s")
    rows = reports.leaderboard(store, game, tournament_id)
    if as_json:
        echo_json(rows)
        return
    print_standings(rows, f"ladder {tournament_id} standings, ranked by {reports.BY_EVENT_RATING}")
