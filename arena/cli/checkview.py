"""Showing an `arena bot check` report (arena.submissions.check): a table per game, then
what failed.

Everything the bot printed (its offending line, its stderr) is hostile text and is
shown through `arena.cli.safe`, escaped; JSON keeps it exact (`echo_json`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.cli.common import echo_json, out
from arena.cli.errors import UserError, err
from arena.cli.safe import text
from arena.cli.tables import fitted, hidden_note

if TYPE_CHECKING:  # imported where used: `arena --help` loads no match code
    from arena.submissions.check import CheckReport, GameCheck, Plan


def run_check(folder: str, plan: Plan, seed: int | None, as_json: bool) -> int:
    """Run the check of `folder` and show it; the exit code (0 passed, 1 failed)."""
    from arena.match import seeds
    from arena.submissions import check

    try:
        secret = seeds.env_secret()
    except seeds.SecretError as error:
        raise UserError(str(error)) from None
    report = check.check(folder, plan, seed, secret)
    if as_json:
        echo_json(report.as_dict())
    else:
        show(report)
    return 0 if report.passed else 1


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _mib(value: int | None) -> str:
    return "" if value is None else f"{value / 2**20:.0f}"


#: The per-game table's columns, and those left out first when it does not fit.
CHECK_COLUMNS = (
    "game",
    "result",
    "players",
    "matches",
    "decisions",
    "p50 ms",
    "p99 ms",
    "max ms",
    "charged p50",
    "charged p99",
    "charged max",
    "deadline ms",
    "start-up ms",
    "peak MiB",
    "limit MiB",
)
CHECK_DROP = (
    "p50 ms",
    "charged p50",
    "limit MiB",
    "decisions",
    "start-up ms",
    "charged p99",
    "deadline ms",
    "matches",
)


def _check_row(game: GameCheck) -> list[str]:
    counts = ",".join(str(n) for n in game.player_counts)
    if game.variant:  # the extra match at the most players, every variant option on
        counts += f" +{max(game.player_counts)} " + ",".join(
            f"{k}={v}".replace("=True", "") for k, v in game.variant.items()
        )
    return [
        game.game,
        "pass" if game.passed else "FAIL",
        counts,
        str(game.matches),
        str(game.decisions),
        _ms(game.decision_p50_ms),
        _ms(game.decision_p99_ms),
        _ms(game.decision_max_ms),
        _ms(game.charged_p50_ms),
        _ms(game.charged_p99_ms),
        _ms(game.charged_max_ms),
        str(game.deadline_ms),
        _ms(game.startup_ms),
        _mib(game.peak_memory_bytes),
        _mib(game.memory_limit_bytes),
    ]


def show(report: CheckReport) -> None:
    """Print a report for people: one row per game, then each failure's evidence."""
    out.print(text(f"checking {report.bot} ({report.folder}), seed {report.seed}"))
    if report.build_seconds is not None:
        out.print(text(f"built in {report.build_seconds:.1f} s"))
    if report.error:
        err.print(text(("error:", "bold red"), " ", report.error), soft_wrap=True)
        if report.error_output.strip():
            err.print(text(report.error_output.strip("\n"), block=True), soft_wrap=True)
        return
    columns = list(CHECK_COLUMNS)
    cells = [_check_row(game) for game in report.games]
    numeric = set(columns) - {"game", "result", "players"}
    width = out.width
    table, hidden = fitted(
        columns,
        cells,
        numeric=numeric,
        width=width,
        title="per game",
        drop=CHECK_DROP,
        prose=frozenset({"players"}),  # the player counts, then the variant: wraps at its space
    )
    out.print(table)
    note = hidden_note(hidden, width)
    if note is not None:
        out.print(note)
    for game in report.games:
        _show_game(game)
    verdict = ("passed", "bold green") if report.passed else ("FAILED", "bold red")
    out.print(text(f"{report.bot} ", verdict))


def _show_game(game: GameCheck) -> None:
    if game.platform_error:
        out.print(text((f"{game.game}: platform error (not the bot's fault):", "bold red")))
        out.print(text(game.platform_error))
    forfeit = game.forfeit
    if forfeit is not None:
        out.print(
            text(
                (f"{game.game}: first forfeit", "bold red"),
                f" in match {forfeit.match} ({forfeit.players} players, seat {forfeit.seat}): "
                f"{forfeit.status}: {forfeit.detail}",
            )
        )
        if forfeit.line:
            out.print(text(("the bot printed:", "dim")), text(forfeit.line, block=True), sep="\n")
        if forfeit.answering:
            heading = text(("answering arena's message:", "dim"))
            out.print(heading, text(forfeit.answering, block=True), sep="\n")
        if forfeit.debug:  # the bot's own words: escaped, one line each
            out.print(text(("its last debug texts:", "dim")))
            for said in forfeit.debug:
                out.print(text(said))
    tail = game.stderr_tail.strip("\n")
    if tail.strip():
        if game.passed:  # the last lines only: a passing bot's log is for information
            tail = "\n".join(tail.split("\n")[-5:])
            heading = text((f"{game.game}: stderr, last lines:", "dim"))
        else:
            heading = text((f"{game.game}: stderr (last part):", "dim"))
        out.print(heading, text(tail, block=True), sep="\n")
