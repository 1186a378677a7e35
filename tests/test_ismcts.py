"""The ISMCTS bot (bots/ismcts): legal everywhere, seeded, inside its time, and a real player.

The policy is played in-process with a small fixed number of iterations (the
determinism knob), so these tests are quick and their outcome depends on the seed
alone; one match goes through arena's runner with the bot as a sandboxed subprocess.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena.games import Game, all_games, load_game
from arena.match import replay
from arena.match.run import BotRef, MatchSpec, run_match
from arena.match.seeds import derive
from arena.status import MatchStatus, SeatStatus
from arena.submissions.manifest import find_bot, load_manifest, resolve_command
from arena.tournament import config
from tests.helpers import load_bot_module, tree_seats

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "bots" / "ismcts"
ismcts = load_bot_module("ismcts")
tree_search = ismcts.tree_search
ITERATIONS = 6
#: One non-default variant per game that has any.
VARIANTS: dict[str, dict[str, Any]] = {
    "take-that": {"pro": True, "rounds": 1},
    "krumme10": {"teams": True, "pink4": True, "long": True, "showdown": True},
    "leylo": {"rounds": 4},
}


def cases() -> list[tuple[str, int, dict[str, Any]]]:
    found = []
    for game in all_games():
        spec = game.spec
        for players in range(spec.min_players, spec.max_players + 1):
            found.append((spec.id, players, {}))
        if spec.id in VARIANTS:
            found.append((spec.id, 4, VARIANTS[spec.id]))
    return found


def search_seat(
    game: Game, seat: int, rng: random.Random, iterations: int = ITERATIONS
) -> dict[str, Any]:
    """The bot's decision for `seat`, searched with a fixed number of iterations."""
    return ismcts.choose(
        game.observation(seat),
        game.legal(seat),
        rng,
        game.variant,
        game=game.spec.id,
        budget_s=60.0,
        iterations=iterations,
    )


def play(game: Game, searched: set[int], rng: random.Random, decisions: int) -> list[Any]:
    """Play on with the bot at `searched` seats (random elsewhere) for at most `decisions`
    searched decisions; return them. `apply_joint` refuses anything not legal."""
    made: list[Any] = []
    while not game.is_over() and len(made) < decisions:
        joint = {}
        for seat in game.to_move():
            if seat in searched:
                joint[seat] = search_seat(game, seat, rng)
                made.append(joint[seat])
            else:
                joint[seat] = rng.choice(game.legal(seat))
        game.apply_joint(joint)
    return made


@pytest.mark.parametrize(("game_id", "players", "variant"), cases())
def test_plays_legal_decisions_in_every_game_and_player_count(
    game_id: str, players: int, variant: dict[str, Any]
) -> None:
    game = load_game(game_id).new(players, 3, variant)
    made = play(game, {0, players - 1}, random.Random(1), decisions=12)
    assert len(made) >= 6 or game.is_over()


@pytest.mark.parametrize(("game_id", "variant"), [("take-that", {"rounds": 1}), ("krumme10", {})])
def test_plays_whole_games_to_the_end(game_id: str, variant: dict[str, Any]) -> None:
    game = load_game(game_id).new(2, 8, variant)
    play(game, {0, 1}, random.Random(2), decisions=10_000)
    assert game.is_over()


@pytest.mark.parametrize("game_id", [g.spec.id for g in all_games()])
def test_same_seed_and_iterations_give_the_same_decisions(game_id: str) -> None:
    runs = []
    for _ in range(2):
        game = load_game(game_id).new(2, 11)
        runs.append(play(game, {0, 1}, random.Random(5), decisions=6))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("game_id", [g.spec.id for g in all_games()])
def test_the_search_statistics_depend_on_the_seed_alone(game_id: str) -> None:
    game = load_game(game_id).new(2, 11)
    walk = random.Random(3)
    for _ in range(15):  # into the game, where samples differ in what they lead to
        game.apply_joint({s: walk.choice(game.legal(s)) for s in game.to_move()})
    while len(game.legal(seat := game.to_move()[0])) < 2:
        game.apply(seat, game.legal(seat)[0])
    problem = tree_search.Problem(
        game.__class__, game.observe(seat), game.legal(seat), seat, 2, game.variant
    )
    limits = tree_search.Limits(budget_s=60.0, iterations=60)
    profile = ismcts.profile_for(game_id)
    stats = [
        tree_search.search(problem, profile, limits, random.Random(seed)).stats
        for seed in (5, 5, 6)
    ]
    assert stats[0] == stats[1]
    assert stats[0] != stats[2], "another seed should sample otherwise"


