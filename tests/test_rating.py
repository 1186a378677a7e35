"""Known-answer tests for arena.results.rating against published TrueSkill results.

Sources:
- [DOCS] the trueskill package's documentation, https://trueskill.org ("Rating
  1:1"): a win of two new players gives 29.396 ± 7.171 and 20.604 ± 7.171; a draw
  gives 25.000 ± 6.458 each.
- [TESTS] the package's own test-suite, sublee/trueskill `trueskilltests.py`
  (`n_vs_n`, `individual`, `multiple_teams`), whose expected values come from Jeff
  Moserware's reference implementation of the TrueSkill paper (Herbrich, Minka,
  Graepel: "TrueSkill: A Bayesian Skill Rating System", NIPS 2006), compared to 3
  decimals.
All use TrueSkill's default parameters (mu 25, sigma 25/3, beta 25/6, tau 25/300,
draw probability 10 %), which are those of the `take-that` environment.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.results.rating import rate, rate_reference
from arena.store import Skill

GAME = "take-that"  # draw probability 0.10, the package default
NEW = Skill.initial()


def rounded(skills: list[Skill]) -> list[tuple[float, float]]:
    return [(round(s.mu, 3), round(s.sigma, 3)) for s in skills]


def close(skills: list[Skill], expected: list[tuple[float, float]]) -> None:
    for got, (mu, sigma) in zip(skills, expected, strict=True):
        assert got.mu == pytest.approx(mu, abs=0.0015)
        assert got.sigma == pytest.approx(sigma, abs=0.0015)


def test_two_player_win() -> None:
    """[DOCS], [TESTS] n_vs_n 1 vs 1."""
    close(rate(GAME, [NEW, NEW], [1, 2]), [(29.396, 7.171), (20.604, 7.171)])
    # Seat order does not matter, only ranks.
    close(rate(GAME, [NEW, NEW], [2, 1]), [(20.604, 7.171), (29.396, 7.171)])


def test_two_player_draw() -> None:
    """[DOCS], [TESTS] n_vs_n 1 vs 1 drawn."""
    close(rate(GAME, [NEW, NEW], [1, 1]), [(25.000, 6.458), (25.000, 6.458)])


def test_free_for_all_of_three() -> None:
    """[TESTS] individual, 3 players, one per rank."""
    close(
        rate(GAME, [NEW, NEW, NEW], [1, 2, 3]),
        [(31.675, 6.656), (25.000, 6.208), (18.325, 6.656)],
    )


def test_free_for_all_with_a_tie() -> None:
    """[TESTS] individual, 3 players all tied."""
    close(
        rate(GAME, [NEW, NEW, NEW], [1, 1, 1]),
        [(25.000, 5.698), (25.000, 5.695), (25.000, 5.698)],
    )


def test_two_against_two() -> None:
    """[TESTS] n_vs_n 2 vs 2: team mates are one rating group and share its rank."""
    close(
        rate(GAME, [NEW] * 4, [1, 2, 1, 2], teams=[0, 1, 0, 1]),
        [(28.108, 7.774), (21.892, 7.774), (28.108, 7.774), (21.892, 7.774)],
    )


def test_three_teams_with_a_tie() -> None:
    """[TESTS] multiple_teams: 2 vs 4 vs 2, the second and third team tied."""
    skills = [
        Skill(40, 4), Skill(45, 3),
        Skill(20, 7), Skill(19, 6), Skill(30, 9), Skill(10, 4),
        Skill(50, 5), Skill(30, 2),
    ]  # fmt: skip
    teams = [0, 0, 1, 1, 1, 1, 2, 2]
    ranks = [1, 1, 2, 2, 2, 2, 2, 2]
    close(
        rate(GAME, skills, ranks, teams=teams),
        [
            (40.877, 3.840), (45.493, 2.934),
            (19.609, 6.396), (18.712, 5.625), (29.353, 7.673), (9.872, 3.891),
            (48.830, 4.590), (29.813, 1.976),
        ],
    )  # fmt: skip


def test_conservative_rating_is_mu_minus_three_sigma() -> None:
    assert Skill(30.0, 2.0).conservative == 24.0
    assert NEW.conservative == pytest.approx(0.0)


def test_rating_is_deterministic_and_pure() -> None:
    before = [Skill(27.0, 5.0), NEW, Skill(22.0, 3.0)]
    first = rate("leylo", before, [2, 1, 3])
    assert rate("leylo", before, [2, 1, 3]) == first
    assert before == [Skill(27.0, 5.0), NEW, Skill(22.0, 3.0)]  # inputs untouched
    assert rounded(first) != rounded(rate(GAME, before, [2, 1, 3]))  # per-game environment


@pytest.mark.parametrize(
    ("seat_counted", "team_numbered", "teams"),
    [
        ([1, 3, 1, 3], [1, 2, 1, 2], [0, 1, 0, 1]),
        ([3, 1, 3, 1], [2, 1, 2, 1], [0, 1, 0, 1]),
        ([1, 4, 3, 1, 4], [1, 3, 2, 1, 3], [0, 1, 2, 0, 1]),
        ([1, 3, 3, 1, 3], [1, 2, 2, 1, 2], [0, 1, 2, 0, 1]),
        ([1, 4, 1, 4, 1, 4], [1, 2, 1, 2, 1, 2], [0, 1, 0, 1, 0, 1]),
    ],
)
def test_team_ranks_by_team_or_by_seat_rate_identically(
    seat_counted: list[int], team_numbered: list[int], teams: list[int]
) -> None:
    """Krumme10 numbers teams (1, 2, 1, 2) where it counted seats (1, 3, 1, 3): same rating."""
    skills = [Skill(20 + 3 * i, 8 - i / 2) for i in range(len(teams))]
    assert rate("krumme10", skills, seat_counted, teams) == rate(
        "krumme10", skills, team_numbered, teams
    )


# ----- the fast port against the trueskill package itself ----------------------------
GAMES = ["take-that", "leylo", "twirkle", "krumme10"]


@st.composite
def matches(draw: st.DrawFn) -> tuple[str, list[Skill], list[int], list[int] | None]:
    """A game, 2-6 seats of any plausible skill, ranks with ties, sometimes teams."""
    game = draw(st.sampled_from(GAMES))
    players = draw(st.integers(2, 6))
    skills = [Skill(draw(st.floats(-20, 70)), draw(st.floats(0.5, 9.0))) for _ in range(players)]
    ranks = [draw(st.integers(1, players)) for _ in range(players)]
    teams = None
    if players >= 4 and draw(st.booleans()):
        teams = [draw(st.integers(0, players // 2)) for _ in range(players)]
        if len(set(teams)) < 2:
            teams = None
    return game, skills, ranks, teams


@settings(max_examples=400, deadline=None)
@given(matches())
def test_rate_gives_the_very_floats_of_the_trueskill_package(
    match: tuple[str, list[Skill], list[int], list[int] | None],
) -> None:
    """`rate` repeats trueskill's arithmetic without its objects: equal to the last bit,
    or the same error where trueskill's floats give up (ratings far apart)."""
    game, skills, ranks, teams = match
    try:
        expected: list[Skill] | str = rate_reference(game, skills, ranks, teams)
    except FloatingPointError as error:
        expected = str(error)
    try:
        got: list[Skill] | str = rate(game, skills, ranks, teams)
    except FloatingPointError as error:
        got = str(error)
    assert got == expected


def test_a_long_chain_of_matches_rates_exactly_as_the_package() -> None:
    """Ratings fed back match after match (as a tournament does) never drift apart."""
    chooser = random.Random(7)
    fast = {b: Skill.initial() for b in range(8)}
    slow = dict(fast)
    for _ in range(300):
        players = chooser.randint(2, 6)
        seated = chooser.sample(range(8), players)
        ranks = [chooser.randint(1, players) for _ in seated]
        new_fast = rate("krumme10", [fast[b] for b in seated], ranks)
        new_slow = rate_reference("krumme10", [slow[b] for b in seated], ranks)
        for b, f, s in zip(seated, new_fast, new_slow, strict=True):
            fast[b], slow[b] = f, s
    assert fast == slow


def test_the_rating_rule_loads_no_database_code() -> None:
    """arena.results.rating rates in arena.skill's Skill: importing it loads no store."""
    probe = (
        "import sys, arena.results.rating\n"
        "heavy = {'sqlmodel', 'sqlalchemy', 'arena.store'}\n"
        "print(sorted(heavy & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().strip() == "[]"
