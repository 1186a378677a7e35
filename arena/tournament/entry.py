"""Entering bots in a new tournament: names resolved to versions, the tournament's row.

Every format starts here: `arena.tournament.runner.create` (round robin, gauntlet)
writes the whole schedule after it, a ladder (arena.tournament.ladder) its plan, an
`arena match` run (arena.tournament.paired) its test.
"""

from __future__ import annotations

from pathlib import Path

from arena.games import load_game
from arena.store import Store
from arena.store.models import Tournament
from arena.submissions import submit as registry
from arena.submissions.manifest import find_bot
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.settings import TournamentSettings


def new_tournament(
    store: Store, home: Path, config: TournamentConfig
) -> tuple[Tournament, list[int]]:
    """Check the settings and resolve the bots to versions: the tournament's row
    (unsaved, its settings those of `config`) and the versions in entrant order."""
    config.checked()
    game = load_game(config.game)
    game.spec.check_players(config.players)
    variant = game.spec.resolve_variant(config.variant)
    versions = [enter(store, home, name, config.game) for name in config.bots]
    tournament = Tournament(
        name=config.name or f"{config.game}-{config.format}",
        game=config.game,
        game_version=game.spec.version,
        format=config.format,
        players=config.players,
        rounds=config.rounds,
        seed=config.seed,
        variant=variant,
        settings=TournamentSettings.of(config).to_json(),
    )
    return tournament, versions


def enter(store: Store, home: Path, name: str, game: str) -> int:
    """The version a bot plays as: a registered bot's newest version not retired; a
    bundled bot or folder is registered first. ConfigError for a bot that does not play
    `game`, or a retired bot or version (`arena bot retire`)."""
    version = store.playable_version(name) or store.latest_version(name)
    if version is None:
        if not find_bot(name).plays(game):  # said before its check plays anything
            raise ConfigError(f"bot {name} does not play {game}")
        # checked in the game it is about to play, not in every game it declares
        version, _created = registry.submit(store, home, name, games=[game])
    if "*" not in version.games and game not in version.games:
        raise ConfigError(f"bot {name} does not play {game}")
    assert version.id is not None
    if version.id in store.retired_versions():
        label = store.version_names()[version.id][0]
        raise ConfigError(
            f"bot {label} (version {version.number}) is retired: it plays in no new "
            f"tournament (arena bot reinstate {label})"
        )
    return version.id
