"""Ladders: quality-based, uncertain bots first, no starvation, deterministic, resumable;
new versions inherit their rating; `arena leaderboard --latest`."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import load_game
from arena.match.results import SeatResult
from arena.match.run import MatchResult, MatchSpec
from arena.results import reports
from arena.results.rating import NEW_VERSION_SIGMA, environment, inherited, rate
from arena.skill import SIGMA
from arena.status import MatchStatus, SeatStatus
from arena.store import MatchRecord, SeatRecord, Skill, Store
from arena.store.models import Match
from arena.tournament import ladder, runner
from arena.tournament.config import ConfigError, TournamentConfig
from tests.helpers import kill_once_recorded

ROOT = Path(__file__).resolve().parents[1]
ENV = environment("take-that")
RULES = load_game("take-that").spec.version


def groups(skills: list[Skill], count: int, *, last: list[int] | None = None, **kw: int) -> list:
    options = {"start": 0, "players": 2, "max_gap": 2 * len(skills), "seed": 1} | kw
    return ladder.next_groups(
        skills,
        last if last is not None else [-1] * len(skills),
        [True] * len(skills),
        count=count,
        env=ENV,
        **options,
    )


# ----- the scheduler, pure ------------------------------------------------------
def test_the_most_uncertain_bot_is_seeded_and_meets_opponents_of_close_rating() -> None:
    settled = [Skill(mu, 1.0) for mu in (5, 12, 19, 24, 26, 31, 38, 45)]
    newcomer = Skill(25.0, SIGMA)
    chosen = groups([*settled, newcomer], 6, last=[0] * 8 + [-1], start=1)
    assert all(group[0] == 8 for group in chosen)  # uncertain first, group after group
    opponents = {group[1] for group in chosen}
    assert opponents <= {2, 3, 4, 5}  # mu 19..31: the best match quality, never 5 or 45


def test_quality_picks_the_closest_rating_among_settled_bots() -> None:
    skills = [Skill(10.0, 0.8), Skill(30.0, 0.8), Skill(30.5, 0.8), Skill(50.0, 0.8), Skill(29, 3)]
    first = groups(skills, 1, last=[0, 0, 0, 0, 0], start=1)[0]
    assert first[0] == 4  # the highest sigma
    assert set(first) <= {1, 2, 4}


def test_no_bot_waits_longer_than_max_gap_even_when_nobody_wants_to_play_it() -> None:
    rng = random.Random(5)
    n, gap = 12, 15
    skills = [Skill(rng.uniform(20, 30), rng.uniform(0.8, 8)) for _ in range(n)]
    skills[0] = Skill(90.0, 0.5)  # the worst match quality for everyone, and the surest
    last, played = [-1] * n, []
    for start in range(0, 300, 7):  # batches of 7, ratings moving in between
        batch = groups(skills, 7, last=last, start=start, max_gap=gap, seed=9)
        for offset, group in enumerate(batch):
            for e in group:
                last[e] = start + offset
            played.append(set(group))
        for a, b in batch:
            if 0 in (a, b):
                continue  # it stays out of reach
            winner, loser = (a, b) if rng.random() < 0.5 else (b, a)
            skills[winner], skills[loser] = rate(
                "take-that", [skills[winner], skills[loser]], [1, 2]
            )
    for e in range(n):
        for window in range(len(played) - gap + 1):
            assert any(e in g for g in played[window : window + gap]), (e, window)


def test_the_schedule_is_a_function_of_seed_and_ratings() -> None:
    rng = random.Random(2)
    skills = [Skill(rng.uniform(15, 35), rng.uniform(1, 8)) for _ in range(10)]
    assert groups(skills, 20, seed=4) == groups(skills, 20, seed=4)
    assert groups(skills, 20, seed=4) != groups(skills, 20, seed=5)
    three = groups(skills, 5, players=3)
    assert all(len(set(g)) == 3 for g in three)


# ----- ladders through the runner, on a fake executor (no bot processes) -------------
@dataclass
class Done:
    value: MatchResult

    def result(self) -> MatchResult:
        return self.value

    def done(self) -> bool:
        return True


class FakeExecutor:
    """Results from known strengths and the deal's seed: the same spec, the same result."""

    slots = 2

    def __init__(self, strength: dict[int, float], stop_after: int | None = None) -> None:
        self.strength, self.stop_after, self.played = strength, stop_after, 0

    def submit(self, spec: MatchSpec) -> Done:
        if self.stop_after is not None and self.played >= self.stop_after:
            raise KeyboardInterrupt
        self.played += 1
        noise = [
            int.from_bytes(hashlib.sha256(f"{spec.seed}:{s}".encode()).digest()[:4], "big") / 2**32
            for s in range(len(spec.seats))
        ]
        perf = [
            self.strength[ref.version_id or 0] + 8 * noise[i] for i, ref in enumerate(spec.seats)
        ]
        order = sorted(range(len(perf)), key=lambda s: -perf[s])
        seats = [
            SeatResult(s, ref.version_id, perf[s], order.index(s) + 1, SeatStatus.OK, bot=ref.name)
            for s, ref in enumerate(spec.seats)
        ]
        return Done(
            MatchResult(spec.match_id, spec.game, 1, {}, spec.seed, MatchStatus.NORMAL, seats)
        )

    def shutdown(self, now: bool = False) -> None:
        pass


