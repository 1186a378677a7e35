"""`arena demo`: register the bundled bots, run a short round robin per game, show leaderboards."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import home, open_store, out, print_rows
from arena.cli.errors import err, reports_errors
from arena.cli.safe import text
from arena.cli.tournament import play
from arena.games import all_games


@reports_errors
def demo(
    rounds: Annotated[int, typer.Option(help="Deals per pairing in each game.")] = 20,
    workers: Annotated[int, typer.Option(help="Parallel worker processes.")] = 2,
    seed: Annotated[int, typer.Option(help="Tournament seed.")] = 1,
) -> None:
    """Register the bundled bots and play a short round robin of every game."""
    from arena import registry, reports
    from arena.manifest import BUNDLED_BOTS, load_manifest
    from arena.tournament import config as tconfig
    from arena.tournament import runner

    store = open_store()
    known = {g.spec.id for g in all_games()}
    bundled = [
        p
        for p in sorted(BUNDLED_BOTS.iterdir())
        if (p / "bot.toml").is_file()
        and ("*" in (games := load_manifest(p).games) or set(games) <= known)
    ]
    for folder in bundled:
        version, created = registry.submit(store, home(), str(folder))
        word = "registered" if created else "already registered:"
        err.print(text(f"{word} {folder.name} v{version.number}"))
    for game in all_games():
        names = [p.name for p in bundled if load_manifest(p).plays(game.spec.id)]
        settings = tconfig.TournamentConfig(
            game=game.spec.id,
            bots=tuple(names),
            name=f"demo-{game.spec.id}",
            rounds=rounds,
            seed=seed,
            workers=workers,
        )
        tournament_id = runner.create(store, home(), settings)
        play(store, tournament_id, workers, False, True, quiet=False)
        rows = reports.leaderboard(store, game.spec.id, tournament_id)
        print_rows(rows, f"{game.spec.id}: tournament {tournament_id}")
    out.print(
        "all-time leaderboards: `arena leaderboard GAME`; details: `arena tournament show ID`"
    )
