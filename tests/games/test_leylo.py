"""LEYLO: the rulebook's examples, rulings L1-L11, hidden information and the heuristic bot."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator

from arena.games import IllegalDecision, VariantError
from arena.games.leylo import Leylo
from arena.games.leylo.cards import (
    ACTION,
    CODES,
    DECK_TABLE,
    EMPTY,
    JOKER_RED,
    JOKER_YELLOW,
    NAMES,
    full_deck,
    is_line,
)
from arena.testing import check_game
from tests.helpers import load_bot_module

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "protocol" / "games"

# A 4x4 latin square of 0..3: no row or column holds two equal values, so no line.
LATIN = [str((i + i // 4) % 4) for i in range(16)]


def new_game(players: int = 3, seed: int = 1, **variant: Any) -> Leylo:
    game = Leylo.new(players, seed, variant)
    assert isinstance(game, Leylo)
    return game


def flip_all(game: Leylo, cells: tuple[int, int] = (0, 1)) -> None:
    """Play the opening: every seat turns up the two given cells."""
    for cell in cells:
        game.apply_joint({s: {"action": "flip", "cell": cell} for s in game.to_move()})


def set_grid(game: Leylo, seat: int, cells: list[str]) -> None:
    """Hand-made grid: "7" face up, "?7" face down, "" cleared."""
    assert len(cells) == 16
    game.cards[seat] = [EMPTY if c == "" else CODES[c.lstrip("?")] for c in cells]
    game.up[seat] = [c != "" and not c.startswith("?") for c in cells]


def set_piles(game: Leylo, discard: list[str], pile: list[str]) -> None:
    """Discard pile bottom first, draw pile top first."""
    game.discard = [CODES[c] for c in discard]
    game.pile = [CODES[c] for c in reversed(pile)]


def start_turn(game: Leylo, seat: int) -> None:
    game.current = seat
    game.phase = "turn"


def all_cards(game: Leylo) -> Counter[int]:
    cards: Counter[int] = Counter(game.pile + game.discard)
    for grid in game.cards:
        cards.update(c for c in grid if c != EMPTY)
    if game.held is not None:
        cards[game.held] += 1
    return cards


def pick(legal: list[dict[str, Any]], rng: random.Random, busy: bool) -> dict[str, Any]:
    """A random decision; `busy` players mostly draw and clear instead of swapping.

    Uniformly random players swap in most turns and the stalling guard ends
    their rounds; busy ones also end rounds, clear lines and empty the pile.
    """
    if busy and rng.random() < 0.9:
        useful = [d for d in legal if d["action"] in ("draw", "clear", "claim")]
        if useful:
            return rng.choice(useful)
    return rng.choice(legal)


def random_games(players: int, seeds: range, busy: bool = False) -> Any:
    """Yield (game, seat, legal) at every decision of seeded random games."""
    for seed in seeds:
        game = new_game(players, seed)
        rng = random.Random(seed)
        while not game.is_over():
            decisions = {}
            for seat in game.to_move():
                legal = game.legal(seat)
                yield game, seat, legal
                decisions[seat] = pick(legal, rng, busy)
            game.apply_joint(decisions)
        yield game, None, []


# ----- L1: the deck ------------------------------------------------------
def test_default_deck_has_111_cards() -> None:
    deck = Counter(full_deck())
    assert sum(deck.values()) == 111
    assert all(deck[v] == 8 for v in range(12))
    assert [deck[CODES[f"joker-{c}"]] for c in ("green", "yellow", "red")] == [3, 3, 3]
    assert deck[ACTION] == 6
    assert [row[1] for row in DECK_TABLE[:12]] == ["green"] * 4 + ["yellow"] * 4 + ["red"] * 4
    assert DECK_TABLE[ACTION][1] is None


def test_variant_rounds_3_to_5() -> None:
    assert new_game(2).variant == {"rounds": 3}
    assert new_game(2, rounds=5).variant == {"rounds": 5}
    for bad in (2, 6):
        with pytest.raises(VariantError):
            new_game(2, rounds=bad)
    assert Leylo.spec.higher_score_wins is False


# ----- L2: the opening -----------------------------------------------------
def test_opening_flips_are_offered_to_everybody_at_once_one_card_each() -> None:
    game = new_game(4)
    assert game.to_move() == [0, 1, 2, 3]
    assert game.legal(2) == [{"action": "flip", "cell": i} for i in range(16)]
    game.apply_joint({s: {"action": "flip", "cell": 5} for s in range(4)})
    assert game.to_move() == [0, 1, 2, 3]
    assert {"action": "flip", "cell": 5} not in game.legal(0)
    with pytest.raises(IllegalDecision):
        game.apply_joint({0: {"action": "flip", "cell": 5}})
    game.apply_joint({s: {"action": "flip", "cell": 6} for s in range(4)})
    assert game.phase == "turn" and game.to_move() == [game.start_seat]
    assert all(sum(up) == 2 for up in game.up)


def test_highest_visible_sum_starts_ties_go_to_the_dealers_left() -> None:
    game = new_game(4)  # round 1: dealer 0, so the order of ties is 1, 2, 3, 0
    for seat, cells in enumerate((["9", "?3"], ["5", "?7"], ["11", "?1"], ["joker-red", "?1"])):
        set_grid(game, seat, cells + ["?1"] * 14)
    game.flips = [1, 1, 1, 1]  # each has turned up cell 0 already
    game.apply_joint({s: {"action": "flip", "cell": 1} for s in range(4)})
    assert game.start_seat == 3  # joker 12 + 1 beats 12 of seats 0, 1 and 2
    game = new_game(4)
    for seat in range(4):
        set_grid(game, seat, ["?9", "?3"] + ["?1"] * 14)
    flip_all(game)
    assert game.start_seat == 1  # all 12: first from the dealer's left


def test_start_sum_counts_action_cards_as_in_scoring() -> None:
    for players, expected in ((2, 1), (3, 0)):
        game = new_game(players)
        set_grid(game, 0, ["?action", "?0"] + ["?1"] * 14)
        set_grid(game, 1, ["?5", "?5"] + ["?1"] * 14)
        for seat in range(2, players):
            set_grid(game, seat, ["?0", "?0"] + ["?1"] * 14)
        flip_all(game)
        assert game.start_seat == expected


# ----- L3: turns ---------------------------------------------------------------
def test_turn_offers_both_draws_and_every_adjacent_swap() -> None:
    game = new_game(2)
    flip_all(game)
    legal = game.legal(game.current)
    assert legal[:2] == [
        {"action": "draw", "source": "pile"},
        {"action": "draw", "source": "discard"},
    ]
    swaps = [d["cells"] for d in legal[2:]]
    assert len(swaps) == 24 and [0, 1] in swaps and [0, 4] in swaps and [3, 4] not in swaps


def test_swap_keeps_face_states_and_ends_the_turn() -> None:
    game = new_game(2)
    flip_all(game)
    set_grid(game, 0, ["4", "?9", *LATIN[2:]])
    start_turn(game, 0)
    game.apply(0, {"action": "swap", "cells": [0, 1]})
    assert game.cards[0][:2] == [9, 4] and game.up[0][:2] == [False, True]
    assert game.to_move() == [1]


def test_draw_then_replace_any_card_or_discard_and_reveal() -> None:
    game = new_game(2)
    flip_all(game)
    set_grid(game, 0, ["?5", *LATIN[1:]])
    set_piles(game, ["8"], ["2", "6"])
    start_turn(game, 0)
    game.apply(0, {"action": "draw", "source": "pile"})
    assert game.observe(0)["holding"] == {"source": "pile", "card": "2"}
    assert game.observe(1)["holding"] == {"source": "pile", "card": "hidden"}
    legal = game.legal(0)
    assert legal == [{"action": "replace", "cell": i} for i in range(16)] + [
        {"action": "discard", "reveal": 0}
    ]
    game.apply(0, {"action": "replace", "cell": 0})  # the face-down 5 goes face up to the discard
    assert game.cards[0][0] == 2 and game.up[0][0] and game.discard == [8, 5]
    # Seat 0 has no face-down card left: the round is ending, seat 1 has one more turn.
    assert game.ender == 0 and game.to_move() == [1]


def test_taking_the_discard_and_discarding_it_again_is_allowed() -> None:
    game = new_game(2)
    flip_all(game)
    start_turn(game, 0)
    top = game.discard[-1]
    game.apply(0, {"action": "draw", "source": "discard"})
    assert game.observe(1)["holding"] == {"source": "discard", "card": NAMES[top]}
    cell = game.legal(0)[-1]["reveal"]
    game.apply(0, {"action": "discard", "reveal": cell})
    assert game.discard[-1] == top and game.up[0][cell]


def test_cleared_cells_cannot_be_swapped_or_replaced() -> None:
    game = new_game(2)
    flip_all(game)
    set_grid(game, 0, ["", "", "", ""] + ["?3"] * 12)
    start_turn(game, 0)
    swaps = [d["cells"] for d in game.legal(0) if d["action"] == "swap"]
    assert all(a >= 4 and b >= 4 for a, b in swaps) and len(swaps) == 17
    game.apply(0, {"action": "draw", "source": "discard"})
    assert {d.get("cell") for d in game.legal(0) if d["action"] == "replace"} == set(range(4, 16))


# ----- L4: lines -------------------------------------------------------------
def take_discard_into_cell_3(joker: str) -> Leylo:
    """Seat 0 has 10, 10, 10 and a face-down card in row 0 and takes a joker from the discard."""
    game = new_game(2)
    flip_all(game)
    set_grid(game, 0, ["10", "10", "10", "?1", *LATIN[4:]])
    set_piles(game, ["4", joker], ["5"])
    start_turn(game, 0)
    game.apply(0, {"action": "draw", "source": "discard"})
    game.apply(0, {"action": "replace", "cell": 3})
    return game


def test_rulebook_three_10s_and_a_red_joker_clear_a_line() -> None:
    """Rulebook: "drei 10er und einen roten Joker ... so kannst du den Joker als 10 zählen"."""
    game = take_discard_into_cell_3("joker-red")
    assert game.phase == "clear" and game.to_move() == [0]
    assert game.legal(0) == [{"action": "clear", "row": 0}, {"action": "keep"}]
    game.apply(0, {"action": "clear", "row": 0})
    assert game.cards[0][:4] == [EMPTY] * 4
    assert game.discard == [CODES["4"], CODES["1"], 10, 10, 10, JOKER_RED]  # joker on top
    assert game.observe(1)["grids"][0][:4] == ["empty"] * 4
    assert game.to_move() == [1]


@pytest.mark.parametrize("joker", ["joker-yellow", "joker-green"])
def test_rulebook_a_yellow_or_green_joker_does_not_clear_the_10s(joker: str) -> None:
    """Rulebook: "Ein gelber oder grüner Joker könnte dies hier jedoch nicht"."""
    game = take_discard_into_cell_3(joker)
    assert game.phase == "turn" and game.to_move() == [1]
    assert not is_line([10, 10, 10, CODES[joker]])


def test_line_rules() -> None:
    assert is_line([ACTION] * 4) and is_line([JOKER_RED, JOKER_RED, 9, 8 + 1])
    assert not is_line([ACTION, ACTION, ACTION, JOKER_RED])
    assert not is_line([9, 9, 9, 8]) and not is_line([9, 9, 9, EMPTY])
    assert is_line([JOKER_YELLOW] * 4) and not is_line([JOKER_YELLOW] * 3 + [JOKER_RED])


def test_keeping_a_line_and_the_offer_returns_after_the_next_action() -> None:
    game = new_game(2)
    flip_all(game)
    set_grid(game, 0, ["7", "7", "7", "7"] + ["?1"] * 12)
    start_turn(game, 0)
    game.apply(0, {"action": "swap", "cells": [4, 5]})
    assert game.legal(0) == [{"action": "clear", "row": 0}, {"action": "keep"}]
    game.apply(0, {"action": "keep"})
    assert game.to_move() == [1] and game.cards[0][:4] == [7] * 4


def test_two_lines_are_cleared_one_decision_each() -> None:
    game = new_game(2)
    flip_all(game)
    set_grid(game, 0, ["2"] * 4 + ["5", "?1", "?1", "?1"] + ["6"] * 4 + ["?1"] * 4)
    start_turn(game, 0)
    game.apply(0, {"action": "swap", "cells": [5, 6]})
    assert game.legal(0) == [
        {"action": "clear", "row": 0},
        {"action": "clear", "row": 2},
        {"action": "keep"},
    ]
    game.apply(0, {"action": "clear", "row": 2})
    assert game.legal(0) == [{"action": "clear", "row": 0}, {"action": "keep"}]
    game.apply(0, {"action": "clear", "row": 0})
    assert game.to_move() == [1]


# ----- L5: action-card claims -------------------------------------------------
NILS, DAVID, CHRISTIAN = 0, 1, 2


def nils_clears_a_line(christian_row_1: list[str]) -> Leylo:
    """Nils ends his turn by clearing a row whose yellow joker lands on top of the discard."""
    game = new_game(3)
    flip_all(game)
    set_grid(game, NILS, ["5", "5", "joker-yellow", "?9", *LATIN[4:]])
    set_grid(game, DAVID, ["action", *LATIN[1:15], "?2"])
    set_grid(game, CHRISTIAN, LATIN[:4] + christian_row_1 + LATIN[8:15] + ["?2"])
    set_piles(game, ["3", "5"], ["8", "9"])
    start_turn(game, NILS)
    game.apply(NILS, {"action": "draw", "source": "discard"})
    game.apply(NILS, {"action": "replace", "cell": 3})
    game.apply(NILS, {"action": "clear", "row": 0})
    return game


def test_rulebook_christian_claims_the_discard_between_nils_and_david() -> None:
    """Rulebook: Nils clears a row, David is next, Christian takes the top card first with an
    action card, "Anschließend fährt David mit seinem Zug fort"."""
    game = nils_clears_a_line(["3", "action", "1", "2"])
    assert game.discard[-1] == JOKER_YELLOW  # jokers of a cleared line lie on top
    assert game.phase == "claim" and game.to_move() == [CHRISTIAN]  # David (next) is never asked
    assert game.observe(CHRISTIAN)["gap"] == {"after": NILS, "before": DAVID}
    assert game.legal(CHRISTIAN) == [{"action": "claim", "cell": 5}, {"action": "pass"}]
    game.apply(CHRISTIAN, {"action": "claim", "cell": 5})
    assert game.cards[CHRISTIAN][5] == JOKER_YELLOW and game.up[CHRISTIAN][5]
    assert game.discard[-1] == ACTION
    assert game.phase == "turn" and game.to_move() == [DAVID]
    game.apply(DAVID, {"action": "draw", "source": "discard"})
    assert game.observe(DAVID)["holding"] == {"source": "discard", "card": "action"}


def test_a_claim_that_makes_a_line_offers_clearing_it() -> None:
    game = nils_clears_a_line(["6", "6", "6", "action"])
    game.apply(CHRISTIAN, {"action": "claim", "cell": 7})
    assert game.phase == "clear" and game.to_move() == [CHRISTIAN]
    assert game.observe(DAVID)["gap"] == {"after": NILS, "before": DAVID}
    game.apply(CHRISTIAN, {"action": "clear", "row": 1})
    assert game.discard[-1] == JOKER_YELLOW and game.to_move() == [DAVID]


def test_passing_lets_the_turn_go_on() -> None:
    game = nils_clears_a_line(["3", "action", "1", "2"])
    game.apply(CHRISTIAN, {"action": "pass"})
    assert game.phase == "turn" and game.to_move() == [DAVID] and game.discard[-1] == JOKER_YELLOW


def test_claim_priority_runs_clockwise_after_the_next_mover_one_claim_per_gap() -> None:
    game = new_game(5)
    flip_all(game)
    for seat in range(5):
        set_grid(game, seat, ["action", *LATIN[1:15], "?2"])
    start_turn(game, 0)
    game.apply(0, {"action": "swap", "cells": [1, 2]})
    asked = []
    while game.phase == "claim":
        seat = game.to_move()[0]
        asked.append(seat)
        game.apply(seat, {"action": "pass"})
    assert asked == [2, 3, 4]  # neither 0 (just moved) nor 1 (moves next)
    assert game.to_move() == [1]
    game.apply(1, {"action": "swap", "cells": [1, 2]})
    assert game.to_move() == [3]
    game.apply(3, {"action": "claim", "cell": 0})
    assert game.to_move() == [2]  # seats 4 and 0 are not asked after the claim


def test_no_claims_with_two_players() -> None:
    game = new_game(2)
    flip_all(game)
    set_grid(game, 1, ["action", *LATIN[1:15], "?2"])
    start_turn(game, 0)
    game.apply(0, {"action": "swap", "cells": [1, 2]})
    assert game.phase == "turn" and game.to_move() == [1]


def test_seats_without_a_face_up_action_card_are_not_asked() -> None:
    game = new_game(4)
    flip_all(game)
    for seat in range(4):
        set_grid(game, seat, ["?action", *LATIN[1:]])
    start_turn(game, 0)
    game.apply(0, {"action": "swap", "cells": [1, 2]})
    assert game.phase == "turn" and game.to_move() == [1]


# ----- L6, L7: round end and scoring ------------------------------------------------
def end_round_by_seat_0(seat_1_last_card: str) -> Leylo:
    """Seat 0 turns up its last card with 24 points; seat 1 has 24 + its last card's value."""
    game = new_game(3)
    flip_all(game)
    set_grid(game, 0, [*LATIN[:15], "?2"])  # 24 points once the 2 is up
    set_grid(game, 1, ["?" + seat_1_last_card, *LATIN[1:]])
    set_grid(game, 2, [str(int(c) + 1) for c in LATIN[:15]] + ["?3"])  # 40
    set_piles(game, ["9"], ["11"])
    start_turn(game, 0)
    game.apply(0, {"action": "draw", "source": "pile"})
    game.apply(0, {"action": "discard", "reveal": 15})
    assert game.ender == 0 and game.observe(2)["final_turns_left"] == 2
    game.apply(1, {"action": "swap", "cells": [1, 2]})
    assert game.round_no == 1 and game.to_move() == [2]
    game.apply(2, {"action": "swap", "cells": [1, 2]})
    assert game.round_no == 2 and game.phase == "flip"  # each other player had one more turn
    return game


