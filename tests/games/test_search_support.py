"""Search support of every referee: exact clones, fast playouts, determinizations.

The kit's checks (`arena.testing.check_clone`, `check_determinize`) run for every
game, player count and variant a golden transcript covers, so a search bot (such as
bots/ismcts) can rely on them for any game.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games import Game, all_games, load_game
from arena.games.base import Chance
from arena.testing import check_clone, check_determinize


def cases() -> list[tuple[str, int]]:
    return [
        (game.spec.id, players)
        for game in all_games()
        for players in range(game.spec.min_players, game.spec.max_players + 1)
    ]


#: One non-default variant per game that has any (the golden cases cover the rest).
VARIANTS: dict[str, dict[str, Any]] = {
    "take-that": {"pro": True},
    "krumme10": {"teams": True, "pink4": True, "long": True, "showdown": True},
    "leylo": {"rounds": 4},
}


@pytest.mark.parametrize(("game_id", "players"), cases())
def test_clone_is_exact_and_independent_and_playout_is_the_plain_loop(
    game_id: str, players: int
) -> None:
    check_clone(load_game(game_id), players, seeds=range(3))


@pytest.mark.parametrize(("game_id", "players"), cases())
def test_determinize_is_consistent_and_covers_every_place(game_id: str, players: int) -> None:
    check_determinize(load_game(game_id), players, seeds=[players])


@pytest.mark.parametrize("game_id", sorted(VARIANTS))
def test_search_support_in_variants(game_id: str) -> None:
    game = load_game(game_id)
    players = 4 if game_id == "krumme10" else game.spec.min_players + 1
    check_clone(game, players, seeds=[7], variant=VARIANTS[game_id])
    check_determinize(game, players, seeds=[7], variant=VARIANTS[game_id])


def test_simulated_chance_keeps_no_log_and_exact_clones_draw_alike() -> None:
    chance = Chance(seed=5)
    chance.shuffled("a", range(10))
    twin = chance.clone()
    assert twin.shuffled("b", range(10)) == chance.shuffled("b", range(10))
    assert twin.log == chance.log and len(chance.log) == 2
    simulated = Chance.simulation(5)
    assert simulated.shuffled("a", range(10)) == chance.log[0]["outcome"]
    assert simulated.log == []


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.spec.id)
def test_determinize_is_a_classmethod_of_the_observation(game: type[Game]) -> None:
    """Same observation and generator, same sample: nothing else reaches the sampler."""
    players = game.spec.min_players
    truth = game.new(players, 11)
    truth.playout(random.Random(1), limit=20)
    observation = truth.observe(0)
    first = game.determinize(observation, 0, players, None, random.Random(3))
    second = game.determinize(first.observe(0), 0, players, None, random.Random(3))
    assert first.hidden(0) == second.hidden(0)
