"""LEYLO round ends by flat Monte Carlo: candidate decisions rolled out to the round end.

Near a round's end (2 players; the bot keeps at most one face-down card, the opponent
at most two) the greedy evaluation of leylo_plan must guess whether to end now or
wait, and its guess ignores how the opponent goes on. Here each candidate decision
(leylo_plan passes the greedy choice and the best one of every other kind: ending or
waiting; taking the discard, drawing or passing with a swap) is played in worlds
sampled from the observation (arena's `determinize`), every candidate in the same
worlds with the same chance draws (common random numbers), and the round is played
out to its end by `Sim`, a cheap copy of the greedy policy of bots/leylo-heuristic on
the referee's own state (tens of microseconds a turn, where the greedy evaluation
costs 1 ms a decision): about 0.55 ms a world of two candidates (0.9 ms before the
line table below), so some 80 worlds of three candidates would fit in 70 ms
(leylo_plan takes at most MAX_WORLDS, 42). A candidate is worth the round's scores as
the referee counts them, doubling included: own score less the opponents' mean (in the
last round of a 2-player match, winning the match first). The rollouts play through
the public `apply` and `legal` (about 15 % slower than the referee's private `_apply`;
they still read the state's grids and piles directly). A line a placement completes is
found in a cached table of the cards that complete three given ones (`completers`),
1.6 times cheaper a world than testing every card against every line as before.
Standard library plus arena.games only.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from arena.games import load_game
from arena.games.leylo.cards import EMPTY, NAMES, is_line
from arena.games.leylo.cards import LINES as CELL_LINES

#: Mirrors of the greedy policy's constants (bots/leylo-heuristic): the tempo of a
#: face-down card, the margin below the others' estimate that makes ending safe, and
#: what ending is worth then or costs otherwise.
TEMPO = 1.0
SAFE_MARGIN = 5.0
END_REWARD = 5.0
#: A rolled-out round longer than this many turns is scored as it stands, undoubled.
MAX_TURNS = 40
#: What a won match is worth against round points (last round of 2 players).
WIN_WEIGHT = 1000.0
LINE_CELLS = [cells for _kind, _index, cells in CELL_LINES]
LINES_OF = [[cells for cells in LINE_CELLS if cell in cells] for cell in range(16)]


class Sim:
    """The greedy policy, cheapened: face-down cards at the mean `ev` of the unseen
    cards, only complete lines count, no swaps; the pile is valued over `pool`."""

    def __init__(self, points: list[int], ev: float, pool: list[tuple[int, float]]) -> None:
        self.points = points  # by card code; index -1 (EMPTY) is 0
        self.ev = ev
        self.pool = pool

    def rough(self, cards: list[int], up: list[bool]) -> float:
        """A grid's points with face-down cards at the mean."""
        points, ev = self.points, self.ev
        return sum(points[c] if u or c == EMPTY else ev for c, u in zip(cards, up, strict=True))

    def turn(self, game: Any) -> None:
        """Play the current seat's turn: take the discard or draw, then place."""
        seat = game.current
        plan = self.plan(game, seat)
        top = game.discard[-1] if game.discard else None
        take = top is not None and (
            not game.pile or plan(top)[0] <= sum(p * plan(c)[0] for c, p in self.pool)
        )
        game.apply(seat, {"action": "draw", "source": "discard" if take else "pile"})
        self.place(game, plan)

    def place(self, game: Any, plan: Callable[[int], tuple[float, dict[str, Any]]]) -> None:
        """Put the held card where `plan` says, then clear every line."""
        seat = game.current
        game.apply(seat, plan(game.held)[1])
        while game.phase == "clear":
            game.apply(seat, game.legal(seat)[0])

    def plan(self, game: Any, seat: int) -> Callable[[int], tuple[float, dict[str, Any]]]:
        """card -> (the best estimate it reaches, the placement reaching it)."""
        points, ev = self.points, self.ev
        cards, up = game.cards[seat], game.up[seat]
        down = [i for i in range(16) if not up[i] and cards[i] != EMPTY]
        faced = [i for i in range(16) if up[i]]
        shown = sum(points[cards[i]] for i in faced)
        hidden = len(down)
        final_lap = game.ender is not None
        others = (
            min(self.rough(game.cards[s], game.up[s]) for s in range(game.players) if s != seat)
            - 2.0
        )

        def ending(exact: float) -> float:
            """The greedy value of ending the round with `exact` points."""
            if exact < others - 3.0:
                return exact - SAFE_MARGIN
            return exact + max(exact, 0.0) + END_REWARD

        def estimate(up_points: float, left: int) -> float:
            if final_lap:
                return up_points + ev * left
            if left == 0:
                return ending(up_points)
            return up_points + ev * left + TEMPO * left

        worst = max(faced, key=lambda i: points[cards[i]], default=None)
        if down:
            if hidden == 1 and not final_lap:
                reveal = sum(p * ending(shown + points[c]) for c, p in self.pool)
            else:
                reveal = (
                    estimate(shown + ev, hidden - 1) if not final_lap else estimate(shown, hidden)
                )
        near = self.near_lines(cards, up)
        cache: dict[int, tuple[float, dict[str, Any]]] = {}

        def best(card: int) -> tuple[float, dict[str, Any]]:
            known = cache.get(card)
            if known is not None:
                return known
            value = points[card]
            options: list[tuple[float, dict[str, Any]]] = []
            if down:
                options.append((reveal, {"action": "discard", "reveal": down[0]}))
                options.append(
                    (estimate(shown + value, hidden - 1), {"action": "replace", "cell": down[0]})
                )
            if worst is not None:
                after = shown - points[cards[worst]] + value
                options.append((estimate(after, hidden), {"action": "replace", "cell": worst}))
            for cell, completing, rest in near:
                if card in completing:
                    after = shown - points[cards[cell]] - rest  # the line is cleared
                    options.append((estimate(after, hidden), {"action": "replace", "cell": cell}))
            known = cache[card] = min(options, key=lambda o: o[0])
            return known

        return best

    def near_lines(self, cards: list[int], up: list[bool]) -> list[tuple[int, frozenset[int], int]]:
        """Face-up cells whose line has its three other cells face up and completable:
        (cell, the cards that complete the line there, the points of its three others)."""
        near = []
        points = self.points
        for line in LINE_CELLS:
            if up[line[0]] and up[line[1]] and up[line[2]] and up[line[3]]:
                for cell in line:
                    others = [cards[i] for i in line if i != cell]
                    completing = completers(others)
                    if completing:
                        near.append((cell, completing, sum(points[c] for c in others)))
        return near