def test_rulebook_round_ender_doubled_when_not_strictly_lowest() -> None:
    game = end_round_by_seat_0("0")  # seat 1 also has 24
    result = game.results[0]
    assert result["points"] == [24, 24, 40]
    assert result["scores"] == [48, 24, 40] and result["doubled"] and result["ender"] == 0
    assert game.totals == [48, 24, 40]


def test_round_ender_not_doubled_when_strictly_lowest() -> None:
    game = end_round_by_seat_0("1")
    assert game.results[0]["scores"] == [24, 25, 40] and not game.results[0]["doubled"]


def test_scoring_jokers_12_action_cards_12_or_0_with_two_players() -> None:
    for players, action_value in ((2, 0), (3, 12)):
        game = new_game(players)
        flip_all(game)
        grid = ["joker-green", "action", "?joker-red", ""] + ["0"] * 4 + LATIN[8:]
        set_grid(game, 0, grid)
        game._end_round()
        assert game.results[0]["points"][0] == 24 + action_value + 12  # LATIN[8:] sums 12
        assert game.observe(0)["action_card_value"] == action_value


# ----- L9, L10: reshuffle and stalling guard -------------------------------------------
def test_empty_draw_pile_is_rebuilt_from_the_discard_below_its_top() -> None:
    game = new_game(2)
    flip_all(game)
    set_piles(game, ["1", "2", "3", "4"], ["7"])
    start_turn(game, 0)
    game.apply(0, {"action": "draw", "source": "pile"})
    game.apply(0, {"action": "discard", "reveal": game.legal(0)[-1]["reveal"]})
    assert game.pile and sorted(game.pile) == [1, 2, 3, 4] and game.discard == [7]
    event = game.chance.log[-1]
    assert event["chance"] == "reshuffle" and sorted(event["outcome"]) == ["1", "2", "3", "4"]
    assert [NAMES[c] for c in reversed(game.pile)] == event["outcome"]  # recorded top first
    assert game.observe(1)["draw_pile_known"] == ["1", "2", "3", "4"]
    # The drawer knows which card it took, the others still count it in the pile.
    game.apply(1, {"action": "draw", "source": "pile"})
    drawn = NAMES[game.held or 0]
    assert drawn not in game.observe(1)["draw_pile_known"]
    assert game.observe(0)["draw_pile_known"] == ["1", "2", "3", "4"]


