"""Search support: what one seat cannot see, and hidden deals drawn from its observation.

A seat sees its own hand (and its own running exchange), the board and the card
in the air; every other card is *unseen* and lies in one of the hidden places:
another seat's hand (``"hand:2"``), the cards the seat to move has set aside for
an exchange (``"exchange"``), or the bag (``"bag"``).

The rules make one public inference about hands (W2): the start player held a
largest line set of exactly ``opening_size`` cards, and nobody held a larger
one. So a hand that is still the dealt one (a seat that has not finished a turn
yet) holds no larger set, and while the opening runs, the start player's hand
can still complete it. And a seat remembers its own exchange: the cards it gave
back (``returned``) are in the bag until the next card is drawn from it. `draw_hidden`
samples uniformly among the deals that obey both.

The rest of the public state is copied from the observation, the running turn's
action (``turn_action``, ``exchanged``) and the cell of a shift's last put
(``shift.last_put``) included, so a sample continues exactly as the true state would.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.twirkle.board import DIRECTIONS, STEP_OF, Board, encode, end_of
from arena.games.twirkle.cards import (
    COLOUR_MASK,
    KIND_OF,
    KINDS,
    NAMES,
    SYMBOL_MASK,
    full_deck,
    largest_line_set,
)
from arena.games.twirkle.shifting import ShiftStarts
from arena.games.twirkle.state import TwirkleState

#: Every set of six kinds that forms a line: the six colours, then the six symbols.
LINE_SETS: tuple[int, ...] = COLOUR_MASK + SYMBOL_MASK


@dataclass(frozen=True)
class DealtHand:
    """A hidden hand known to be (with `known` public cards) the hand a seat was dealt.

    `places` hold its hidden cards; `known` are its cards already on the board this
    turn. A start player's hand in the opening must still complete the opening line.
    """

    places: tuple[str, ...]
    known: tuple[int, ...]
    starter: bool


def place_sizes(observation: Mapping[str, Any]) -> dict[str, int]:
    """How many unseen cards every hidden place holds, in a fixed order."""
    seat = observation["seat"]
    mover = observation["to_move"]
    chosen = observation["exchange_count"]
    sizes = {
        f"hand:{other}": size - (chosen if other == mover else 0)
        for other, size in enumerate(observation["hand_sizes"])
        if other != seat
    }
    if mover != seat and chosen:
        sizes["exchange"] = chosen
    sizes["bag"] = observation["bag"]
    return sizes


def unseen_cards(observation: Mapping[str, Any]) -> list[int]:
    """The 108 cards minus those the seat sees: its hand and exchange, board, lifted card."""
    seen = Counter(KIND_OF[name] for name in observation["hand"])
    seen.update(KIND_OF[name] for name in observation["exchange_selected"])
    seen.update(KIND_OF[cell["card"]] for cell in observation["board"])
    shift = observation["shift"]
    if shift is not None and shift["lifted"] is not None:
        seen[KIND_OF[shift["lifted"]["card"]]] += 1
    unseen = Counter(full_deck())
    unseen.subtract(seen)
    return sorted(unseen.elements())


def returned_cards(observation: Mapping[str, Any]) -> list[int]:
    """The seat's own cards surely in the bag: those it gave back, until the next draw."""
    return [KIND_OF[name] for name in observation["returned"]]


def returner(observation: Mapping[str, Any]) -> tuple[int, int] | None:
    """The seat whose given-back cards are surely in the bag, and how many (public).

    An exchange puts its cards into the bag, and the next card drawn from the bag (a
    refill after a placement, or the draw of an exchange) ends the certainty. So
    they are there when the turn under way is that exchange's shift, or when it has
    drawn nothing yet and every turn since the last exchange was a pass.
    """
    mover = observation["to_move"]
    if mover is None or not observation["bag"]:
        return None
    action = observation["turn_action"]
    if observation["phase"] == "shifting" and action != "pass":
        return (mover, observation["exchanged"]) if action == "exchange" else None
    players, last_turns = observation["players"], observation["last_turns"]
    for back in range(1, players + 1):
        turn = last_turns[(mover - back) % players]
        if turn is None or turn["action"] == "place":
            return None
        if turn["action"] == "exchange":
            return (mover - back) % players, turn["cards"]
    return None


