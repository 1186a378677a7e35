"""`arena leaderboard GAME`: TrueSkill standings, sorted by mu - 3 sigma within each pool;
with --tournament, that tournament's standings from its matches alone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import echo_json, open_store, out, print_rows
from arena.cli.errors import UserError, reports_errors
from arena.cli.safe import text
from arena.cli.tables import STANDINGS_DROP
from arena.games import load_game
from arena.tournament.settings import TournamentSettings, time_controls_note

if TYPE_CHECKING:  # imported where used: `arena --help` loads no database code
    from arena.store import Store

#: What a tournament's standings leave out first when they do not fit: the share of
#: points (what ranks), the event's rating, the all-time one and the wins stay.
EVENT_DROP = ("shared_1st", "avg_score", "sigma", "mu", "version", "forfeits", "points", "games")
#: Row keys that a table says once, in its title or a note, not in every row.
NOT_COLUMNS = ("score_order", "ranked_by", "pool", "retired")
TopOption = Annotated[
    int | None,
    typer.Option("--top", min=1, help="Only the first N rows (of each pool, all time)."),
]


def columns_of(rows: list[dict[str, Any]]) -> list[str] | None:
    return [c for c in rows[0] if c not in NOT_COLUMNS] if rows else None


def print_standings(rows: list[dict[str, Any]], title: str, top: int | None = None) -> None:
    """A tournament's standings (`reports.event_standings`), the first `top` rows."""
    print_rows(rows[:top], title, columns_of(rows), drop=EVENT_DROP)
    _cut_note(len(rows), top)


def print_board(rows: list[dict[str, Any]], title: str, top: int | None = None) -> None:
    """The all-time board: one table, or one per pool when some bots never met."""
    pools: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        pools.setdefault(row["pool"], []).append(row)
    if len(pools) <= 1:
        print_rows(rows[:top], title, columns_of(rows), drop=STANDINGS_DROP)
        _cut_note(len(rows), top)
        return
    out.print(text(title))
    for number, found in pools.items():
        heading = f"pool {number} of {len(pools)}: {len(found)} bot versions"
        print_rows(found[:top], heading, columns_of(found), drop=STANDINGS_DROP)
        _cut_note(len(found), top)
    out.print(
        text(
            (
                f"{len(pools)} pools: bots in different pools never met, directly or through"
                " common opponents, so their ratings do not compare (README, Leaderboards)",
                "yellow",
            )
        )
    )


def _cut_note(total: int, top: int | None) -> None:
    if top is not None and total > top:
        out.print(text((f"(the first {top} of {total} rows: --top {top})", "dim")))


@reports_errors
def leaderboard(
    game: Annotated[
        str | None, typer.Argument(help="Game id (default: every game, or the tournament's).")
    ] = None,
    tournament: Annotated[int | None, typer.Option(help="Only this tournament's matches.")] = None,
    rules_version: Annotated[
        int | None,
        typer.Option(
            "--rules-version",
            help="The game's rules version (default: the current one; see `arena games`).",
        ),
    ] = None,
    latest: Annotated[
        bool, typer.Option("--latest", help="One row per bot: its newest version.")
    ] = False,
    top: TopOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Rank, bot, version, mu, sigma, rating (mu - 3 sigma), games, wins, shared 1st,
    avg score, forfeits.

    `wins` counts first places alone, `shared 1st` first places tied with a rival;
    the title says whether a higher or a lower score wins the game. Ratings are kept
    per rules version of a game: a rules change starts every bot afresh. The board is
    the current version's unless --rules-version says otherwise. Bots that never met,
    directly or through common opponents, are shown as separate pools: their ratings
    do not compare. With --tournament: that tournament's standings from its matches
    alone (points, its own rating; the all-time rating beside them).
    """
    from arena.games import all_games

    store = open_store()
    if game is None and tournament is not None:
        found = store.tournament(tournament)
        if found is None:
            raise UserError(f"no tournament {tournament} (see `arena tournament list`)")
        game = found.game
    if game is not None:
        board(store, game, tournament, rules_version, latest, top, as_json)
        return
    if rules_version is not None:
        raise UserError("--rules-version is a game's: give the GAME too")
    games = [g.spec.id for g in all_games()]
    if as_json:  # one document: every game's board by its id
        echo_json({g: board_rows(store, g, None, None, latest, top) for g in games})
        return
    for each in games:
        board(store, each, None, None, latest, top, as_json=False)


def board_rows(
    store: Store,
    game: str,
    tournament: int | None,
    rules_version: int | None,
    latest: bool,
    top: int | None,
) -> list[dict[str, Any]]:
    """The rows of one game's board (or one tournament's standings), as --json prints them."""
    from arena.results import reports

    rows = reports.leaderboard(store, game, tournament, rules_version, latest=latest)
    if tournament is None:
        rows = reports.mark_retired(store, rows)
    return _first(rows, top)


def board(
    store: Store,
    game: str,
    tournament: int | None,
    rules_version: int | None,
    latest: bool,
    top: int | None,
    as_json: bool,
) -> None:
    """One game's board, or one tournament's standings, as a table or JSON."""
    from arena.results import reports

    current = load_game(game).spec.version
    if rules_version is not None and not 1 <= rules_version <= current:
        raise UserError(
            f"{game} has rules versions 1 to {current}, not {rules_version} (--rules-version)"
        )
    found = None
    if tournament is not None:
        found = store.tournament(tournament)
        if found is None:
            raise UserError(f"no tournament {tournament} (see `arena tournament list`)")
        if found.game != game:
            raise UserError(f"tournament {tournament} is a {found.game} tournament, not {game}")
        if rules_version is not None and rules_version != found.game_version:
            raise UserError(
                f"tournament {tournament} was played under {game} rules v{found.game_version}, "
                f"not v{rules_version}"
            )
    rows = reports.leaderboard(store, game, tournament, rules_version, latest=latest)
    if tournament is None:
        rows = reports.mark_retired(store, rows)
    if as_json:
        echo_json(_first(rows, top))
        return
    rules = rules_version or current
    title = f"{game} (rules v{rules}) leaderboard ({reports.score_order(game)})"
    if found is not None:
        rule = reports.ranked_by(found)
        control = TournamentSettings.from_json(found.settings).control
        heading = f"tournament {tournament} {title}, {control}, ranked by {rule}"
        print_standings(rows, heading, top)
        return
    print_all_time(rows, title, top)
    if rows:
        out.print(text((time_controls_note(store, game, rules), "dim")))


def print_all_time(rows: list[dict[str, Any]], title: str, top: int | None) -> None:
    """An all-time board's rows (`board_rows`, or the service's) as its table."""
    # a retired bot stays on the board (its matches rated the others): marked by its name
    rows = [{**r, "bot": f"{r['bot']} (retired)"} if r.get("retired") else r for r in rows]
    print_board(rows, title, top)


def _first(rows: list[dict[str, Any]], top: int | None) -> list[dict[str, Any]]:
    """The first `top` rows of each pool (a tournament's standings are one pool)."""
    if top is None:
        return rows
    return [row for row in rows if row["rank"] <= top]