def test_no_pile_draw_when_nothing_can_be_reshuffled() -> None:
    game = new_game(2)
    flip_all(game)
    set_piles(game, ["6"], [])
    start_turn(game, 0)
    assert game.legal(0)[0] == {"action": "draw", "source": "discard"}
    assert {"action": "draw", "source": "pile"} not in game.legal(0)


def test_stalling_guard_ends_the_round_after_60_turns_per_player_without_doubling() -> None:
    game = new_game(3)
    flip_all(game)
    start_turn(game, 0)
    game.turns = 60 * 3 - 1
    game.apply(0, {"action": "swap", "cells": [1, 2]})
    result = game.results[0]
    assert result["guard"] and result["ender"] is None and not result["doubled"]
    assert game.round_no == 2


def test_guard_does_not_cut_a_final_lap_short() -> None:
    game = new_game(2)
    flip_all(game)
    set_grid(game, 0, [*LATIN[:15], "?2"])
    start_turn(game, 0)
    game.turns = 60 * 2 - 1
    game.apply(0, {"action": "draw", "source": "discard"})
    game.apply(0, {"action": "replace", "cell": 15})
    assert game.round_no == 1 and game.to_move() == [1] and game.ender == 0


def test_r10_a_final_lap_begun_on_the_guard_turn_is_played_out_with_doubling() -> None:
    """L10, R10: the last face-down card is turned up on turn 60 x players itself."""
    game = new_game(3)
    flip_all(game)
    set_grid(game, 0, [*LATIN[:15], "?2"])  # 24 points once the 2 is up
    set_grid(game, 1, ["?0", *LATIN[1:]])  # 24
    set_grid(game, 2, [str(int(c) + 1) for c in LATIN[:15]] + ["?3"])  # 40
    set_piles(game, ["9"], ["11"])
    start_turn(game, 0)
    game.turns = 60 * 3 - 1
    game.apply(0, {"action": "draw", "source": "pile"})
    game.apply(0, {"action": "discard", "reveal": 15})
    # Turn 180 reached the guard's count and ended the round from seat 0's side: the lap.
    seen = game.observe(1)
    assert seen["turns_taken"] == seen["turn_limit"] == 180
    assert game.round_no == 1 and game.ender == 0 and seen["final_turns_left"] == 2
    assert game.to_move() == [1]
    game.apply(1, {"action": "swap", "cells": [1, 2]})
    assert game.round_no == 1 and game.turns == 181 and game.to_move() == [2]
    game.apply(2, {"action": "swap", "cells": [1, 2]})
    # Every other player had its turn past the limit; scored as usual, the ender doubled.
    result = game.results[0]
    assert game.round_no == 2 and result["ender"] == 0 and not result["guard"]
    assert result["points"] == [24, 24, 40] and result["scores"] == [48, 24, 40]
    assert result["doubled"]


