"""The example search bot of protocol/SEARCH.md plays legally, in time, and beats random play.

It is documentation that runs: a flat Monte Carlo bot built on `arena.games`
(`determinize`, `clone`, `apply_joint`, `playout`, `outcome`), in
protocol/examples/search-bot. It speaks protocol 2: it plans its time from the decide's
`time` (a share of the bank) and sends a `debug` text with its search statistics.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import random
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import Game, all_games, load_game
from arena.match import replay, seeds
from arena.match.run import BotRef, MatchSpec
from arena.protocol.clock import SeatClock, TimeControl
from arena.status import MatchStatus, SeatStatus
from arena.submissions.manifest import Manifest, find_bot, load_manifest, resolve_command
from tests.helpers import run_and_capture

EXAMPLE = Path(__file__).resolve().parents[1] / "protocol" / "examples" / "search-bot"
#: A searched answer's debug text: samples, decisions, ms spent of the plan, best value, bank.
SEARCHED = re.compile(
    r"(?P<samples>\d+) samples x (?P<legal>\d+) decisions in (?P<spent>\d+)/(?P<plan>\d+) ms"
    r"; (best value -?\d+\.\d\d|no time: at random); bank (?P<bank>\d+) ms"
)
#: The debug text of an answer with one legal decision.
FORCED = re.compile(r"forced; bank (?P<bank>\d+) ms")


def ref_for(manifest: Manifest) -> BotRef:
    command = tuple(resolve_command(manifest))
    return BotRef(manifest.name, str(manifest.folder), command, protocol=manifest.protocol)


def example_module() -> ModuleType:
    """The example's bot.py, imported by path: its `choose` is the policy without the pipes."""
    found = importlib.util.spec_from_file_location("search_bot_example", EXAMPLE / "bot.py")
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def clock(limit_ms: float, bank_ms: float | None, increment_ms: float = 0) -> dict[str, Any]:
    return {"limit_ms": limit_ms, "bank_ms": bank_ms, "increment_ms": increment_ms}


def test_the_example_speaks_protocol_2() -> None:
    manifest = load_manifest(EXAMPLE)
    assert manifest.protocol == 2 and manifest.games == ("*",)


@pytest.mark.slow
@pytest.mark.parametrize("game_class", all_games(), ids=lambda g: g.spec.id)
def test_the_example_plays_every_game_legally_within_a_bank(game_class: type[Game]) -> None:
    """A whole match of every game it claims (`games = ["*"]`) under a 2 s bank: only
    legal decisions, none lost on time, each searched answer charged about its plan and
    its debug text, which names the bank it was given, in the replay."""
    game = game_class.spec.id
    example, rival = ref_for(load_manifest(EXAMPLE)), ref_for(find_bot("random"))
    seats = (example, rival)
    spec = MatchSpec(
        match_id=f"search-{game}",
        game=game,
        seed=21,
        seats=seats,
        startup_timeout=10.0,
        time_control=TimeControl.parse("2s+0"),
        keys=seeds.derive(b"search" * 6, 21, "search", len(seats)),
    )
    result, lines = run_and_capture(spec)
    assert result.status is MatchStatus.NORMAL, [s.detail for s in result.seats]
    assert [s.status for s in result.seats] == [SeatStatus.OK] * 2, result.seats[0].stderr
    # a Twirkle match may end after a few turns: when both seats pass a round (T10)
    assert result.seats[0].decisions > 0
    assert result.replay is not None
    replay.verify(result.replay)
    offered, answered = {}, {}
    for name, way, line in lines:
        message = json.loads(line)
        if name == "search-bot" and message.get("type") == "decide" and way == "to-bot":
            assert set(message["observation"]) >= {"seat", "players", "phase", "game"}
            offered[message["id"]] = message["legal"]
        elif name == "search-bot" and message.get("type") == "decision":
            answered[message["id"]] = message["decision"]
    assert len(answered) == result.seats[0].decisions == len(offered)
    assert all(answered[key] in offered[key] for key in offered)
    bank, searched = 2000.0, 0
    for event in (e for e in result.replay["events"] if e.get("seat") == 0 and "decision" in e):
        text = event["debug"]
        found = SEARCHED.fullmatch(text) or FORCED.fullmatch(text)
        assert found is not None, text
        # it read the decide's time: the bank in whole ms (the replay's has 3 decimals)
        assert abs(int(found["bank"]) - bank) <= 1, (text, bank)
        if "samples" in found.groupdict():
            plan = int(found["plan"])
            assert plan <= 0.25 * bank, text
            # the last playout's overrun, reading the request and the pipes: 60 ms at most
            assert event["charged_ms"] <= plan + 60, (event, text)
            searched += int(found["samples"]) > 0
        bank = event["bank_ms"]
    assert searched > 0  # it did search, not only answer at random