def dealt_hands(observation: Mapping[str, Any]) -> list[DealtHand]:
    """W2's public facts: the hidden hands that are still (part of) a dealt hand."""
    seat = observation["seat"]
    mover = observation["to_move"]
    phase = observation["phase"]
    if phase == "over":
        return []
    placed = tuple(KIND_OF[cell["card"]] for cell in observation["placed"])
    found = []
    for other, last_turn in enumerate(observation["last_turns"]):
        if other == seat or last_turn is not None:
            continue
        if other != mover:
            found.append(DealtHand((f"hand:{other}",), (), False))
        elif phase == "opening":
            found.append(DealtHand((f"hand:{other}",), placed, True))
        elif phase == "exchanging":
            found.append(DealtHand((f"hand:{other}", "exchange"), (), False))
        elif phase in ("turn", "placing"):
            found.append(DealtHand((f"hand:{other}",), placed, False))
        # shifting: the hand was refilled (or exchanged) this turn, nothing is known
    return found


def fits_deal(cards: Sequence[int], hand: DealtHand, opening_size: int) -> bool:
    """W2: the hand held no line set larger than the opening, and a start player can finish it."""
    kinds = set(cards) | set(hand.known)
    if largest_line_set(kinds) > opening_size:
        return False
    if not hand.starter:
        return True
    return any(
        all(set_mask >> k & 1 for k in hand.known)
        and sum(1 for k in kinds if set_mask >> k & 1) >= opening_size
        for set_mask in LINE_SETS
    )


def starter_kinds_of_a_six(known: Sequence[int], unseen: Sequence[int]) -> set[int]:
    """The kinds a start player's hand can hold mid-opening when its line is six long.

    Its hand is then exactly the rest of a six-card line set that holds every card it
    laid, one copy of each kind, and those kinds must all be unseen.
    """
    available = set(unseen)
    possible: set[int] = set()
    for rest in _six_completions(known, available):
        possible |= rest
    return possible


def _six_completions(known: Sequence[int], available: set[int]) -> list[set[int]]:
    """The kind sets that complete `known` to a line of six from the available kinds."""
    found = []
    for set_mask in LINE_SETS:
        kinds = {k for k in range(KINDS) if set_mask >> k & 1}
        rest = kinds - set(known)
        if set(known) <= kinds and rest <= available:
            found.append(rest)
    return found


def draw_hidden(observation: Mapping[str, Any], rng: random.Random) -> dict[str, list[int]]:
    """A uniformly random deal of the unseen cards to the hidden places that obeys W2.

    Returns place -> cards. Exact rejection sampling: the seat's own given-back cards
    go to the bag, the start player's hand in the opening is drawn first among the
    hands that can finish it, the rest shuffled; a deal whose still-dealt hands hold
    a too large set starts over.
    """
    unseen = unseen_cards(observation)
    sizes = place_sizes(observation)
    reserved = returned_cards(observation)
    if reserved:
        for card in reserved:
            unseen.remove(card)
        sizes["bag"] -= len(reserved)
    opening_size = observation["opening_size"]
    hands = dealt_hands(observation)
    starter = next((hand for hand in hands if hand.starter), None)
    others = [hand for hand in hands if not hand.starter]
    while True:
        pool = list(unseen)
        deal: dict[str, list[int]] = {}
        if starter is not None:
            place = starter.places[0]
            deal[place] = _draw_starter_hand(pool, sizes[place], starter, opening_size, rng)
            for card in deal[place]:
                pool.remove(card)
        rng.shuffle(pool)
        for place, size in sizes.items():
            if place not in deal:
                deal[place], pool = pool[:size], pool[size:]
        if all(
            fits_deal([c for p in hand.places for c in deal[p]], hand, opening_size)
            for hand in others
        ):
            if reserved:
                deal["bag"] += reserved
                rng.shuffle(deal["bag"])
            return deal


def _draw_starter_hand(
    pool: list[int], size: int, hand: DealtHand, opening_size: int, rng: random.Random
) -> list[int]:
    """A uniform draw among the start player's possible hands (cards told apart by copy)."""
    if opening_size < 6:
        while True:  # a largest set of 5 turns up about once in 1,100 draws
            cards = rng.sample(pool, size)
            if fits_deal(cards, hand, opening_size):
                return cards
    # A six leaves one way per line set: one copy of each missing kind, weighted by copies.
    copies = Counter(pool)
    completions = _six_completions(hand.known, set(copies))
    weights = [_product(copies[k] for k in rest) for rest in completions]
    (rest,) = rng.choices(completions, weights=weights)
    return sorted(rest)


def _product(numbers: Any) -> int:
    result = 1
    for number in numbers:
        result *= number
    return result


