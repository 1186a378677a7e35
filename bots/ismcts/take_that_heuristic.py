"""A Take That heuristic bot: twist when it can, make the next player take, take only when cheap.

Protocol 2 over JSON lines; standard library only (it never imports arena).
The policy is the pure function `choose`; `main` only speaks the protocol.

How it judges a decision. Every decision except "take" leaves a row behind; the
bot estimates what that row is worth to it:

* the chance that the NEXT player is stuck: none of their cards lies within ±10
  of the rightmost card and none is the twin of a row card. Their hand is drawn
  from the cards this bot has not seen (other hands, the draw pile, unseen profi
  cards), so the chance is hypergeometric. A stuck player must take the row:
  good for us, worth the row's cost.
* the risk that the row comes back to us and WE are stuck: the other players
  pass it on, and our remaining hand may hold no card near wherever it ends.
* what the cards we keep are worth: a card whose twin is still unseen may twist
  later (+2); a card that covers many values keeps us from being stuck.

A twist is worth +2 on top. Taking costs the row (and in the pro variant the
unseen extra card of a one-card row), but then we open a new row with the card
that is hardest to follow.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

#: 12..98 without the multiples of ten.
DECK = tuple(n for n in range(12, 99) if n % 10 != 0)
TOADS = frozenset(11 * d for d in range(2, 9))
REACH = 10

#: The weights of the evaluation (tuned against random and simpler policies).
TWIST_GAIN = 2.0
KEEP_TWIN = 0.6  # keeping a card whose twin is unseen (a twist may come)
SELF_RISK = 0.9  # weight of the chance we must take the row later
FLEX = 0.15  # value of a hand card that can follow many values
GROWTH = 1.0  # how much a row grows, per other player, before it comes back


def twin(card: int) -> int:
    """The card with the digits swapped (a toad is its own twin)."""
    return (card % 10) * 10 + card // 10


def penalty(card: int) -> int:
    """What a card costs when taken: 5 for a toad, else 1."""
    return 5 if card in TOADS else 1


def p_none(unseen: int, good: int, drawn: int) -> float:
    """Chance that `drawn` cards from `unseen` cards contain none of `good` of them."""
    if drawn <= 0:
        return 1.0
    if good <= 0:
        return 1.0
    p = 1.0
    for i in range(drawn):
        if unseen - i <= 0:
            break
        p *= max(0.0, (unseen - good - i) / (unseen - i))
        if p == 0.0:
            break
    return p


class View:
    """What the bot derives from one observation."""

    def __init__(self, obs: dict[str, Any], pro: bool) -> None:
        self.seat: int = obs["seat"]
        self.players: int = obs["players"]
        game = obs["game"]  # the game's own fields
        self.hand: list[int] = game["hand"]
        self.row: list[int] = game["row"]
        self.draw_pile: int = game["draw_pile"]
        self.hand_sizes: list[int] = game["hand_sizes"]
        self.pro = pro
        seen = set(self.hand) | set(self.row)
        for pile in game["plus"]:
            seen.update(pile)
        for pile in game["minus_seen"]:
            seen.update(pile)
        self.unseen = [c for c in DECK if c not in seen]
        self.unseen_set = set(self.unseen)
        self.next_seat = (self.seat + 1) % self.players
        mean = sum(penalty(c) for c in self.unseen) / len(self.unseen) if self.unseen else 1.0
        self.mean_penalty = mean

    def escape(self, row: list[int]) -> int:
        """How many unseen cards would let a player avoid taking `row`."""
        last = row[-1]
        good = {c for c in self.unseen if abs(c - last) <= REACH}
        good.update(twin(r) for r in row if r not in TOADS and twin(r) in self.unseen_set)
        return len(good)

    def stuck(self, row: list[int], hand_size: int) -> float:
        """Chance that a player with `hand_size` unseen cards cannot play to or twist `row`."""
        if hand_size == 0:
            return 1.0
        return p_none(len(self.unseen), self.escape(row), hand_size)

    def row_cost(self, row: list[int]) -> float:
        """What taking `row` costs, with the pro variant's unseen extra card."""
        cost = float(sum(penalty(c) for c in row))
        if self.pro and len(row) == 1 and self.draw_pile > 0:
            cost += self.mean_penalty
        return cost

    def my_stuck(self, hand: list[int], row: list[int]) -> float:
        """Chance that, when the row comes back, none of `hand` can follow or twist.

        The rightmost card by then is unknown: average over the unseen cards.
        """
        if not hand:
            return 1.0
        if not self.unseen:
            return 0.0
        twins = {twin(c) for c in hand if c not in TOADS}
        if twins & set(row):
            return 0.0
        covered = sum(1 for x in self.unseen if any(abs(x - c) <= REACH for c in hand))
        return 1.0 - covered / len(self.unseen)

    def hand_value(self, hand: list[int]) -> float:
        """Worth of the cards we keep: twist chances and flexibility."""
        value = 0.0
        for c in hand:
            if c not in TOADS and twin(c) in self.unseen_set:
                value += KEEP_TWIN
        if hand:
            covered = sum(1 for x in self.unseen if any(abs(x - c) <= REACH for c in hand))
            value += FLEX * covered / max(1, len(self.unseen)) * len(hand)
        return value

    def leave(self, row: list[int], hand: list[int]) -> float:
        """Worth to us of leaving `row` for the next player while we keep `hand`."""
        if not row:
            return self.hand_value(hand)
        size = self.hand_sizes[self.next_seat]
        p_next = self.stuck(row, size)
        cost = self.row_cost(row)
        gain = p_next * cost
        # The row goes on: it grows while the others play, and it may come back to us.
        others = self.players - 1
        passes = (1.0 - p_next) * (1.0 - 0.5 * p_next) ** (others - 1)
        later_cost = float(sum(penalty(c) for c in row)) + GROWTH * others
        risk = passes * self.my_stuck(hand, row) * later_cost
        return gain - SELF_RISK * risk + self.hand_value(hand)

    def open_value(self, hand: list[int]) -> tuple[float, int]:
        """The best card to open a new row with, and the worth of doing so."""
        best: tuple[float, int] | None = None
        for c in sorted(set(hand)):
            rest = list(hand)
            rest.remove(c)
            value = self.leave([c], rest)
            if best is None or value > best[0]:
                best = (value, c)
        assert best is not None
        return best


