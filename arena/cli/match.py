"""`arena match A B --game G [--sprt ELO0,ELO1]` and `arena compare A B --game G`.

`match` plays paired matches (one deal twice, seats swapped) between two bots, stored
as a tournament of format `sprt`, until the SPRT accepts H0 or H1 or the match limit
is reached, with one progress line per pair on stderr (arena.tournament.paired,
arena.results.sprt). `compare` shows stored head-to-head records with 95 % error bars
(arena.results.headtohead).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import echo_json, home, open_store, out, print_rows
from arena.cli.errors import UserError, err, reports_errors
from arena.cli.safe import text
from arena.cli.tables import HEAD_TO_HEAD_DROP

if TYPE_CHECKING:  # imported where used: `arena --help` loads no database code
    from arena.results.sprt import Sprt
    from arena.store import Store
    from arena.store.models import Tournament
    from arena.tournament.paired import PairedState

GameOption = Annotated[str, typer.Option("--game", "-g", help="Game id, see `arena games`.")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


def parse_bounds(value: str) -> tuple[float, float]:
    """``"0,10"`` -> (0.0, 10.0); UserError unless two finite numbers with ELO0 < ELO1.

    >>> parse_bounds("-1.5, 3")
    (-1.5, 3.0)
    """
    parts = value.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        elo0, elo1 = float(parts[0]), float(parts[1])
    except ValueError:
        raise UserError(f"--sprt takes ELO0,ELO1 (two numbers), not {value!r}") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1)) or elo0 >= elo1:
        raise UserError(f"--sprt ELO0,ELO1 needs ELO0 < ELO1, not {value!r}")
    return elo0, elo1


def make_test(
    sprt: str | None, alpha: float | None, beta: float | None, model: str | None
) -> Sprt | None:
    """The test the options ask for (None without --sprt); UserError for bad settings,
    and for the test's settings given without the test."""
    from arena.results.sprt import Sprt, SprtError

    if sprt is None:
        given = [
            f"--{n}"
            for n, v in (("alpha", alpha), ("beta", beta), ("model", model))
            if v is not None
        ]
        if given:
            raise UserError(f"{', '.join(given)} set the SPRT: give --sprt ELO0,ELO1 with them")
        return None
    elo0, elo1 = parse_bounds(sprt)
    try:
        alpha, beta = (0.05 if x is None else x for x in (alpha, beta))
        return Sprt(elo0, elo1, alpha, beta, model or "normalized")
    except SprtError as error:
        raise UserError(str(error)) from None


def progress_line(state: PairedState, test: Sprt | None, max_pairs: int) -> str:
    """One line per pair, as fastchess prints its SPRT: games, pentanomial, LLR, bounds."""
    tally = state.tally
    ptnml = ", ".join(str(n) for n in tally.pentanomial)
    line = (
        f"pair {state.pairs}/{max_pairs}  W-D-L {tally.wins}-{tally.draws}-{tally.losses}  "
        f"Ptnml(0-2) [{ptnml}]"
    )
    if test is not None:
        line += (
            f"  LLR {state.llr:.2f} ({test.lower:.2f}, {test.upper:.2f}) "
            f"[{test.elo0:.2f}, {test.elo1:.2f}]"
        )
    return line


def summary(state: PairedState, test: Sprt | None, seed: int) -> dict[str, Any]:
    """The JSON-ready result of a run."""
    tally = state.tally
    return {
        "tournament": state.tournament_id,
        "bot": state.labels[0],
        "opponent": state.labels[1],
        "seed": seed,
        "pairs": state.pairs,
        "void_pairs": state.void_pairs,
        **state.record.as_dict(),
        "pentanomial": dict(zip(("LL", "LD", "WL+DD", "WD", "WW"), tally.pentanomial, strict=True)),
        "sprt": None
        if test is None
        else {
            "elo0": test.elo0,
            "elo1": test.elo1,
            "alpha": test.alpha,
            "beta": test.beta,
            "model": test.model,
            "llr": round(state.llr, 4),
            "lower": round(test.lower, 4),
            "upper": round(test.upper, 4),
            "result": state.decision or "no decision (match limit)",
        },
    }