# ----- the public state --------------------------------------------------------------
def ruled_out(observation: Mapping[str, Any]) -> dict[str, list[Any]]:
    """What the seat knows is not in a hidden place.

    W2: a start player opening a line of six holds exactly the rest of that line.
    A card the seat gave back is in the bag (until the next draw); when no other copy
    of it is unseen, it is in no other place.
    """
    seat, starter = observation["seat"], observation["start_seat"]
    found: dict[str, list[Any]] = {}
    reserved = Counter(returned_cards(observation))
    if reserved:
        unseen_counts = Counter(unseen_cards(observation))
        sure = [NAMES[k] for k in sorted(reserved) if unseen_counts[k] == reserved[k]]
        if sure:
            found = {place: sure for place in place_sizes(observation) if place != "bag"}
    if observation["phase"] != "opening" or observation["opening_size"] < 6 or seat == starter:
        return found
    unseen = unseen_cards(observation)
    placed = [KIND_OF[cell["card"]] for cell in observation["placed"]]
    possible = starter_kinds_of_a_six(placed, unseen)
    found[f"hand:{starter}"] = [NAMES[k] for k in sorted(set(unseen) - possible)]
    return found


def restore(state: TwirkleState, observation: Mapping[str, Any], rng: random.Random) -> None:
    """Fill a blank state: the public part from `observation`, the hidden cards drawn.

    The referee has begun the state's turn in the observed phase (every field of a turn
    reset), and forgets its cached lists afterwards: here only the fields are set."""
    seat = observation["seat"]
    _restore_public(state, observation)
    deal = draw_hidden(observation, rng)
    for other in range(state.players):
        if other != seat:
            state.hands[other] = sorted(deal[f"hand:{other}"])
    state.hands[seat] = [KIND_OF[name] for name in observation["hand"]]
    if state.current == seat:
        state.selected = [KIND_OF[name] for name in observation["exchange_selected"]]
        picked = observation["picked"]
        state.picked = None if picked is None else KIND_OF[picked]
    else:  # another mover's picked card is unseen: it may as well not be picked yet
        state.selected = deal.get("exchange", [])
    state.bag = deal["bag"]
    _restore_returned(state, observation, rng)
    _restore_shift(state, observation["shift"])


def _restore_public(state: TwirkleState, observation: Mapping[str, Any]) -> None:
    """Everything the observation shows to all seats (the hands are filled in afterwards)."""
    state.hands = [[] for _ in range(state.players)]
    state.board = Board({(c["x"], c["y"]): KIND_OF[c["card"]] for c in observation["board"]})
    state.scores = list(observation["scores"])
    state.start_seat = observation["start_seat"]
    state.opening_size = observation["opening_size"]
    mover = observation["to_move"]
    state.current = state.start_seat if mover is None else mover
    state.passes = observation["passes"]
    state.idle = observation["idle_turns"]
    state.turns = observation["turns"]
    state.last_turns = [None if t is None else dict(t) for t in observation["last_turns"]]
    state.end = None if observation["end"] is None else dict(observation["end"])
    state.turn_action = observation["turn_action"] or ""
    state.exchanged = observation["exchanged"]
    state.placed_cells = [encode((c["x"], c["y"])) for c in observation["placed"]]
    state.placed_kinds = [KIND_OF[c["card"]] for c in observation["placed"]]
    if state.phase != "placing":
        state.turn_points = observation["placement_points"]


def _restore_returned(
    state: TwirkleState, observation: Mapping[str, Any], rng: random.Random
) -> None:
    """Whose given-back cards are surely in the bag: the seat's own as it remembers them,
    another seat's (their number is public) any of that many cards of the sampled bag."""
    state.returner, state.returned = None, []
    own = returned_cards(observation)
    if own:
        state.returner, state.returned = observation["seat"], sorted(own)
        return
    found = returner(observation)
    if found is not None and found[0] != observation["seat"]:
        other, count = found
        state.returner, state.returned = other, sorted(rng.sample(state.bag, count))


def _restore_shift(state: TwirkleState, shift: Mapping[str, Any] | None) -> None:
    """The shift in progress, its target line's end (`last_put`) included."""
    if shift is None:
        return
    board = state.board
    state.shift_source = [encode((x, y)) for x, y in shift["source"]]
    state.moved = shift["moved"]
    if shift["direction"] is not None:
        state.shift_direction = STEP_OF[DIRECTIONS[shift["direction"]]]
    if shift["last_put"] is not None:
        x, y = shift["last_put"]
        state.shift_last = encode((x, y))
    lifted = shift["lifted"]
    if lifted is None:
        return
    kind, cell = KIND_OF[lifted["card"]], encode((lifted["x"], lifted["y"]))
    if state.moved:
        assert state.shift_direction is not None and state.shift_last is not None
        target = board.beyond(state.shift_last, state.shift_direction)
        state.pending_puts = [end_of(target, state.shift_direction)]
    else:  # the first lift: its puts are the ones offered with the card still down
        board.place(cell, kind)
        state.pending_puts = ShiftStarts(board).puts(cell)
        board.remove(cell)
    state.lifted = (kind, cell)
