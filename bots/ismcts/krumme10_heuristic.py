"""A heuristic Krumme10 bot speaking arena's bot protocol 2 (JSON lines); standard library only.

The policy `choose` values each offered decision by what it leads to once the
display is settled, with a one-step look at the next player:

* exact hit: we gain the card we take (flipped when its back is better on average);
* overrun: every eligible opponent scores its best lowest card; we lose their mean gain;
* under the target: if the next player shows a card that hits exactly, they gain it;
  if every card they show overshoots, they are likely to overrun and we score.

A flipped card's value is a distribution over its possible backs, weighted by the
copies of each card kind (K1: nine each of 0|1, 1|2, 2|3, 3|4, 4|5, 5|0) that are
not already seen from both sides. A 1 opens a chain of steals, valued recursively.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

PAIRS = ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0))
COPIES = 9
#: How much of the "next player must overrun" bonus we trust.
OVERRUN_TRUST = 0.6
#: Steal chains are looked at this deep.
CHAIN_DEPTH = 2


def kind(a: int, b: int) -> tuple[int, int]:
    """The unordered card kind of two sides."""
    return (a, b) if a <= b else (b, a)


def backs(top: int) -> tuple[int, int]:
    """The two possible down sides of a card showing `top` (K1)."""
    if top == 0:
        return (1, 5)
    if top == 5:
        return (4, 0)
    return (top - 1, top + 1)


class View:
    """What the policy needs from an observation: down-side odds and the players' hands."""

    def __init__(self, obs: dict[str, Any]) -> None:
        """Count the card kinds seen from both sides; the rest weight the unknown backs."""
        self.obs = obs
        self.seat: int = obs["seat"]
        self.players: int = obs["players"]
        game = obs["game"]  # the game's own fields
        self.target: int = game["target"]
        self.sum: int = game["sum"]
        self.teams: list[int] | None = game["teams"]
        known = dict.fromkeys((kind(a, b) for a, b in PAIRS), 0)
        cards: list[dict[str, Any]] = [e["card"] for e in game["display"]]
        cards += game["to_take"] + game["discard"]
        for pile in game["points"]:
            cards += pile
        for card in cards:
            if card["down"] is not None:
                known[kind(card["top"], card["down"])] += 1
        self.remaining = {k: max(COPIES - v, 0) + 0.1 for k, v in known.items()}
        self.hands: list[list[int]] = [[c["top"] for c in hand] for hand in game["hands"]]

    def back_odds(self, top: int) -> list[tuple[int, float]]:
        """(down side, probability) for a card showing `top` whose back is unknown."""
        options = backs(top)
        weights = [self.remaining[kind(top, d)] for d in options]
        total = sum(weights)
        return [(d, w / total) for d, w in zip(options, weights, strict=True)]

    def flip_mean(self, top: int) -> float:
        """The mean value of an unknown back."""
        return sum(d * p for d, p in self.back_odds(top))

    def best_points(self, hand: list[int], highest: bool) -> float:
        """What a player gains by scoring its lowest (or highest) card, flipped if better."""
        if not hand:
            return 0.0
        top = max(hand) if highest else min(hand)
        return max(float(top), self.flip_mean(top))

    def mate(self, a: int, b: int) -> bool:
        """True when seats a and b are the same seat or team mates."""
        return a == b or (self.teams is not None and self.teams[a] == self.teams[b])

    def opponents(self) -> list[int]:
        """Seats not on our side."""
        return [s for s in range(self.players) if not self.mate(s, self.seat)]

    def next_player(self, hands: list[list[int]]) -> int | None:
        """The next seat with cards after us."""
        for k in range(1, self.players):
            seat = (self.seat + k) % self.players
            if hands[seat]:
                return seat
        return None

    # ----- valuing a settled display ---------------------------------------
    def settle(
        self, total: int, last_top: int, last_back: int | None, hands: list[list[int]]
    ) -> float:
        """Our utility once the display sums to `total` after our play."""
        target = self.target
        opponents = self.opponents()
        spread = max(len(opponents), 1)
        if total == target:
            back = self.flip_mean(last_top) if last_back is None else float(last_back)
            return max(float(last_top), back) + 0.3
        if total > target:
            highest = target == 15
            gain = sum(self.best_points(hands[s], highest) for s in opponents)
            return -gain / spread
        nxt = self.next_player(hands)
        if nxt is None:
            return 0.0
        gap = target - total
        tops = hands[nxt]
        sign = 1.0 if self.mate(nxt, self.seat) else -1.0
        if gap in tops:
            return sign * gap / spread
        if tops and min(tops) > gap:
            if sign > 0:
                return 0.0
            mine = self.best_points(hands[self.seat], False)
            others = sum(self.best_points(hands[s], False) for s in opponents if s != nxt)
            return OVERRUN_TRUST * (mine - others / spread)
        # Small gaps are dangerous later on; leave room.
        return -0.2 if gap <= 5 else 0.0

    def after_card(
        self, total: int, top: int, back: int | None, hands: list[list[int]], depth: int
    ) -> float:
        """Utility after a card showing `top` lands in the display (a 1 may start steals)."""
        value = self.settle(total, top, back, hands)
        if top == 1 and depth > 0:
            value = max(value, self.best_steal(total, hands, depth)[0])
        return value

    def best_steal(
        self, total: int, hands: list[list[int]], depth: int
    ) -> tuple[float, tuple[int, int] | None]:
        """The best steal (victim, top) at this display sum, and its utility."""
        best = (float("-inf"), None)
        for victim in range(self.players):
            if victim == self.seat:
                continue
            for top in sorted(set(hands[victim])):
                rest = [list(h) for h in hands]
                rest[victim].remove(top)
                value = sum(
                    p * self.after_card(total + d, d, top, rest, depth - 1)
                    for d, p in self.back_odds(top)
                )
                if value > best[0]:
                    best = (value, (victim, top))
        return best

    def play_value(self, top: int, flip: bool) -> float:
        """Utility of playing a card showing `top`, possibly flipped."""
        hands = [list(h) for h in self.hands]
        hands[self.seat].remove(top)
        if not flip:
            return self.after_card(self.sum + top, top, None, hands, CHAIN_DEPTH)
        return sum(
            p * self.after_card(self.sum + d, d, top, hands, CHAIN_DEPTH)
            for d, p in self.back_odds(top)
        )


