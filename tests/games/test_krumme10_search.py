"""Krumme10 search support: the down-side sampler is exact, `ruled_out` states K1's rules."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from arena.games.krumme10 import Card, Kind, Krumme10, Side, Undersides, kinds, parse_card

ZERO_ONE: Kind = ((0, False), (1, False))
ONE_TWO: Kind = ((1, False), (2, False))
ZERO_FIVE: Kind = ((0, False), (5, False))


def exact_pile_odds(cards: list[Kind], faces: list[Side]) -> dict[Kind, float]:
    """By brute force over labelled shuffles with random sides up: the odds of each kind
    being the single pile card, given the faces the other cards show."""
    weight: Counter[Kind] = Counter()
    for order in itertools.permutations(cards):
        shown, pile = order[: len(faces)], order[len(faces)]
        if all(face in card for face, card in zip(faces, shown, strict=True)):
            weight[pile] += 1  # each fitting card lies with that face up: 1/2 each, alike
    total = sum(weight.values())
    return {kind: count / total for kind, count in weight.items()}


def test_the_sampler_draws_exactly_the_odds_of_a_shuffle() -> None:
    cards = [ZERO_ONE, ZERO_ONE, ZERO_ONE, ONE_TWO, ZERO_FIVE]
    faces: list[Side] = [(1, False), (1, False), (0, False), (0, False)]
    exact = exact_pile_odds(cards, faces)
    assert len(exact) == 3  # every kind can be the pile card, with unequal odds
    sampler = Undersides(Counter(faces), Counter(cards))
    rng = random.Random(1)
    drawn: Counter[Kind] = Counter()
    samples = 20_000
    for _ in range(samples):
        downs, pile = sampler.sample(rng)
        assert [len(downs[face]) for face in ((0, False), (1, False))] == [2, 2]
        drawn.update(pile)
    for kind, odds in exact.items():
        assert abs(drawn[kind] / samples - odds) < 0.015, (kind, drawn[kind] / samples, odds)


def test_no_deal_fits_when_the_faces_need_more_cards_than_are_unseen() -> None:
    assert not Undersides(Counter({(1, False): 2}), Counter({ZERO_ONE: 1})).feasible()
    assert Undersides(Counter({(1, False): 2}), Counter({ZERO_ONE: 1, ONE_TWO: 1})).feasible()


def game_showing(hand: list[str], seen: list[str], pink4: bool = False) -> Krumme10:
    """A 2-player game whose seat 0 holds `hand` and whose discard holds `seen` (flipped)."""
    game = Krumme10.new(2, 1, {"pink4": pink4})
    assert isinstance(game, Krumme10)
    rest = Counter(kinds(game.all_cards()))
    game.hands = [[parse_card(name) for name in hand], []]
    game.discard = [parse_card(name).flipped() for name in seen]
    rest.subtract(kinds(game.hands[0] + game.discard))
    game.pile = [
        Card(up, down, up_pink, down_pink) for (up, up_pink), (down, down_pink) in rest.elements()
    ]
    return game


def test_a_card_showing_3_hides_a_2_or_a_4() -> None:
    ruled = game_showing(["3/4"], []).ruled_out(0)
    assert sorted(ruled["hand:0:0:down"]) == [0, 1, 3, 5]
    assert ruled["draw_pile"] == []


def test_with_pink4_a_3_may_hide_a_pink_4_until_both_were_seen() -> None:
    game = game_showing(["3/4"], [], pink4=True)
    assert sorted(map(str, game.ruled_out(0)["hand:0:0:down"])) == ["0", "1", "3", "5"]
    both_seen = game_showing(["3/4"], ["3/4p", "4p/3"], pink4=True)
    assert sorted(map(str, both_seen.ruled_out(0)["hand:0:0:down"])) == ["0", "1", "3", "4p", "5"]
    assert both_seen.ruled_out(0)["draw_pile"] == []  # the 4p|5 cards may still lie there


def test_determinize_after_the_long_reshuffle() -> None:
    """After the reshuffle only the observation is used (the rules page says what it lacks)."""
    variant = {"long": True}
    game = Krumme10.new(3, 5, variant)
    rng = random.Random(5)
    while not game.reshuffled:
        game.playout(rng, 1)
    assert not game.is_over() and game.pile
    truth = game.hidden(1)
    for _ in range(20):
        sample = Krumme10.determinize(game.observe(1), 1, 3, variant, rng)
        assert sample.observe(1) == game.observe(1)
        places = sample.hidden(1)
        assert {p: len(c) for p, c in places.items()} == {p: len(c) for p, c in truth.items()}
        pool = Counter(str(side) for sides in places.values() for side in sides)
        assert pool == Counter(str(side) for sides in truth.values() for side in sides)
        assert kinds(sample.all_cards()) == kinds(game.all_cards())
    sample.playout(rng)
    assert sample.is_over()
