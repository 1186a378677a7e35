"""The ISMCTS bot: information-set Monte Carlo tree search for every game arena has.

Protocol 2 over JSON lines (protocol/PROTOCOL.md). The policy is the pure function
`choose` of the observation envelope; `main` only speaks the protocol. The search
(tree_search.py, SO-ISMCTS after Cowling, Powley and Whitehouse 2012) samples states
consistent with the observation through arena's own referees (`arena.games`: `determinize`, `clone`, `playout`), so
the bot needs the `arena` package importable. What differs per game is in
game_knowledge.py. Two games do not use the tree (it lost to both heuristics):
Twirkle plans whole placements exhaustively and plays the best (twirkle_plan.py), and
at the end of every turn shifts a card to set up its own next placement against the
next seat's sampled hands (twirkle_shift.py, with twirkle_reply.py's fast
best-placement windows); LEYLO plays the heuristic bot's greedy grid evaluation (with
nearly complete lines worth more early in a round than late, as often as they are
completed then), a cost for what a placement feeds the next seat, and round ends
valued by the computed chance of being doubled, the next seat seeing a face-down card
that the ending placement replaces (leylo_plan.py, leylo_endgame.py); near the round end
in two-player games it compares the greedy choice with the best decision of every other
kind (end now or wait; the discard, the pile or a swap) by rollouts of sampled worlds,
and switches only when they prefer another by a clear margin (leylo_rollout.py).

Time: the budget counts the process's CPU time (what arena charges an answer, unless a
third of its wall time is more), so a busy machine slows the bot without weakening it.
Under a limit per decision (`time.bank_ms` null, or version 1's `deadline_ms`) each
decision searches for the budget given by `--budget-ms` in bot.toml's command (default
100 ms), cut to a tenth of the limit, and stops once half the limit has passed in wall
time. Under a bank (`bank_plan`) it plans from the bank, the increment and the
decisions it expects to be left: a share of the bank each, more where many decisions
are legal and less where few are; the search's race at the root stops once one
decision is clearly best, so an easy decision leaves most of its share in the bank for
the hard ones (several close candidates) later. It never plans more than a quarter of
the bank, keeps a reserve, and stops on wall time before a third of the wall time
could cost more than the plan. A single legal decision is answered at once.
`--iterations N` instead searches exactly N iterations per decision whatever the clock
says (up to the same cuts), so that a match depends on the seed alone.

Each answer carries a `debug` text for the replay: the iterations searched, the CPU
time spent of the budget, the chosen decision's value (its mean reward, 0..1) and
visits, and the bank left.

Randomness: one `random.Random(start["seed"])` per match, made anew at every start;
with a fixed iteration count a match replays exactly.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import random
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

# The search modules lie beside this file; running `python3 bot.py` puts this folder
# on sys.path already, loading bot.py by path (tests, scripts/winrate.py) does not.
HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import leylo_plan  # noqa: E402
import tree_search  # noqa: E402
import twirkle_plan  # noqa: E402
from game_knowledge import profile_for  # noqa: E402

NAME = "ismcts"
DEFAULT_BUDGET_MS = 100
#: Part of `deadline_ms` the search may use: the rest covers the last iteration running
#: over (a Twirkle playout can take a few milliseconds, a first sample of a new Krumme10
#: situation tens), encoding the answer, the pipes and a busy machine. arena's default
#: deadline of 1 s gives the full 100 ms; a tournament with a shorter one gets a
#: shorter search (the demo's 0.3 s in Take That: 30 ms).
DEADLINE_SHARE = 0.1
#: The budget is CPU time (a busy machine does not make the bot weaker: it thinks as
#: much, only slower), but the search also stops once this part of the deadline has
#: passed in wall time, however little CPU it got by then.
WALL_SHARE = 0.5
#: Part of the budget after which the Twirkle planner starts no new comparison: one it
#: has started runs to its end (comparing shifts on a crowded board, some tens of ms).
TWIRKLE_SHARE = 0.7

# ----- a bank (protocol 2's time control "bank") ------------------------------------
#: The most of the bank one decision may plan (what is left covers a long match).
BANK_SHARE = 0.25
#: Kept back from the bank: this part of it, and at least BANK_RESERVE_S plus ANSWER_S
#: for each of LONG_MATCH times the decisions expected to be left, for what the budget
#: does not count (reading the request, the last iteration's overrun, the answer) and
#: for a match longer than expected.
BANK_RESERVE = 0.05
BANK_RESERVE_S = 0.03
ANSWER_S = 0.002
LONG_MATCH = 2
#: A plan shorter than this is no search: the answer is made at once (at random).
SHORTEST_SEARCH_S = 0.002
#: Part of the increment a decision plans to spend on top of its share of the bank.
INCREMENT_SHARE = 0.8
#: The fewest decisions a plan assumes to be left: FEWEST_LEFT, and LATE_SHARE of those
#: made so far (a match that has run longer than expected may run on as long again).
FEWEST_LEFT = 8
LATE_SHARE = 0.5
#: How far the number of legal decisions moves a decision's share: by the square root
#: of its ratio to the game's usual number (TYPICAL_LEGAL), within these bounds.
HARDNESS = (0.5, 2.0)
TYPICAL_LEGAL = {"take-that": 3, "krumme10": 4, "leylo": 25, "twirkle": 4}
#: Under a bank the search stops on wall time after this many times its budget: arena
#: charges a third of an answer's wall time when that is more than its CPU time.
BANK_WALL_FACTOR = 2.5


def expected_decisions(game: str, players: int, variant: Mapping[str, Any]) -> float:
    """About how many decisions with a choice one seat makes in a match (measured with
    the heuristic bots: Take That 68 at 2 players and 2 rounds, 39 at 3; Krumme10 28, 18;
    LEYLO about 45 a round at any player count; Twirkle 112, 72)."""
    players = max(1, players)
    if game == "take-that":
        return 34.0 * float(variant.get("rounds", 2)) * 2 / players
    if game == "krumme10":
        return 56.0 / players * (2 if variant.get("long") else 1)
    if game == "leylo":
        return 45.0 * float(variant.get("rounds", 3))
    if game == "twirkle":
        return 225.0 / players
    return 60.0


def bank_plan(
    bank_s: float, increment_s: float, left: float, legal: int, typical: float
) -> float:
    """The CPU seconds one decision may search under a bank of `bank_s` with `left`
    decisions expected: an even share of the bank less its reserve, plus most of the
    increment, scaled by the decision's hardness (its number of `legal` decisions
    against the game's `typical`), at most BANK_SHARE of the bank.

    >>> round(bank_plan(10.0, 0.1, 50, 4, 4), 3), round(bank_plan(10.0, 0.1, 50, 16, 4), 3)
    (0.27, 0.54)
    >>> bank_plan(0.2, 0.0, 50, 4, 4)
    0.0
    """
    left = max(left, FEWEST_LEFT)
    reserve = max(BANK_RESERVE * bank_s, BANK_RESERVE_S + ANSWER_S * LONG_MATCH * left)
    usable = max(0.0, bank_s - reserve)
    share = usable / left + INCREMENT_SHARE * increment_s
    low, high = HARDNESS
    hardness = min(high, max(low, math.sqrt(max(1, legal) / max(1.0, typical))))
    return max(0.0, min(share * hardness, BANK_SHARE * usable))


def search_budget(budget_s: float, deadline_ms: float | None) -> float:
    """The time one decision may search under a limit per decision: the bot's budget,
    cut to a share of the deadline."""
    if deadline_ms is None:
        return budget_s
    return max(0.0, min(budget_s, deadline_ms / 1000 * DEADLINE_SHARE))


def budget_clock(deadline_ms: float | None, wall_s: float | None = None) -> Callable[[], float]:
    """The clock a decision's search budget is counted on: this process's CPU time, which
    jumps to infinity (the budget is spent) once WALL_SHARE of the deadline has passed
    (or, given, `wall_s` seconds)."""
    if deadline_ms is None and wall_s is None:
        return time.process_time
    if wall_s is None:
        assert deadline_ms is not None
        wall_s = deadline_ms / 1000 * WALL_SHARE
    wall_end = time.monotonic() + wall_s

    def clock() -> float:
        return math.inf if time.monotonic() > wall_end else time.process_time()

    return clock


def choose(
    observation: dict[str, Any],
    legal: list[dict[str, Any]],
    rng: random.Random,
    variant: Mapping[str, Any] | None = None,
    *,
    game: str,
    budget_s: float = DEFAULT_BUDGET_MS / 1000,
    iterations: int | None = None,
    clock: Callable[[], float] = time.perf_counter,
    report: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Pick one of `legal` for the seat whose `observation` is given, by SO-ISMCTS.

    Args:
        observation: the seat's observation, protocol 2's envelope (it names the seat
            and the player count; the game's own fields are under `game`).
        legal: the legal decisions, as offered.
        rng: every random choice of the search comes from it.
        variant: the match's variant from the start message.
        game: the game id from the start message.
        budget_s: search time; `iterations`, when given, stops it earlier.
        clock: the time source (tests pass a fake one).
        report: when given, receives how the search went: `iterations`, and for a tree
            search the chosen decision's `value` (mean reward) and `visits`.

    Returns:
        One element of `legal`.
    """
    if len(legal) == 1:
        return legal[0]
    limits = tree_search.Limits(budget_s, iterations)
    return run_search(observation, legal, rng, variant, game, limits, clock, report)


