"""`arena leaderboard GAME`: TrueSkill standings, sorted by mu - 3 sigma."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import echo_json, open_store, print_rows
from arena.cli.errors import UserError, reports_errors
from arena.cli.tables import STANDINGS_DROP
from arena.games import load_game


@reports_errors
def leaderboard(
    game: Annotated[str, typer.Argument(help="Game id.")],
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
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Rank, bot, version, mu, sigma, rating (mu - 3 sigma), games, wins, shared 1st,
    avg score, forfeits.

    `wins` counts first places alone, `shared 1st` first places tied with a rival;
    the title says whether a higher or a lower score wins the game. Ratings are kept
    per rules version of a game: a rules change starts every bot afresh. The board is
    the current version's unless --rules-version says otherwise.
    """
    from arena import reports

    current = load_game(game).spec.version
    if rules_version is not None and not 1 <= rules_version <= current:
        raise UserError(
            f"{game} has rules versions 1 to {current}, not {rules_version} (--rules-version)"
        )
    store = open_store()
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
        echo_json(rows)
        return
    rules = rules_version or current
    title = f"{game} (rules v{rules}) leaderboard ({reports.score_order(game)})"
    columns = [c for c in rows[0] if c not in ("score_order", "retired")] if rows else None
    # a retired bot stays on the board (its matches rated the others): marked by its name
    rows = [{**r, "bot": f"{r['bot']} (retired)"} if r.get("retired") else r for r in rows]
    print_rows(rows, title, columns, drop=STANDINGS_DROP)
