"""`arena games`: every registered game with its player range and variants."""

from __future__ import annotations

from typing import Annotated

import orjson
import typer

from arena.cli.common import out
from arena.cli.tables import fitted
from arena.games import all_games


def list_games(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List every game with its player range and variants."""
    rows = [
        {
            "game": g.spec.id,
            "title": g.spec.title,
            "version": g.spec.version,
            "min_players": g.spec.min_players,
            "max_players": g.spec.max_players,
            "variants": {v.name: v.default for v in g.spec.variants},
            "variant_help": {v.name: v.describe() + ": " + v.help for v in g.spec.variants},
        }
        for g in all_games()
    ]
    if as_json:
        typer.echo(orjson.dumps(rows).decode())
        return
    cells = [
        [
            game.spec.id,
            game.spec.title,
            str(game.spec.version),
            f"{game.spec.min_players}-{game.spec.max_players}",
            "\n".join(v.describe() + "  " + v.help for v in game.spec.variants),
        ]
        for game in all_games()
    ]
    columns = ["game", "title", "rules", "players", "variants (default, range)"]
    table, _hidden = fitted(
        columns, cells, numeric={"rules"}, width=out.width, prose=frozenset(columns[-1:])
    )
    out.print(table)