def test_r5_a_line_cleared_after_the_rebuild_waits_on_the_discard_pile() -> None:
    """L9, R5: the pile is rebuilt at the start of a turn; the cards of a line cleared in
    that turn stay on the discard pile, and the next draw takes the rebuilt pile's top."""
    game = new_game(2)
    flip_all(game)
    # Seat 0: swapping cells 2 and 6 completes a row of 7s; seat 1 has two face-down cards.
    set_grid(game, 0, ["7", "7", "5", "7", "1", "?2", "7", "?0", *LATIN[8:]])
    set_grid(game, 1, ["?5", "?6", *LATIN[2:]])
    set_piles(game, ["1", "2", "3", "4"], ["8"])
    start_turn(game, 1)
    game.apply(1, {"action": "draw", "source": "pile"})  # the last card of the pile
    game.apply(1, {"action": "discard", "reveal": 0})
    # Seat 0's turn began with an empty pile: rebuilt from the discard pile below the 8.
    rebuilt = game.chance.log[-1]
    assert rebuilt["chance"] == "reshuffle" and sorted(rebuilt["outcome"]) == ["1", "2", "3", "4"]
    assert game.to_move() == [0] and game.discard == [8] and len(game.pile) == 4
    game.apply(0, {"action": "swap", "cells": [2, 6]})
    game.apply(0, {"action": "clear", "row": 0})
    assert game.discard == [8, 7, 7, 7, 7] and game.to_move() == [1]
    # No second rebuild at seat 1's turn: the pile still holds only the rebuilt cards.
    reshuffles = [e for e in game.chance.log if e["chance"] == "reshuffle"]
    assert reshuffles == [rebuilt]
    seen = game.observe(1)
    assert seen["draw_pile_size"] == 4 and seen["draw_pile_known"] == ["1", "2", "3", "4"]
    assert seen["discard"] == ["8", "7", "7", "7", "7"]
    game.apply(1, {"action": "draw", "source": "pile"})
    assert game.held == CODES[rebuilt["outcome"][0]]  # the rebuilt pile's top, not a 7
    assert game.discard == [8, 7, 7, 7, 7] and len(game.pile) == 3


