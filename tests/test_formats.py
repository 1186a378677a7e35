"""Tournament formats: pure schedulers with duplicate deals."""

from __future__ import annotations

from collections import Counter
from math import comb

import pytest

from arena.tournament.formats import gauntlet, rotations, round_robin


@pytest.mark.parametrize(
    ("bots", "players", "rounds"), [(2, 2, 3), (4, 2, 2), (5, 3, 1), (4, 4, 2)]
)
def test_round_robin_plays_every_group_every_deal_in_every_rotation(
    bots: int, players: int, rounds: int
) -> None:
    schedule = round_robin(bots, players, rounds, seed=9)
    assert len(schedule) == comb(bots, players) * rounds * players
    assert [p.number for p in schedule] == list(range(len(schedule)))
    by_deal: dict[int, list[tuple[int, ...]]] = {}
    for p in schedule:
        by_deal.setdefault(p.seed, []).append(p.seats)
    assert len(by_deal) == comb(bots, players) * rounds  # one deal per group and round
    for lineups in by_deal.values():
        assert sorted(lineups) == sorted(rotations(lineups[0]))  # each rotation once
    seats = Counter((bot, seat) for p in schedule for seat, bot in enumerate(p.seats))
    assert len(set(seats.values())) == 1  # every bot sits in every seat equally often


def test_schedule_is_a_pure_function_of_its_seed() -> None:
    assert round_robin(4, 2, 2, 1) == round_robin(4, 2, 2, 1)
    assert round_robin(4, 2, 2, 1) != round_robin(4, 2, 2, 2)


def test_gauntlet_puts_the_challenger_in_every_match() -> None:
    schedule = gauntlet(5, 3, 2, seed=1)
    assert all(0 in p.seats for p in schedule)
    assert len(schedule) == comb(4, 2) * 2 * 3


def test_too_few_bots_is_an_error() -> None:
    with pytest.raises(ValueError, match="needs 3 bots"):
        round_robin(2, 3, 1, 0)
