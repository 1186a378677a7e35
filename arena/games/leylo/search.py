"""LEYLO search support: where cards hide from a seat, and states sampled from its view.

Nobody sees a face-down card, not even its owner (L11), and no card ever turns
face down again, so every face-down card is one of the seat's *free unseen*
cards: the deck minus everything it saw. They are exchangeable, so swaps of
face-down cards tell nothing. The draw pile holds free unseen cards too, until a
reshuffle (L9) rebuilds it from the discard pile: then its contents are public
(the observation's ``draw_pile_known``) and only its order is secret. A card
just drawn from the pile is hidden from everybody but its drawer and comes from
the same place as the rest of the pile.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

from arena.games.leylo.cards import CODES, EMPTY, NAMES, full_deck
from arena.games.leylo.state import LeyloState
from arena.games.leylo.views import copy_result

#: Names of the hidden places besides the face-down cells.
PILE, HELD = "draw pile", "held"
#: How observations write a face-down and a cleared cell.
HIDDEN_NAME, EMPTY_NAME = "hidden", "empty"
#: Marks a face-down cell while a sampled grid is being filled.
UNKNOWN = -2


#: The hidden place of one face-down cell, by seat and cell: "grid:2:cell:5".
CELL_PLACES: tuple[tuple[str, ...], ...] = tuple(
    tuple(f"grid:{seat}:cell:{cell}" for cell in range(16)) for seat in range(6)
)


def held_is_hidden(state: LeyloState, seat: int) -> bool:
    """True while `state` holds a card drawn from the pile by another seat (R4)."""
    return state.held is not None and state.held_source == "pile" and seat != state.current


def hidden_places(state: LeyloState, seat: int) -> dict[str, list[Any]]:
    """Every face-down cell, the held card if `seat` cannot see it, and the draw pile."""
    places: dict[str, list[Any]] = {}
    for owner, (cards, up) in enumerate(zip(state.cards, state.up, strict=True)):
        names = CELL_PLACES[owner]
        for cell, code in enumerate(cards):
            if code != EMPTY and not up[cell]:
                places[names[cell]] = [NAMES[code]]
    if held_is_hidden(state, seat):
        assert state.held is not None
        places[HELD] = [NAMES[state.held]]
    places[PILE] = [NAMES[code] for code in state.pile]
    return places


def ruled_out_places(state: LeyloState, seat: int) -> dict[str, list[Any]]:
    """After a reshuffle the pile's contents are public (L9, L11), so a face-down cell
    cannot hold a card that only the pile can, and the pile (and a hidden held card)
    cannot hold one that only the face-down cells can."""
    if not state.pile_known:
        return {}
    places = hidden_places(state, seat)
    in_pile = {*places.pop(PILE), *places.pop(HELD, [])}
    in_cells = {name for cards in places.values() for name in cards}
    not_in_cells = [name for name in NAMES if name not in in_cells]
    not_in_pile = [name for name in NAMES if name not in in_pile]
    ruled = {place: list(not_in_cells) for place in places}
    ruled[PILE] = not_in_pile
    if held_is_hidden(state, seat):
        ruled[HELD] = list(not_in_pile)
    return ruled


#: Card code of every name a grid cell of an observation can show.
_CELL_CODES: dict[str, int] = {**CODES, HIDDEN_NAME: UNKNOWN, EMPTY_NAME: EMPTY}
#: Copies of every card code in the deck.
_DECK_COUNTS: tuple[int, ...] = tuple(full_deck().count(code) for code in range(len(NAMES)))


def _codes(names: Sequence[str]) -> list[int]:
    """Codes of observed card names; ValueError on anything else."""
    try:
        return [CODES[name] for name in names]
    except KeyError as error:
        raise ValueError(f"not a LEYLO card in the observation: {error.args[0]!r}") from None


def _seen_names(observation: Mapping[str, Any], held_shown: bool) -> Counter[str]:
    """How often the seat sees every card name (grids, discard, public pile, hand)."""
    names = [*chain.from_iterable(observation["grids"]), *observation["discard"]]
    if observation["draw_pile_known"] is not None:
        names += observation["draw_pile_known"]
    if held_shown:
        names.append(observation["holding"]["card"])
    seen = Counter(names)
    del seen[HIDDEN_NAME], seen[EMPTY_NAME]
    return seen


def _free_cards(seen: Counter[str]) -> list[int]:
    """The deck minus the cards `seen`, as codes in table order."""
    if not seen.keys() <= CODES.keys():
        unknown = sorted(set(seen) - set(CODES))
        raise ValueError(f"not a LEYLO card in the observation: {unknown[0]!r}")
    free: list[int] = []
    for code, name in enumerate(NAMES):
        left = _DECK_COUNTS[code] - seen[name]
        if left < 0:
            raise ValueError(f"the observation shows more {name!r} cards than the deck has")
        free += [code] * left
    return free


def _shuffle(cards: list[int], rng: random.Random) -> None:
    """Put `cards` in a uniformly random order.

    Sorting by independent uniform keys is a uniform permutation (ties have
    probability near 2**-50) and costs one C-level `random()` per card, about a
    third of `rng.shuffle`: the search calls this for every sample.
    """
    draw = rng.random
    cards.sort(key=lambda _card: draw())


def fill_from_observation(
    state: LeyloState, observation: Mapping[str, Any], rng: random.Random
) -> None:
    """Set every field of a blank `state` from `observation`, the hidden cards at random."""
    holding = observation["holding"]
    held_shown = holding is not None and holding["card"] != HIDDEN_NAME
    known = observation["draw_pile_known"]
    free = _free_cards(_seen_names(observation, held_shown))
    public = _codes(known) if known is not None else []
    grids = observation["grids"]
    if sum(grid.count(HIDDEN_NAME) for grid in grids) > len(free):
        raise ValueError("the observation has more face-down cards than unseen ones")
    _shuffle(free, rng)
    _shuffle(public, rng)
    deal = iter(free)
    state.up = [list(map(CODES.__contains__, grid)) for grid in grids]  # a card name: face up
    state.cards = [
        [next(deal) if name == HIDDEN_NAME else _CELL_CODES[name] for name in grid]
        for grid in grids
    ]
    rest = list(deal)
    source = public if known is not None else rest
    state.held, state.held_source = None, None
    if holding is not None:
        state.held_source = holding["source"]
        state.held = CODES[holding["card"]] if held_shown else source.pop()
    state.pile = source  # the order is random; the top is the last element
    if len(source) != observation["draw_pile_size"] or (source is public and rest):
        raise ValueError("the observation's hidden cards do not fit the LEYLO deck")
    state.discard = _codes(observation["discard"])
    state.pile_known = known is not None
    _fill_flow(state, observation)


def _fill_flow(state: LeyloState, observation: Mapping[str, Any]) -> None:
    """Set the round's flow (phase, whose turn, claim queue, counters) from `observation`."""
    n = state.players
    state.round_no = observation["round"]
    state.totals = list(observation["totals"])
    state.results = list(map(copy_result, observation["results"]))
    state.dealer = observation["dealer"]
    state.start_seat = observation["start_seat"]
    state.phase = observation["phase"]
    state.turns = observation["turns_taken"]
    state.ender = observation["ender"]
    left = observation["final_turns_left"]
    state.final_left = 0 if left is None else left
    asked = list(observation["to_move"])
    # The opening's face-up cards are exactly the flips made so far.
    state.flips = [
        16 - grid.count(HIDDEN_NAME) if state.phase == "flip" else 2
        for grid in observation["grids"]
    ]
    gap = observation["gap"]
    current = observation["current"]
    state.current = (
        gap["after"] if gap is not None else state.dealer if current is None else current
    )
    state.next_seat = gap["before"] if gap is not None else (state.current + 1) % n
    state.clear_context = "claim" if gap is not None else "turn"
    state.actor = state.claimant = asked[0] if asked else state.current
    state.claim_queue = []
    if state.phase == "claim":  # the seats still to be asked after the claimant
        queue = [(state.next_seat + k) % n for k in range(1, n - 1)]
        state.claim_queue = queue[queue.index(state.claimant) + 1 :]
