"""`arena demo`: register the bundled bots, run a short round robin per game, show leaderboards.

The quick bots (random, first-legal, the heuristics: milliseconds a decision) play a
round robin of every game. A search bot thinks up to a tenth of a second a decision,
so in that round robin it would take most of an hour. It plays a gauntlet of its own
instead: the game's heuristic plays the search bot and random play, so every search
game is one against the heuristic, the comparison that needs the games.

How long the search may think and how many deals it gets differ by game
(`SEARCH_TABLES`): the ISMCTS bot searches a tenth of the decision timeout (in CPU
time), and what that buys differs. Measured with scripts/winrate.py (2 players, against
the heuristic, CPU clock): at 30 ms Krumme10 won 58.5 % of 100 games and cost 0.65 s of
CPU a game, at 100 ms 71.2 % of 200 at 1.6 s; LEYLO and Twirkle decide most moves by a
plan and cost only 1.4 times as much at 100 ms (LEYLO 0.66 s a game, Twirkle 1.0 s);
Take That costs 2.1 s a game at 30 ms (66.0 % of 100 games) and 6.4 s at 100 ms (and
with one round a match instead of two, 3.2 s at 100 ms for 66.0 %: no better). So Take
That searches 30 ms and the others 100 ms. In ten runs of the demo with 10 deals for
Take That and 15 for LEYLO (seeds 1-7, the wheel of the CI among them) the search won
against the heuristic: Take That 128 of 200 games (64 %), Krumme10 162 of 240 (68 %),
LEYLO 191 of 300 (64 %), Twirkle 107 of 120 (89 %); scripts/ladder_odds.py gives how
often a table's ratings rank random < heuristic < search at those rates: 78, 88, 85 and
98 %, all four about 58 %; in those ten runs all four held in six (61 s a demo). A
LEYLO deal costs the least and Take That's table was the least sure, so they got more:
with 12 and 25 deals ladder_odds gives 86 and 93 % (at 66 and 64 %), all four about 69 %,
for about 9 s more. In eight runs of this demo (seeds 1-8, 2 quiet cores: 68-74 s, median
70 s) the search won Take That 130 of 192 (68 %), Krumme10 127 of 192 (66 %), LEYLO 245
of 400 (61 %), Twirkle 87 of 96 (91 %), and all four tables were in order in six. Then
the searches got faster with the same choices per iteration (Take That 1.4 times the
iterations, 70.5 % of 200 games at 30 ms; Krumme10 about twice, the same strength for
less CPU): ladder_odds at Take That's 70.5 % gives its table 92 %, all four about 75 %;
three runs (seeds 1-3) took 66-70 s, all four tables in order in each (the search won
Take That 53 of 72, Krumme10 46 of 72, LEYLO 99 of 150, Twirkle 32 of 36). Then
Krumme10's search modelled the other seat as the heuristic (78.5 % of 200 games at 100
ms; about 76 % over three blocks: its table 97 %) and LEYLO's rate on fresh seeds came
out at about 66 % (its table at 25 deals 96 %); Take That (92 %) got 15 deals (95 %) and
LEYLO 30 (98 %): all four about 90 % by ladder_odds, for about ten seconds more (three
runs, seeds 2-4: 76-84 s, all four tables in order each time). LEYLO's search has won
about 77 % since (its table 100.0 % of 4000 simulated demos).

Each tournament prints its own leaderboard (ratings from its matches only).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.common import home, open_store, out
from arena.cli.errors import err, reports_errors
from arena.cli.leaderboard import print_standings
from arena.cli.safe import text
from arena.cli.tournament import play
from arena.games import all_games

if TYPE_CHECKING:
    from arena.store import Store

#: Bundled bots that search for a while at every decision (see the module docstring).
SEARCH_BOTS = ("ismcts",)


@dataclass(frozen=True)
class SearchTable:
    """How one game's search gauntlet is played."""

    #: The decision timeout in seconds; the ISMCTS bot searches a tenth of it.
    timeout: float
    #: Deals per pairing, each played in both seat orders.
    deals: int