@pytest.mark.slow
def test_arena_play_under_a_bank_puts_the_debug_text_in_the_replay(tmp_path: Path) -> None:
    """`arena play --time-control 2s+50ms`: the match ends normally, every answer of the
    example carries its debug text, and `arena replay show` prints it."""
    path = tmp_path / "game.json"
    cli = CliRunner()
    played = cli.invoke(
        app,
        [
            *("play", "take-that", str(EXAMPLE), "random", "--variant", "rounds=1"),
            *("--seed", "3", "--time-control", "2s+50ms", "--replay", str(path)),
        ],
    )
    assert played.exit_code == 0, played.output
    document = json.loads(path.read_text())
    assert document["time_control"] == "2s+50ms" and document["outcome"]["status"] == ["ok", "ok"]
    ours = [e for e in document["events"] if e.get("seat") == 0 and "decision" in e]
    assert ours and all("debug" in event for event in ours)
    searched = [SEARCHED.fullmatch(event["debug"]) for event in ours]
    assert sum(found is not None and int(found["samples"]) > 0 for found in searched) > 10
    shown = cli.invoke(app, ["replay", "show", str(path)])
    assert shown.exit_code == 0, shown.output
    assert f"debug: {ours[0]['debug']}" in shown.output


def test_a_limit_per_decision_gives_a_share_of_it_less_a_margin() -> None:
    bot = example_module()
    assert bot.budget(clock(1000, None), 0) == pytest.approx(0.4)
    assert bot.budget(clock(80, None), 0) == pytest.approx(0.03)  # 80 ms less the 50 ms margin
    assert bot.budget(clock(30, None), 0) == 0.0


def test_under_a_bank_a_decision_plans_a_share_of_it() -> None:
    bot = example_module()
    early = bot.budget(clock(10_000, 10_000), 0)
    assert 0.1 < early < 0.2  # about a sixtieth of the bank: 60 decisions expected
    assert bot.budget(clock(10_000, 10_000, 100), 0) == pytest.approx(early + 0.08)
    assert bot.budget(clock(10_000, 10_000), 50) > 2 * early  # fewer decisions left
    assert bot.budget(clock(600_000, 600_000), 59) <= 0.25 * 600  # a quarter at most
    assert bot.budget(clock(40, 40), 0) == 0.0  # below the margin: no search


@pytest.mark.parametrize("control", ["1s+0", "2s+50ms", "10s+100ms", "60s+0"])
def test_a_bank_lasts_a_match_three_times_as_long_as_expected(control: str) -> None:
    """Every search charged its whole plan, a tenth more and 3 ms, every answer without
    one 1 ms: arena's own clock never finds an answer charged more than the bank left."""
    bot, seat_clock = example_module(), SeatClock(TimeControl.parse(control))
    searched = 0
    for made in range(3 * bot.EXPECTED_DECISIONS):
        plan = bot.budget(seat_clock.request(), made)
        charged = plan * 1.1 + 0.003 if plan > 0 else 0.001
        assert charged < seat_clock.limit(), f"lost on time after {made} decisions"
        seat_clock.charge(charged)
        searched += plan > 0
    assert searched >= bot.EXPECTED_DECISIONS  # it did search


def test_the_debug_text_says_what_the_search_did() -> None:
    bot = example_module()
    report = {"samples": 12, "value": 4.25}
    text = bot.debug_text(report, [1, 2, 3], 0.071, 0.0612, 1995.4)
    assert text == "12 samples x 3 decisions in 61/71 ms; best value 4.25; bank 1995 ms"
    assert bot.debug_text({}, [1], 0.0, 0.0, None) == "forced"
    assert SEARCHED.fullmatch(bot.debug_text({"samples": 0, "value": None}, [1, 2], 0, 0, 40))


def test_the_example_beats_random_play_in_most_seeded_games() -> None:
    """20 two-player matches of one round, seats alternating: every game is seeded.

    With 4 samples per decision the example wins 19 of these 20 (51 of the first 60);
    a random seat would win about half. At least 14 leaves room for a referee change
    that reshuffles the samples, while a bot no better than random stays below it.
    """
    bot, game_class = example_module(), load_game("take-that")
    wins = 0
    for number in range(20):
        game = game_class.new(2, 1000 + number, {"rounds": 1})
        mine = number % 2
        ours, theirs = random.Random(number), random.Random(10_000 + number)
        while not game.is_over():
            joint = {}
            for seat in game.to_move():
                legal = game.legal(seat)
                if seat == mine:
                    observation = game.observation(seat)  # protocol 2's envelope
                    joint[seat] = bot.choose(
                        game_class, game.variant, observation, legal, ours, math.inf, 4
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
    observation = game.observation(seat)  # protocol 2's envelope, as the example gets it
    kept = copy.deepcopy(observation)
    for _ in range(10):
        state = game_class.determinize(observation, seat, game.players, game.variant, rng)
        state.clone(rng.getrandbits(64)).playout(rng)
        state.playout(rng)
    assert observation == kept