def pool_store(tmp_path: Path, name: str, bots: int) -> tuple[Store, list[str], dict[int, float]]:
    store = Store(f"sqlite:///{tmp_path / name}", inherit=inherited)
    names, strength = [], {}
    for i in range(bots):
        version = store.add_bot_version(
            f"bot{i}", f"sha{i}", str(ROOT / "bots" / "random"), ["python3", "bot.py"], ["*"]
        )
        names.append(f"bot{i}")
        strength[version.id or 0] = float(i)
    return store, names, strength


def schedule(store: Store, tid: int) -> list[tuple[int, list[int], int]]:
    return [(m.number, m.lineup, m.seed) for m in store.matches(tid)]


def new_ladder(store: Store, tmp_path: Path, names: list[str], matches: int = 40) -> int:
    config = TournamentConfig(game="take-that", bots=tuple(names), seed=7)
    return ladder.create(store, tmp_path, config, ladder.LadderSettings(matches, batch=3))


def test_a_resumed_ladder_makes_exactly_the_choices_of_an_uninterrupted_one(
    tmp_path: Path,
) -> None:
    store, names, strength = pool_store(tmp_path, "a.db", 6)
    tid = new_ladder(store, tmp_path, names)
    assert store.match_counts(tid) == (0, 0)
    assert runner.counts(store, tid) == (0, 40)
    runner.run(store, tid, executor=FakeExecutor(strength))  # type: ignore[arg-type]
    assert store.match_counts(tid) == (40, 40)
    whole = schedule(store, tid)
    assert [n for n, _l, _s in whole] == list(range(40))
    assert whole[0][1] == whole[1][1][::-1] and whole[0][2] == whole[1][2]  # seats swapped
    board = reports.leaderboard(store, "take-that", tid)
    assert [row["bot"] for row in board][:2] == ["bot5", "bot4"]

    for stop in (5, 12):  # mid-batch, and where a batch's last match was just recorded
        other, _names, _strength = pool_store(tmp_path, f"b{stop}.db", 6)
        tid2 = new_ladder(other, tmp_path, names)
        with pytest.raises(runner.Interrupted, match="stopped after"):
            runner.run(other, tid2, executor=FakeExecutor(strength, stop_after=stop))  # type: ignore[arg-type]
        assert other.tournament(tid2).status == "interrupted"  # type: ignore[union-attr]
        runner.run(other, tid2, executor=FakeExecutor(strength))  # type: ignore[arg-type]
        assert schedule(other, tid2) == whole


def test_a_ladder_checks_its_settings(tmp_path: Path) -> None:
    store, names, _strength = pool_store(tmp_path, "c.db", 3)
    config = TournamentConfig(game="take-that", bots=tuple(names))
    with pytest.raises(ConfigError, match="at least one match"):
        ladder.create(store, tmp_path, config, ladder.LadderSettings(0))
    with pytest.raises(ConfigError, match="--max-gap must be at least"):
        ladder.create(store, tmp_path, config, ladder.LadderSettings(4, max_gap=2))


# ----- new versions ---------------------------------------------------------------
def record_win(store: Store, tid: int, number: int, winner: int, loser: int) -> None:
    scheduled = Match(
        number=number, game="take-that", game_version=RULES, seed=number, lineup=[winner, loser]
    )
    match = store.add_matches(tid, [scheduled])[-1]
    seats = [SeatRecord(0, winner, 10.0, 1, "ok"), SeatRecord(1, loser, 5.0, 2, "ok")]
    store.record(
        MatchRecord(match.id or 0, "normal", seats),
        lambda before: rate("take-that", before, [1, 2]),
    )


