"""Krumme10: the rulebook's examples, rulings K1-K8 and R1-R12, hidden information, the bot."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator

from arena.errors import ReplayError
from arena.games import IllegalDecision, VariantError, load_game
from arena.games.krumme10 import (
    DECK_SIZE,
    Card,
    Entry,
    Krumme10,
    full_deck,
    kinds,
    parse_card,
)
from arena.match import replay as replays
from arena.match import run as match_module
from arena.match.run import MatchSpec, run_match
from arena.match.seeds import derive
from arena.results import rating
from arena.status import MatchStatus
from arena.store import Skill
from arena.testing import check_game
from tests.helpers import bot_ref_for, load_bot_module

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "protocol" / "games"
VARIANTS: list[dict[str, bool]] = [
    {},
    {"pink4": True},
    {"long": True},
    {"showdown": True},
    {"pink4": True, "long": True, "showdown": True},
]


def new_game(players: int = 3, seed: int = 1, **variant: Any) -> Krumme10:
    game = Krumme10.new(players, seed, variant)
    assert isinstance(game, Krumme10)
    return game


def cards(*names: str) -> list[Card]:
    """Cards by replay name, top side first: "3/4", "4p/5"."""
    return [parse_card(name) for name in names]


def set_hands(game: Krumme10, *hands: list[str]) -> None:
    game.hands = [cards(*hand) for hand in hands]


def set_pile(game: Krumme10, *names: str) -> None:
    """The draw pile, top card first."""
    game.pile = cards(*names)[::-1]


def set_display(game: Krumme10, *names: str, by: int = 2) -> None:
    game.display = [Entry(card, by, False, None) for card in cards(*names)]


def play(game: Krumme10, top: int, flip: bool = False, pink: bool = False) -> None:
    decision: dict[str, Any] = {"action": "play", "top": top}
    if pink:
        decision["pink"] = True
    decision["flip"] = flip
    game.apply(game.to_move()[0], decision)


def tops(hand: list[Card]) -> list[int]:
    return sorted(c.top for c in hand)


def random_games(
    players: int, seeds: range, variant: dict[str, Any] | None = None
) -> Iterator[tuple[Krumme10, int | None, list[dict[str, Any]]]]:
    """Yield (game, seat, legal) at every decision of seeded random games, then (game, None, [])."""
    for seed in seeds:
        game = new_game(players, seed, **(variant or {}))
        rng = random.Random(seed)
        while not game.is_over():
            seat = game.to_move()[0]
            legal = game.legal(seat)
            yield game, seat, legal
            game.apply(seat, rng.choice(legal))
        yield game, None, []


# ----- K1: the deck -------------------------------------------------------------
def test_deck_has_nine_cards_of_each_kind_and_a_3_has_a_2_or_a_4_on_its_back() -> None:
    deck = full_deck(pink4=False)
    assert len(deck) == DECK_SIZE == 54
    pairs = Counter(tuple(sorted((c.top, c.down))) for c in deck)
    assert pairs == {(0, 1): 9, (1, 2): 9, (2, 3): 9, (3, 4): 9, (4, 5): 9, (0, 5): 9}
    for card in deck:
        assert abs(card.top - card.down) == 1 or {card.top, card.down} == {0, 5}
    backs_of_3 = {c.down for c in deck if c.top == 3} | {c.top for c in deck if c.down == 3}
    assert backs_of_3 == {2, 4}
    assert not any(c.top_pink or c.down_pink for c in deck)


def test_pink4_deck_has_two_pink_4s_on_3_4_and_on_4_5() -> None:
    pink = [c for c in full_deck(pink4=True) if c.top_pink or c.down_pink]
    assert Counter(tuple(sorted((c.top, c.down))) for c in pink) == {(3, 4): 2, (4, 5): 2}
    assert all((c.top == 4) == c.top_pink for c in pink)


def test_deal_gives_three_cards_random_sides_up_and_seat_0_starts() -> None:
    ups = Counter()
    for seed in range(20):
        game = new_game(4, seed)
        assert [len(h) for h in game.hands] == [3, 3, 3, 3]
        assert len(game.pile) == 54 - 12
        assert game.to_move() == [0] and game.phase == "play"
        assert kinds(game.all_cards()) == kinds(full_deck(False))
        ups.update(c.top for c in game.all_cards())
        assert not any(c.known for c in game.all_cards())
    assert all(8 * 20 < ups[v] < 10 * 20 for v in range(6)), ups  # about 9 of each per deal


def test_variants() -> None:
    assert new_game(2).variant == {"pink4": False, "teams": False, "long": False, "showdown": False}
    with pytest.raises(VariantError):
        new_game(3, teams=True)
    with pytest.raises(VariantError):
        new_game(3, colour=True)
    combined = new_game(4, pink4=True, teams=True, long=True, showdown=True)
    assert all(combined.variant.values())
    assert load_game("krumme10") is Krumme10


# ----- K3: a turn -----------------------------------------------------------------
def test_a_card_is_played_top_side_up_or_flipped_and_the_player_draws_back_to_three() -> None:
    game = new_game(2)
    set_hands(game, ["3/4", "3/2", "5/0"], ["1/2", "1/0", "2/3"])
    set_pile(game, "2/1", "0/5", "4/5")
    assert game.legal(0) == [
        {"action": "play", "top": 3, "flip": False},
        {"action": "play", "top": 3, "flip": True},
        {"action": "play", "top": 5, "flip": False},
        {"action": "play", "top": 5, "flip": True},
    ]
    play(game, 3, flip=True)  # R2: the 3 that came first, a 4 on its back
    assert [e.card for e in game.display] == [Card(4, 3, known=True)]
    assert game.observe(1)["display"][0] == {
        "card": {"top": 4, "down": 3, "pink": None},
        "by": 0,
        "flipped": True,
        "stolen_from": None,
    }
    assert tops(game.hands[0]) == [2, 3, 5] and game.to_move() == [1]
    play(game, 2)  # 4 + 2 = 6, no steal with a 2
    assert game.observe(0)["sum"] == 6 and game.observe(0)["display"][1]["card"]["down"] is None
    assert game.to_move() == [0] and len(game.hands[1]) == 3 and len(game.pile) == 1


def test_reaching_exactly_10_takes_the_last_card_to_points_optionally_flipped() -> None:
    game = new_game(3)
    set_hands(game, ["3/2", "5/4", "0/1"], ["2/1", "2/3", "4/5"], ["1/0", "1/2", "3/4"])
    set_display(game, "4/5", "3/2")
    set_pile(game, "5/0", "1/2", "2/3")
    play(game, 3)
    obs = game.observe(2)
    assert obs["phase"] == "take" and obs["to_move"] == 0 and obs["sum"] == 10
    assert obs["to_take"] == [{"top": 3, "down": None, "pink": None}]
    assert game.legal(0) == [{"action": "take", "flip": False}, {"action": "take", "flip": True}]
    game.apply(0, {"action": "take", "flip": True})
    assert game.points[0] == [Card(2, 3, known=True)]
    assert game.observe(1)["scores"] == [2, 0, 0]
    assert game.display == [] and tops(game.discard) == [3, 4]
    assert tops(game.hands[0]) == [0, 5, 5] and game.to_move() == [1] and game.target == 10


def test_overrun_the_others_score_a_lowest_card_in_play_order_scoring_is_optional() -> None:
    game = new_game(4)
    set_hands(
        game, ["5/4", "2/1", "3/4"], ["2/3", "0/5", "0/1"], ["3/4", "4/5", "5/0"], ["1/0"] * 3
    )
    set_display(game, "4/5", "3/2")
    set_pile(game, "2/1", "2/3", "4/3", "5/4")
    play(game, 5)  # 12 > 10: seats 1, 2, 3 may score, seat 0 does not
    assert game.discard and game.display == []
    assert game.to_move() == [1]
    assert game.legal(1) == [
        {"action": "score", "top": 0, "flip": False},
        {"action": "score", "top": 0, "flip": True},
        {"action": "pass"},
    ]
    game.apply(1, {"action": "score", "top": 0, "flip": True})  # the first 0: a 5 behind
    assert game.points[1] == [Card(5, 0, known=True)]
    assert tops(game.hands[1]) == [0, 2, 2]  # drew at once, before seat 2 is asked
    assert game.to_move() == [2] and game.observe(0)["score_highest"] is False
    game.apply(2, {"action": "pass"})
    assert tops(game.hands[2]) == [3, 4, 5] and game.points[2] == []
    game.apply(3, {"action": "score", "top": 1, "flip": False})
    assert tops(game.hands[3]) == [1, 1, 2]  # 2/3 from the pile
    assert tops(game.hands[0]) == [2, 3, 4]  # the culprit draws last
    assert game.to_move() == [1] and game.phase == "play"


# ----- K5: the 1 ---------------------------------------------------------------------
def test_rulebook_almas_chain_of_1s_overrun_and_drawing_order() -> None:
    """Rulebook "Das Nachziehen von Karten": Alma plays a 1, steals two 1s from Bernie
    and Carla's 2 (a 3 behind): sum 12. Bernie and Carla score, then draw in the order
    Bernie, Carla, Alma."""
    alma, bernie, carla = 0, 1, 2
    game = new_game(3)
    set_hands(game, ["1/2", "5/4", "4/3"], ["0/1", "2/1", "4/5"], ["2/3", "3/4", "5/4"])
    set_display(game, "3/4", "3/2")  # 6
    set_pile(game, "0/1", "1/2", "2/3", "3/4", "4/5", "5/0", "5/4")
    play(game, 1)
    assert game.phase == "steal" and game.to_move() == [alma]
    assert game.legal(alma) == [
        {"action": "steal", "from": bernie, "top": 0},
        {"action": "steal", "from": bernie, "top": 2},
        {"action": "steal", "from": bernie, "top": 4},
        {"action": "steal", "from": carla, "top": 2},
        {"action": "steal", "from": carla, "top": 3},
        {"action": "steal", "from": carla, "top": 5},
        {"action": "pass"},
    ]
    game.apply(alma, {"action": "steal", "from": bernie, "top": 0})
    assert game.phase == "steal"  # a 1 again: steal on
    game.apply(alma, {"action": "steal", "from": bernie, "top": 2})
    assert game.phase == "steal" and game.observe(carla)["sum"] == 9
    game.apply(alma, {"action": "steal", "from": carla, "top": 2})
    obs = game.observe(bernie)
    assert [c["top"] for c in game.observe(alma)["discard"]] == [3, 3, 1, 1, 1, 3]
    assert obs["phase"] == "score" and obs["to_move"] == bernie
    assert [len(h) for h in game.hands] == [2, 1, 2]  # nobody drew yet
    game.apply(bernie, {"action": "score", "top": 4, "flip": False})
    assert tops(game.hands[bernie]) == [0, 1, 2]  # Bernie draws first, at once
    assert game.to_move() == [carla] and len(game.hands[carla]) == 2
    game.apply(carla, {"action": "score", "top": 3, "flip": False})
    assert tops(game.hands[carla]) == [3, 4, 5]  # then Carla
    assert tops(game.hands[alma]) == [4, 5, 5]  # Alma last
    assert len(game.pile) == 1 and game.to_move() == [bernie] and game.phase == "play"
    assert game.observe(alma)["scores"] == [0, 4, 3]


def test_steal_is_optional_the_stolen_card_is_played_flipped_and_counts_for_the_thief() -> None:
    game = new_game(2)
    set_hands(game, ["0/1", "5/4", "4/3"], ["2/3", "3/4", "0/5"])
    set_display(game, "5/4", "2/3")
    set_pile(game, *["3/2"] * 10)
    play(game, 0, flip=True)  # a 1 behind the 0
    assert game.phase == "steal"
    game.apply(0, {"action": "steal", "from": 1, "top": 2})  # a 3: 5 + 2 + 1 + 3 = 11
    assert game.display == [] and game.to_move() == [1]  # overrun by seat 0
    assert game.discard[-1] == Card(3, 2, known=True)
    game = new_game(2)
    set_hands(game, ["1/0", "5/4", "4/3"], ["2/3", "3/4", "0/5"])
    set_pile(game, *["3/2"] * 10)
    play(game, 1)
    game.apply(0, {"action": "pass"})
    assert game.to_move() == [1] and game.observe(0)["sum"] == 1


def test_the_chain_goes_on_past_the_target_and_a_hit_takes_the_last_stolen_card() -> None:
    game = new_game(3)
    set_hands(game, ["1/0", "5/4", "4/3"], ["0/1", "2/1", "4/5"], ["2/3", "3/4", "5/4"])
    set_display(game, "5/4", "4/3")  # 9
    set_pile(game, *["3/2"] * 10)
    play(game, 1)  # 10 already, but the steal comes first
    game.apply(0, {"action": "steal", "from": 1, "top": 0})  # 11
    assert game.phase == "steal"
    game.apply(0, {"action": "pass"})
    assert game.phase == "score"  # evaluated when the chain ends: an overrun
    game = new_game(3)
    set_hands(game, ["1/0", "5/4", "4/3"], ["0/1", "2/1", "4/5"], ["2/3", "3/4", "5/4"])
    set_display(game, "3/4", "3/2")  # 6
    set_pile(game, *["3/2"] * 10)
    play(game, 1)
    game.apply(0, {"action": "steal", "from": 2, "top": 2})  # 6 + 1 + 3 = 10
    assert game.observe(1)["to_take"] == [{"top": 3, "down": 2, "pink": None}]
    game.apply(0, {"action": "take", "flip": True})  # R6: back to its 2
    assert game.points[0] == [Card(2, 3, known=True)]
    assert [len(h) for h in game.hands] == [3, 3, 3]


# ----- K6: the end --------------------------------------------------------------------
def test_the_game_ends_when_the_pile_is_used_up_and_impossible_draws_are_skipped() -> None:
    game = new_game(3)
    set_hands(game, ["1/0", "5/4", "4/3"], ["0/1", "2/1", "4/5"], ["2/3", "3/4", "5/4"])
    set_display(game, "5/4", "4/3")
    set_pile(game, "3/2")
    play(game, 1)
    game.apply(0, {"action": "steal", "from": 1, "top": 0})
    game.apply(0, {"action": "pass"})  # overrun; seat 1 scores and draws the last card
    game.apply(1, {"action": "score", "top": 2, "flip": False})
    assert not game.is_over() and game.to_move() == [2]  # scoring still goes on
    game.apply(2, {"action": "score", "top": 2, "flip": False})
    assert game.is_over() and game.to_move() == []
    assert [len(h) for h in game.hands] == [2, 2, 2]
    assert game.observe(0)["phase"] == "over" and game.observe(0)["to_move"] is None


def test_long_reshuffles_the_discard_pile_once() -> None:
    for seed in range(5):
        plain = next(g for g, seat, _ in random_games(2, range(seed, seed + 1)) if seat is None)
        game = next(
            g
            for g, seat, _ in random_games(2, range(seed, seed + 1), {"long": True})
            if seat is None
        )
        assert game.reshuffled and game.is_over() and game.pile == []
        assert len(game.history) > len(plain.history)
        reshuffles = [e for e in game.chance.log if e["chance"] == "reshuffle"]
        assert len(reshuffles) == 1


def test_showdown_plays_on_without_drawing_until_every_hand_is_empty() -> None:
    for seed in range(5):
        for game, seat, _ in random_games(3, range(seed, seed + 1), {"showdown": True}):
            if seat is not None and not game.drawing:
                assert game.pile == []
                if game.phase in ("play", "score"):
                    assert game.hands[seat]  # seats with empty hands are skipped
        assert game.is_over() and not any(game.hands) and game.display == []


# ----- K7: teams -------------------------------------------------------------------------
def test_team_scoring_with_5_players_abcab() -> None:
    game = new_game(5, teams=True)
    game.points = [cards("5/4", "3/2"), cards("4/5"), cards("2/1", "1/0"), cards("0/1"), []]
    game.phase = "over"
    outcome = game.outcome()
    assert outcome.teams == (0, 1, 2, 0, 1)
    assert outcome.scores == (4.0, 2.0, 3.0, 4.0, 2.0)  # A (8 + 0) / 2, B 4 / 2, C 3 / 1
    assert outcome.ranks == (1, 3, 2, 1, 3)  # K7: ranks number the teams A, C, B
    obs = game.observe(2)
    assert obs["teams"] == [0, 1, 2, 0, 1] and obs["team_scores"] == [4.0, 2.0, 3.0]
    assert obs["scores"] == [8, 4, 3, 0, 0]


def test_teams_rank_teams_abab_and_ties() -> None:
    """K7: ABAB with A ahead ranks 1, 2, 1, 2 (not 1, 3, 1, 3); tied teams share rank 1."""
    game = new_game(4, teams=True)
    game.points = [cards("5/4"), cards("2/1"), cards("3/2"), []]
    game.phase = "over"
    assert game.outcome().ranks == (1, 2, 1, 2)
    game.points = [cards("1/0"), cards("5/4"), [], []]
    assert game.outcome().ranks == (2, 1, 2, 1)
    game.points = [cards("2/1"), cards("2/1"), [], []]
    assert game.outcome().ranks == (1, 1, 1, 1)
    six = new_game(6, teams=True)
    six.points = [[], cards("1/0"), [], [], [], []]
    six.phase = "over"
    assert six.outcome().ranks == (2, 1, 2, 1, 2, 1)


def test_the_culprits_whole_team_does_not_score_on_an_overrun() -> None:
    game = new_game(4, teams=True)
    set_hands(game, ["5/4", "2/1", "3/4"], ["2/3", "0/5", "0/1"], ["3/4"] * 3, ["1/0"] * 3)
    set_display(game, "4/5", "3/2")
    set_pile(game, *["3/2"] * 10)
    play(game, 5)
    asked = []
    while game.phase == "score":
        seat = game.to_move()[0]
        asked.append(seat)
        game.apply(seat, game.legal(seat)[0])
    assert asked == [1, 3] and game.points[2] == []
    assert game.to_move() == [1]


def test_a_team_mate_may_be_robbed() -> None:
    game = new_game(4, teams=True)
    set_hands(game, ["1/0", "5/4", "3/4"], ["2/3"] * 3, ["3/4"] * 3, ["4/5"] * 3)
    play(game, 1)
    assert {"action": "steal", "from": 2, "top": 3} in game.legal(0)


# ----- variant pink4 -------------------------------------------------------------------------
def test_pink4_a_flipped_pink_4_raises_the_target_to_15_a_plain_pink_4_does_not() -> None:
    game = new_game(2, pink4=True)
    set_hands(game, ["4p/5", "3/4p", "2/1"], ["5/4", "5/4", "5/0"])
    set_pile(game, *["2/1"] * 10)
    assert {"action": "play", "top": 4, "pink": True, "flip": False} in game.legal(0)
    play(game, 4, pink=True)
    assert game.target == 10
    play(game, 5)
    play(game, 3, flip=True)  # the pink 4 comes up by flipping: 4 + 5 + 4 = 13 < 15
    obs = game.observe(1)
    assert obs["target"] == 15 and obs["sum"] == 13 and obs["phase"] == "play"
    assert obs["display"][2]["card"] == {"top": 4, "down": 3, "pink": "top"}
    assert obs["display"][0]["card"] == {"top": 4, "down": None, "pink": "top"}


def test_pink4_hitting_15_takes_every_pink_4_each_with_its_own_flip() -> None:
    game = new_game(2, pink4=True)
    set_hands(game, ["2/1", "5/0", "0/1"], ["5/4", "5/4", "5/0"])
    game.display = [
        Entry(parse_card("4p/5"), 1, False, None),
        Entry(parse_card("4p/3").flipped().flipped(), 1, True, None),
        Entry(parse_card("5/4"), 1, False, None),
    ]
    game.target = 15
    set_pile(game, *["2/1"] * 10)
    play(game, 2)  # 4 + 4 + 5 + 2 = 15
    assert len(game.to_take) == 3 and game.observe(0)["sum"] == 15
    game.apply(0, {"action": "take", "flip": False})  # the last card first
    game.apply(0, {"action": "take", "flip": True})  # the first pink 4: a 5 behind
    assert game.phase == "take"
    game.apply(0, {"action": "take", "flip": False})
    assert [c.top for c in game.points[0]] == [2, 5, 4]
    assert tops(game.discard) == [5] and game.target == 10


def test_pink4_overrun_of_15_scores_a_highest_card() -> None:
    game = new_game(3, pink4=True)
    set_hands(game, ["5/4", "2/1", "0/1"], ["2/3", "0/5", "4p/3"], ["3/4", "4/5", "5/0"])
    set_display(game, "4p/5", "5/4", "4/3")
    game.target = 15
    set_pile(game, *["2/1"] * 10)
    play(game, 5)
    assert game.observe(1)["score_highest"] is True
    assert game.legal(1) == [
        {"action": "score", "top": 4, "pink": True, "flip": False},
        {"action": "score", "top": 4, "pink": True, "flip": True},
        {"action": "pass"},
    ]
    assert any(c.top_pink for c in game.discard)
    game.apply(1, {"action": "score", "top": 4, "pink": True, "flip": False})
    assert game.legal(2)[0] == {"action": "score", "top": 5, "flip": False}


# ----- hidden information (K2) and conservation ----------------------------------------------
def shuffle_hidden(game: Krumme10, rng: random.Random) -> Krumme10:
    """A copy where unseen down sides are shuffled among cards of the same face, and the
    draw pile is shuffled with random sides up."""
    other = copy.deepcopy(game)
    places: list[tuple[list[Any], int, bool]] = []  # (list, index, is a display entry)
    for hand in other.hands + other.points + [other.discard, other.to_take]:
        places += [(hand, i, False) for i in range(len(hand))]
    places += [(other.display, i, True) for i in range(len(other.display))]

    def get(place: tuple[list[Any], int, bool]) -> Card:
        holder, index, entry = place
        card: Card = holder[index].card if entry else holder[index]
        return card

    groups: dict[tuple[int, bool], list[tuple[list[Any], int, bool]]] = {}
    for place in places:
        if not get(place).known:
            groups.setdefault(get(place).face(), []).append(place)
    for group in groups.values():
        backs = [(get(p).down, get(p).down_pink) for p in group]
        rng.shuffle(backs)
        for (holder, index, entry), (down, pink) in zip(group, backs, strict=True):
            if entry:
                holder[index] = holder[index]._replace(
                    card=holder[index].card._replace(down=down, down_pink=pink)
                )
            else:
                holder[index] = holder[index]._replace(down=down, down_pink=pink)
    rng.shuffle(other.pile)
    other.pile = [
        c.flipped()._replace(known=False) if rng.random() < 0.5 else c for c in other.pile
    ]
    assert kinds(other.all_cards()) == kinds(game.all_cards())
    return other


@pytest.mark.parametrize(
    ("players", "variant"),
    [(2, {}), (3, {"pink4": True}), (5, {"long": True, "showdown": True}), (6, {"pink4": True})],
)
def test_shuffling_unseen_down_sides_and_the_pile_changes_no_observation(
    players: int, variant: dict[str, Any]
) -> None:
    rng = random.Random(players)
    checked = 0
    for index, (game, seat, legal) in enumerate(random_games(players, range(3), variant)):
        if index % 3 and seat is not None:
            continue
        other = shuffle_hidden(game, rng)
        for s in range(players):
            assert orjson.dumps(other.observe(s)) == orjson.dumps(game.observe(s))
            assert orjson.dumps(other.observation(s)) == orjson.dumps(game.observation(s))
        if seat is not None:
            assert other.legal(seat) == legal
        checked += 1
    assert checked > 40


def test_observations_are_the_same_for_every_seat_except_the_seat_field() -> None:
    for game, _, _ in random_games(4, range(1), {"pink4": True}):
        views = [game.observe(s) for s in range(4)]
        for s, view in enumerate(views):
            assert view.pop("seat") == s
        assert all(view == views[0] for view in views)
        assert all(c["down"] is None for hand in views[0]["hands"] for c in hand)
        assert "id" not in orjson.dumps(views[0]).decode()


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(v) or "plain")
def test_all_54_cards_are_always_accounted_for(variant: dict[str, Any]) -> None:
    deck = kinds(full_deck(bool(variant.get("pink4"))))
    phases: Counter[str] = Counter()
    for players in (2, 4, 6):
        for game, _, _ in random_games(players, range(2), variant):
            assert kinds(game.all_cards()) == deck
            assert len(game.all_cards()) == 54
            phases[game.phase] += 1
    assert phases["steal"] and phases["take"] and phases["score"] and phases["over"], phases


# ----- whole games, replays, schemas ------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(v) or "plain")
def test_conformance_kit_with_variants(variant: dict[str, Any]) -> None:
    for players in (2, 3, 5, 6):
        assert check_game(Krumme10, players, seeds=range(2), variant=variant) <= 16
    check_game(Krumme10, 5, seeds=range(2), variant={**variant, "teams": True})


def test_a_replay_with_a_bad_deal_is_refused() -> None:
    game = new_game(2, seed=3)
    log = list(game.chance.log)
    log[0] = {"chance": "deal", "outcome": ["0/1"] * 54}
    with pytest.raises(ValueError, match="expected cards"):
        Krumme10.from_chance(2, log, {})
    with pytest.raises(IllegalDecision):
        game.apply(0, {"action": "play", "top": 9, "flip": False})


def load_schema(name: str) -> Draft202012Validator:
    schema = json.loads((PROTOCOL / f"krumme10.{name}.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@pytest.mark.parametrize(
    ("players", "variant"),
    [(2, {"pink4": True, "long": True}), (4, {"teams": True, "pink4": True, "showdown": True})],
)
def test_observations_and_decisions_of_variants_match_the_schemas(
    players: int, variant: dict[str, Any]
) -> None:
    observation, decision = load_schema("observation"), load_schema("decision")
    actions = set()
    for index, (game, _, legal) in enumerate(random_games(players, range(2), variant)):
        for d in legal:
            decision.validate(d)
            actions.add(d["action"])
        if index % 5 == 0:
            observation.validate(game.observe(index % players))
    assert actions == {"play", "steal", "take", "score", "pass"}


def test_describe() -> None:
    game = new_game(2)
    assert game.describe(1, {"action": "play", "top": 3, "flip": True}) == "seat 1 plays 3 flipped"
    assert game.describe(0, {"action": "steal", "from": 1, "top": 4, "pink": True}) == (
        "seat 0 steals a 4 (pink) from seat 1"
    )
    assert game.describe(0, {"action": "pass"}) == "seat 0 passes"


# ----- the heuristic bot -----------------------------------------------------------------------
def test_heuristic_bot_clearly_beats_random() -> None:
    choose = load_bot_module("krumme10-heuristic").choose
    for players in (2, 3, 5):
        wins = 0
        for index in range(15):
            seat = index % players
            game = new_game(players, 700 + index, pink4=index % 2 == 1)
            rngs = [random.Random(index * 10 + s) for s in range(players)]
            while not game.is_over():
                s = game.to_move()[0]
                legal = game.legal(s)
                pick = choose(game.observation(s), legal, rngs[s]) if s == seat else None
                assert pick is None or pick in legal
                game.apply(s, pick if pick is not None else rngs[s].choice(legal))
            wins += game.outcome().ranks[seat] == 1
        assert wins >= 10, (players, wins)


def test_heuristic_bot_speaks_the_protocol() -> None:
    """The bot as a process: start -> ready, decide -> one of the legal decisions, quit."""
    game = new_game(3, seed=5, pink4=True)
    legal = game.legal(0)
    lines = [
        {"type": "start", "seed": 1},
        {"type": "decide", "id": 7, "observation": game.observation(0), "legal": legal},
        {"type": "quit"},
    ]
    done = subprocess.run(
        [sys.executable, "bot.py"],
        cwd=ROOT / "bots" / "krumme10-heuristic",
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    ready, answer = (json.loads(line) for line in done.stdout.splitlines())
    assert ready["type"] == "ready"
    assert answer["type"] == "decision" and answer["id"] == 7 and answer["decision"] in legal


def test_a_team_match_is_rated_as_teams() -> None:
    """A real 4-seat match with `teams`: ABAB team ids reach the rating, mates move together."""
    polite = bot_ref_for("polite")
    seats = tuple(dataclasses.replace(polite, name=f"polite-{i}") for i in range(4))
    result = run_match(
        MatchSpec(match_id="teams", game="krumme10", seed=2, seats=seats, variant={"teams": True})
    )
    assert result.status is MatchStatus.NORMAL
    assert result.teams == [0, 1, 0, 1]
    ranks = [s.rank for s in result.seats]
    assert ranks[0] == ranks[2] and ranks[1] == ranks[3]
    after = rating.rate("krumme10", [Skill.initial()] * 4, ranks, result.teams)
    assert after[0] == after[2] and after[1] == after[3]
    assert (after[0].mu > after[1].mu) == (ranks[0] < ranks[1])


def test_a_team_match_ranks_teams_in_result_replay_and_end_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """K7: ABCAB numbered by team (1, 2, 3) everywhere, old seat-counted replays verify."""
    sent: list[list[int]] = []
    real_end = match_module.messages.end_message

    def recording_end(*args: Any) -> dict[str, Any]:
        sent.append(list(args[3]))
        return real_end(*args)

    monkeypatch.setattr(match_module.messages, "end_message", recording_end)
    polite = bot_ref_for("polite")
    seats = tuple(dataclasses.replace(polite, name=f"polite-{i}") for i in range(5))
    variant = {"teams": True}
    keys = derive(b"test" * 8, 1, "test", 5)  # fixed keys: the same deal every run
    result = run_match(
        MatchSpec("teams5", "krumme10", seed=1, seats=seats, variant=variant, keys=keys)
    )
    assert result.status is MatchStatus.NORMAL and result.teams == [0, 1, 2, 0, 1]
    ranks = [s.rank for s in result.seats]
    assert ranks[0] == ranks[3] and ranks[1] == ranks[4]
    team_ranks = [ranks[0], ranks[1], ranks[2]]
    scores = [result.seats[s].score for s in (0, 1, 2)]
    assert team_ranks == [1 + sum(o > mine for o in scores) for mine in scores]
    assert max(ranks) <= 3  # teams are numbered, not seats
    assert sent == [ranks] * 5  # every seat's `end` message
    assert result.replay is not None and result.replay["outcome"]["ranks"] == ranks
    replays.verify(result.replay)
    # A replay recorded by an earlier arena counted seats: it still verifies.
    old = copy.deepcopy(result.replay)
    old["outcome"]["ranks"] = [1 + sum(o > mine for o in result.replay["outcome"]["scores"])
                               for mine in result.replay["outcome"]["scores"]]  # fmt: skip
    assert old["outcome"]["ranks"] != ranks  # this deal tells the two numberings apart
    replays.verify(old)
    # Any other numbering is still refused, even one that keeps the order.
    for wrong in ([r * 2 for r in ranks], [6 - r for r in ranks]):
        tampered = copy.deepcopy(result.replay)
        tampered["outcome"]["ranks"] = wrong
        with pytest.raises(ReplayError, match="ranks"):
            replays.verify(tampered)
