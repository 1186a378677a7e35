"""The ISMCTS bot: information-set Monte Carlo tree search for every game arena has.

Protocol v1 over JSON lines (protocol/PROTOCOL.md). The policy is the pure function
`choose`; `main` only speaks the protocol. The search (tree_search.py, SO-ISMCTS after
Cowling, Powley and Whitehouse 2012) samples states consistent with the observation
through arena's own referees (`arena.games`: `determinize`, `clone`, `playout`), so
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

Time: each decision searches for the budget given by `--budget-ms` in bot.toml's
command (default 100 ms), cut to a tenth of the request's `deadline_ms`. The budget
counts the process's CPU time, so a busy machine slows the bot without weakening it,
and the search also stops once half the deadline has passed in wall time.
A single legal decision is answered at once. `--iterations N` instead searches
exactly N iterations per decision whatever the clock says (up to the same deadline
cut), so that a match depends on the seed alone.

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


def search_budget(budget_s: float, deadline_ms: float | None) -> float:
    """The time one decision may search: the bot's budget, cut to a share of the deadline."""
    if deadline_ms is None:
        return budget_s
    return max(0.0, min(budget_s, deadline_ms / 1000 * DEADLINE_SHARE))


def budget_clock(deadline_ms: float | None) -> Callable[[], float]:
    """The clock a decision's search budget is counted on: this process's CPU time, which
    jumps to infinity (the budget is spent) once WALL_SHARE of the deadline has passed."""
    if deadline_ms is None:
        return time.process_time
    wall_end = time.monotonic() + deadline_ms / 1000 * WALL_SHARE

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
) -> dict[str, Any]:
    """Pick one of `legal` for the seat whose `observation` is given, by SO-ISMCTS.

    Args:
        observation: the seat's observation (it names the seat and the player count).
        legal: the legal decisions, as offered.
        rng: every random choice of the search comes from it.
        variant: the match's variant from the start message.
        game: the game id from the start message.
        budget_s: search time; `iterations`, when given, stops it earlier.
        clock: the time source (tests pass a fake one).

    Returns:
        One element of `legal`.
    """
    if len(legal) == 1:
        return legal[0]
    return run_search(
        observation, legal, rng, variant, game, tree_search.Limits(budget_s, iterations), clock
    )


def run_search(
    observation: dict[str, Any],
    legal: list[dict[str, Any]],
    rng: random.Random,
    variant: Mapping[str, Any] | None,
    game: str,
    limits: tree_search.Limits,
    clock: Callable[[], float],
) -> dict[str, Any]:
    """Search with arena's referee for `game` (imported late: a bot process that cannot
    import arena still answers, at random)."""
    from arena.games import load_game

    if game == "leylo":
        budget = tree_search.Budget(limits, clock)
        return leylo_plan.choose(
            observation, legal, rng, lambda done: budget.samples_left(done, leylo_plan.BUDGET_SHARE)
        )
    if game == "twirkle":
        budget = tree_search.Budget(limits, clock)
        return twirkle_plan.choose(
            load_game(game),
            observation,
            legal,
            rng,
            dict(variant or {}),
            lambda done: budget.samples_left(done, TWIRKLE_SHARE),
        )
    problem = tree_search.Problem(
        game=load_game(game),
        observation=observation,
        legal=legal,
        seat=observation["seat"],
        players=observation["players"],
        variant=dict(variant or {}),
    )
    return tree_search.search(problem, profile_for(game), limits, rng, clock).decision


class Match:
    """What one match's start message says, and the match's generator."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.game: str = start.get("game", "")
        self.game_version = start.get("game_version")
        self.variant: dict[str, Any] = start.get("variant") or {}
        self.rng = random.Random(start.get("seed", 0))
        self.failed = False  # the search broke once: answer at random from then on

    def decide(self, request: dict[str, Any], budget_s: float, iterations: int | None) -> Any:
        """One decision for a decide request; never raises."""
        legal = request["legal"]
        if len(legal) == 1 or self.failed:
            return legal[0] if len(legal) == 1 else self.rng.choice(legal)
        deadline_ms = request.get("deadline_ms")
        clock = budget_clock(deadline_ms)
        budget = search_budget(budget_s, deadline_ms)
        try:
            self.check_rules()
            return choose(
                request["observation"],
                legal,
                self.rng,
                self.variant,
                game=self.game,
                budget_s=budget,
                iterations=iterations,
                clock=clock,
            )
        except Exception as error:  # an unknown game or rules version, a referee bug
            self.failed = True
            sys.stderr.write(f"{NAME}: search failed ({error!r}); playing at random\n")
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
    """Speak protocol v1 on stdin/stdout until quit or end of input."""
    parser = argparse.ArgumentParser(description="SO-ISMCTS bot for every arena game")
    parser.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    parser.add_argument("--iterations", type=int, default=None)
    args = parser.parse_args(argv)
    budget_s = args.budget_ms / 1000
    match = Match({})
    out = sys.stdout
    for line in sys.stdin:
        try:
            message = json.loads(line)
            kind = message.get("type")
        except (ValueError, AttributeError):
            continue
        if kind == "start":
            match = Match(message)
            match.load_referee()
            out.write(f'{{"type":"ready","name":"{NAME}"}}\n')
            out.flush()
        elif kind == "decide":
            decision = match.decide(message, budget_s, args.iterations)
            answer = {"type": "decision", "id": message["id"], "decision": decision}
            out.write(json.dumps(answer, separators=(",", ":")) + "\n")
            out.flush()
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
