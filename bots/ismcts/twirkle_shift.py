"""Twirkle: the shift at the end of our turn, to set up our next placement.

A shift (ruling W6) is free: it scores nothing and costs nothing, and the bundled
heuristic never shifts. Moving a leaf from the end of one line to the end of another
changes which lines are open: it can build a line our hand completes next turn, or
cut a line of five down to four (no twelve for the next seat). So at the end of our
turn (after placing and refilling, exchanging or passing) every one-card shift is
valued by `OWN_WEIGHT` times our own best placement on the board it leaves, with the
hand we hold for our next turn, less `REPLY_WEIGHT` times the next seat's best
placement averaged over `HANDS` sampled hands (`determinize`, the same hands for
every shift). Both are the heuristic's greedy value, from twirkle_reply's windows.
The best shift is played if it beats not shifting by `MARGIN`; after a put, one more
card follows when that does better still. The shifts are compared in the referee's
order until the time is up (a crowded board has up to ~40; most are compared).

What the shift is good for (2 players against the heuristic, 100 ms CPU, 60 seeded
games): setting up our own next turn. With both terms (own at 0.5) the bot won
89.2 %, own at 1.0 84.2 %; spoiling the next seat's reply alone (own at 0) 48.3 %,
no better than never shifting (50.0 %).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import twirkle_reply as reply

Decision = dict[str, Any]
#: Hands sampled for the next seat (common to every shift compared).
HANDS = 12
#: Weight of our own best placement on the board we leave, and of the next seat's.
OWN_WEIGHT = 0.5
REPLY_WEIGHT = 1.0
#: How much better than not shifting (in points) a shift must look.
MARGIN = 0.25
COLOURS = ("blue", "yellow", "green", "purple", "red", "black")
SYMBOLS = ("swirl", "star", "pyramid", "clover", "rosette", "crystal")
KIND_OF = {f"{c}-{s}": 6 * i + j for i, c in enumerate(COLOURS) for j, s in enumerate(SYMBOLS)}


#: The shift chosen at its lift, for the put that follows: (board before the lift, lifted
#: cell, the put). A put decision finds its plan here instead of comparing again.
_PLANNED: dict[str, Any] = {}


def board_key(cards: list[Mapping[str, Any]]) -> tuple[tuple[int, int, str], ...]:
    """The cards of a board, in a hashable form."""
    return tuple(sorted((c["x"], c["y"], c["card"]) for c in cards))


def cell_xy(pos: tuple[int, int]) -> int:
    """twirkle_reply's cell of an (x, y)."""
    return reply.cell_of(pos[0], pos[1])


def kind_of(card: tuple[str, str]) -> int:
    """The kind of a (colour, symbol) card."""
    return KIND_OF[f"{card[0]}-{card[1]}"]


def grid_of(observation: Mapping[str, Any]) -> dict[int, int]:
    """The board as twirkle_reply's cells and kinds."""
    return {reply.cell_of(c["x"], c["y"]): KIND_OF[c["card"]] for c in observation["board"]}


class Judge:
    """Values boards for the seat that shifts: the next seat's mean best reply over the
    sampled hands, less `OWN_WEIGHT` times our own best placement."""

    def __init__(self, observation: Mapping[str, Any], hands: list[tuple[int, int]]) -> None:
        self.grid = grid_of(observation)
        self.base = reply.Threats(self.grid, observation["bag"])
        self.hands = hands  # (kind set, size) of each sampled hand of the next seat
        own = [KIND_OF[n] for n in observation["hand"]]
        self.own = (reply.hand_bits(own), len(own))
        self.fitting: dict[int, reply.Fitting] = {}  # per hand (ours last), made when needed

    def score(self, lifted: int | None = None, put: int | None = None) -> float:
        """The value (lower is better) of the board with the card on `lifted` moved to
        `put` (the board as it is without them)."""
        change = None
        if lifted is not None and put is not None:
            grid = dict(self.grid)
            grid[put] = grid.pop(lifted)
            change = self.base.changed(grid, (lifted, put))
        own = self.best(change, self.own, len(self.hands))
        return REPLY_WEIGHT * self.replies(change) - OWN_WEIGHT * own

    def with_cards(self, laid: list[tuple[int, int]]) -> reply.Threats:
        """The windows of this board with the cards `laid` ((cell, kind)) added."""
        grid = dict(self.grid)
        grid.update(laid)
        return self.base.changed(grid, [cell for cell, _ in laid])

    def replies(self, change: reply.Threats | None) -> float:
        """The next seat's mean best placement, on the board `change` describes (this
        board when None)."""
        values = [self.best(change, hand, i) for i, hand in enumerate(self.hands)]
        return sum(values) / max(1, len(values))

    def best(self, change: reply.Threats | None, hand: tuple[int, int], index: int) -> float:
        """A hand's best placement on the board `change` describes (this board when None)."""
        if change is None:
            return self.base.best(*hand)
        return self.after(change, hand, index)

    def after(self, change: reply.Threats, hand: tuple[int, int], index: int) -> float:
        """A hand's best placement on the changed board: the changed lines' windows, or
        the best of the others, which the hand's `Fitting` (made once) knows."""
        if index not in self.fitting:
            self.fitting[index] = self.base.fitting(*hand)
        elsewhere = self.fitting[index].best(change.lines)
        if elsewhere is None:
            elsewhere = self.base.best(hand[0], hand[1], change.lines)
        return max(elsewhere, change.best(*hand))


