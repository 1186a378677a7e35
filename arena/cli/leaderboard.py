"""`arena leaderboard GAME`: TrueSkill standings, sorted by mu - 3 sigma."""

from __future__ import annotations

from typing import Annotated

import typer

from arena import reports
from arena.cli.common import echo_json, open_store, print_rows
from arena.cli.errors import UserError, reports_errors
from arena.games import load_game


@reports_errors
def leaderboard(
    game: Annotated[str, typer.Argument(help="Game id.")],
    tournament: Annotated[int | None, typer.Option(help="Only this tournament's matches.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Rank, bot, version, mu, sigma, rating (mu - 3 sigma), games, wins, avg score, forfeits."""
    load_game(game)
    store = open_store()
    if tournament is not None:
        found = store.tournament(tournament)
        if found is None:
            raise UserError(f"no tournament {tournament} (see `arena tournament list`)")
        if found.game != game:
            raise UserError(f"tournament {tournament} is a {found.game} tournament, not {game}")
    rows = reports.leaderboard(store, game, tournament)
    echo_json(rows) if as_json else print_rows(rows, f"{game} leaderboard")