def choose(obs: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Pick one of the legal decisions for this observation."""
    view = View(obs)
    phase = obs["phase"]
    if phase == "take":
        card = obs["game"]["to_take"][0]
        back = view.flip_mean(card["top"]) if card["down"] is None else card["down"]
        return {"action": "take", "flip": back > card["top"]}
    if phase == "score":
        options = [d for d in legal if d["action"] == "score"]
        return max(options, key=lambda d: view.flip_mean(d["top"]) if d["flip"] else d["top"])
    if phase == "steal":
        hands = [list(h) for h in view.hands]
        stop = view.settle(view.sum, 1, None, hands)
        value, pick = view.best_steal(view.sum, hands, CHAIN_DEPTH)
        if pick is None or value <= stop:
            return {"action": "pass"}
        for decision in legal:
            if decision.get("from") == pick[0] and decision.get("top") == pick[1]:
                return decision
        return {"action": "pass"}
    scored = [
        (view.play_value(d["top"], d["flip"]) + rng.random() * 1e-6, i) for i, d in enumerate(legal)
    ]
    return legal[max(scored)[1]]


def main() -> None:
    """Speak protocol 2 on stdin/stdout until quit or end of input."""
    rng = random.Random(0)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind_ = message.get("type")
        if kind_ == "start":
            rng = random.Random(message.get("seed", 0))
            reply: dict[str, Any] = {"type": "ready", "name": "krumme10-heuristic"}
        elif kind_ == "decide":
            decision = choose(message["observation"], message["legal"], rng)
            reply = {"type": "decision", "id": message["id"], "decision": decision}
        elif kind_ == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