# ----- whole games -------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_conformance_kit(players: int) -> None:
    longest = check_game(Leylo, players, seeds=range(2))
    assert longest <= 32


def test_five_rounds_are_played_and_lowest_total_wins() -> None:
    game = new_game(3, seed=4, rounds=5)
    rng = random.Random(4)
    while not game.is_over():
        game.apply_joint({s: rng.choice(game.legal(s)) for s in game.to_move()})
    assert len(game.results) == 5
    outcome = game.outcome()
    assert list(outcome.scores) == [sum(r["scores"][s] for r in game.results) for s in range(3)]
    best = min(outcome.scores)
    assert all(
        (rank == 1) == (score == best)
        for rank, score in zip(outcome.ranks, outcome.scores, strict=True)
    )


def test_conservation_of_all_111_cards_in_random_games() -> None:
    deck = Counter(full_deck())
    phases: Counter[str] = Counter()
    for busy in (False, True):
        for players in (2, 4, 6):
            for game, _, _ in random_games(players, range(1), busy):
                assert all_cards(game) == deck
                phases[game.phase] += 1
                phases["rebuilt pile"] += game.pile_known
    assert phases["clear"] and phases["claim"] and phases["rebuilt pile"], phases


def shuffle_hidden(game: Leylo, rng: random.Random) -> Leylo:
    """A copy where all face-down cards and the draw pile are shuffled together.

    Once the pile was rebuilt from the (seen) discard pile, its cards are known:
    then face-down cards are shuffled among themselves and the pile by itself.
    """
    other = copy.deepcopy(game)
    slots = [
        (s, i)
        for s in range(other.players)
        for i in range(16)
        if other.cards[s][i] != EMPTY and not other.up[s][i]
    ]
    hidden = [other.cards[s][i] for s, i in slots]
    if other.pile_known:
        rng.shuffle(hidden)
        rng.shuffle(other.pile)
    else:
        pool = hidden + other.pile
        rng.shuffle(pool)
        hidden, other.pile = pool[: len(slots)], pool[len(slots) :]
    for (s, i), card in zip(slots, hidden, strict=True):
        other.cards[s][i] = card
    return other


