"""The example search bot of protocol/SEARCH.md plays legally and beats random play.

It is documentation that runs: a flat Monte Carlo bot built on `arena.games`
(`determinize`, `clone`, `apply_joint`, `playout`, `outcome`), in
protocol/examples/search-bot.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import random
from pathlib import Path
from types import ModuleType

import pytest

from arena.games import Game, all_games, load_game
from arena.match import replay
from arena.match.run import BotRef
from arena.status import MatchStatus, SeatStatus
from arena.submissions.manifest import Manifest, find_bot, load_manifest, resolve_command
from tests.helpers import run_and_capture
from tests.test_match import spec

EXAMPLE = Path(__file__).resolve().parents[1] / "protocol" / "examples" / "search-bot"


def ref_for(manifest: Manifest) -> BotRef:
    return BotRef(manifest.name, str(manifest.folder), tuple(resolve_command(manifest)))


def example_module() -> ModuleType:
    """The example's bot.py, imported by path: its `choose` is the policy without the pipes."""
    found = importlib.util.spec_from_file_location("search_bot_example", EXAMPLE / "bot.py")
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def test_the_example_plays_a_real_match_with_only_legal_decisions() -> None:
    example, rival = ref_for(load_manifest(EXAMPLE)), ref_for(find_bot("random"))
    result, lines = run_and_capture(spec(example, rival, seed=21, timeout=0.4, rounds=1))
    assert result.status is MatchStatus.NORMAL, [s.detail for s in result.seats]
    assert [s.status for s in result.seats] == [SeatStatus.OK] * 2, result.seats[0].stderr
    assert result.seats[0].decisions > 10
    assert result.replay is not None
    replay.verify(result.replay)
    offered, answered = {}, {}
    for name, way, line in lines:
        message = json.loads(line)
        if name == "search-bot" and message.get("type") == "decide" and way == "to-bot":
            offered[message["id"]] = message["legal"]
        elif name == "search-bot" and message.get("type") == "decision":
            answered[message["id"]] = message["decision"]
    assert len(answered) == result.seats[0].decisions == len(offered)
    assert all(answered[key] in offered[key] for key in offered)


def test_the_example_beats_random_play_in_most_seeded_games() -> None:
    """20 two-player matches of one round, seats alternating: every game is seeded.

    With 4 samples per decision the example wins 19 of these 20 (52 of the first 60);
    a random seat would win about half. At least 14 leaves room for a referee change
    that reshuffles the samples, while a bot no better than random stays below it.
    """
    bot, game_class = example_module(), load_game("take-that")
    wins = 0
    for number in range(20):
        game = game_class.new(2, 1000 + number, {"rounds": 1})
        mine = number % 2
        start = {"seat": mine, "players": 2, "variant": game.variant}
        ours, theirs = random.Random(number), random.Random(10_000 + number)
        while not game.is_over():
            joint = {}
            for seat in game.to_move():
                legal = game.legal(seat)
                if seat == mine:
                    observation = game.observe(seat)
                    joint[seat] = bot.choose(
                        game_class, start, observation, legal, ours, math.inf, 4
                    )
                else:
                    joint[seat] = theirs.choice(legal)
            game.apply_joint(joint)  # raises IllegalDecision for a decision not offered
        ranks = game.outcome().ranks
        wins += ranks[mine] == 1 and ranks[1 - mine] == 2
    assert wins >= 14, f"the example won {wins} of 20"


@pytest.mark.parametrize("game_class", all_games(), ids=lambda g: g.spec.id)
def test_one_observation_serves_every_sample(game_class: type[Game]) -> None:
    """The example samples many states from one observation: none of them changes it."""
    game, rng = game_class.new(game_class.spec.min_players, 3), random.Random(3)
    for _ in range(30):  # somewhere in the first round
        game.apply_joint({seat: rng.choice(game.legal(seat)) for seat in game.to_move()})
    seat = game.to_move()[0]
    observation = game.observe(seat)
    kept = copy.deepcopy(observation)
    for _ in range(10):
        state = game_class.determinize(observation, seat, game.players, game.variant, rng)
        state.clone(rng.getrandbits(64)).playout(rng)
        state.playout(rng)
    assert observation == kept
