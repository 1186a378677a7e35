"""LEYLO search support: hidden places, determinize with a public pile, the fast playout."""

from __future__ import annotations

import copy
import itertools
import random
from collections import Counter
from typing import Any

import pytest

from arena.games.leylo import Leylo
from arena.games.leylo.cards import (
    ACTION,
    BITS,
    COLOURS,
    EMPTY,
    FULL_LINES,
    JOKER_GREEN,
    LINE_CELLS,
    NAMES,
    is_line,
)
from arena.games.leylo.draws import DRAWS_MATCH
from arena.games.leylo.search import HELD, PILE
from tests.games.test_leylo import random_games


def busy_positions(players: int, seeds: range) -> list[Leylo]:
    """Copies of positions of busy games (lines, claims, reshuffles, final laps)."""
    return [
        copy.deepcopy(game)
        for index, (game, seat, _) in enumerate(random_games(players, seeds, busy=True))
        if seat is not None and index % 7 == 0
    ]


def plain_playout(game: Leylo, rng: random.Random, limit: int) -> None:
    """The loop `Game.playout` stands for, through the public interface."""
    made = 0
    while made < limit and not game.is_over():
        seats = game.to_move()
        game.apply_joint({seat: rng.choice(game.legal(seat)) for seat in seats})
        made += len(seats)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_playout_makes_the_plain_loops_choices_from_busy_positions(players: int) -> None:
    positions = busy_positions(players, range(1))
    assert len(positions) > 20
    for index, position in enumerate(positions):
        limit = (5, 40, 10**6)[index % 3]
        fast, plain = position.clone(), position.clone()
        made = fast.playout(random.Random(index), limit)
        plain_playout(plain, random.Random(index), limit)
        assert fast.history == plain.history and made == len(fast.history) - len(position.history)
        assert [fast.observe(s) for s in range(players)] == [
            plain.observe(s) for s in range(players)
        ]


class CountingRandom(random.Random):
    """A generator subclass: the playout must use its `choice`, whatever that draws."""

    def choice(self, seq: Any) -> Any:
        return seq[len(seq) // 2] if self.random() < 0.5 else super().choice(seq)


def test_playout_with_a_generator_subclass_falls_back_to_its_choice() -> None:
    fast, plain = Leylo.new(4, 3), Leylo.new(4, 3)
    fast.playout(CountingRandom(5))
    plain_playout(plain, CountingRandom(5), 10**6)
    assert fast.history == plain.history and fast.outcome() == plain.outcome()


def test_the_inlined_draws_match_random_choice_and_shuffle_in_this_python() -> None:
    assert DRAWS_MATCH


def test_is_line_agrees_with_the_rule_on_every_four_cards() -> None:
    """L4 spelled out: four action cards, or one colour and at most one number."""
    codes = [EMPTY, *range(len(NAMES))]
    for four in itertools.product(codes, repeat=4):
        if EMPTY in four:
            expected = False
        elif ACTION in four:
            expected = all(code == ACTION for code in four)
        else:
            numbers = {code for code in four if code < JOKER_GREEN}
            expected = len({COLOURS[code] for code in four}) == 1 and len(numbers) <= 1
        assert is_line(four) == expected, four


def test_full_lines_by_mask() -> None:
    rng = random.Random(1)
    for mask in [0, 0xFFFF, *(rng.getrandbits(16) for _ in range(500))]:
        expected = tuple(
            index
            for index, cells in enumerate(LINE_CELLS)
            if all(mask & BITS[cell] for cell in cells)
        )
        assert FULL_LINES[mask] == expected


def test_clone_shares_no_mutable_state() -> None:
    game = Leylo.new(3, 2)
    game.playout(random.Random(2), limit=200)
    before = [game.observe(s) for s in range(3)]
    twin = game.clone()
    twin.cards[0][0], twin.up[1][3] = EMPTY, not twin.up[1][3]
    twin.pile.append(0)
    twin.discard.pop()
    twin.totals[0] += 5
    twin.playout(random.Random(3))
    assert [game.observe(s) for s in range(3)] == before


def reshuffled_and_drawn(players: int) -> Leylo:
    """A game in `place` after a draw from a pile rebuilt by a reshuffle."""
    for game, seat, _legal in random_games(players, range(5), busy=True):
        drawn = game.phase == "place" and game.held_source == "pile"
        if seat is not None and game.pile_known and drawn and game.pile:
            return copy.deepcopy(game)
    raise AssertionError("no such position in five busy games")


def test_a_public_pile_keeps_its_cards_and_hides_the_drawn_one_among_them() -> None:
    truth = reshuffled_and_drawn(4)
    drawer = truth.current
    other = (drawer + 1) % 4
    public = Counter([*truth.pile, truth.held])
    places = truth.hidden(other)
    assert HELD in places and PILE in places
    assert HELD not in truth.hidden(drawer)
    ruled = truth.ruled_out(other)
    assert set(ruled[PILE]) == {name for name in NAMES if NAMES.index(name) not in public}
    observation = truth.observe(other)
    held_seen: Counter[int] = Counter()
    rng = random.Random(7)
    for _ in range(300):
        sample = Leylo.determinize(observation, other, 4, None, rng)
        assert isinstance(sample, Leylo)
        assert sample.observe(other) == observation
        assert Counter([*sample.pile, sample.held]) == public
        assert sample.held is not None
        held_seen[sample.held] += 1
    assert set(held_seen) == set(public)  # the drawn card is any card of the public pile


def test_before_any_reshuffle_nothing_is_ruled_out() -> None:
    game = Leylo.new(3, 5)
    game.playout(random.Random(5), limit=30)
    assert not game.pile_known and game.ruled_out(0) == {}


def test_determinize_leaves_the_observation_alone_and_rejects_an_impossible_one() -> None:
    game = Leylo.new(3, 6)
    game.playout(random.Random(6), limit=100)
    observation = game.observe(1)
    kept = copy.deepcopy(observation)
    Leylo.determinize(observation, 1, 3, None, random.Random(1))
    assert observation == kept
    observation["discard"] = observation["discard"] + ["joker-red"] * 4
    with pytest.raises(ValueError, match="joker-red"):
        Leylo.determinize(observation, 1, 3, None, random.Random(1))