def test_a_new_version_starts_from_the_last_ones_mu_with_sigma_raised(tmp_path: Path) -> None:
    store, names, _strength = pool_store(tmp_path, "v.db", 2)
    one, other = (v.id or 0 for v in store.versions())
    tid = new_ladder(store, tmp_path, names)
    rules = store.tournament(tid).game_version  # type: ignore[union-attr]
    for n in range(30):
        record_win(store, tid, n, one, other)
    old = store.skills([one], "take-that", rules)[one]
    assert old.sigma < NEW_VERSION_SIGMA
    two = store.add_bot_version("bot0", "sha-new", str(ROOT / "bots" / "random"), ["x"], ["*"])
    assert store.skills([two.id or 0], "take-that", rules)[two.id or 0] == inherited(old)
    assert inherited(old) == Skill(old.mu, NEW_VERSION_SIGMA)
    record_win(store, tid, 30, other, two.id or 0)
    seat = [s for _m, s in store.seat_rows(tournament_id=tid) if s.bot_version_id == two.id]
    assert (seat[0].mu_before, seat[0].sigma_before) == (old.mu, NEW_VERSION_SIGMA)
    rows = reports.leaderboard(store, "take-that")
    assert [(r["bot"], r["version"]) for r in rows].count(("bot0", 1)) == 1  # its own row
    assert ("bot0", 2) in [(r["bot"], r["version"]) for r in rows]
    latest = reports.leaderboard(store, "take-that", latest=True)
    assert sorted((r["bot"], r["version"]) for r in latest) == [("bot0", 2), ("bot1", 1)]
    assert [r["rank"] for r in latest] == [1, 2]


# ----- the command ----------------------------------------------------------------
def test_a_ladder_killed_with_sigkill_resumes_with_the_same_choices(tmp_path: Path) -> None:
    """kill -9 a real `arena ladder run`, resume it, compare with an uninterrupted run."""
    args = [
        "ladder",
        "run",
        "--game",
        "take-that",
        "--bots",
        "first-legal,random,take-that-heuristic",
    ]
    args += ["--matches", "6", "--batch", "1", "--seed", "3", "--quiet", "--no-pin"]
    arena = [sys.executable, "-m", "arena"]
    killed_home, whole_home = tmp_path / "killed", tmp_path / "whole"
    env = {**os.environ, "ARENA_HOME": str(killed_home)}
    process = subprocess.Popen(
        arena + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    store = Store(f"sqlite:///{killed_home / 'arena.db'}")
    tid = kill_once_recorded(process, store, 2)
    assert store.match_counts(tid)[0] < 6
    resumed = subprocess.run(
        [*arena, "tournament", "resume", str(tid), "--quiet"], env=env, capture_output=True
    )
    assert resumed.returncode == 0, resumed.stderr
    cli, home = CliRunner(), ["--home", str(whole_home)]
    whole = cli.invoke(app, [*home, *args, "--json"])
    assert whole.exit_code == 0, whole.output
    assert sum(row["games"] for row in json.loads(whole.stdout)) == 2 * 6
    other = Store(f"sqlite:///{whole_home / 'arena.db'}")
    assert schedule(store, tid) == schedule(other, 1)
    assert store.match_counts(tid) == (6, 6)
    shown = cli.invoke(app, [*home, "tournament", "show", "1", "--json"])
    assert json.loads(shown.stdout)["format"] == "ladder"
    latest = cli.invoke(app, [*home, "leaderboard", "take-that", "--latest", "--json"])
    assert len(json.loads(latest.stdout)) == 3, latest.output
    bad = cli.invoke(app, [*home, "ladder", "run", "--game", "take-that", "--matches", "2"])
    assert bad.exit_code == 2 and "--bots" in bad.output


def test_all_means_every_registered_or_bundled_bot_that_plays_the_game(tmp_path: Path) -> None:
    store, _names, _strength = pool_store(tmp_path, "all.db", 2)
    store.add_bot_version("leylo-only", "sha-l", str(ROOT / "bots" / "random"), ["x"], ["leylo"])
    found = ladder.every_bot(store, "take-that")
    assert {"bot0", "bot1", "random", "first-legal", "take-that-heuristic"} <= set(found)
    assert "leylo-only" not in found and "leylo-heuristic" not in found
