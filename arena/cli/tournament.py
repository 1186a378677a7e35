"""`arena tournament run|resume|list|show|cancel|delete`: tournaments with a live progress bar."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from arena.cli.common import echo_json, home, open_store, out, print_rows
from arena.cli.errors import INTERRUPTED, UserError, err, fail, reports_errors
from arena.cli.safe import text
from arena.cli.tables import HEAD_TO_HEAD_DROP

if TYPE_CHECKING:  # imported where used: `arena --help` loads no database code
    from arena.store import Store
    from arena.tournament import runner

app = typer.Typer(rich_markup_mode=None, help="Run and inspect tournaments.", no_args_is_help=True)
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
ExecutorOption = Annotated[
    str | None,
    typer.Option(
        "--executor",
        help="Where matches run: local (default; --workers processes) or dask://HOST:PORT.",
    ),
]


def play(
    store: Store,
    tournament_id: int,
    workers: int,
    fresh: bool,
    pin: bool,
    quiet: bool,
    executor: str = "local",  # arena.tournament.config.LOCAL
) -> float:
    """Run a tournament's unrecorded matches with a live progress bar; returns seconds taken.

    Ends with exit code 1 and a resume hint when the executor is lost mid-run, and
    with 130 when stopped by Ctrl-C.
    """
    from arena.tournament import runner
    from arena.tournament.config import LOCAL
    from arena.tournament.execution import ExecutorLost

    began = time.monotonic()
    if executor != LOCAL:  # Dask logs every connection at INFO; show that only with -v
        logging.getLogger("distributed").setLevel(max(logging.WARNING, logging.root.level))
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f} matches/s"),
        TimeRemainingColumn(),
    )
    try:  # the error line comes after the progress bar's last line
        with Progress(*columns, console=err, transient=False, disable=quiet) as bar:
            done, total = runner.counts(store, tournament_id)  # a ladder's: planned
            task = bar.add_task(
                f"tournament {tournament_id}", total=total, completed=done, rate=0.0
            )
            start_done = done

            def report(progress: runner.Progress) -> None:
                rate = (progress.done - start_done) / max(1e-9, time.monotonic() - began)
                bar.update(task, completed=progress.done, rate=rate)
                for label in progress.suspended_now:
                    err.print(
                        text(("suspended", "yellow"), f" {label}: too many forfeits in a row")
                    )

            runner.run(
                store,
                tournament_id,
                workers,
                executor=executor,
                fresh_processes=fresh,
                pin_workers=pin,
                on_progress=report,
            )
    except ExecutorLost as error:
        raise fail(str(error), code=1) from None
    except runner.Interrupted as error:
        raise fail(str(error), code=INTERRUPTED) from None
    return time.monotonic() - began


#: Head-to-head rows a summary shows unless asked for every pair: the pairs among the
#: standings' top bots, as many bots as keep them within this (6 bots: 15 pairs).
SHOWN_PAIRS = 15
TopOption = Annotated[
    int | None,
    typer.Option(
        "--top", min=1, help="Only the first N of the standings, and the head to head among them."
    ),
]
AllPairsOption = Annotated[
    bool,
    typer.Option(
        "--all-pairs",
        help=f"Every head-to-head pair (default: those among the top bots, at most"
        f" {SHOWN_PAIRS} unless --top; --json has every pair).",
    ),
]


def show_summary(
    store: Store, tournament_id: int, as_json: bool, top: int | None = None, all_pairs: bool = False
) -> None:
    """Print a tournament's status, standings, head-to-head and forfeits."""
    from arena.cli.leaderboard import print_standings
    from arena.results import reports

    details = reports.tournament_details(store, tournament_id)
    if details is None:
        raise UserError(f"no tournament {tournament_id} (see `arena tournament list`)")
    if as_json:
        echo_json({**details, "standings": details["standings"][:top]})
        return
    out.print(
        text(
            f"tournament {details['id']} {details['name']}: {details['game']} "
            f"{details['format']}, {details['status']}, "
            f"{details['played']}/{details['scheduled']} matches"
        )
    )
    standings = details["standings"]
    title = f"standings ({details['score_order']}), ranked by {details['ranked_by']}"
    print_standings(standings, title, top)
    _print_head_to_head(details, top, all_pairs)
    if details["forfeits"]:
        out.print(text("forfeits: ", ", ".join(f"{k} {v}" for k, v in details["forfeits"].items())))
    if details["platform_errors"]:
        out.print(text((f"platform errors (void matches): {details['platform_errors']}", "red")))
        print_rows(details["void_matches"], "void matches (never rated)")
    hint = f"arena tournament show {tournament_id} --matches"
    out.print(text((f"every match, for `arena replay html --match ID`: {hint}", "dim")))


