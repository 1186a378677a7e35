"""Search support: what one seat cannot see, and hidden deals drawn from its observation.

A seat sees its own hand (and its own running exchange), the board and the card
in the air; every other card is *unseen* and lies in one of the hidden places:
another seat's hand (``"hand:2"``), the cards the seat to move has set aside for
an exchange (``"exchange"``), or the bag (``"bag"``).

The rules make one public inference about hands (W2, in `opening`): the start
player held a largest line set of exactly ``opening_size`` cards, nobody held a
larger one, and among seats tying for it the start player was drawn at random. So a
hand that is still the dealt one holds no larger set, a tying one is less likely (in
proportion to the number of tied seats), and while the opening runs the start
player's hand can still complete it. And a seat remembers its own exchange: the
cards it gave back (``returned``) are in the bag until the next card is drawn from
it. `draw_hidden` samples the deals that obey both, each as likely as W2's deal and
draw make it (the posterior given the observation; `opening` derives it).

The rest of the public state is copied from the observation, the running turn's
action (``turn_action``, ``exchanged``) and the cell of a shift's last put
(``shift.last_put``) included, so a sample continues exactly as the true state would.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.leylo.draws import shuffle
from arena.games.twirkle.board import DIRECTIONS, STEP_OF, Board, encode, end_of
from arena.games.twirkle.cards import COPIES, KIND_OF, KINDS, NAMES
from arena.games.twirkle.opening import (
    LINE_SETS,
    DealtHand,
    Opening,
    kind_mask,
    largest_set_of_mask,
    opening_facts,
)
from arena.games.twirkle.shifting import ShiftStarts
from arena.games.twirkle.state import TwirkleState


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
    left = [COPIES] * KINDS
    for name in observation["hand"]:
        left[KIND_OF[name]] -= 1
    for name in observation["exchange_selected"]:
        left[KIND_OF[name]] -= 1
    for cell in observation["board"]:
        left[KIND_OF[cell["card"]]] -= 1
    shift = observation["shift"]
    if shift is not None and shift["lifted"] is not None:
        left[KIND_OF[shift["lifted"]["card"]]] -= 1
    return [kind for kind in range(KINDS) for _ in range(left[kind])]


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


def fits_opening(cards: Sequence[int], hand: DealtHand, opening_size: int) -> bool:
    """W2 for the start player's hand in the opening: no line set larger than the
    opening, and one of the opening's size that holds every card it laid."""
    mask = kind_mask(cards) | kind_mask(hand.known)
    if largest_set_of_mask(mask) > opening_size:
        return False
    laid = kind_mask(hand.known)
    return any(
        laid & line_set == laid and (mask & line_set).bit_count() >= opening_size
        for line_set in LINE_SETS
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
    """A random deal of the unseen cards to the hidden places, as likely as W2 makes it.

    Returns place -> cards. Exact rejection sampling (`opening`): the seat's own
    given-back cards go to the bag; the start player's hand in the opening is drawn
    first among the hands that can finish it; then the other still-dealt hands are
    drawn, and kept when none holds a set larger than the opening and with the
    probability W2's draw of the start player gives their ties (else all starts over);
    the rest is shuffled into the other places.
    """
    unseen = unseen_cards(observation)
    sizes = place_sizes(observation)
    reserved = returned_cards(observation)
    if reserved:
        for card in reserved:
            unseen.remove(card)
        sizes["bag"] -= len(reserved)
    deal = _deal(unseen, sizes, opening_facts(observation, sizes), rng)
    if reserved:
        deal["bag"] += reserved
        shuffle(rng, deal["bag"])
    return deal


def _deal(
    unseen: list[int], sizes: dict[str, int], facts: Opening, rng: random.Random
) -> dict[str, list[int]]:
    """`draw_hidden` without the given-back cards (`unseen` and `sizes` lack them)."""
    hands = list(facts.hands)
    starter = hands.pop(0) if hands and hands[0].starter else None
    bound, accept = facts.size, facts.accept
    counts = [sum(sizes[place] for place in hand.places) for hand in hands]
    known = [kind_mask(hand.known) for hand in hands]
    drawn = sum(counts)
    while True:
        pool, deal = unseen, {}
        if starter is not None:
            place = starter.places[0]
            deal[place] = _draw_starter_hand(pool, sizes[place], starter, bound, rng)
            pool = list(pool)
            for card in deal[place]:
                pool.remove(card)
        if not drawn:
            rest = list(pool)
            break
        taken = rng.sample(range(len(pool)), drawn)
        at, ties = 0, 0
        for count, mask in zip(counts, known, strict=True):
            for i in taken[at : at + count]:
                mask |= 1 << pool[i]
            at += count
            largest = max((mask & line_set).bit_count() for line_set in LINE_SETS)
            if largest > bound:
                break
            ties += largest == bound
        else:
            if ties and rng.random() >= accept[ties]:
                continue
            at = 0
            for hand in hands:
                for place in hand.places:
                    deal[place] = [pool[i] for i in taken[at : at + sizes[place]]]
                    at += sizes[place]
            chosen = set(taken)
            rest = [card for i, card in enumerate(pool) if i not in chosen]
            break
    shuffle(rng, rest)  # `rng.shuffle(rest)`, with fewer Python calls (same order)
    for place, size in sizes.items():
        if place not in deal:
            deal[place], rest = rest[:size], rest[size:]
    return deal


def _draw_starter_hand(
    pool: list[int], size: int, hand: DealtHand, opening_size: int, rng: random.Random
) -> list[int]:
    """A uniform draw among the start player's possible hands (cards told apart by copy)."""
    if opening_size < 6:
        while True:  # a largest set of 5 turns up about once in 1,100 draws
            cards = rng.sample(pool, size)
            if fits_opening(cards, hand, opening_size):
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

    W2: a start player opening a line of six holds exactly the rest of that line; a
    hand still as dealt holds no card that would make a line set with its cards laid
    this turn larger than the opening. A card the seat gave back is in the bag (until
    the next draw); when no other copy of it is unseen, it is in no other place.
    """
    out: dict[str, set[int]] = {}
    unseen = unseen_cards(observation)
    sizes = place_sizes(observation)
    reserved = Counter(returned_cards(observation))
    if reserved:
        unseen_counts = Counter(unseen)
        sure = {k for k in reserved if unseen_counts[k] == reserved[k]}
        if sure:
            out = {place: set(sure) for place in sizes if place != "bag"}
    facts = opening_facts(observation, sizes)
    size, kinds = facts.size, set(unseen)
    for hand in facts.hands:
        if hand.starter and size == 6:
            possible = starter_kinds_of_a_six(hand.known, unseen)
            out.setdefault(hand.places[0], set()).update(kinds - possible)
            continue
        laid = kind_mask(hand.known)
        full = [line_set for line_set in LINE_SETS if (laid & line_set).bit_count() >= size]
        beyond = {k for k in kinds if not laid >> k & 1 and any(s >> k & 1 for s in full)}
        for place in hand.places if beyond else ():
            out.setdefault(place, set()).update(beyond)
    return {place: [NAMES[k] for k in sorted(cards)] for place, cards in out.items()}


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