class FakeClock:
    """A clock that moves on by `step` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


def krumme10_problem() -> Any:
    game = load_game("krumme10").new(2, 4)
    seat = game.to_move()[0]
    return tree_search.Problem(game.__class__, game.observe(seat), game.legal(seat), seat, 2, {})


@pytest.mark.parametrize("root", ["halving", "ucb1"])
def test_stops_iterating_once_the_clock_passes_the_budget(root: str) -> None:
    problem = krumme10_problem()
    profile = ismcts.profile_for("krumme10")
    profile = tree_search.Profile(**{**profile.__dict__, "root_selection": root})
    clock = FakeClock(step=0.001)
    result = tree_search.search(
        problem, profile, tree_search.Limits(budget_s=0.02), random.Random(1), clock
    )
    assert 0 < result.iterations < 20  # the clock is read at least once per iteration
    assert clock.now <= 0.02 + 0.001 * 3, "it went on searching past its budget"
    assert result.decision in problem.legal


def test_without_time_for_one_iteration_it_still_answers_legally() -> None:
    problem = krumme10_problem()
    limits = tree_search.Limits(budget_s=0.0)
    result = tree_search.search(
        problem, ismcts.profile_for("krumme10"), limits, random.Random(1), FakeClock(1.0)
    )
    assert result.iterations == 0 and result.decision in problem.legal


def test_fixed_iterations_stop_the_search_whatever_the_clock() -> None:
    problem = krumme10_problem()
    limits = tree_search.Limits(budget_s=1e9, iterations=25)
    result = tree_search.search(
        problem, ismcts.profile_for("krumme10"), limits, random.Random(1), FakeClock(0.0)
    )
    assert result.iterations == 25


def test_a_single_legal_decision_is_answered_without_searching() -> None:
    def no_clock() -> float:
        raise AssertionError("a forced decision needs no search")

    only = [{"action": "take"}]
    decision = ismcts.choose({}, only, random.Random(1), game="no-such-game", clock=no_clock)
    assert decision == only[0]


def test_the_search_budget_stays_well_inside_the_deadline() -> None:
    assert ismcts.search_budget(0.1, None) == 0.1
    assert ismcts.search_budget(0.1, 1000) == 0.1
    assert ismcts.search_budget(0.1, 400) == pytest.approx(0.04)
    assert ismcts.search_budget(0.1, 0) == 0.0


def test_the_budget_counts_cpu_time_and_wall_time_stops_it_at_half_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert ismcts.budget_clock(None) is ismcts.time.process_time
    now = {"wall": 100.0, "cpu": 7.0}
    monkeypatch.setattr(ismcts.time, "monotonic", lambda: now["wall"])
    monkeypatch.setattr(ismcts.time, "process_time", lambda: now["cpu"])
    clock = ismcts.budget_clock(1000)
    now["wall"] += 0.4  # a busy machine: wall time passes, CPU time does not
    assert clock() == 7.0
    now["cpu"] += 0.05
    assert clock() == 7.05
    now["wall"] += 0.2  # past half the deadline
    assert clock() == float("inf")


def test_a_search_that_gets_no_cpu_stops_on_wall_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """With CPU time standing still the budget is never spent: the wall-time stop of the
    clock made from the request's deadline ends it (a plain timer is not used)."""
    monkeypatch.setattr(ismcts.time, "process_time", lambda: 0.0)
    made, used = [], []
    budget_clock, search = ismcts.budget_clock, ismcts.choose

    def clock_spy(deadline_ms: float | None) -> Any:
        made.append((deadline_ms, budget_clock(deadline_ms)))
        return made[-1][1]

    def search_spy(*args: Any, **kwargs: Any) -> Any:
        used.append(kwargs["clock"])
        return search(*args, **kwargs)

    monkeypatch.setattr(ismcts, "budget_clock", clock_spy)
    monkeypatch.setattr(ismcts, "choose", search_spy)
    game = load_game("krumme10").new(2, 1)
    seat = game.to_move()[0]
    request = {"type": "decide", "id": 1, "observation": game.observation(seat)}
    request.update(
        legal=game.legal(seat), time={"limit_ms": 40, "bank_ms": None, "increment_ms": 0}
    )
    match = ismcts.Match({"game": "krumme10", "seed": 1, "variant": {}})
    assert match.decide(request, 0.1, None) in request["legal"]
    assert not match.failed
    assert [deadline for deadline, _ in made] == [40]
    assert used == [made[0][1]]


def test_rewards_follow_ranks_score_direction_and_teams() -> None:
    rewards = tree_search.rewards
    assert rewards([10, 5], True, None, 0.0, 10.0) == [1.0, 0.0]
    assert rewards([10, 5], False, None, 0.0, 10.0) == [0.0, 1.0]  # LEYLO: lowest wins
    assert rewards([7, 7, 1], True, None, 0.0, 10.0) == [0.75, 0.75, 0.0]
    teams = rewards([4, 9, 4, 9], True, [0, 1, 0, 1], 0.0, 10.0)
    assert teams == [0.0, 1.0, 0.0, 1.0]
    ahead, behind = rewards([12, 10], True, None, 1.0, 10.0)
    assert 0.5 < ahead < 1.0 and behind == pytest.approx(1 - ahead)


# ----- the program: protocol 2 over pipes, and a match through the runner ----------
def krumme10_request(number: int) -> dict[str, Any]:
    game = load_game("krumme10").new(2, 9)
    seat = game.to_move()[0]
    return {
        "type": "decide",
        "id": number,
        "observation": game.observation(seat),
        "legal": game.legal(seat),
        "time": {"limit_ms": 1000, "bank_ms": None, "increment_ms": 0},
    }


def start(seed: int, game: str = "krumme10", version: int = 1) -> dict[str, Any]:
    variant = {"pink4": False, "teams": False, "long": False, "showdown": False}
    return {
        "type": "start",
        "protocol": 2,
        "match": "m-test",
        "game": game,
        "game_version": version,
        "variant": variant,
        "players": 2,
        "seat": 0,
        "seed": seed,
        "time_control": {"kind": "per-decision", "decision_ms": 1000, "startup_ms": 10000},
    }