@reports_errors
def match(
    a: Annotated[
        str, typer.Argument(metavar="A", help="Bot A: a registered or bundled bot, or a folder.")
    ],
    b: Annotated[str, typer.Argument(metavar="B", help="Bot B, the baseline.")],
    game: GameOption,
    sprt: Annotated[
        str | None,
        typer.Option(
            "--sprt",
            metavar="ELO0,ELO1",
            help="Test H0: A is ELO0 better than B, against H1: ELO1 (ELO0 < ELO1).",
        ),
    ] = None,
    alpha: Annotated[
        float | None, typer.Option(help="Chance of accepting H1 when H0 holds [0.05].")
    ] = None,
    beta: Annotated[
        float | None, typer.Option(help="Chance of accepting H0 when H1 holds [0.05].")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(help="normalized (fastchess's default, normalized Elo) or logistic."),
    ] = None,
    max_matches: Annotated[
        int | None,
        typer.Option(help="Stop after this many matches (default: 1000 with --sprt, else 100)."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed of the deals (default: a random one, printed).")
    ] = None,
    variant: Annotated[
        list[str] | None, typer.Option("--variant", help="KEY=VALUE, repeatable.")
    ] = None,
    decision_timeout: Annotated[
        float, typer.Option(help="Seconds a bot has for each decision.")
    ] = 1.0,
    workers: Annotated[int, typer.Option(help="Matches at once (2: both of a pair).")] = 1,
    time_control: Annotated[
        str | None,
        typer.Option(
            "--time-control",
            help="2s/decision, or a bank and an increment such as 10s+100ms "
            "(replaces --decision-timeout; PROTOCOL.md, Time).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Play paired matches (each deal twice, seats swapped) of A against B, recorded as a
    tournament; with --sprt until the SPRT accepts H0 or H1 (or --max-matches)."""
    from arena.games import load_game
    from arena.match.lineup import check_seed, check_timeout, new_seed, parse_variant_pairs
    from arena.protocol.clock import TimeControl
    from arena.tournament import paired

    test = make_test(sprt, alpha, beta, model)
    limit = max_matches if max_matches is not None else (1000 if test is not None else 100)
    if limit < 2:
        raise UserError(f"--max-matches must be at least 2 (one pair), not {limit}")
    if workers < 1:
        raise UserError(f"--workers must be at least 1, not {workers}")
    try:
        chosen = new_seed() if seed is None else check_seed(seed)
        check_timeout("--decision-timeout", decision_timeout)
        control = None if time_control is None else str(TimeControl.parse(time_control))
    except ValueError as error:
        raise UserError(str(error)) from None
    load_game(game)  # an unknown game is reported before any bot is registered
    settings = paired.PairedSettings(
        game=game,
        a=a,
        b=b,
        test=test,
        max_matches=limit,
        seed=chosen,
        variant=parse_variant_pairs(variant or []),
        decision_timeout=decision_timeout,
        workers=workers,
        time_control=control,
    )

    def report(state: PairedState) -> None:
        if not quiet:
            err.print(text(progress_line(state, test, settings.max_pairs)), soft_wrap=True)

    state = run_paired(lambda: paired.run(open_store(), home(), settings, report))
    show_paired(game, state, test, chosen, as_json)


def run_paired(start: Callable[[], PairedState]) -> PairedState:
    """Run (or resume) a paired run: one line for what stops it, with how to resume."""
    from arena.cli.errors import INTERRUPTED, fail
    from arena.tournament import paired

    try:
        return start()
    except paired.PairedError as error:
        raise UserError(str(error)) from None
    except paired.RunInterrupted as stopped:
        hint = f"arena tournament resume {stopped.tournament_id}"
        raise fail(
            f"interrupted after {stopped.pairs} pairs (resume: {hint})", INTERRUPTED
        ) from None


def resume_paired(tournament_id: int, quiet: bool, as_json: bool) -> None:
    """`arena tournament resume ID` of an `arena match` run: its test goes on where it stopped."""
    from arena.tournament import paired

    settings: list[paired.PairedSettings] = []

    def report(state: PairedState) -> None:
        if not quiet and settings:
            line = progress_line(state, settings[0].test, settings[0].max_pairs)
            err.print(text(line), soft_wrap=True)

    def start() -> PairedState:
        store = open_store()
        settings.append(paired.settings_of(_tournament(store, tournament_id)))
        return paired.resume(store, tournament_id, report)[1]

    state = run_paired(start)
    show_paired(settings[0].game, state, settings[0].test, settings[0].seed, as_json)


def _tournament(store: Store, tournament_id: int) -> Tournament:
    found = store.tournament(tournament_id)
    if found is None:
        raise UserError(f"no tournament {tournament_id} (see `arena tournament list`)")
    return found


def show_paired(
    game: str, state: PairedState, test: Sprt | None, chosen: int, as_json: bool
) -> None:
    """The result of a paired run: its record, then a line of its test."""
    result = summary(state, test, chosen)
    if as_json:
        echo_json(result)
        return
    from arena.results.headtohead import display

    title = f"{game}: {result['bot']} against {result['opponent']}"
    print_rows([display(result)], title, drop=HEAD_TO_HEAD_DROP)
    line = f"tournament {state.tournament_id}, seed {chosen}, {state.pairs} pairs"
    if test is not None:
        decided = {
            "H1": f"H1 accepted (elo >= {test.elo1:g})",
            "H0": f"H0 accepted (elo <= {test.elo0:g})",
        }
        line += f", LLR {state.llr:.2f} ({test.lower:.2f}, {test.upper:.2f}): " + decided.get(
            state.decision or "", "no decision (match limit)"
        )
    out.print(text(line))


@reports_errors
def compare(
    a: Annotated[
        str | None, typer.Argument(metavar="A", help="Bot A (omit both for every pair).")
    ] = None,
    b: Annotated[str | None, typer.Argument(metavar="B", help="Bot B.")] = None,
    game: Annotated[
        str, typer.Option("--game", "-g", help="Game id (default: every game they met in).")
    ] = "",
    all_versions: Annotated[
        bool,
        typer.Option("--all-versions", help="Pool every version of A and of B (default: newest)."),
    ] = False,
    tournament: Annotated[
        int | None, typer.Option(help="Every pair of one tournament's matches.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Head-to-head records with 95 % intervals of the score rate and the Elo difference.

    Counts every recorded match (tournaments, ladders, `arena match`) under the
    game's current rules; in N-player matches each pair of seats counts, by rank.
    Without --game: every game they met in (a tournament's own game with --tournament).
    """
    from arena.games import all_games, load_game

    if game:
        load_game(game)
    if (a is None) != (b is None):
        raise UserError("compare takes two bots, or none for every pair")
    if a is not None and tournament is not None:
        raise UserError("--tournament shows every pair: give no bots with it")
    store = open_store()
    if tournament is not None:
        found = store.tournament(tournament)
        if found is None:
            raise UserError(f"no tournament {tournament} (see `arena tournament list`)")
        if game and found.game != game:
            raise UserError(f"tournament {tournament} is a {found.game} tournament, not {game}")
        game = found.game
    games = [game] if game else [g.spec.id for g in all_games()]
    rows = [
        {"game": each, **row}
        for each in games
        for row in _pairs(store, each, (a, b), all_versions, tournament)
    ]
    if a is not None and game and as_json:  # one pair, one game: its record, as before
        echo_json({k: v for k, v in rows[0].items() if k != "game"})
        return
    met = [row for row in rows if row["games"] > 0]
    if as_json:
        echo_json(met)
        return
    if a is not None and not met:
        where = f"at {game}" if game else "in any game"
        out.print(text(f"{a} and {b} never met {where}"))
        return
    from arena.results import headtohead

    shown = [headtohead.display(row) for row in met]
    if not game:  # several games: each row says which (one game is in the title)
        shown = [{"game": row["game"], **each} for row, each in zip(met, shown, strict=True)]
    title = f"{game} head to head" if game else "head to head, every game"
    print_rows(
        shown,
        f"{title} (score rate and Elo, 95 % intervals)",
        drop=HEAD_TO_HEAD_DROP,
    )


def _pairs(
    store: Store,
    game: str,
    bots: tuple[str | None, str | None],
    all_versions: bool,
    tournament: int | None,
) -> list[dict[str, Any]]:
    """The head-to-head rows of one game: A against B, or every pair (of one tournament)."""
    from arena.results import headtohead

    a, b = bots
    if a is not None and b is not None:
        try:
            return [headtohead.compare(store, game, a, b, all_versions)]
        except headtohead.UnknownBot as error:
            raise UserError(str(error)) from None
    if tournament is not None:
        return headtohead.table_for_tournament(store, tournament)
    return headtohead.table(store, game)