def sample_hands(
    game: Any,
    observation: Mapping[str, Any],
    variant: Mapping[str, Any],
    rng: random.Random,
) -> list[tuple[int, int]]:
    """The next seat's hand in `HANDS` sampled worlds, as (kind set, size)."""
    seat, players = observation["seat"], observation["players"]
    nxt = (seat + 1) % players
    hands = []
    for _ in range(HANDS):
        world = game.determinize(observation, seat, players, variant, rng)
        kinds = [KIND_OF[n] for n in world.observe(nxt)["hand"]]
        hands.append((reply.hand_bits(kinds), len(kinds)))
    return hands


def choose(
    game: Any,
    observation: Mapping[str, Any],
    legal: list[Decision],
    rng: random.Random,
    variant: Mapping[str, Any],
    within: Callable[[int], bool],
) -> Decision:
    """A decision of the shifting phase: start, continue or end a shift."""
    actions = [d["action"] for d in legal]
    shift = observation.get("shift") or {}
    if "put" in actions:
        return choose_put(game, observation, legal, rng, variant, within)
    if "lift" not in actions:
        return legal[0]
    if shift.get("moved"):
        return follow_or_stop(game, observation, legal, rng, variant)
    return start_shift(game, observation, legal, rng, variant, within)


def start_shift(
    game: Any,
    observation: Mapping[str, Any],
    legal: list[Decision],
    rng: random.Random,
    variant: Mapping[str, Any],
    within: Callable[[int], bool],
) -> Decision:
    """Lift the leaf of the best one-card shift, or end the turn."""
    _PLANNED.clear()
    stop = {"action": "end_turn"}
    seat, players = observation["seat"], observation["players"]
    world = game.determinize(observation, seat, players, variant, rng)
    judge = Judge(observation, sample_hands(game, observation, variant, rng))
    best, choice, plan = judge.score() - MARGIN, stop, None
    for done, (lift, put) in enumerate(one_card_shifts(world, seat, legal)):
        if not within(done):
            break
        value = judge.score(reply.cell_of(lift["x"], lift["y"]), reply.cell_of(put["x"], put["y"]))
        if value < best:
            best, choice, plan = value, lift, put
    if plan is not None:
        _PLANNED["plan"] = (board_key(observation["board"]), (choice["x"], choice["y"]), plan)
    return choice


def one_card_shifts(
    world: Any, seat: int, legal: list[Decision]
) -> list[tuple[Decision, Decision]]:
    """Every (lift, put) that starts a shift, from the referee (a sampled world: the
    board is the true one)."""
    shifts = []
    for lift in legal:
        if lift["action"] == "lift":
            lifted = world.clone()
            lifted.apply(seat, lift)
            shifts += [(lift, put) for put in lifted.legal(seat)]
    return shifts


def choose_put(
    game: Any,
    observation: Mapping[str, Any],
    legal: list[Decision],
    rng: random.Random,
    variant: Mapping[str, Any],
    within: Callable[[int], bool],
) -> Decision:
    """Put the lifted card where the lift's comparison put it, else where it does best
    (compared again)."""
    lifted = observation["shift"]["lifted"]
    before = board_key([*observation["board"], lifted])
    planned = _PLANNED.pop("plan", None)
    here = (before, (lifted["x"], lifted["y"]))
    if planned is not None and planned[:2] == here and planned[2] in legal:
        return dict(planned[2])
    cell = reply.cell_of(lifted["x"], lifted["y"])
    view = dict(observation)  # judge the puts as moves from the board before the lift
    view["board"] = [*observation["board"], lifted]
    judge = Judge(view, sample_hands(game, observation, variant, rng))
    best, choice = float("inf"), legal[0]
    for done, put in enumerate(legal):
        if not within(done) and done:
            break
        value = judge.score(cell, reply.cell_of(put["x"], put["y"]))
        if value < best:
            best, choice = value, put
    return choice


def follow_or_stop(
    game: Any,
    observation: Mapping[str, Any],
    legal: list[Decision],
    rng: random.Random,
    variant: Mapping[str, Any],
) -> Decision:
    """After a put: move the next card of the source line too when that does better."""
    lift = next(d for d in legal if d["action"] == "lift")
    seat = observation["seat"]
    world = game.determinize(observation, seat, observation["players"], variant, rng)
    world.apply(seat, lift)
    puts = world.legal(seat)
    if not puts:
        return {"action": "end_turn"}
    judge = Judge(observation, sample_hands(game, observation, variant, rng))
    moved = judge.score(
        reply.cell_of(lift["x"], lift["y"]), reply.cell_of(puts[0]["x"], puts[0]["y"])
    )
    return lift if moved < judge.score() - MARGIN else {"action": "end_turn"}