def converse(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """Send `messages` to a fresh bot process (8 iterations a decision), then EOF."""
    lines = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run(
        [sys.executable, "bot.py", "--iterations", "8"],
        cwd=BOT,
        input=lines,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_the_program_speaks_protocol_2_and_replays_a_seed() -> None:
    request = krumme10_request(1)
    end = {"type": "end", "match": "m-test", "seat": 0, "result": {}}
    answers, stderr = converse(
        [start(3), request, end, {"type": "unknown"}, start(3), request, end, {"type": "quit"}]
    )
    assert [a["type"] for a in answers] == ["ready", "decision", "ready", "decision"], stderr
    assert answers[0]["name"] == "ismcts"
    assert answers[1]["id"] == 1 and answers[1]["decision"] in request["legal"]
    assert answers[1]["decision"] == answers[3]["decision"], "the same seed, the same search"
    assert "search failed" not in stderr
    # the debug text says what the search did (8 iterations: converse's --iterations)
    assert answers[1]["debug"].startswith("8 iterations, "), answers[1]
    assert "chosen: value " in answers[1]["debug"] and "bank" not in answers[1]["debug"]


def test_the_program_reads_a_bank_and_says_what_is_left() -> None:
    request = krumme10_request(1)
    request["time"] = {"limit_ms": 5000, "bank_ms": 5000, "increment_ms": 100}
    answers, stderr = converse([start(3), request])
    assert answers[1]["decision"] in request["legal"], stderr
    assert answers[1]["debug"].endswith("; bank 5000 ms")


def test_the_program_still_speaks_protocol_1() -> None:
    """Run as `protocol = 1` it is sent version 1: the same search, no debug text."""
    game = load_game("krumme10").new(2, 9)
    seat = game.to_move()[0]
    v1_start = {**start(3), "protocol": 1, "decision_timeout_ms": 1000}
    del v1_start["time_control"]
    v1 = {"type": "decide", "id": 1, "observation": game.observe(seat)}
    v1.update(legal=game.legal(seat), deadline_ms=1000)
    answers, stderr = converse([v1_start, v1, start(3), krumme10_request(1)])
    assert "search failed" not in stderr
    assert "debug" not in answers[1] and "debug" in answers[3]
    assert answers[1]["decision"] == answers[3]["decision"], "the same search on either shape"


# ----- a bank: the plan of each decision --------------------------------------------
def bank_request(bank_ms: int, legal: int, increment_ms: int = 0) -> dict[str, Any]:
    clock = {"limit_ms": bank_ms, "bank_ms": bank_ms, "increment_ms": increment_ms}
    return {"legal": [{"action": "pass", "n": n} for n in range(legal)], "time": clock}


def test_under_a_bank_a_decision_with_more_choices_gets_more_time() -> None:
    match = ismcts.Match({"game": "krumme10", "players": 2, "seed": 1, "variant": {}})
    few, _ = match.plan(bank_request(10_000, 2), 0.1)
    usual, _ = match.plan(bank_request(10_000, 4), 0.1)
    many, _ = match.plan(bank_request(10_000, 40), 0.1)
    assert 0 < few < usual < many <= ismcts.BANK_SHARE * 10.0
    assert many == pytest.approx(usual * ismcts.HARDNESS[1])  # bounded: at most twice
    # the bank, not --budget-ms, sets it: 28 decisions expected in 10 s, not 100 ms each
    assert usual == pytest.approx((10.0 - 0.5) / 28, rel=0.01)
    # the increment adds most of itself; a bank below the reserve plans nothing
    more, _ = match.plan(bank_request(10_000, 4, increment_ms=100), 0.1)
    assert more == pytest.approx(usual + ismcts.INCREMENT_SHARE * 0.1)
    assert match.plan(bank_request(20, 4), 0.1)[0] == 0.0


def test_under_a_bank_the_plan_grows_as_the_decisions_left_shrink() -> None:
    match = ismcts.Match({"game": "krumme10", "players": 2, "seed": 1, "variant": {}})
    early, _ = match.plan(bank_request(5_000, 4), 0.1)
    match.decisions = 20  # 8 of about 28 left
    late, _ = match.plan(bank_request(5_000, 4), 0.1)
    match.decisions = 40  # longer than expected: it may run on half as long again
    longer, _ = match.plan(bank_request(5_000, 4), 0.1)
    assert early < late and longer < late


def test_under_a_per_decision_limit_the_plan_is_as_before() -> None:
    match = ismcts.Match({"game": "krumme10", "players": 2, "seed": 1, "variant": {}})
    per = {"legal": [1, 2], "time": {"limit_ms": 400, "bank_ms": None, "increment_ms": 0}}
    assert match.plan(per, 0.1)[0] == pytest.approx(0.04)
    assert match.plan({"legal": [1, 2], "deadline_ms": 1000}, 0.1)[0] == 0.1  # version 1


@pytest.mark.parametrize(
    ("game", "players", "bank_s", "increment_s"),
    [
        ("krumme10", 2, 2.0, 0.0),
        ("krumme10", 2, 0.2, 0.0),
        ("take-that", 2, 10.0, 0.1),
        ("leylo", 3, 10.0, 0.1),
        ("twirkle", 2, 5.0, 0.0),
    ],
)
def test_a_bank_is_never_spent_in_a_match_three_times_as_long_as_expected(
    game: str, players: int, bank_s: float, increment_s: float
) -> None:
    """Every search charged its whole plan, a tenth more and 3 ms (the request, the last
    iteration's overrun, the answer), every answer without a search 1 ms, 30 legal
    decisions each, in a match three times as long as expected: arena's own clock
    never finds an answer charged more than the bank left."""
    from arena.protocol.clock import SeatClock, TimeControl

    clock = SeatClock(TimeControl.fischer(bank_s, increment_s))
    match = ismcts.Match({"game": game, "players": players, "seed": 1, "variant": {}})
    searched = 0
    for _ in range(int(3 * ismcts.expected_decisions(game, players, {}))):
        request = bank_request(round(clock.limit() * 1000), 30, round(increment_s * 1000))
        budget, _ = match.plan(request, 0.1)
        searches = budget >= ismcts.SHORTEST_SEARCH_S
        charged = budget * 1.1 + 0.003 if searches else 0.001
        assert charged < clock.limit(), f"lost on time after {match.decisions} decisions"
        clock.charge(charged)
        match.decisions += 1
        searched += searches
    assert searched >= ismcts.expected_decisions(game, players, {}) / 2  # it did search


def test_under_a_bank_the_search_stops_on_wall_time_before_it_costs_the_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A third of the wall time is charged when more than the CPU time: a search given no
    CPU stops once the wall part would reach the plan."""
    now = {"wall": 100.0, "cpu": 7.0}
    monkeypatch.setattr(ismcts.time, "monotonic", lambda: now["wall"])
    monkeypatch.setattr(ismcts.time, "process_time", lambda: now["cpu"])
    match = ismcts.Match({"game": "krumme10", "players": 2, "seed": 1, "variant": {}})
    budget, clock = match.plan(bank_request(10_000, 4), 0.1)
    now["wall"] += budget * ismcts.BANK_WALL_FACTOR * 0.99
    assert clock() == 7.0
    now["wall"] += budget * 0.05
    assert clock() == float("inf")
    assert ismcts.BANK_WALL_FACTOR < 3  # arena's WALL_FACTOR: a third of the wall time


@pytest.mark.parametrize(("game", "version"), [("no-such-game", 1), ("krumme10", 99)])
def test_the_program_answers_at_random_when_it_cannot_search(game: str, version: int) -> None:
    """An unknown game, or rules other than the referee's: legal answers, a line on stderr."""
    request = krumme10_request(1)
    answers, stderr = converse([start(3, game, version), request])
    assert answers[1]["decision"] in request["legal"]
    assert "search failed" in stderr


def test_a_real_match_through_the_runner_with_only_legal_decisions() -> None:
    manifest = load_manifest(BOT)
    assert manifest.games == ("*",)
    assert manifest.protocol == 2
    argv = tuple(resolve_command(manifest))
    bot = BotRef(manifest.name, str(manifest.folder), argv, protocol=manifest.protocol)
    rival = find_bot("random")
    other = BotRef(rival.name, str(rival.folder), tuple(resolve_command(rival)))
    spec = MatchSpec(
        match_id="test-ismcts",
        game="krumme10",
        seed=12,
        seats=(bot, other),
        decision_timeout=1.0,
        startup_timeout=10.0,
        keys=derive(b"test" * 8, 12, "test", 2),
    )
    result = run_match(spec)
    assert result.status is MatchStatus.NORMAL, [s.detail for s in result.seats]
    assert [s.status for s in result.seats] == [SeatStatus.OK] * 2, result.seats[0].stderr
    assert "search failed" not in result.seats[0].stderr, "arena.games was not importable"
    assert result.seats[0].decisions > 10
    assert result.replay is not None
    replay.verify(result.replay)


@pytest.mark.parametrize("game_id", [g.spec.id for g in all_games()])
def test_every_game_has_a_tournament_of_ismcts_the_heuristic_and_random(game_id: str) -> None:
    path = ROOT / "tournaments" / f"{game_id}-ismcts.toml"
    settings = config.from_mapping(tomllib.loads(path.read_text()))
    assert settings.game == game_id
    assert set(settings.bots) == {"ismcts", f"{game_id}-heuristic", "random"}
    assert all(find_bot(name).plays(game_id) for name in settings.bots)


# ----- twirkle: whole placements planned, shifts that set up the next one ----------
twirkle_plan = load_bot_module("ismcts").twirkle_plan
RED_FIVE = {(x, 0): ("red", s) for x, s in enumerate(twirkle_plan.ALL_SYMBOLS[:5])}


def test_twirkle_plans_rank_the_line_of_six_first() -> None:
    hand = [("red", "crystal"), ("blue", "swirl")]
    planner = twirkle_plan.Planner(dict(RED_FIVE), hand, 30, {})
    value, steps = planner.plans([], None)[0]
    assert [card for _, card in steps] == [("red", "crystal")]
    assert steps[0][0] in {(5, 0), (-1, 0)}
    assert value == pytest.approx(12 + twirkle_plan.PLAY_BONUS)
    assert planner.board == RED_FIVE and sorted(planner.hand) == sorted(hand), "left as found"


def twirkle_turn(seed: int) -> tuple[Any, int]:
    """A seeded Twirkle match played by the heuristic until a turn with several options."""
    heuristic = load_bot_module("twirkle-heuristic")
    game = load_game("twirkle").new(2, seed)
    rng = random.Random(seed)
    while True:
        seat = game.to_move()[0]
        legal = game.legal(seat)
        if game.observe(seat)["phase"] == "turn" and len(legal) > 3:
            return game, seat
        game.apply(seat, heuristic.choose(game.observation(seat), legal, rng))


def test_twirkle_search_stops_at_its_budget_and_answers_legally() -> None:
    """The planning keeps to the budget on a turn with many placements."""
    game, seat = twirkle_turn(4)
    clock = FakeClock(step=0.001)
    decision = ismcts.choose(
        game.observation(seat),
        game.legal(seat),
        random.Random(1),
        {},
        game="twirkle",
        budget_s=0.01,
        clock=clock,
    )
    assert decision in game.legal(seat)
    assert clock.reads >= 3, "it did not plan"
    # the planning reads the clock once past its share of the budget, at most
    assert clock.now < 0.01 + 0.001 * 2, "it went on planning past its budget"


def test_twirkle_plays_a_whole_placement_it_planned() -> None:
    game, seat = twirkle_turn(6)
    rng = random.Random(2)
    steps = 0
    while game.to_move() == [seat] and game.observe(seat)["phase"] in ("turn", "placing"):
        game.apply(seat, search_seat(game, seat, rng))  # apply refuses anything not legal
        steps += 1
    assert steps >= 2 and game.history[-1][1]["action"] in ("place", "end_placing", "exchange")


# ----- leylo: the greedy evaluation, minding what the discard gives away ------------
def leylo_view(seed: int) -> dict[str, Any]:
    """A LEYLO observation after the opening flips of a seeded 2-player match."""
    game = load_game("leylo").new(2, seed)
    walk = random.Random(seed)
    while game.observe(0)["phase"] == "flip":
        game.apply_joint({s: walk.choice(game.legal(s)) for s in game.to_move()})
    return game.observe(game.to_move()[0])


def test_leylo_counts_what_a_discard_gives_the_next_seat() -> None:
    leylo_plan = load_bot_module("ismcts").leylo_plan
    view = leylo_view(5)
    rival = (view["seat"] + 1) % 2
    grid = ["hidden"] * 16
    grid[0:3] = ["5", "5", "5"]  # a 5 over its 11 completes the row: 31 points off
    grid[3] = "11"
    view["grids"][rival] = grid
    feeding = leylo_plan.Feeding(leylo_plan.View(view), view)
    assert feeding.damage("5") > 5  # beyond what a pile card gives it (a 5 elsewhere: 1-2)
    assert feeding.damage("11") == 0.0  # worse than what the pile gives it on average
    assert feeding.damage("empty") == 0.0


def leylo_placing(
    card: str, face_up: dict[int, str] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An observation of the seat to move holding `card` from the pile, its grid face down
    but `face_up` (cell: card; default a 1 and a 2); and the placements it may make."""
    observation = leylo_view(5)
    grid = ["hidden"] * 16
    for cell, up in (face_up or {0: "1", 5: "2"}).items():
        grid[cell] = up
    observation["grids"][observation["seat"]] = grid
    observation["face_down"][observation["seat"]] = grid.count("hidden")
    observation["phase"] = "place"
    observation["holding"] = {"source": "pile", "card": card}
    legal = [{"action": "replace", "cell": cell} for cell in range(16)]
    legal += [{"action": "discard", "reveal": cell} for cell in range(16) if grid[cell] == "hidden"]
    return observation, legal


def heuristic_evaluation(monkeypatch: pytest.MonkeyPatch, leylo_plan: Any) -> None:
    """Give the plan bots/leylo-heuristic's evaluation: no option of a turned-up card, and
    the same line shares at every point of a round (0.9 of the matching card's points for
    three of four, 0.1 for two)."""
    monkeypatch.setattr(leylo_plan, "REVEAL_OPTION", 0.0)
    monkeypatch.setattr(leylo_plan, "NEAR_BY_RACE", (0.9,) * 4)
    monkeypatch.setattr(leylo_plan, "HALF_BY_RACE", (0.1,) * 4)


def test_leylo_builds_lines_while_there_is_time_to_complete_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A third 9 beside two 9s makes a line worth finishing at a round's start; when an
    opponent keeps one face-down card the line will rarely be completed in time
    (scripts/leylo_line_odds.py), so the bot turns a card up instead. With the same share
    all round (the heuristic's), it builds the line then too."""
    leylo_plan = load_bot_module("ismcts").leylo_plan
    early, legal = leylo_placing("9", {0: "9", 1: "9"})
    late = copy.deepcopy(early)
    late["face_down"][1 - late["seat"]] = 1
    assert leylo_plan.choose(early, legal, random.Random(1)) == {"action": "replace", "cell": 2}
    assert leylo_plan.choose(late, legal, random.Random(1))["action"] == "discard"
    heuristic_evaluation(monkeypatch, leylo_plan)
    assert leylo_plan.choose(late, legal, random.Random(1)) == {"action": "replace", "cell": 2}


def test_leylo_turning_a_card_up_keeps_the_option_to_replace_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A middling card (a 5, the unseen cards' mean is about 5.8) is discarded and a card
    turned up, which the bot may replace later if it is high; the heuristic (and the plan
    without REVEAL_OPTION) puts it over a face-down card. A low card still goes there."""
    leylo_plan = load_bot_module("ismcts").leylo_plan
    assert leylo_plan.REVEAL_OPTION >= 1.0
    five, legal = leylo_placing("5")
    assert leylo_plan.choose(five, legal, random.Random(1))["action"] == "discard"
    assert leylo_plan.choose(*leylo_placing("3"), random.Random(1))["action"] == "replace"
    heuristic_evaluation(monkeypatch, leylo_plan)
    assert leylo_plan.choose(five, legal, random.Random(1))["action"] == "replace"


def test_leylo_turns_up_the_card_that_may_complete_a_line() -> None:
    """Discarding an 11 and turning a card up: the cell that a 9 (or a red joker) would
    make a row of four with, not any face-down cell."""
    leylo_plan = load_bot_module("ismcts").leylo_plan
    observation, legal = leylo_placing("11", {0: "9", 1: "9", 2: "9"})
    for seed in range(5):
        decision = leylo_plan.choose(observation, legal, random.Random(seed))
        assert decision == {"action": "discard", "reveal": 3}


def test_leylo_draws_as_the_heuristic_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only placements weigh the discard; with the heuristic's evaluation (no option of a
    turned-up card, flat line shares) every other decision is the heuristic's."""
    heuristic_evaluation(monkeypatch, load_bot_module("ismcts").leylo_plan)
    heuristic = load_bot_module("leylo-heuristic")
    game = load_game("leylo").new(2, 7)
    walk = random.Random(3)
    compared = 0
    while not game.is_over() and compared < 40:
        joint = {}
        for seat in game.to_move():
            view, legal = game.observe(seat), game.legal(seat)
            joint[seat] = search_seat(game, seat, random.Random(compared))
            if len(legal) > 1 and view["phase"] != "place":
                envelope = game.observation(seat)  # the heuristic bot speaks protocol 2
                assert joint[seat] == heuristic.choose(envelope, legal, random.Random(compared))
                compared += 1
            if walk.random() < 0.3:
                joint[seat] = walk.choice(legal)  # off the greedy path now and then
        game.apply_joint(joint)
    assert compared == 40


def test_the_take_that_anchor_is_the_heuristic_bot_itself() -> None:
    """A bot folder must hold all it runs, so the ISMCTS bot carries a copy of the Take That
    heuristic bot to anchor its root on; the copy must not drift from the bot it copies."""
    copy = (BOT / "take_that_heuristic.py").read_bytes()
    assert copy == (ROOT / "bots" / "take-that-heuristic" / "bot.py").read_bytes()
    game = load_game("take-that").new(2, 3)
    game.playout(random.Random(1), limit=9)
    seat = game.to_move()[0]
    observation, legal = game.observe(seat), game.legal(seat)
    heuristic = load_bot_module("take-that-heuristic")
    knowledge = sys.modules["game_knowledge"]  # loaded with the bot, from its folder
    mine = knowledge.take_that_anchor(observation, legal, random.Random(5), {})
    assert mine == heuristic.choose(game.observation(seat), legal, random.Random(5), {})


def test_the_krumme10_model_is_the_heuristic_bot_itself() -> None:
    """The ISMCTS bot models the other Krumme10 seats by a copy of the Krumme10 heuristic
    bot (krumme10_model.py runs its code); the copy must not drift from the bot it copies."""
    copy = (BOT / "krumme10_heuristic.py").read_bytes()
    assert copy == (ROOT / "bots" / "krumme10-heuristic" / "bot.py").read_bytes()


# ----- twirkle: the fast best-placement windows, and the shift after each turn ------
twirkle_reply = sys.modules["twirkle_reply"]  # loaded with the bot, from its folder
twirkle_shift = sys.modules["twirkle_shift"]


def twirkle_views(seed: int, every: int = 4) -> list[dict[str, Any]]:
    """Observations at the start of every `every`-th turn of a seeded heuristic match."""
    heuristic = load_bot_module("twirkle-heuristic")
    game = load_game("twirkle").new(2, seed)
    rng = random.Random(seed)
    views = []
    while not game.is_over():
        seat = game.to_move()[0]
        view = game.observe(seat)
        if view["phase"] == "turn" and view["turns"] % every == 0:
            views.append(view)
        game.apply(seat, heuristic.choose(game.observation(seat), game.legal(seat), rng))
    return views


def test_twirkle_windows_find_the_planners_best_placement() -> None:
    """The best window a hand fills is worth what the card-by-card planner finds."""
    rng = random.Random(3)
    for view in twirkle_views(11):
        grid = twirkle_shift.grid_of(view)
        threats = twirkle_reply.Threats(grid, view["bag"])
        board = {(c["x"], c["y"]): twirkle_plan.parse(c["card"]) for c in view["board"]}
        for _ in range(3):
            names = rng.sample(sorted(twirkle_shift.KIND_OF), 6)
            hand = [twirkle_plan.parse(n) for n in names]
            planned = twirkle_plan.Planner(dict(board), hand, view["bag"], {}).best([])
            bits = twirkle_reply.hand_bits(twirkle_shift.KIND_OF[n] for n in names)
            assert threats.best(bits, 6) == pytest.approx(planned)


def test_twirkle_windows_of_a_changed_board_are_those_built_afresh() -> None:
    rng = random.Random(4)
    view = twirkle_views(12)[-1]
    grid = twirkle_shift.grid_of(view)
    base = twirkle_reply.Threats(grid, view["bag"])
    for _ in range(20):
        changed = dict(grid)
        gone = rng.choice(sorted(changed))
        kind = changed.pop(gone)
        free = sorted({c + d for c in changed for d in (1, -1, 512, -512)} - set(changed))
        laid = rng.choice(free)
        changed[laid] = kind
        afresh = twirkle_reply.Threats(changed, view["bag"])
        change = base.changed(changed, (gone, laid))
        for _ in range(5):
            bits = twirkle_reply.hand_bits(rng.sample(range(36), 6))
            assert base.best_after(change, bits) == pytest.approx(afresh.best(bits))


def test_twirkle_shift_cuts_an_open_line_of_five() -> None:
    """A leaf ending a line of five is worth moving away: the next seat's twelve goes."""
    cell, kind = twirkle_reply.cell_of, twirkle_shift.KIND_OF
    red = [kind[f"red-{s}"] for s in twirkle_plan.ALL_SYMBOLS]
    grid = {cell(x, 0): red[x] for x in range(5)}  # five reds, the crystal missing
    grid[cell(0, 1)] = kind["blue-swirl"]  # swirls down from the first red ...
    grid[cell(0, 2)] = kind["green-swirl"]
    grid[cell(1, 2)] = kind["green-rosette"]  # ... and rosettes down from the green one
    grid[cell(1, 3)] = kind["blue-rosette"]
    crystal = twirkle_reply.hand_bits([red[5]])
    threats = twirkle_reply.Threats(grid, 30)
    assert threats.best(crystal, 1) >= 12
    moved = dict(grid)  # red-rosette from the row's end to the end of the rosettes
    moved[cell(1, 4)] = moved.pop(cell(4, 0))
    change = threats.changed(moved, (cell(4, 0), cell(1, 4)))
    assert threats.best_after(change, crystal, 1) < 12
    assert twirkle_reply.Threats(moved, 30).best(crystal, 1) < 12


def test_twirkle_shifts_are_legal() -> None:
    """A whole match with a fixed iteration count (a start of a shift then compares
    only that many one-card shifts): every decision is legal, and the bot shifts."""
    game = load_game("twirkle").new(2, 21)
    heuristic = load_bot_module("twirkle-heuristic")
    rng = random.Random(5)
    shifted = 0
    while not game.is_over():
        seat = game.to_move()[0]
        view, legal = game.observe(seat), game.legal(seat)
        if seat == 0:
            decision = search_seat(game, seat, rng, iterations=4)
            shifted += view["phase"] == "shifting" and decision["action"] == "lift"
        else:
            decision = heuristic.choose(game.observation(seat), legal, rng)
        game.apply(seat, decision)  # apply refuses anything not legal
    assert shifted > 5


# ----- leylo: the round end's chances (leylo_endgame.py) ------------------------------
def checkered(low: str, high: str) -> list[str]:
    """A grid of two cards alternating in both directions: no line anywhere."""
    return [low if (cell // 4 + cell % 4) % 2 == 0 else high for cell in range(16)]


def test_leylo_face_down_sums_follow_the_unseen_pool() -> None:
    leylo_plan = load_bot_module("ismcts").leylo_plan
    view = leylo_plan.View(leylo_view(5))
    three = view.sums.of(3)
    assert sum(three) == pytest.approx(1.0)
    assert sum(i * p for i, p in enumerate(three)) == pytest.approx(3 * view.ev)


def test_leylo_ending_doubles_with_the_chance_of_not_being_lowest() -> None:
    leylo_plan = load_bot_module("ismcts").leylo_plan
    observation = leylo_view(5)
    rival = (observation["seat"] + 1) % 2
    mine = checkered("1", "2")  # 24 points
    observation["grids"][rival] = ["0"] * 15 + ["hidden"]  # surely at or below 24
    low = leylo_plan.View(observation).ending_value(mine, None)
    assert low == pytest.approx(2 * 24 - leylo_plan.END_BONUS)
    observation["grids"][rival] = [*checkered("10", "11")[:15], "hidden"]  # surely above
    high = leylo_plan.View(observation).ending_value(mine, None)
    assert high == pytest.approx(24 - leylo_plan.END_BONUS)


def test_leylo_final_lap_prefers_ending_at_or_below_the_ender() -> None:
    """A grid surely at or below the ender's points doubles the ender: it is worth the
    ender's points less than its own; one surely above is worth its points."""
    leylo_plan = load_bot_module("ismcts").leylo_plan
    observation = leylo_view(5)
    rival = 1 - observation["seat"]
    observation["grids"][rival] = checkered("1", "2")  # the ender: 24 points
    observation["ender"], observation["round"] = rival, 1
    view = leylo_plan.View(observation)
    below = checkered("1", "2")
    below[1] = "0"  # 22 points
    above = checkered("1", "2")
    above[15] = "11"  # 34 points
    assert view.last_turn_value(below) == pytest.approx(22 - 24)
    assert view.last_turn_value(above) == pytest.approx(34)


def test_leylo_a_replaced_face_down_card_is_seen_by_the_next_seat() -> None:
    """Ending by replacing the own last face-down card puts that card face up on the
    discard pile: the next seat takes it when it is low, so it gets at or below us more
    often than when it could only draw (the card is not taken blindly, at the mean)."""
    leylo_plan = load_bot_module("ismcts").leylo_plan
    observation = leylo_view(5)
    rival = 1 - observation["seat"]
    grid = checkered("1", "2")
    grid[15] = "11"  # 34 points, the 11 worth replacing by almost any card
    observation["grids"][rival] = grid
    view = leylo_plan.View(observation)
    drawing_only = view.at_or_below(rival, None, 30)
    seeing_it = view.at_or_below(rival, "hidden", 30)
    assert 0.0 < drawing_only < seeing_it < 1.0
    mine = checkered("1", "2")
    mine[1] = "8"  # 24 - 2 + 8: 30 points
    ending = view.ending_value(mine, "hidden")
    assert ending == pytest.approx(30 * (1.0 + seeing_it) - leylo_plan.END_BONUS)


def test_leylo_a_row_and_a_column_that_cross_are_not_both_cleared() -> None:
    """Clearing a line empties its cells, so of a complete row and a complete column that
    cross only one goes; counting both made a grid's points negative (the bot crashed)."""
    leylo_plan = load_bot_module("ismcts").leylo_plan
    observation = leylo_view(5)
    rival = 1 - observation["seat"]
    grid = ["0"] * 16
    for cell in (0, 1, 2, 3, 4, 8, 12):
        grid[cell] = "11"  # row 0 and column 0: 77 points, 44 of them cleared
    grid[15] = "hidden"
    observation["grids"][rival] = grid
    view = leylo_plan.View(observation)
    assert view.final(grid) == (33, 1)
    assert 0.0 < view.at_or_below(rival, "hidden", 40) < 1.0
    assert 0.0 < view.at_or_below(rival, None, 40) < 1.0


# ----- leylo: rollouts near the round end (leylo_rollout.py) -----------------------------
def leylo_rollout_module() -> Any:
    """bots/ismcts/leylo_rollout.py (loading bot.py put its folder on the path)."""
    import importlib

    load_bot_module("ismcts")
    return importlib.import_module("leylo_rollout")


def leylo_near_round_end(seed: int) -> Any:
    """A 2-player match played greedily until the seat to move keeps one face-down card
    and the other at most two (no final lap yet): the state and the seat."""
    leylo_plan = load_bot_module("ismcts").leylo_plan
    game = load_game("leylo").new(2, seed)
    walk = random.Random(seed)
    while True:
        seats = game.to_move()
        observation = game.observe(seats[0])
        if observation["phase"] == "turn" and leylo_plan.near_round_end(observation):
            return game, seats[0]
        game.apply_joint(
            {s: leylo_plan.choose(game.observe(s), game.legal(s), walk) for s in seats}
        )


def test_leylo_rollouts_play_the_round_to_its_end() -> None:
    bot = load_bot_module("ismcts")
    leylo_rollout = leylo_rollout_module()  # bot.py put its folder on the path
    game, seat = leylo_near_round_end(3)
    observation = game.observe(seat)
    sim = bot.leylo_plan.sim_for(bot.leylo_plan.View(observation))
    world = load_game("leylo").determinize(observation, seat, 2, {"rounds": 3}, random.Random(1))
    rounds = len(world.results)
    leylo_rollout.rollout(world, sim, seat)
    assert len(world.results) == rounds + 1  # ended, not cut short


def test_leylo_rollouts_compare_candidates_in_the_same_worlds() -> None:
    bot = load_bot_module("ismcts")
    game, seat = leylo_near_round_end(3)
    observation, legal = game.observe(seat), game.legal(seat)
    sim = bot.leylo_plan.sim_for(bot.leylo_plan.View(observation))
    twice = [legal[0], legal[0]]
    means, done = leylo_rollout_module().compare(
        observation, twice, sim, random.Random(2), lambda done: done < 5
    )
    assert done == 5
    assert means[0] == means[1]  # common random numbers: the same decision, the same value
    decision = bot.leylo_plan.choose(observation, legal, random.Random(2), lambda done: done < 5)
    assert decision in legal


def test_leylo_rollout_knows_which_cards_complete_a_line() -> None:
    leylo_rollout = leylo_rollout_module()
    from arena.games.leylo.cards import ACTION, JOKER_GREEN, JOKER_RED, JOKER_YELLOW

    assert leylo_rollout.completers([10, 10, 10]) == {10, JOKER_RED}
    assert leylo_rollout.completers([10, JOKER_RED, 10]) == {10, JOKER_RED}
    assert leylo_rollout.completers([10, 10, 9]) == frozenset()
    assert leylo_rollout.completers([10, 10, JOKER_YELLOW]) == frozenset()
    assert leylo_rollout.completers([JOKER_GREEN] * 3) == {0, 1, 2, 3, JOKER_GREEN}
    assert leylo_rollout.completers([ACTION] * 3) == {ACTION}
    assert leylo_rollout.completers([ACTION, ACTION, 0]) == frozenset()


def test_leylo_rollout_completes_a_line_with_the_held_card() -> None:
    bot = load_bot_module("ismcts")
    game, seat = leylo_near_round_end(3)
    observation = game.observe(seat)
    sim = bot.leylo_plan.sim_for(bot.leylo_plan.View(observation))
    world = load_game("leylo").determinize(observation, seat, 2, {"rounds": 3}, random.Random(1))
    cards, up = world.cards[seat], world.up[seat]
    for cell in range(16):  # a clean slate: the top row 7 7 7 5, the rest face-up 0s
        cards[cell], up[cell] = 0, True
    cards[0:4] = [7, 7, 7, 5]
    cards[15], up[15] = 11, False  # one face-down card keeps the round going
    best = sim.plan(world, seat)
    points, decision = best(7)  # a 7 on the 5 clears the row: 21 + 5 points gone
    assert decision == {"action": "replace", "cell": 3}
    assert points == pytest.approx(sim.ev + leylo_rollout_module().TEMPO)
    assert best(6)[1] != {"action": "replace", "cell": 3}  # a 6 completes nothing there


def test_leylo_rollouts_weigh_every_kind_of_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    bot = load_bot_module("ismcts")
    leylo_plan, leylo_rollout = bot.leylo_plan, leylo_rollout_module()
    game, seat = leylo_near_round_end(3)
    observation, legal = game.observe(seat), game.legal(seat)
    compared: list[list[dict[str, Any]]] = []

    def fake_compare(obs: Any, candidates: list[dict[str, Any]], *rest: Any) -> Any:
        compared.append(candidates)  # the rollouts say: the last candidate is best by 5
        return [0.0] * (len(candidates) - 1) + [-5.0], 1

    monkeypatch.setattr(leylo_rollout, "compare", fake_compare)
    decision = leylo_plan.choose(observation, legal, random.Random(2), lambda done: done < 1)
    kinds = [leylo_plan.kind(observation["grids"][seat], d) for d in compared[0]]
    assert sorted(kinds) == ["discard", "pile", "swap"]  # the greedy choice and both rivals
    assert decision == compared[0][-1]


# ----- take-that: the heuristic bot as the model of the other seats ------------------
def test_take_that_model_decides_as_the_heuristic_bot() -> None:
    """take_that_model.py rates every decision of any seat of a state as the heuristic
    bot rates it from that seat's observation, value for value (so its ties and its
    decisions are the heuristic's), in 2-4 players, with and without the pro variant."""
    load_bot_module("ismcts")
    model = sys.modules["take_that_model"]
    heuristic = sys.modules["take_that_heuristic"]
    game_class = load_game("take-that")
    compared = 0
    for players, pro in ((2, False), (3, True), (4, False), (2, True)):
        variant = game_class.spec.resolve_variant({"pro": pro, "rounds": 1})
        game = game_class.new(players, 40 + players, variant)
        walk = random.Random(players)
        while not game.is_over():
            seat = game.to_move()[0]
            observation, legal = game.observation(seat), game.legal(seat)  # protocol 2's
            view = heuristic.View(observation, pro)
            seen = model.Seen(game, seat)
            assert [seen.evaluate(d) for d in legal] == [heuristic.evaluate(view, d) for d in legal]
            values = [heuristic.evaluate(view, d) for d in legal]
            top = max(values)
            ties = [d for d, v in zip(legal, values, strict=True) if v >= top - 1e-9]
            assert model.best_decisions(game, seat, legal) == ties
            compared += len(legal)
            pick = heuristic.choose(observation, legal, walk, variant)
            game.apply(seat, walk.choice(legal) if walk.random() < 0.3 else pick)
    assert compared > 400


def test_take_that_search_models_the_other_seats_by_the_heuristic() -> None:
    """With a model, the tree holds only the searcher's decisions, and the model (never the
    searcher's playout policy) decides for the other seats, in the tree and in playouts."""
    knowledge = sys.modules["game_knowledge"]
    profile = knowledge.profile_for("take-that")
    assert profile.model is not None
    calls: list[int] = []

    def spy(state: Any, seat: int, legal: list[dict[str, Any]], rng: random.Random) -> Any:
        calls.append(seat)
        return profile.model(state, seat, legal, rng)

    spied = tree_search.Profile(**{**profile.__dict__, "model": spy})
    game = load_game("take-that").new(2, 8, {"rounds": 1, "pro": False})
    game.playout(random.Random(3), limit=6)
    seat = game.to_move()[0]
    problem = tree_search.Problem(
        game=load_game("take-that"),
        observation=game.observe(seat),
        legal=game.legal(seat),
        seat=seat,
        players=2,
        variant={"rounds": 1, "pro": False},
    )
    root = tree_search.Node(tree_search.ROOT_SEAT)
    rng = random.Random(4)
    for _ in range(60):
        tree_search.iterate(root, problem.sample(rng), None, seat, spied, None, rng)
    assert tree_seats(root) == {seat}
    assert calls and set(calls) == {1 - seat}
    unmodelled = tree_search.Profile(**{**profile.__dict__, "model": None})
    root = tree_search.Node(tree_search.ROOT_SEAT)
    for _ in range(60):
        tree_search.iterate(root, problem.sample(rng), None, seat, unmodelled, None, rng)
    assert any(s != seat for child in root.children.values() for s, _ in child.children)