@pytest.mark.parametrize(("players", "busy"), [(2, False), (3, True), (4, True), (6, True)])
def test_shuffling_face_down_cards_and_the_pile_changes_no_observation(
    players: int, busy: bool
) -> None:
    rng = random.Random(players)
    checked = 0
    for index, (game, seat, legal) in enumerate(random_games(players, range(2), busy)):
        if index % 5 and seat is not None:
            continue
        other = shuffle_hidden(game, rng)
        for s in range(players):
            assert orjson.dumps(other.observe(s)) == orjson.dumps(game.observe(s))
            assert orjson.dumps(other.observation(s)) == orjson.dumps(game.observation(s))
        if seat is not None:
            assert other.legal(seat) == legal
        checked += 1
    assert checked > 100


def test_observation_shows_no_face_down_card() -> None:
    game = new_game(3)
    flip_all(game)
    obs = game.observe(0)
    assert obs["grids"][0].count("hidden") == obs["face_down"][0] == 14
    assert obs["grids"][1].count("hidden") == 14
    assert obs["draw_pile_known"] is None and obs["draw_pile_size"] == 111 - 48 - 1


def load_schema(name: str) -> Draft202012Validator:
    schema = json.loads((PROTOCOL / f"leylo.{name}.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_observations_and_decisions_match_the_schemas(players: int) -> None:
    observation, decision = load_schema("observation"), load_schema("decision")
    seen_actions = set()
    validated: set[bytes] = set()
    games = random_games(players, range(1), busy=players % 2 == 1)
    for index, (game, seat, legal) in enumerate(games):
        for d in legal:
            key = orjson.dumps(d, option=orjson.OPT_SORT_KEYS)
            if key not in validated:  # the same small decisions come again and again
                decision.validate(d)
                validated.add(key)
                seen_actions.add(d["action"])
        if index % 41 == 0 or seat is None:
            for s in range(players):
                observation.validate(game.observe(s))
    assert {"flip", "draw", "swap", "replace", "discard"} <= seen_actions
    # Clearing and claiming are rare at random: check them in a hand-made position.
    game = nils_clears_a_line(["6", "6", "6", "action"])
    for d in game.legal(CHRISTIAN):
        decision.validate(d)
    game.apply(CHRISTIAN, {"action": "claim", "cell": 7})
    for d in game.legal(CHRISTIAN):
        decision.validate(d)
    for s in range(3):
        observation.validate(game.observe(s))


def test_describe() -> None:
    game = new_game(2)
    assert game.describe(1, {"action": "clear", "column": 2}) == "seat 1 clears column 2"
    assert game.describe(0, {"action": "discard", "reveal": 3}) == (
        "seat 0 discards the card and turns up cell 3"
    )


# ----- the heuristic bot -----------------------------------------------------------
def test_heuristic_bot_clearly_beats_random() -> None:
    choose = load_bot_module("leylo-heuristic").choose
    games = wins = 0
    for players in (2, 3, 4):
        for index in range(12):
            seat = index % players
            game = new_game(players, 500 + index)
            rngs = [random.Random(index * 10 + s) for s in range(players)]
            while not game.is_over():
                decisions = {}
                for s in game.to_move():
                    legal = game.legal(s)
                    if s == seat:
                        decisions[s] = choose(game.observation(s), legal, rngs[s])
                    else:
                        decisions[s] = rngs[s].choice(legal)
                game.apply_joint(decisions)
            games += 1
            wins += game.outcome().ranks[seat] == 1
    assert wins / games >= 0.8, f"heuristic won only {wins} of {games} games"