def flat_view(game: str, observation: dict[str, Any]) -> dict[str, Any]:
    """The observation as the search modules read it: the envelope laid out as arena's
    referees lay out version 1 (`arena.games.observation.to_v1`, the one adapter), the
    shape `determinize` and the game's views also take. A version-1 observation (a bot
    run as `protocol = 1`) is that shape already."""
    from arena.games import load_game
    from arena.games.observation import is_envelope, to_v1

    if not is_envelope(observation):
        return observation
    load_game(game)  # registers the game's observation model
    return to_v1(game, observation)


def run_search(
    observation: dict[str, Any],
    legal: list[dict[str, Any]],
    rng: random.Random,
    variant: Mapping[str, Any] | None,
    game: str,
    limits: tree_search.Limits,
    clock: Callable[[], float],
    report: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Search with arena's referee for `game` (imported late: a bot process that cannot
    import arena still answers, at random)."""
    from arena.games import load_game

    observation = flat_view(game, observation)
    report = {} if report is None else report
    if game == "leylo":
        budget = tree_search.Budget(limits, clock)
        decision = leylo_plan.choose(
            observation, legal, rng, lambda done: budget.samples_left(done, leylo_plan.BUDGET_SHARE)
        )
        report["iterations"] = budget.done
        return decision
    if game == "twirkle":
        budget = tree_search.Budget(limits, clock)
        decision = twirkle_plan.choose(
            load_game(game),
            observation,
            legal,
            rng,
            dict(variant or {}),
            lambda done: budget.samples_left(done, TWIRKLE_SHARE),
        )
        report["iterations"] = budget.done
        return decision
    problem = tree_search.Problem(
        game=load_game(game),
        observation=observation,
        legal=legal,
        seat=observation["seat"],
        players=observation["players"],
        variant=dict(variant or {}),
    )
    result = tree_search.search(problem, profile_for(game), limits, rng, clock)
    report["iterations"] = result.iterations
    chosen = result.stats.get(tree_search.decision_key(result.decision))
    if chosen is not None:
        report["visits"], report["value"] = chosen
    return result.decision


def debug_text(report: Mapping[str, Any], budget_s: float, spent_s: float, bank_ms: Any) -> str:
    """The answer's `debug` text: what the search did and the clock.

    >>> debug_text({"iterations": 812, "value": 0.6321, "visits": 240}, 0.1, 0.0994, None)
    '812 iterations, 99 of 100 ms CPU; chosen: value 0.632 over 240 visits'
    >>> debug_text({}, 0.27, 0.0, 8450)
    'forced; bank 8450 ms'
    """
    if "iterations" not in report:
        text = "forced"
    else:
        text = (
            f"{report['iterations']} iterations, {spent_s * 1000:.0f} of "
            f"{budget_s * 1000:.0f} ms CPU"
        )
        if "value" in report:
            text += f"; chosen: value {report['value']:.3f} over {report['visits']} visits"
    if bank_ms is not None:
        text += f"; bank {bank_ms} ms"
    return text


class Match:
    """What one match's start message says, and the match's generator."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.game: str = start.get("game", "")
        self.game_version = start.get("game_version")
        self.variant: dict[str, Any] = start.get("variant") or {}
        self.players: int = start.get("players", 2)
        self.rng = random.Random(start.get("seed", 0))
        self.failed = False  # the search broke once: answer at random from then on
        self.decisions = 0  # decisions with a choice made so far in this match
        #: The last answer's debug text (protocol 2 sends it with the decision).
        self.debug = ""

    def plan(self, request: dict[str, Any], budget_s: float) -> tuple[float, Callable[[], float]]:
        """The search budget of one decision and the clock it is counted on, from the
        request's clock: protocol 2's `time` (a bank when `bank_ms` is given, else a
        limit per decision) or version 1's `deadline_ms`."""
        clock = request.get("time")
        if isinstance(clock, dict) and clock.get("bank_ms") is not None:
            expected = expected_decisions(self.game, self.players, self.variant)
            left = max(expected - self.decisions, LATE_SHARE * self.decisions)
            typical = TYPICAL_LEGAL.get(self.game, 4)
            bank_s = float(clock["bank_ms"]) / 1000
            increment_s = float(clock.get("increment_ms") or 0) / 1000
            budget = bank_plan(bank_s, increment_s, left, len(request["legal"]), typical)
            return budget, budget_clock(None, BANK_WALL_FACTOR * budget)
        deadline_ms = clock.get("limit_ms") if isinstance(clock, dict) else None
        if deadline_ms is None:
            deadline_ms = request.get("deadline_ms")
        return search_budget(budget_s, deadline_ms), budget_clock(deadline_ms)

    def decide(self, request: dict[str, Any], budget_s: float, iterations: int | None) -> Any:
        """One decision for a decide request; never raises."""
        legal = request["legal"]
        clock = request.get("time")
        bank_ms = clock.get("bank_ms") if isinstance(clock, dict) else None
        self.debug = debug_text({}, 0.0, 0.0, bank_ms)
        if len(legal) == 1 or self.failed:
            return legal[0] if len(legal) == 1 else self.rng.choice(legal)
        self.decisions += 1
        start = time.process_time()
        try:
            budget, clock_fn = self.plan(request, budget_s)
            if bank_ms is not None and budget < SHORTEST_SEARCH_S:
                self.debug = debug_text({}, 0.0, 0.0, bank_ms).replace("forced", "bank low")
                return self.rng.choice(legal)
            self.check_rules()
            report: dict[str, Any] = {}
            decision = choose(
                request["observation"],
                legal,
                self.rng,
                self.variant,
                game=self.game,
                budget_s=budget,
                iterations=iterations,
                clock=clock_fn,
                report=report,
            )
            self.debug = debug_text(report, budget, time.process_time() - start, bank_ms)
            return decision
        except Exception as error:  # an unknown game or rules version, a referee bug
            self.failed = True
            sys.stderr.write(f"{NAME}: search failed ({error!r}); playing at random\n")
            self.debug = f"search failed ({type(error).__name__}); playing at random"
            return self.rng.choice(legal)

    def load_referee(self) -> None:
        """Import arena's referee for this match's game now, before `ready`: the import
        (about 30 ms) would otherwise be spent within the first decision's budget. A
        failure is left for that decision to meet (and answer at random)."""
        with contextlib.suppress(Exception):
            self.check_rules()

    def check_rules(self) -> None:
        """Raise unless arena's referee plays the rules version this match is played under
        (a search with other rules would be a search of another game)."""
        from arena.games import load_game

        version = load_game(self.game).spec.version
        if self.game_version is not None and self.game_version != version:
            raise ValueError(
                f"the referee has rules version {version}, the match {self.game_version}"
            )


def main(argv: list[str] | None = None) -> None:
    """Speak protocol 2 (or 1, when the start says so) on stdin/stdout until quit or the
    end of input."""
    parser = argparse.ArgumentParser(description="SO-ISMCTS bot for every arena game")
    parser.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    parser.add_argument("--iterations", type=int, default=None)
    args = parser.parse_args(argv)
    budget_s = args.budget_ms / 1000
    match = Match({})
    debug = False  # a version-2 start: answers carry the debug text
    out = sys.stdout
    for line in sys.stdin:
        try:
            message = json.loads(line)
            kind = message.get("type")
        except (ValueError, AttributeError):
            continue
        if kind == "start":
            match = Match(message)
            debug = message.get("protocol", 1) >= 2
            match.load_referee()
            out.write(f'{{"type":"ready","name":"{NAME}"}}\n')
            out.flush()
        elif kind == "decide":
            decision = match.decide(message, budget_s, args.iterations)
            answer = {"type": "decision", "id": message["id"], "decision": decision}
            if debug:
                answer["debug"] = match.debug
            out.write(json.dumps(answer, separators=(",", ":")) + "\n")
            out.flush()
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