#: Per game: the search's time and deals (see the module docstring for why these).
SEARCH_TABLES = {
    "take-that": SearchTable(0.3, 15),
    "krumme10": SearchTable(1.0, 12),
    "leylo": SearchTable(1.0, 30),
    "twirkle": SearchTable(1.0, 6),
}
#: The same for a game not in that table.
DEFAULT_SEARCH_TABLE = SearchTable(0.3, 10)


@reports_errors
def demo(
    deals: Annotated[int, typer.Option(help="Deals per pairing of the quick bots.")] = 5,
    search_deals: Annotated[
        int | None,
        typer.Option(help="Deals per pairing with a search bot (0: none; default by game)."),
    ] = None,
    rounds: Annotated[int | None, typer.Option(hidden=True, help="Old --deals.")] = None,
    search_rounds: Annotated[
        int | None, typer.Option(hidden=True, help="Old --search-deals.")
    ] = None,
    workers: Annotated[int, typer.Option(help="Parallel worker processes.")] = 2,
    seed: Annotated[int, typer.Option(help="Tournament seed.")] = 1,
) -> None:
    """Register the bundled bots and play a short round robin of every game."""
    from arena.submissions import submit as registry
    from arena.submissions.manifest import BUNDLED_BOTS, load_manifest

    if rounds is not None or search_rounds is not None:  # the old spellings (issue 31)
        err.print("warning: --rounds and --search-rounds are now --deals and --search-deals")
        deals = deals if rounds is None else rounds
        search_deals = search_deals if search_rounds is None else search_rounds

    store = open_store()
    store.secret()  # a malformed ARENA_SECRET fails now, before anything is registered
    # The demo writes to the user's own database (its tournaments stay, to look at with
    # `arena tournament show`): say where, and how to keep it apart.
    where = f"database {store.shown_url}"
    line = f"demo: writing to {where} (another place: --home DIR or ARENA_HOME)"
    err.print(text(line), soft_wrap=True)  # a path is never broken over lines
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
        run(store, game_id, quick, deals, seed, workers)
        searchers = [p.name for p in playing if p.name in SEARCH_BOTS]
        hubs = [p.name for p in playing if specialist(p, game_id)]
        table = SEARCH_TABLES.get(game_id, DEFAULT_SEARCH_TABLE)
        searched = table.deals if search_deals is None else search_deals
        if searchers and hubs and searched > 0:
            bots = [hubs[0], *searchers, "random"]
            run(store, game_id, bots, searched, seed, workers, table.timeout)
    out.print(
        text(f"the demo's tournaments are in {where}: `arena tournament list`"), soft_wrap=True
    )
    out.print(
        "all-time leaderboards: `arena leaderboard GAME`; details: `arena tournament show ID`"
    )


def specialist(folder: Path, game_id: str) -> bool:
    """True for a bot written for this game alone (its heuristic)."""
    from arena.submissions.manifest import load_manifest

    return load_manifest(folder).games == (game_id,)


def run(
    store: Store,
    game_id: str,
    bots: list[str],
    rounds: int,
    seed: int,
    workers: int,
    search_timeout: float | None = None,
) -> None:
    """Create and play one two-player tournament of the demo, then print its leaderboard:
    a round robin, or with a `search_timeout` (the decision timeout of a search table)
    a gauntlet of `bots[0]` against each of the others."""
    from arena.results import reports
    from arena.tournament import config as tconfig
    from arena.tournament import runner

    search = search_timeout is not None
    settings = tconfig.TournamentConfig(
        game=game_id,
        bots=tuple(bots),
        name=f"demo-{game_id}" + ("-search" if search else ""),
        format="gauntlet" if search else "round-robin",
        rounds=rounds,
        seed=seed,
        workers=workers,
        decision_timeout=search_timeout or tconfig.TournamentConfig.decision_timeout,
    )
    tournament_id = runner.create(store, home(), settings)
    play(store, tournament_id, workers, False, True, quiet=False)
    rows = reports.leaderboard(store, game_id, tournament_id)
    print_standings(rows, f"{settings.name}: tournament {tournament_id}")