#: Cards that complete a line with three given cards, by the set of those three's codes.
_COMPLETERS: dict[frozenset[int], frozenset[int]] = {}


def completers(others: list[int]) -> frozenset[int]:
    """The card codes that make a line (L4) with the three cards `others` (cached)."""
    key = frozenset(others)
    known = _COMPLETERS.get(key)
    if known is None:
        known = _COMPLETERS[key] = frozenset(c for c in range(len(NAMES)) if is_line([*others, c]))
    return known


def rollout(game: Any, sim: Sim, seat: int) -> float:
    """Play the round of `game` to its end with `sim`; its value for `seat` (lower is better)."""
    start = len(game.results)
    turns = 0
    while len(game.results) == start and not game.is_over() and turns < MAX_TURNS:
        phase = game.phase
        if phase == "turn":
            sim.turn(game)
            turns += 1
        elif phase == "place":
            sim.place(game, sim.plan(game, game.current))
        elif phase == "clear":
            actor = game.to_move()[0]
            game.apply(actor, game.legal(actor)[0])
        elif phase == "claim":
            game.apply(game.to_move()[0], {"action": "pass"})
        else:
            break
    if len(game.results) > start:
        scores = game.results[start]["scores"]
    else:  # cut short: every grid as it stands, nobody doubled
        scores = [sum(sim.points[c] for c in grid) for grid in game.cards]
    others = [s for i, s in enumerate(scores) if i != seat]
    value = scores[seat] - sum(others) / len(others)
    if game.players == 2 and game.is_over():
        totals = game.totals
        win = 1.0 if totals[seat] < totals[1 - seat] else 0.5 if totals[0] == totals[1] else 0.0
        value -= WIN_WEIGHT * win
    return value


def compare(
    observation: dict[str, Any],
    candidates: list[dict[str, Any]],
    sim: Sim,
    rng: random.Random,
    more: Callable[[int], bool],
) -> tuple[list[float], int]:
    """The mean rolled-out value of every candidate, and the worlds sampled; `more` says
    whether another world may start after `done` worlds."""
    game_class = load_game("leylo")
    seat = observation["seat"]
    variant = {"rounds": observation["rounds"]}
    totals = [0.0] * len(candidates)
    done = 0
    while more(done):
        world = game_class.determinize(observation, seat, observation["players"], variant, rng)
        seed = rng.getrandbits(32)
        for k, decision in enumerate(candidates):
            game = world.clone(seed=seed)  # the same later chance for every candidate
            game.apply(seat, decision)
            totals[k] += rollout(game, sim, seat)
        done += 1
    return [total / max(done, 1) for total in totals], done