def choose(
    observation: dict[str, Any],
    legal: list[dict[str, Any]],
    rng: random.Random,
    variant: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Pick one of `legal` for the seat whose `observation` is given.

    Args:
        observation: the seat's Take That observation, protocol 2's envelope (the game's
            own fields under `game`; protocol/games/take-that.md).
        legal: the legal decisions, as offered.
        rng: breaks ties between equally good decisions.
        variant: the match's variant from the start message (only `pro` is used).

    Returns:
        One element of `legal`.
    """
    if len(legal) == 1:
        return legal[0]
    view = View(observation, bool((variant or {}).get("pro", False)))
    best: list[dict[str, Any]] = []
    best_value = float("-inf")
    for decision in legal:
        value = evaluate(view, decision)
        if value > best_value + 1e-9:
            best, best_value = [decision], value
        elif abs(value - best_value) <= 1e-9:
            best.append(decision)
    return best[0] if len(best) == 1 else rng.choice(best)


def evaluate(view: View, decision: dict[str, Any]) -> float:
    """The estimated worth of one decision to the deciding seat."""
    action = decision["action"]
    if action == "take":
        cost = view.row_cost(view.row)
        if view.draw_pile == 0 or (view.pro and len(view.row) == 1 and view.draw_pile == 1):
            return -cost  # the round ends at once (T6)
        return -cost + view.open_value(view.hand)[0]
    hand = list(view.hand)
    hand.remove(decision["card"])
    if action == "play":
        return view.leave([*view.row, decision["card"]], hand)
    row = [c for c in view.row if c != decision["row_card"]]
    if not row and view.draw_pile <= 1:
        return TWIST_GAIN  # the round ends with this twist
    return TWIST_GAIN + view.leave(row, hand)


def main() -> None:
    """Speak protocol 2 on stdin/stdout until quit or end of input."""
    rng = random.Random(0)
    variant: dict[str, Any] = {}
    out = sys.stdout
    for line in sys.stdin:
        try:
            message = json.loads(line)
            kind = message.get("type")
        except (ValueError, AttributeError):
            continue
        if kind == "start":
            rng = random.Random(message.get("seed", 0))
            variant = message.get("variant") or {}
            out.write('{"type":"ready","name":"take-that-heuristic"}\n')
            out.flush()
        elif kind == "decide":
            decision = choose(message["observation"], message["legal"], rng, variant)
            answer = {"type": "decision", "id": message["id"], "decision": decision}
            out.write(json.dumps(answer, separators=(",", ":")) + "\n")
            out.flush()
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