def _print_head_to_head(details: dict[str, Any], top: int | None, all_pairs: bool) -> None:
    """The pairs among the standings' top bots (`headtohead.among`), best placed first."""
    from arena.results import headtohead

    order = [f"{row['bot']} v{row['version']}" for row in details["standings"]]
    pairs = details["head_to_head"]
    bots = len(order) if all_pairs else top or headtohead.bots_for(SHOWN_PAIRS)
    shown = headtohead.among(pairs, order, bots)
    print_rows(
        [headtohead.display(row) for row in shown],
        "head to head, pairwise (score rate and Elo, 95 % intervals)",
        drop=HEAD_TO_HEAD_DROP,
    )
    if len(shown) < len(pairs):
        out.print(
            text(
                (
                    f"(the {len(shown)} pairs among the top {min(bots, len(order))} of the"
                    f" standings, of {len(pairs)}: --all-pairs shows every pair)",
                    "dim",
                )
            )
        )


@app.command()
@reports_errors
def run(
    file: Annotated[Path | None, typer.Argument(help="A tournament file (TOML).")] = None,
    game: Annotated[str | None, typer.Option(help="Game id.")] = None,
    bots: Annotated[str | None, typer.Option(help="Comma-separated bot names or folders.")] = None,
    players: Annotated[int | None, typer.Option(help="Players per match.")] = None,
    deals: Annotated[
        int | None, typer.Option(help="Deals per pairing or group (each in every seat rotation).")
    ] = None,
    rounds: Annotated[
        int | None, typer.Option(hidden=True, help="The old spelling of --deals.")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Parallel worker processes (local executor).")
    ] = None,
    executor: ExecutorOption = None,
    seed: Annotated[int | None, typer.Option(help="Tournament seed.")] = None,
    variant: Annotated[
        list[str] | None, typer.Option("--variant", help="KEY=VALUE, repeatable.")
    ] = None,
    format: Annotated[
        str | None,
        typer.Option("--format", help="round-robin or gauntlet (first bot is the challenger)."),
    ] = None,
    decision_timeout: Annotated[float | None, typer.Option(help="Seconds per decision.")] = None,
    time_control: Annotated[
        str | None,
        typer.Option(
            "--time-control",
            help="2s/decision, or a bank and an increment such as 10s+100ms "
            "(replaces --decision-timeout; PROTOCOL.md, Time).",
        ),
    ] = None,
    suspend_after: Annotated[
        int | None, typer.Option(help="Forfeits in a row before a bot is suspended.")
    ] = None,
    fresh_processes: Annotated[
        bool,
        typer.Option(
            "--fresh-processes",
            help="A new bot process for every seat of every match (started ahead, while"
            " the previous match plays).",
        ),
    ] = False,
    no_pin: Annotated[bool, typer.Option("--no-pin", help="Do not pin workers to cores.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    top: TopOption = None,
    all_pairs: AllPairsOption = False,
    as_json: JsonFlag = False,
) -> None:
    """Schedule a tournament (file and/or flags), play it, and show the standings."""
    from arena.match.lineup import parse_variant_pairs
    from arena.tournament import config as tconfig
    from arena.tournament import runner

    base = tconfig.load(file) if file is not None else tconfig.TournamentConfig()
    flags: dict[str, Any] = {
        "game": game,
        "bots": bots,
        "players": players,
        "deals": deals,
        "rounds": rounds,
        "workers": workers,
        "executor": executor,
        "seed": seed,
        "format": format,
        "decision_timeout": decision_timeout,
        "time_control": time_control,
        "suspend_after": suspend_after,
    }
    flags = {k: v for k, v in flags.items() if v is not None}
    if variant:
        flags["variant"] = {**base.variant, **parse_variant_pairs(variant)}
    if fresh_processes:
        flags["fresh_processes"] = True
    settings = tconfig.from_mapping(flags, base)
    store = open_store()
    tournament_id = runner.create(store, home(), settings)
    err.print(
        f"tournament {tournament_id} scheduled (resume: arena tournament resume {tournament_id})"
    )
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
    show_summary(store, tournament_id, as_json, top, all_pairs)


@app.command()
@reports_errors
def resume(
    tournament_id: Annotated[int, typer.Argument(help="Tournament id.")],
    workers: Annotated[
        int | None, typer.Option(help="Parallel worker processes (default: as it was run).")
    ] = None,
    executor: ExecutorOption = None,
    fresh_processes: Annotated[
        bool | None,
        typer.Option("--fresh-processes/--reuse-processes", help="Default: as it was run."),
    ] = None,
    pin: Annotated[
        bool | None, typer.Option("--pin/--no-pin", help="Default: as it was run.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
    top: TopOption = None,
    all_pairs: AllPairsOption = False,
    as_json: JsonFlag = False,
) -> None:
    """Finish an interrupted tournament: play exactly the matches not yet recorded.

    It runs with the tournament's own settings (workers, executor, fresh processes,
    pinning) unless an option says otherwise.
    """
    from arena.status import TournamentStatus
    from arena.tournament import runner
    from arena.tournament.config import check_name
    from arena.tournament.settings import TournamentSettings

    store = open_store()
    tournament = store.tournament(tournament_id)
    if tournament is None:
        raise UserError(f"no tournament {tournament_id} (see `arena tournament list`)")
    runner.check_rules(tournament)  # before the progress bar: a rules change stops it here
    done, total = runner.counts(store, tournament_id)
    # finished: say so, with no bar of "0.0 matches/s"
    if tournament.status == TournamentStatus.FINISHED and done == total:
        err.print(f"tournament {tournament_id} is finished: nothing to resume")
        show_summary(store, tournament_id, as_json, top, all_pairs)
        return
    from arena.tournament.paired import SPRT_FORMAT

    if tournament.format == SPRT_FORMAT:  # an `arena match` run: its test goes on
        from arena.cli.match import resume_paired

        resume_paired(tournament_id, quiet, as_json)
        return
    stored = TournamentSettings.from_json(tournament.settings)
    play(
        store,
        tournament_id,
        workers if workers is not None else stored.workers,
        fresh_processes if fresh_processes is not None else stored.fresh_processes,
        pin if pin is not None else stored.pin_workers,
        quiet,
        check_name(executor or stored.executor),
    )
    show_summary(store, tournament_id, as_json, top, all_pairs)


@app.command("list")
@reports_errors
def list_tournaments(as_json: JsonFlag = False) -> None:
    """Every tournament with its progress."""
    from arena.results import reports

    rows = reports.tournaments(open_store())
    echo_json(rows) if as_json else print_rows(rows, "tournaments")


@app.command()
@reports_errors
def show(
    tournament_id: Annotated[int, typer.Argument(help="Tournament id.")],
    as_json: JsonFlag = False,
    matches: Annotated[
        bool,
        typer.Option(
            "--matches",
            help="List every recorded match instead (its id for `arena replay html --match`).",
        ),
    ] = False,
    top: TopOption = None,
    all_pairs: AllPairsOption = False,
) -> None:
    """Status, matches played of scheduled, standings, head-to-head, forfeits by reason,
    void matches with their reason; with --matches every recorded match.

    The standings come from this tournament's matches alone: ranked by points per
    game (a ladder's by its own rating), with the all-time rating beside them."""
    if not matches:
        show_summary(open_store(), tournament_id, as_json, top, all_pairs)
        return
    from arena.results import reports

    rows = reports.tournament_matches(open_store(), tournament_id)
    if rows is None:
        raise UserError(f"no tournament {tournament_id} (see `arena tournament list`)")
    if as_json:
        echo_json(rows)
        return
    print_rows(rows, f"tournament {tournament_id}: recorded matches")
    if rows:
        hint = f"arena replay html --match {rows[0]['match']} -o match.html"
        out.print(text((f"a match as a card table in a browser: {hint}", "dim")))


def _refusals(call: Any) -> Any:
    """`call()`, a refusal of the store (arena.store.Refused) as one line, exit 2."""
    from arena.store import Refused

    try:
        return call()
    except Refused as error:
        raise UserError(str(error)) from None


@app.command()
@reports_errors
def cancel(tournament_id: Annotated[int, typer.Argument(help="Tournament id.")]) -> None:
    """Stop a tournament for good: scheduled, interrupted, or running (even if its run died).

    Its recorded matches, their ratings and replays stay; its unplayed matches are
    dropped from the schedule and never played (a run still going stops after the
    matches it is playing, none of them recorded); `resume` refuses it.
    """
    store = open_store()
    kept, dropped = _refusals(lambda: store.cancel_tournament(tournament_id))
    out.print(
        text(
            f"cancelled tournament {tournament_id}: {kept} recorded matches and their "
            f"ratings stay, {dropped} unplayed matches will never be played"
        )
    )


@app.command()
@reports_errors
def delete(tournament_id: Annotated[int, typer.Argument(help="Tournament id.")]) -> None:
    """Delete a tournament that never recorded a match (e.g. a Dask start that failed).

    One with recorded matches is refused: ratings were computed from them (and every
    later match's from those); cancel it instead to stop it for good.
    """
    store = open_store()
    dropped = _refusals(lambda: store.delete_tournament(tournament_id))
    out.print(text(f"deleted tournament {tournament_id} and its {dropped} scheduled matches"))
