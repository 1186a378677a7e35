"""`arena demo`: register the bundled bots, run a short round robin per game, show leaderboards.

The quick bots (random, first-legal, the heuristics: milliseconds a decision) play a
round robin of every game. A search bot thinks up to a tenth of a second a decision,
so in that round robin it would take most of an hour. It plays a smaller round
robin of its own instead, with each game's heuristic and random play, under a
shorter decision timeout: the ISMCTS bot searches a tenth of the timeout, 30 ms here.
Each round robin prints its own leaderboard (ratings from its matches only, so the
bots of one table have played alike numbers of games).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.common import home, open_store, out, print_rows
from arena.cli.errors import err, reports_errors
from arena.cli.safe import text
from arena.cli.tournament import play
from arena.games import all_games

if TYPE_CHECKING:
    from arena.store import Store

#: Bundled bots that search for a while at every decision (see the module docstring).
SEARCH_BOTS = ("ismcts",)
#: The decision timeout of the search bots' round robin, in seconds.
SEARCH_TIMEOUT = 0.3
#: Deals per pairing in that round robin, each played in both seat orders: 20 games a
#: bot. With 3 (12 games) the ratings' uncertainty hid a 65-85 % edge; 5 keeps the
#: whole demo at about a minute on 2 cores.
SEARCH_ROUNDS = 5


@reports_errors
def demo(
    rounds: Annotated[int, typer.Option(help="Deals per pairing of the quick bots.")] = 10,
    search_rounds: Annotated[
        int, typer.Option(help="Deals per pairing with a search bot (0: none).")
    ] = SEARCH_ROUNDS,
    workers: Annotated[int, typer.Option(help="Parallel worker processes.")] = 2,
    seed: Annotated[int, typer.Option(help="Tournament seed.")] = 1,
) -> None:
    """Register the bundled bots and play a short round robin of every game."""
    from arena import registry
    from arena.manifest import BUNDLED_BOTS, load_manifest

    store = open_store()
    store.secret()  # a malformed ARENA_SECRET fails now, before anything is registered
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
        game_id = game.spec.id
        playing = [p for p in bundled if load_manifest(p).plays(game_id)]
        quick = [p.name for p in playing if p.name not in SEARCH_BOTS]
        run(store, game_id, quick, rounds, seed, workers)
        searchers = [p.name for p in playing if p.name in SEARCH_BOTS]
        if searchers and search_rounds > 0:
            rivals = [p.name for p in playing if specialist(p, game_id)] + ["random"]
            run(store, game_id, [*searchers, *rivals], search_rounds, seed, workers, True)
    out.print(
        "all-time leaderboards: `arena leaderboard GAME`; details: `arena tournament show ID`"
    )


def specialist(folder: Path, game_id: str) -> bool:
    """True for a bot written for this game alone (its heuristic)."""
    from arena.manifest import load_manifest

    return load_manifest(folder).games == (game_id,)


def run(
    store: Store,
    game_id: str,
    bots: list[str],
    rounds: int,
    seed: int,
    workers: int,
    search: bool = False,
) -> None:
    """Create and play one two-player round robin of the demo, then print its leaderboard."""
    from arena import reports
    from arena.tournament import config as tconfig
    from arena.tournament import runner

    settings = tconfig.TournamentConfig(
        game=game_id,
        bots=tuple(bots),
        name=f"demo-{game_id}" + ("-search" if search else ""),
        rounds=rounds,
        seed=seed,
        workers=workers,
        decision_timeout=SEARCH_TIMEOUT if search else tconfig.TournamentConfig.decision_timeout,
    )
    tournament_id = runner.create(store, home(), settings)
    play(store, tournament_id, workers, False, True, quiet=False)
    rows = reports.leaderboard(store, game_id, tournament_id)
    print_rows(rows, f"{settings.name}: tournament {tournament_id}")
