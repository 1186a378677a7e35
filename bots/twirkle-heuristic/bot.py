"""A heuristic Twirkle bot speaking arena's bot protocol 2 (JSON lines); standard library only.

The policy `choose` plans a whole placement before its first card: from the
board and its hand in the observation it tries every sequence of cards that
the line rules allow in one line (the referee offers them one at a time, each
as a `pick` of the card and then a `place` on its cell) and keeps the one with
the best value: the points it scores, a little for every
card played (more once the bag is empty, when cards left in hand cost a point
each and the first player out gets six), minus a penalty for leaving a line of
five that somebody else could complete for twelve. Each later step of the turn
follows the same search, so it finishes the plan it started. With no
placement it exchanges the cards outside its best colour or symbol group (or
passes when the bag is empty). It never shifts.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

Pos = tuple[int, int]
Card = tuple[str, str]
STEPS: tuple[Pos, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
#: Value of a card played while the bag still refills the hand, and once it is empty.
PLAY_BONUS = 0.3
ENDGAME_PLAY_BONUS = 1.0
#: Cost of leaving a line of five that another player may complete (a twirkle is 12).
OPEN_FIVE_PENALTY = 4.0


def parse(name: str) -> Card:
    """'red-star' -> ('red', 'star')."""
    colour, symbol = name.split("-", 1)
    return colour, symbol


def is_line(cards: list[Card]) -> bool:
    """One colour in different symbols or one symbol in different colours, at most six."""
    if len(cards) <= 1:
        return True
    if len(cards) > 6 or len(set(cards)) != len(cards):
        return False
    return len({c for c, _ in cards}) == 1 or len({s for _, s in cards}) == 1


def run(board: dict[Pos, Card], pos: Pos, axis: Pos) -> list[Pos]:
    """The occupied cells of the run through `pos` along `axis` (pos included)."""
    cells = [pos]
    for sign in (1, -1):
        x, y = pos[0] + sign * axis[0], pos[1] + sign * axis[1]
        while (x, y) in board:
            cells.append((x, y))
            x, y = x + sign * axis[0], y + sign * axis[1]
    return cells


def fits(board: dict[Pos, Card], pos: Pos, card: Card) -> bool:
    """Whether `card` on the empty cell `pos` keeps both lines through it valid."""
    board[pos] = card
    try:
        return all(is_line([board[p] for p in run(board, pos, axis)]) for axis in ((1, 0), (0, 1)))
    finally:
        del board[pos]


def beyond(board: dict[Pos, Card], pos: Pos, step: Pos) -> Pos:
    """The first empty cell from `pos` along `step`."""
    x, y = pos[0] + step[0], pos[1] + step[1]
    while (x, y) in board:
        x, y = x + step[0], y + step[1]
    return (x, y)


def line_points(length: int) -> int:
    """A line scores its length, a line of six scores 12, a single card nothing."""
    return 0 if length < 2 else 12 if length == 6 else length


def placement_points(board: dict[Pos, Card], placed: list[Pos]) -> int:
    """The referee's scoring of this turn's placement (crossing cards count twice)."""
    if not placed:
        return 0
    if len(placed) == 1:
        return sum(line_points(len(run(board, placed[0], a))) for a in ((1, 0), (0, 1)))
    main = (1, 0) if placed[0][1] == placed[1][1] else (0, 1)
    cross = (0, 1) if main == (1, 0) else (1, 0)
    points = line_points(len(run(board, placed[0], main)))
    return points + sum(line_points(len(run(board, p, cross))) for p in placed)


class Planner:
    """Searches every continuation of a placement; knows which cards are still unseen."""

    def __init__(self, obs: dict[str, Any]) -> None:
        """Read the board, the hand and the bag size from an observation."""
        game = obs["game"]  # the game's own fields
        self.board: dict[Pos, Card] = {(c["x"], c["y"]): parse(c["card"]) for c in game["board"]}
        self.hand: list[Card] = [parse(n) for n in game["hand"]]
        self.bag = game["bag"]
        seen: dict[Card, int] = {}
        for card in [*self.board.values(), *self.hand]:
            seen[card] = seen.get(card, 0) + 1
        self.seen = seen
        self.memo: dict[frozenset[tuple[Pos, Card]], float] = {}

    def value(self, placed: list[Pos], hand_left: int) -> float:
        """Points of the placement plus the play bonus minus open lines of five."""
        board = self.board
        value = float(placement_points(board, placed))
        value += len(placed) * (ENDGAME_PLAY_BONUS if self.bag == 0 else PLAY_BONUS)
        if self.bag == 0 and hand_left == 0:
            value += 6.0
        lines = {tuple(sorted(run(board, p, a))) for p in placed for a in ((1, 0), (0, 1))}
        for line in lines:
            if len(line) == 5 and self.completable([board[p] for p in line]):
                value -= OPEN_FIVE_PENALTY
        return value

    def completable(self, cards: list[Card]) -> bool:
        """Whether the sixth card of this line of five may still be out there."""
        colours = {c for c, _ in cards}
        symbols = {s for _, s in cards}
        if len(colours) == 1:
            missing = [(next(iter(colours)), s) for s in ALL_SYMBOLS if s not in symbols]
        else:
            missing = [(c, next(iter(symbols))) for c in ALL_COLOURS if c not in colours]
        return any(self.seen.get(card, 0) < 3 for card in missing)

    def options(self, placed: list[Pos]) -> list[tuple[Card, Pos]]:
        """Next (card, cell) of this placement, as the referee would offer them."""
        board = self.board
        if not placed:
            cells = {(x + dx, y + dy) for x, y in board for dx, dy in STEPS} - set(board)
        elif len(placed) == 1:
            cells = {beyond(board, placed[0], s) for s in STEPS}
        else:
            steps = STEPS[:2] if placed[0][1] == placed[1][1] else STEPS[2:]
            cells = {beyond(board, placed[0], s) for s in steps}
        return [
            (card, cell)
            for card in sorted(set(self.hand))
            for cell in sorted(cells)
            if fits(board, cell, card)
        ]

    def best(self, placed: list[Pos]) -> float:
        """The best value reachable from this partial placement (stopping included).

        The same cards on the same cells are reached in every order: memoised by that set.
        """
        key = frozenset((p, self.board[p]) for p in placed)
        known = self.memo.get(key)
        if known is not None:
            return known
        best = self.value(placed, len(self.hand)) if placed else float("-inf")
        for card, cell in self.options(placed):
            best = max(best, self.after(placed, card, cell))
        self.memo[key] = best
        return best

    def after(self, placed: list[Pos], card: Card, cell: Pos) -> float:
        """The best value once `card` is placed on `cell`."""
        self.board[cell] = card
        self.hand.remove(card)
        placed.append(cell)
        try:
            return self.best(placed)
        finally:
            placed.pop()
            self.hand.append(card)
            del self.board[cell]


ALL_COLOURS = ("blue", "yellow", "green", "purple", "red", "black")
ALL_SYMBOLS = ("swirl", "star", "pyramid", "clover", "rosette", "crystal")


def exchange_set(hand: list[Card]) -> list[Card]:
    """The cards to give back: all but one copy of the largest colour or symbol group."""
    groups: list[set[Card]] = []
    for colour in ALL_COLOURS:
        groups.append({card for card in hand if card[0] == colour})
    for symbol in ALL_SYMBOLS:
        groups.append({card for card in hand if card[1] == symbol})
    keep = max(groups, key=len)
    give: list[Card] = []
    kept: set[Card] = set()
    for card in sorted(hand):
        if card in keep and card not in kept:
            kept.add(card)
        else:
            give.append(card)
    return give or sorted(hand)


def name(card: Card) -> str:
    """('red', 'star') -> 'red-star'."""
    return f"{card[0]}-{card[1]}"


def choose(obs: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Pick one of the legal decisions for this observation."""
    phase = obs["phase"]
    actions = {d["action"] for d in legal}
    if phase == "opening" or "put" in actions:
        return legal[0]
    if phase == "shifting":
        return {"action": "end_turn"} if "end_turn" in actions else legal[0]
    if phase == "exchanging":
        hand = [parse(n) for n in obs["game"]["hand"]]
        selected = [parse(n) for n in obs["game"]["exchange_selected"]]
        wanted = exchange_set(hand + selected)
        for card in selected:
            if card in wanted:
                wanted.remove(card)
        offered = {d.get("card") for d in legal}
        for card in wanted:
            if name(card) in offered:
                return {"action": "exchange", "card": name(card)}
        return {"action": "end_exchange"}
    planner = Planner(obs)
    placed = [(c["x"], c["y"]) for c in obs["game"]["placed"]]
    scored: list[tuple[float, dict[str, Any]]] = []
    cells: dict[Card, list[Pos]] = {}
    for card, cell in planner.options(placed):
        cells.setdefault(card, []).append(cell)
    for decision in legal:
        if decision["action"] == "pick":  # the best placement that starts with this card
            card = parse(decision["card"])
            values = [planner.after(list(placed), card, cell) for cell in cells.get(card, [])]
            scored.append((max(values, default=float("-inf")), decision))
        elif decision["action"] == "place":
            card, cell = parse(decision["card"]), (decision["x"], decision["y"])
            scored.append((planner.after(list(placed), card, cell), decision))
        elif decision["action"] == "end_placing":
            scored.append((planner.value(placed, len(planner.hand)), decision))
    if not scored:  # no placement: exchange the weak cards, or pass
        if "exchange" in actions:
            first = exchange_set(planner.hand)[0]
            return {"action": "exchange", "card": name(first)}
        return {"action": "pass"}
    top = max(value for value, _ in scored)
    return rng.choice([d for value, d in scored if value >= top - 1e-9])


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
            reply: dict[str, Any] = {"type": "ready", "name": "twirkle-heuristic"}
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
