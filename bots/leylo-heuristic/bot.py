"""A heuristic LEYLO bot speaking arena's bot protocol 2 (JSON lines); standard library only.

The policy `choose` estimates the final points of its own grid: face-up cards
at their value, face-down cards at the mean value of the cards nobody has seen,
minus a bonus for lines that are complete (they will be cleared) or nearly so.
Every option of a turn (take the discard, draw from the pile, swap) is valued by
the best estimate it leads to, the pile by the expectation over the cards it may
hold. A small tempo term rewards turning cards up; ending the round is avoided
unless the bot expects to be lowest, because the ender's score doubles.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import Any

#: The default LEYLO deck (ruling L1): card name -> copies.
DECK: dict[str, int] = {str(v): 8 for v in range(12)}
DECK.update({"joker-green": 3, "joker-yellow": 3, "joker-red": 3, "action": 6})
COLOUR = {str(v): ("green", "yellow", "red")[v // 4] for v in range(12)}
COLOUR.update({"joker-green": "green", "joker-yellow": "yellow", "joker-red": "red"})
LINES = [[4 * r + c for c in range(4)] for r in range(4)] + [
    [4 * r + c for r in range(4)] for c in range(4)
]
#: Line bonuses by (action card value, complete lines only) and the line's four cells.
_CACHES: dict[tuple[int, bool], dict[tuple[str, ...], float]] = {}
#: Points a turned-up or replaced face-down card is worth for getting closer to the round end.
TEMPO = 1.0


class View:
    """What the policy needs from an observation: card values and the unseen cards."""

    def __init__(self, obs: dict[str, Any]) -> None:
        """Count every card the seat can see and derive the unseen pools."""
        self.obs = obs
        self.seat: int = obs["seat"]
        self.game = game = obs["game"]  # the game's own fields
        self.values = {card: card_points(card, game["action_card_value"]) for card in DECK}
        self.values["empty"] = 0.0
        # Line bonuses do not depend on the face-down estimate: share them between turns.
        self.cache = _CACHES.setdefault((game["action_card_value"], False), {})
        self.complete_cache = _CACHES.setdefault((game["action_card_value"], True), {})
        seen: dict[str, int] = dict.fromkeys(DECK, 0)
        for grid in game["grids"]:
            for cell in grid:
                if cell in seen:
                    seen[cell] += 1
        for card in game["discard"]:
            seen[card] += 1
        held = game["holding"]
        if held is not None and held["card"] in seen:
            seen[held["card"]] += 1
        unseen = {card: DECK[card] - seen[card] for card in DECK}
        known = game["draw_pile_known"]
        if known is None:
            self.hidden_pool = unseen
            self.pile_pool = unseen
        else:
            pile = dict.fromkeys(DECK, 0)
            for card in known:
                pile[card] += 1
            self.pile_pool = pile
            self.hidden_pool = {card: max(0, unseen[card] - pile[card]) for card in DECK}
        self.ev = self.mean(self.hidden_pool)
        self.values["hidden"] = self.ev
        players = obs["players"]
        self.others = min(
            self.rough(game["grids"][s]) - 2.0 for s in range(players) if s != self.seat
        )

    def mean(self, pool: dict[str, int]) -> float:
        """Mean value of a pool of cards (6 when it is empty)."""
        total = sum(pool.values())
        if total == 0:
            return 6.0
        return sum(self.values[card] * k for card, k in pool.items()) / total

    def line_bonus(self, grid: list[str], complete_only: bool = False) -> float:
        """Points expected to vanish through lines: complete lines fully, 3-of-4 partly."""
        cache = self.complete_cache if complete_only else self.cache
        bonus = 0.0
        for line in LINES:
            key = (grid[line[0]], grid[line[1]], grid[line[2]], grid[line[3]])
            value = cache.get(key)
            if value is None:
                value = cache[key] = self.line_value(key, complete_only)
            bonus += value
        return bonus

    def line_value(self, cells: tuple[str, ...], complete_only: bool) -> float:
        """The bonus of one line of four cells."""
        if "empty" in cells or (complete_only and "hidden" in cells):
            return 0.0
        values = self.values
        numbers = [c for c in cells if c in COLOUR and not c.startswith("joker")]
        jokers = [COLOUR[c] for c in cells if c.startswith("joker")]
        actions = cells.count("action")
        best = 0.0
        if actions == 4:
            best = 4 * values["action"]
        elif actions == 3 and not complete_only:
            best = 0.9 * values["action"]
        for target in set(numbers):
            matches = numbers.count(target) + jokers.count(COLOUR[target])
            if matches == 4:
                best = max(best, sum(values[c] for c in cells))
            elif matches == 3 and not complete_only:
                best = max(best, 0.9 * values[target])
        if not numbers and len(jokers) >= 3 and len(set(jokers)) == 1:
            if len(jokers) == 4:
                best = max(best, sum(values[c] for c in cells))
            elif not complete_only:
                best = max(best, 2.0)
        return best

    def rough(self, grid: list[str]) -> float:
        """Points of a grid with face-down cards at the mean, minus line bonuses."""
        values = self.values
        return sum(values[c] for c in grid) - self.line_bonus(grid)

    def estimate(self, grid: list[str]) -> float:
        """Estimated final points of the own grid, with the tempo term and the ending risk."""
        hidden = grid.count("hidden")
        if self.game["ender"] is not None:
            return self.rough(grid)  # last turn of the round: only the points count
        if hidden == 0:
            exact = sum(self.values[c] for c in grid) - self.line_bonus(grid, complete_only=True)
            if exact < self.others - 3:
                return exact - 5.0  # ending the round while clearly lowest
            return exact + max(exact, 0.0) + 5.0  # the ender's score would double
        return self.rough(grid) + TEMPO * hidden

    def placer(self, grid: list[str]) -> Callable[[int, str], float]:
        """A fast `estimate` of `grid` with one cell changed: only its two lines are recounted."""
        values = self.values
        base = sum(values[c] for c in grid)
        line_keys = [tuple(grid[i] for i in line) for line in LINES]
        per_line = [self.line_bonus_of(key) for key in line_keys]
        bonus = sum(per_line)
        hidden = grid.count("hidden")
        final_lap = self.game["ender"] is not None

        def estimate_after(cell: int, card: str) -> float:
            old = grid[cell]
            left = hidden - (old == "hidden") + (card == "hidden")
            if left == 0 and not final_lap:
                after = list(grid)
                after[cell] = card
                return self.estimate(after)
            row, column = cell // 4, 4 + cell % 4
            change = 0.0
            for index in (row, column):
                key = list(line_keys[index])
                key[LINES[index].index(cell)] = card
                change += self.line_bonus_of(tuple(key)) - per_line[index]
            points = base - values[old] + values[card] - bonus - change
            return points if final_lap else points + TEMPO * left

        return estimate_after

    def line_bonus_of(self, key: tuple[str, ...]) -> float:
        """The cached bonus of one line."""
        value = self.cache.get(key)
        if value is None:
            value = self.cache[key] = self.line_value(key, False)
        return value

    def reveal(self, grid: list[str], cell: int) -> float:
        """Estimate after turning up a face-down cell."""
        if grid.count("hidden") > 1:
            return self.estimate(grid) - TEMPO
        total = sum(self.hidden_pool.values())
        if total == 0:
            return self.estimate(grid)
        score = 0.0
        for card, k in self.hidden_pool.items():
            if k:
                after = list(grid)
                after[cell] = card
                score += k * self.estimate(after)
        return score / total


def card_points(card: str, action_value: int) -> float:
    """Points of a card (L6)."""
    if card == "action":
        return float(action_value)
    if card.startswith("joker"):
        return 12.0
    return float(card)


def choose(
    observation: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """Pick one decision of `legal` for the observation (the whole policy)."""
    obs = observation
    phase = obs["phase"]
    if phase == "flip":
        return rng.choice(legal)
    if phase == "clear":
        return legal[0]  # clearing a line never costs points
    view = View(obs)
    game = obs["game"]  # the game's own fields
    grid: list[str] = game["grids"][obs["seat"]]
    if phase == "claim":
        top = game["discard"][-1]
        best, best_score = legal[-1], view.estimate(grid)
        for decision in legal[:-1]:
            after = list(grid)
            after[decision["cell"]] = top
            score = view.estimate(after)
            if score < best_score - 0.5:
                best, best_score = decision, score
        return best
    reveals = {i: view.reveal(grid, i) for i, c in enumerate(grid) if c == "hidden"}
    best_reveal = min(reveals.values(), default=float("inf"))
    place = view.placer(grid)

    def best_placement(card: str) -> float:
        """The best estimate reachable by placing `card`."""
        best = best_reveal
        for i, cell in enumerate(grid):
            if cell != "empty":
                best = min(best, place(i, card))
        return best

    scored: list[tuple[float, dict[str, Any]]] = []
    if phase == "place":
        card = game["holding"]["card"]
        for decision in legal:
            if decision["action"] == "discard":
                scored.append((reveals[decision["reveal"]], decision))
            else:
                after = list(grid)
                after[decision["cell"]] = card
                scored.append((view.estimate(after), decision))
    else:  # phase turn: take the discard, draw from the pile, or swap
        for decision in legal:
            if decision["action"] == "swap":
                a, b = decision["cells"]
                after = list(grid)
                after[a], after[b] = after[b], after[a]
                scored.append((view.estimate(after) + 0.5, decision))
            elif decision["source"] == "discard":
                scored.append((best_placement(game["discard"][-1]), decision))
            else:
                pool = view.pile_pool
                total = sum(pool.values())
                if total:
                    expected = sum(k * best_placement(c) for c, k in pool.items() if k) / total
                    scored.append((expected, decision))
    low = min(s for s, _ in scored)
    return rng.choice([d for s, d in scored if s <= low + 1e-9])


def main() -> None:
    """Speak protocol 2 on stdin/stdout until quit or end of input."""
    rng = random.Random(0)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            rng = random.Random(message.get("seed", 0))
            reply: dict[str, Any] = {"type": "ready", "name": "leylo-heuristic"}
        elif kind == "decide":
            decision = choose(message["observation"], message["legal"], rng)
            reply = {"type": "decision", "id": message["id"], "decision": decision}
        elif kind == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
