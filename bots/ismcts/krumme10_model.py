"""A fast Krumme10 opponent model: the heuristic bot's decision, read from a sampled state.

krumme10_heuristic.py (a copy of bots/krumme10-heuristic/bot.py) decides from an
observation: building one (`observe`, some 45 us) costs more than the decision itself
(some 25 us). Nothing in Krumme10 is private (nobody sees a down side that was not
turned up), so what the heuristic reads of an observation is read here from the
referee state of a sample directly: the seat, the target and the display's sum, the
teams, every hand's top sides, and the card kinds seen from both sides (the cards of
the display, the cards being taken, the discard and the points piles whose down side
was seen). `Seen` is the heuristic's `View` with that `__init__`: every value is then
computed by the heuristic's own methods (the answers of `back_odds`, `flip_mean` and
`opponents` kept once computed), with the same arithmetic in the same order, so the
decisions are the same (ties broken by the same `rng` draws). The ratings are kept
(`MEMO`) by everything they read, which many samples of a search share: the hidden
down sides count only once turned up. In a search about 40 % of the calls find them
kept, and a call takes half the time of `observe` and `choose`.
tests/test_ismcts_krumme10_model.py checks the decisions on positions of seeded
matches, with and without kept ratings.
"""

from __future__ import annotations

import random
from operator import attrgetter
from typing import Any

# the heuristic's own code and constants: one source for both
from krumme10_heuristic import CHAIN_DEPTH, COPIES, PAIRS, View, kind

Decision = dict[str, Any]
#: A card's visible face (top side, pink), as the referee sorts hands by.
FACE = attrgetter("top", "top_pink")

#: The card kinds in the heuristic's order (`View.remaining` is built in it).
KINDS = [kind(a, b) for a, b in PAIRS]
#: By (top, down): the index of its kind in KINDS.
KIND_INDEX = {(a, b): KINDS.index(kind(a, b)) for a, b in PAIRS} | {
    (b, a): KINDS.index(kind(a, b)) for a, b in PAIRS
}


def seen_kinds(state: Any) -> list[int]:
    """How many cards of each kind (KINDS) were seen from both sides: those of the display,
    the cards being taken, the discard and the points piles whose down side was seen
    (the cards the heuristic's `View` counts; hands hold none)."""
    known = [0] * len(KINDS)
    index = KIND_INDEX
    for entry in state.display:
        card = entry.card
        if card.known:
            known[index[card.top, card.down]] += 1
    for pile in (state.to_take, state.discard, *state.points):
        for card in pile:
            if card.known:
                known[index[card.top, card.down]] += 1
    return known


class Seen(View):
    """The heuristic's `View` of a sampled state for one seat, read from the state."""

    def __init__(self, state: Any, seat: int, known: list[int] | None = None) -> None:
        """`known`: `seen_kinds(state)` when already counted."""
        self.obs = {}
        self.seat = seat
        self.players = state.players
        self.target = state.target
        self.sum = state._display_sum()
        teams = state._teams()
        self.teams = None if teams is None else list(teams)
        if known is None:
            known = seen_kinds(state)
        self.remaining = {k: max(COPIES - v, 0) + 0.1 for k, v in zip(KINDS, known, strict=True)}
        self.hands = [[card.top for card in hand] for hand in state.hands]
        self.odds: dict[int, list[tuple[int, float]]] = {}
        self.means: dict[int, float] = {}
        self.rivals = View.opponents(self)

    # The heuristic's own methods, each answer kept once computed (by the same code, so
    # the same floats): the evaluation asks them again and again.
    def back_odds(self, top: int) -> list[tuple[int, float]]:
        """`View.back_odds`, kept."""
        odds = self.odds.get(top)
        if odds is None:
            odds = self.odds[top] = View.back_odds(self, top)
        return odds

    def flip_mean(self, top: int) -> float:
        """`View.flip_mean`, kept."""
        mean = self.means.get(top)
        if mean is None:
            mean = self.means[top] = View.flip_mean(self, top)
        return mean

    def opponents(self) -> list[int]:
        """`View.opponents`, kept (callers only read it)."""
        return self.rivals


#: What `rate` gave, by everything it reads of a state (see `heuristic_policy`).
MEMO: dict[tuple[Any, ...], int | tuple[float, ...]] = {}
#: MEMO is emptied when it grows past this many entries.
MEMO_SIZE = 20_000


def heuristic_policy(state: Any, seat: int, legal: list[Decision], rng: random.Random) -> Decision:
    """The heuristic bot's `choose` for `seat` in a sampled `state` (one of `legal`).

    What the heuristic reads is the same in many samples of a search (the hidden down
    sides count only once turned up), so its ratings are kept by all of it (MEMO): the
    seat, the phase, target, sum and cards being taken, every hand's faces (which also
    give the legal list) and the kinds seen from both sides. A play adds the heuristic's
    tie-breaking noise to the kept values, drawn from `rng` as it draws it."""
    known = seen_kinds(state)
    to_take = state.to_take
    # the card being taken: its top, and its down side when seen (-1: not seen)
    taking = (to_take[0].top, to_take[0].down if to_take[0].known else -1) if to_take else None
    key = (
        seat,
        state.players,
        state._teams(),
        state.phase,
        state.target,
        state._display_sum(),
        state.score_highest,
        taking,
        *known,
        *[tuple(sorted(map(FACE, hand))) for hand in state.hands],
    )
    rated = MEMO.get(key)
    if rated is None:
        if len(MEMO) >= MEMO_SIZE:
            MEMO.clear()
        rated = MEMO[key] = rate(Seen(state, seat, known), state, legal)
    if isinstance(rated, int):
        return legal[rated]
    scored = [(value + rng.random() * 1e-6, i) for i, value in enumerate(rated)]
    return legal[max(scored)[1]]


def rate(view: Seen, state: Any, legal: list[Decision]) -> int | tuple[float, ...]:
    """The heuristic's `choose` without its noise: the index in `legal` of its decision,
    or for a play the value of every decision (before the noise that breaks ties)."""
    phase = state.phase
    if phase == "take":
        card = state.to_take[0]
        back = card.down if card.known else view.flip_mean(card.top)
        flip = back > card.top
        return next(i for i, d in enumerate(legal) if d["flip"] == flip)
    if phase == "score":
        options = [d for d in legal if d["action"] == "score"]
        best = max(options, key=lambda d: view.flip_mean(d["top"]) if d["flip"] else d["top"])
        return legal.index(best)
    if phase == "steal":
        hands = [list(h) for h in view.hands]
        stop = view.settle(view.sum, 1, None, hands)
        value, pick = view.best_steal(view.sum, hands, CHAIN_DEPTH)
        if pick is None or value <= stop:
            return len(legal) - 1  # pass
        for i, decision in enumerate(legal):
            if decision.get("from") == pick[0] and decision.get("top") == pick[1]:
                return i
        return len(legal) - 1
    return tuple([view.play_value(d["top"], d["flip"]) for d in legal])
