"""`arena play`: one match between bots, as a table or JSON, with an optional replay file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import echo_json, open_store, out, variant_text
from arena.cli.errors import UserError, reports_errors
from arena.cli.safe import text
from arena.cli.tables import fitted

if TYPE_CHECKING:  # imported where used: `arena --help` loads no database code
    from arena.match.run import BotRef, MatchResult


def result_json(result: MatchResult) -> dict[str, Any]:
    """The machine-readable summary of a match."""
    return {
        "match": result.match_id,
        "game": result.game,
        "game_version": result.game_version,
        "seed": result.seed,
        "variant": result.variant,
        "status": str(result.status),
        "error": result.error or None,
        "seats": [
            {
                "seat": s.seat,
                "bot": s.bot,
                "score": s.score,
                "rank": s.rank,
                "status": str(s.status),
                "detail": s.detail or None,
                "decisions": s.decisions,
                "think_ms": round(s.think_seconds * 1000, 3),
                "stderr_tail": s.stderr[-2000:] or None,
            }
            for s in result.seats
        ],
    }


def print_result(result: MatchResult) -> None:
    """The result as a table, with forfeit reasons and the seed to replay it.

    Names, forfeit details and stderr come from the bots: all shown through `safe.text`.
    """
    from arena.status import MatchStatus, SeatStatus

    variant = variant_text(result.variant)
    cells = [
        [
            str(s.seat),
            s.bot,
            "" if s.score is None else f"{s.score:g}",
            str(s.rank or ""),
            str(s.status) + (f": {s.detail}" if s.detail else ""),  # prose: wraps, never cut
        ]
        for s in result.seats
    ]
    columns = ["seat", "bot", "score", "rank", "status"]
    title = f"{result.game} seed={result.seed} {variant}"
    numeric = {"seat", "score", "rank"}
    out.print(fitted(columns, cells, numeric=numeric, width=out.width, title=title)[0])
    if result.status is MatchStatus.PLATFORM_ERROR:
        out.print(text(("platform error, match void:", "bold red"), " ", result.error))
    elif result.status.void:
        out.print(text((f"{result.status}, match void:", "bold red"), " ", result.error))
    for s in result.seats:
        if s.status is not SeatStatus.OK and s.stderr.strip():
            # split at newlines only: splitlines() would also eat a CR, hiding it
            tail = "\n".join(s.stderr.strip().split("\n")[-5:])
            heading = text((f"stderr of seat {s.seat} ({s.bot}), last lines:", "dim"))
            out.print(heading, text(tail, block=True), sep="\n")


def check_writable(path: Path) -> None:
    """UserError unless a file can be written at `path` (its folder exists and is writable)."""
    folder = path.parent
    if path.is_dir():
        raise UserError(f"--replay {path} is a folder; give a file name")
    if not folder.is_dir():
        raise UserError(f"--replay {path}: there is no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"--replay {path}: not writable")


def match_secret() -> bytes:
    """ARENA_SECRET, else the home database's secret: `--seed N` replays the same match."""
    from arena.match import seeds

    try:
        override = seeds.env_secret()
    except seeds.SecretError as error:
        raise UserError(str(error)) from None
    if override is not None:
        return override  # no database needed
    store = open_store()
    try:
        return store.secret()
    finally:
        store.close()


def registered_bot(name: str) -> tuple[BotRef, Sequence[str]] | None:
    """The newest version of the registered bot `name` (how to start it, its games), or None."""
    from arena.submissions import submit as registry

    store = open_store()
    try:
        version = store.latest_version(name)
    finally:
        store.close()
    if version is None:
        return None
    return registry.bot_ref(version, name), tuple(version.games)


@reports_errors
def play(
    game: Annotated[str, typer.Argument(help="Game id, see `arena games`.")],
    bots: Annotated[
        list[str],
        typer.Argument(help="Bot folders, or registered or bundled bot names, one per seat."),
    ],
    seed: Annotated[
        int | None,
        typer.Option(help="Match seed (default: a random one), keyed by the home's secret."),
    ] = None,
    variant: Annotated[
        list[str] | None, typer.Option("--variant", help="KEY=VALUE, repeatable.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    replay_file: Annotated[
        Path | None, typer.Option("--replay", help="Write the replay to this file.")
    ] = None,
    decision_timeout: Annotated[
        float, typer.Option(help="Seconds a bot has for each decision.")
    ] = 1.0,
    startup_timeout: Annotated[
        float, typer.Option(help="Seconds a bot has to start and answer ready.")
    ] = 10.0,
    time_control: Annotated[
        str | None,
        typer.Option(
            "--time-control",
            help="2s/decision, or a bank and an increment such as 10s+100ms "
            "(replaces --decision-timeout; PROTOCOL.md, Time).",
        ),
    ] = None,
) -> None:
    """Play one match and print each seat's score, rank and status."""
    from arena.match import lineup, replay
    from arena.match.run import run_match

    if replay_file is not None:
        check_writable(replay_file)  # before the match: its result must not be lost
    spec = lineup.match_spec(
        game,
        bots,
        seed=seed,
        variant=lineup.parse_variant_pairs(variant or []),
        decision_timeout=decision_timeout,
        startup_timeout=startup_timeout,
        secret=match_secret(),
        registered=registered_bot,
        time_control=time_control,
    )
    result = run_match(spec)
    if replay_file is not None and result.replay is not None:
        replay.write(replay_file, result.replay)
    if as_json:
        echo_json(result_json(result))
    else:
        print_result(result)
    if result.status.void:  # arena's failure (its referee's too), never the bots'
        raise typer.Exit(1)
