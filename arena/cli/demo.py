"""`arena demo`: register the bundled bots, run a short round robin per game, show leaderboards.

The quick bots (random, first-legal, the heuristics: milliseconds a decision) play a
round robin of every game. A search bot thinks up to a tenth of a second a decision,
so in the same round robin it would take most of an hour: it plays a short gauntlet
of its own instead, against each game's heuristic and random play, with a shorter
decision timeout (the ISMCTS bot searches a tenth of the timeout, so 40 ms here). The
leaderboard printed per game is the all-time one, which rates both tournaments'
matches together.
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
#: The decision timeout of the search gauntlet, in seconds.
SEARCH_TIMEOUT = 0.4


@reports_errors
def demo(
    rounds: Annotated[int, typer.Option(help="Deals per pairing of the quick bots.")] = 20,
    search_rounds: Annotated[
        int, typer.Option(help="Deals per pairing of a search bot's gauntlet (0: none).")
    ] = 1,
    workers: Annotated[int, typer.Option(help="Parallel worker processes.")] = 2,
    seed: Annotated[int, typer.Option(help="Tournament seed.")] = 1,
) -> None:
    """Register the bundled bots and play a short round robin of every game."""
    from arena import registry, reports
    from arena.manifest import BUNDLED_BOTS, load_manifest

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
        game_id = game.spec.id
        playing = [p for p in bundled if load_manifest(p).plays(game_id)]
        quick = [p.name for p in playing if p.name not in SEARCH_BOTS]
        played = [run(store, game_id, quick, "round-robin", rounds, seed, workers)]
        rivals = [p.name for p in playing if specialist(p, game_id)] + ["random"]
        for searcher in (p.name for p in playing if p.name in SEARCH_BOTS):
            if search_rounds > 0:
                bots = [searcher, *rivals]
                played.append(
                    run(store, game_id, bots, "gauntlet", search_rounds, seed, workers, True)
                )
        rows = reports.leaderboard(store, game_id)
        numbers = ", ".join(str(t) for t in played)
        print_rows(rows, f"{game_id}: all-time leaderboard (this demo: tournaments {numbers})")
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
    kind: str,
    rounds: int,
    seed: int,
    workers: int,
    search: bool = False,
) -> int:
    """Create and play one two-player tournament of the demo; its id."""
    from arena.tournament import config as tconfig
    from arena.tournament import runner

    settings = tconfig.TournamentConfig(
        game=game_id,
        bots=tuple(bots),
        name=f"demo-{game_id}" + ("-search" if search else ""),
        format=kind,
        rounds=rounds,
        seed=seed,
        workers=workers,
        decision_timeout=SEARCH_TIMEOUT if search else tconfig.TournamentConfig.decision_timeout,
    )
    tournament_id = runner.create(store, home(), settings)
    play(store, tournament_id, workers, False, True, quiet=False)
    return tournament_id
