"""`arena demo`: register the bundled bots, run a short round robin per game, show leaderboards.

The quick bots (random, first-legal, the heuristics: milliseconds a decision) play a
round robin of every game. A search bot thinks up to a tenth of a second a decision,
so in that round robin it would take most of an hour. It plays a gauntlet of its own
instead, under a shorter decision timeout (the ISMCTS bot searches a tenth of the
timeout, 30 ms here): the game's heuristic plays the search bot and random play, so
every search game is one against the heuristic, the comparison that needs the games.
Each tournament prints its own leaderboard (ratings from its matches only).
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
#: Deals per pairing in that gauntlet, each played in both seat orders, by game: the
#: games a search bot needs to show a 62-83 % edge over the heuristic (at 30 ms a
#: decision) in its rating, within about a minute for the whole demo on 2 cores. A game's
#: search matches cost it 0.35 (LEYLO) to 2 s (Take That) each, hence the differences.
SEARCH_ROUNDS = {"take-that": 10, "krumme10": 15, "leylo": 12, "twirkle": 8}
#: The same for a game not in that table.
DEFAULT_SEARCH_ROUNDS = 10


@reports_errors
def demo(
    rounds: Annotated[int, typer.Option(help="Deals per pairing of the quick bots.")] = 10,
    search_rounds: Annotated[
        int | None,
        typer.Option(help="Deals per pairing with a search bot (0: none; default by game)."),
    ] = None,
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
        hubs = [p.name for p in playing if specialist(p, game_id)]
        deals = search_rounds
        if deals is None:
            deals = SEARCH_ROUNDS.get(game_id, DEFAULT_SEARCH_ROUNDS)
        if searchers and hubs and deals > 0:
            run(store, game_id, [hubs[0], *searchers, "random"], deals, seed, workers, True)
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
    """Create and play one two-player tournament of the demo, then print its leaderboard:
    a round robin, or for `search` a gauntlet of `bots[0]` against each of the others."""
    from arena import reports
    from arena.tournament import config as tconfig
    from arena.tournament import runner

    settings = tconfig.TournamentConfig(
        game=game_id,
        bots=tuple(bots),
        name=f"demo-{game_id}" + ("-search" if search else ""),
        format="gauntlet" if search else "round-robin",
        rounds=rounds,
        seed=seed,
        workers=workers,
        decision_timeout=SEARCH_TIMEOUT if search else tconfig.TournamentConfig.decision_timeout,
    )
    tournament_id = runner.create(store, home(), settings)
    play(store, tournament_id, workers, False, True, quiet=False)
    rows = reports.leaderboard(store, game_id, tournament_id)
    print_rows(rows, f"{settings.name}: tournament {tournament_id}")
