"""Take That: the rulebook's own examples, rulings T1-T9 and property tests."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import IllegalDecision, VariantError
from arena.games.take_that import DECK, TOADS, TakeThat, twin
from arena.testing import play_random


def game_with(players: int = 3, seed: int = 1, **variant: object) -> TakeThat:
    game = TakeThat.new(players, seed, variant)
    assert isinstance(game, TakeThat)
    return game


def set_position(
    game: TakeThat, hands: list[list[int]], row: list[int], draw: list[int], current: int = 0
) -> None:
    """Put a game into a hand-made position (draw pile listed top first)."""
    game.hands = [sorted(h) for h in hands]
    game.row = list(row)
    game.draw_pile = list(reversed(draw))
    game.current = current


def all_cards(game: TakeThat) -> Counter[int]:
    cards: Counter[int] = Counter(game.row + game.draw_pile)
    for seat in range(game.players):
        cards.update(game.hands[seat] + game.plus[seat])
        cards.update(game.minus_seen[seat] + game.minus_unseen[seat])
    return cards


# ----- T1: the deck ------------------------------------------------------
def test_deck_has_79_cards_7_toads_and_36_twin_pairs() -> None:
    assert len(DECK) == 79 and len(set(DECK)) == 79
    assert min(DECK) == 12 and max(DECK) == 98
    assert not any(c % 10 == 0 for c in DECK)
    assert sorted(TOADS) == [22, 33, 44, 55, 66, 77, 88]
    pairs = {frozenset((c, twin(c))) for c in DECK if c not in TOADS}
    assert len(pairs) == 36
    assert all(twin(c) in DECK for c in DECK)


# ----- rulebook examples -------------------------------------------------
def test_rulebook_row_34_41_49_and_allowed_ranges() -> None:
    """Alex opens with 34; Sarah may play 24-44 and plays 41; Linus may play 31-51 and plays 49."""
    game = game_with(3)
    set_position(
        game,
        hands=[[34, 12, 13], [41, 23, 24, 44, 45, 17], [49, 31, 51, 30 + 2, 52, 15]],
        row=[],
        draw=[16, 18, 19, 26, 27],
    )
    # Alex: an empty row accepts any card (T3).
    assert {d["card"] for d in game.legal(0)} == {12, 13, 34}
    game.apply(0, {"action": "play", "card": 34})
    plays = {d["card"] for d in game.legal(1) if d["action"] == "play"}
    assert plays == {24, 41, 44}  # 23 and 45 lie outside 24..44, 17 too
    game.apply(1, {"action": "play", "card": 41})
    plays = {d["card"] for d in game.legal(2) if d["action"] == "play"}
    assert plays == {31, 32, 49, 51}  # 52 and 15 lie outside 31..51
    game.apply(2, {"action": "play", "card": 49})
    assert game.row == [34, 41, 49]


def test_rulebook_marlene_twists_49_with_94_and_the_row_closes_up() -> None:
    game = game_with(4)
    set_position(game, hands=[[94, 12], [13], [14], [15]], row=[34, 41, 49, 56], draw=[77, 78])
    twist = {"action": "twist", "card": 94, "row_card": 49}
    assert twist in game.legal(0)
    game.apply(0, twist)
    assert game.row == [34, 41, 56]
    assert sorted(game.plus[0]) == [49, 94]
    assert game.hands[0] == [12, 77]  # drew the top card


def test_rulebook_sarah_12_plus_17_minus_is_minus_5() -> None:
    game = game_with(2)
    game.plus[1] = list(range(12))  # 12 plus cards (values do not matter)
    game.minus_seen[1] = [12, 13, 14, 15, 16, 17, 18, 19, 21, 23, 24, 25, 26, 27, 28, 29, 31]
    assert game._round_score(1) == 12 - 17


def test_toad_costs_five_and_cannot_be_twisted() -> None:
    game = game_with(2)
    set_position(game, hands=[[33, 12], [14]], row=[33, 35], draw=[16, 17])
    assert not any(d["action"] == "twist" for d in game.legal(0))
    game.minus_seen[0] = [33, 35]
    assert game._round_score(0) == -6


# ----- T5/T6: taking the row and the end ---------------------------------
def test_taking_is_always_allowed_and_the_taker_opens_the_new_row() -> None:
    game = game_with(2)
    set_position(game, hands=[[35, 12], [14, 15]], row=[34], draw=[16, 17, 18])
    assert {"action": "play", "card": 35} in game.legal(0)
    assert game.legal(0)[-1] == {"action": "take"}
    game.apply(0, {"action": "take"})
    assert game.to_move() == [0] and game.minus_seen[0] == [34]
    assert game.legal(0) == [{"action": "play", "card": 12}, {"action": "play", "card": 35}]
    game.apply(0, {"action": "play", "card": 12})
    assert game.row == [12] and game.to_move() == [1]
    assert game.hands[0] == [16, 35]


def test_take_with_empty_draw_pile_ends_the_round_at_once() -> None:
    game = game_with(2, rounds=1)
    set_position(game, hands=[[35], [14]], row=[34, 45], draw=[])
    game.apply(0, {"action": "take"})
    assert game.is_over()
    assert game.outcome().scores == (-2.0, 0.0)
    assert game.outcome().ranks == (2, 1)


def test_twist_emptying_row_then_drawing_last_card_ends_the_round() -> None:
    """T6: the end check comes after the draw."""
    game = game_with(2, rounds=1)
    set_position(game, hands=[[94, 12], [13]], row=[49], draw=[77])
    game.apply(0, {"action": "twist", "card": 94, "row_card": 49})
    assert game.is_over()
    assert game.outcome().scores == (2.0, 0.0)


def test_twist_emptying_row_with_cards_left_lets_next_player_open() -> None:
    game = game_with(2)
    set_position(game, hands=[[94, 12], [13, 15]], row=[49], draw=[77, 78])
    game.apply(0, {"action": "twist", "card": 94, "row_card": 49})
    assert not game.is_over() and game.row == []
    assert [d["card"] for d in game.legal(1)] == [13, 15]


def test_empty_hand_must_take() -> None:
    game = game_with(2, rounds=1)
    set_position(game, hands=[[], [13]], row=[34, 35], draw=[])
    assert game.legal(0) == [{"action": "take"}]


def test_second_round_deals_again_and_moves_the_start_seat() -> None:
    game = game_with(3, rounds=2)
    set_position(game, hands=[[35], [14], [15]], row=[34], draw=[])
    game.apply(0, {"action": "take"})
    assert not game.is_over()
    assert game.round == 2 and game.to_move() == [1]
    assert all(len(h) == 9 for h in game.hands) and game.row == []
    assert game.round_scores == [[-1, 0, 0]]


# ----- T8: the profi variant ---------------------------------------------
def test_pro_taking_a_single_card_row_costs_the_top_card_unseen() -> None:
    game = game_with(2, pro=True)
    set_position(game, hands=[[35, 12], [14]], row=[34], draw=[88, 17])
    game.apply(0, {"action": "take"})
    assert game.minus_seen[0] == [34] and game.minus_unseen[0] == [88]
    assert game._round_score(0) == -6
    view = game.observe(1)
    assert view["minus_seen"][0] == [34] and view["minus_unseen"][0] == 1
    assert "88" not in json.dumps(view)


def test_pro_taking_a_longer_row_costs_nothing_extra() -> None:
    game = game_with(2, pro=True)
    set_position(game, hands=[[35, 12], [14]], row=[34, 36], draw=[88, 17])
    game.apply(0, {"action": "take"})
    assert game.minus_unseen[0] == []


def test_without_pro_a_single_card_take_costs_only_that_card() -> None:
    game = game_with(2)
    set_position(game, hands=[[35, 12], [14]], row=[34], draw=[88, 17])
    game.apply(0, {"action": "take"})
    assert game.minus_unseen[0] == []


# ----- variants and set-up -----------------------------------------------
def test_hand_sizes_9_with_2_or_3_and_8_with_4() -> None:
    assert [len(h) for h in game_with(2).hands] == [9, 9]
    assert [len(h) for h in game_with(3).hands] == [9, 9, 9]
    assert [len(h) for h in game_with(4).hands] == [8, 8, 8, 8]


@pytest.mark.parametrize("variant", [{"rounds": 0}, {"pro": "maybe"}, {"colour": 1}])
def test_bad_variants_are_refused(variant: dict[str, object]) -> None:
    with pytest.raises(VariantError):
        TakeThat.new(2, 1, variant)


def test_illegal_decisions_are_refused() -> None:
    game = game_with(2)
    set_position(game, hands=[[35, 12], [14]], row=[34], draw=[88, 17])
    for bad in ({"action": "play", "card": 12}, {"action": "play", "card": 14}, {"action": "x"}):
        with pytest.raises(IllegalDecision):
            game.apply(0, bad)
    with pytest.raises(IllegalDecision):
        game.apply(1, {"action": "take"})


# ----- properties ---------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), pro=st.booleans())
def test_all_79_cards_are_always_accounted_for(seed: int, players: int, pro: bool) -> None:
    game = game_with(players, seed, pro=pro)
    rng = random.Random(seed)
    while not game.is_over():
        assert all_cards(game) == Counter(DECK)
        seat = game.to_move()[0]
        game.apply(seat, rng.choice(game.legal(seat)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), steps=st.integers(0, 120))
def test_observation_ignores_cards_the_seat_cannot_know(
    seed: int, players: int, steps: int
) -> None:
    """Shuffling other hands, the draw pile and unseen profi cards leaves a view unchanged."""
    game = game_with(players, seed, pro=True)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over():
            break
        seat = game.to_move()[0]
        game.apply(seat, rng.choice(game.legal(seat)))
    for seat in range(players):
        before, envelope = game.observe(seat), game.observation(seat)
        hidden = list(game.draw_pile)
        for other in range(players):
            if other != seat:
                hidden += game.hands[other] + game.minus_unseen[other]
        hidden += game.minus_unseen[seat]
        rng.shuffle(hidden)
        game.draw_pile, hidden = hidden[: len(game.draw_pile)], hidden[len(game.draw_pile) :]
        for other in [o for o in range(players) if o != seat] + [seat]:
            if other != seat:
                n = len(game.hands[other])
                game.hands[other], hidden = sorted(hidden[:n]), hidden[n:]
            n = len(game.minus_unseen[other])
            game.minus_unseen[other], hidden = hidden[:n], hidden[n:]
        assert not hidden
        assert game.observe(seat) == before
        assert game.observation(seat) == envelope  # protocol 2 hides the same


def test_random_games_end_with_consistent_scores() -> None:
    for seed in range(30):
        game = game_with(2 + seed % 3, seed, pro=seed % 2 == 0)
        result = play_random(game, random.Random(seed))
        assert result.outcome is not None
        assert len(game.round_scores) == 2
        assert result.outcome.scores == tuple(
            float(sum(r)) for r in zip(*game.round_scores, strict=True)
        )
