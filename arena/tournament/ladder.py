"""A ladder: a tournament whose schedule is chosen batch by batch from current ratings.

Each step picks a *group* of bots and plays one deal in every seat rotation
(duplicate deals, as in the other formats), so a ladder of N matches is
N / players groups. A group is built around a *seed* bot:

1. Nobody starves. With n bots and `max_gap` K (in groups, K >= n), the bot that
   played longest ago is the seed of group g as soon as its last group is at least
   K - n + 1 back. Take a bot b last in group g0: from group g0 + K - n + 1 on, the
   rule fires at every group and seeds a bot whose last group is g0 or earlier;
   there are at most n of those, b included, so b plays again by group g0 + K.
   Every bot plays at least once in any K consecutive groups, however the others
   are chosen.
2. Otherwise the most uncertain bot is the seed: the highest sigma, as lowered by
   the groups it already has in the batch being scheduled (the information one
   game adds: 1/sigma'^2 = 1/sigma^2 + 1/NOISE^2). A new bot (sigma 8.3) thus
   plays group after group until its rating settles; settled bots share the rest.
3. Opponents are added one at a time, each among the three bots that give the
   best TrueSkill match quality (`trueskill.quality`: the draw probability
   of the group, high for close and well-known ratings) with the group so far,
   drawn with weights proportional to it; a bot already grouped with the seed in
   this batch counts half, so that a batch does not replay one pairing.

Ratings move only when a match is recorded, so a batch of `batch` groups is
scheduled at once from the ratings as they stand (larger batches keep more
workers busy; smaller ones follow the ratings more closely). The runner asks for
the next batch only once every written match is recorded (arena.tournament.schedule),
and the batch is a pure function of the ladder's seed, the batch's position and the
recorded results: the ratings are the ones the ladder's bots started with (kept in
its settings, `LadderPlan.start`) updated by their recorded seats in the ladder (each
version's last `mu_after`, `sigma_after`), never the live rating rows that other
tournaments may move meanwhile. A batch is written in one transaction, so a run
killed at any point resumes (`arena tournament resume ID`) with exactly the
choices an uninterrupted run makes. Suspended bots get no new groups.

The pool is fixed when the ladder is created (the bots' latest versions); a new
version joins the next ladder, starting from its previous version's rating
(`arena.results.rating.inherited`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence, Set
from dataclasses import dataclass, replace
from pathlib import Path

import trueskill

from arena.match.run import MatchResult
from arena.results.rating import BETA, environment
from arena.skill import Skill
from arena.store import Store
from arena.store.models import Match, Tournament
from arena.submissions.manifest import BUNDLED_BOTS, bundled_names, load_manifest
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.entry import new_tournament
from arena.tournament.formats import pairing_seed, rotations
from arena.tournament.settings import LadderPlan, TournamentSettings

#: The format of a ladder.
LADDER = "ladder"
#: The noise of one game in the sigma estimate of rule 2 (TrueSkill's performance
#: noise for two players, sqrt(2) beta); only spreads a batch, rates nothing.
NOISE = math.sqrt(2) * BETA
#: How many of the best-quality candidates an opponent is drawn from.
CANDIDATES = 3


@dataclass(frozen=True)
class LadderSettings:
    """What a ladder is asked for (`arena ladder run`); `create` stores it as a LadderPlan."""

    #: Matches to play (rounded up to whole groups of `players` rotations).
    matches: int
    #: Groups scheduled at once from the same ratings (0: 2 per worker, at least 4).
    batch: int = 0
    #: Every bot plays in any `max_gap` consecutive groups (0: twice the pool's size).
    max_gap: int = 0


def groups_for(matches: int, players: int) -> int:
    """Groups needed for at least `matches` matches."""
    return -(-matches // players)


def create(store: Store, home: Path, config: TournamentConfig, ladder: LadderSettings) -> int:
    """Check the settings, resolve the bots, note their starting ratings; no match yet."""
    config = replace(config, format=LADDER)
    if ladder.matches < 1:
        raise ConfigError("a ladder needs at least one match (--matches)")
    if ladder.batch < 0 or ladder.max_gap < 0:
        raise ConfigError("--batch and --max-gap must not be negative")
    if len(config.bots) < config.players:
        raise ConfigError(
            f"a ladder of {config.players}-player matches needs {config.players} bots"
        )
    tournament, versions = new_tournament(store, home, config)
    n = len(versions)
    max_gap = ladder.max_gap or 2 * n
    if max_gap < n:
        raise ConfigError(f"--max-gap must be at least the number of bots ({n}), not {max_gap}")
    groups = groups_for(ladder.matches, config.players)
    plan = LadderPlan(
        versions=tuple(versions),
        groups=groups,
        planned=groups * config.players,
        batch=ladder.batch or max(4, 2 * config.workers),
        max_gap=max_gap,
        start=store.skills(versions, tournament.game, tournament.game_version),
    )
    tournament.rounds = groups
    tournament.settings = replace(TournamentSettings.of(config), ladder=plan).to_json()
    return store.create_tournament(tournament, [])


def every_bot(store: Store, game: str) -> list[str]:
    """`--all`: every registered bot whose newest version not retired plays `game`, and
    every bundled bot that plays it (registered when the ladder is created). A retired
    bot, or one with every version retired, is left out (`arena bot retire`)."""
    names = store.bot_names()
    retired = store.retired_versions()
    latest = {  # in version order: the last wins
        names[v.bot_id]: v for v in store.versions() if v.id not in retired
    }
    found = {name for name, v in latest.items() if "*" in v.games or game in v.games}
    registered = set(names.values())
    for name in bundled_names():
        if name not in registered:
            games = load_manifest(BUNDLED_BOTS / name).games
            if "*" in games or game in games:
                found.add(name)
    return sorted(found)


class Ladder:
    """A ladder's schedule (arena.tournament.schedule): what a cut-off run left unrecorded
    of its last batch, then batch after batch chosen from the ladder's own results."""

    def __init__(self, store: Store, tournament: Tournament, settings: TournamentSettings):
        assert tournament.id is not None and settings.ladder is not None
        self.store, self.tournament, self.plan = store, tournament, settings.ladder
        self._pending = store.matches(tournament.id, recorded=False)
        lineups = {v for match in self._pending for v in match.lineup}
        self.entrants = frozenset(self.plan.versions) | lineups

    def next_batch(self, suspended: Set[int]) -> list[Match]:
        """The unrecorded matches of the batch a run was cut off in, else a new batch."""
        if self._pending:
            batch, self._pending = self._pending, []
            return batch
        return extend(self.store, self.tournament, self.plan, suspended)

    def learn(self, match: Match, result: MatchResult | None) -> None:
        """Nothing: the next batch reads the ratings the recorded results left."""


def extend(
    store: Store, tournament: Tournament, plan: LadderPlan, suspended: Set[int]
) -> list[Match]:
    """Write the ladder's next batch (all earlier matches recorded); [] when it is done.

    Returns the tournament's unrecorded matches, as stored.
    """
    assert tournament.id is not None
    versions = plan.versions
    players = tournament.players
    written = store.matches(tournament.id)
    done = len(written) // players
    remaining = plan.groups - done
    if remaining <= 0:
        return []
    skills = dict(plan.start)
    skills.update(store.tournament_skills(tournament.id))
    index = {v: i for i, v in enumerate(versions)}
    last = [-1] * len(versions)
    for match in written:
        for v in match.lineup:
            last[index[v]] = max(last[index[v]], match.number // players)
    chosen = next_groups(
        [skills[v] for v in versions],
        last,
        [v not in suspended for v in versions],
        start=done,
        count=min(plan.batch, remaining),
        players=players,
        max_gap=plan.max_gap,
        seed=tournament.seed,
        env=environment(tournament.game),
    )
    if not chosen:
        return []
    batch = [
        Match(
            number=(done + g) * players + r,
            game=tournament.game,
            game_version=tournament.game_version,
            seed=pairing_seed(tournament.seed, done + g),
            lineup=[versions[i] for i in seats],
        )
        for g, group in enumerate(chosen)
        for r, seats in enumerate(rotations(group))
    ]
    return store.add_matches(tournament.id, batch)


def next_groups(
    skills: Sequence[Skill],
    last: Sequence[int],
    active: Sequence[bool],
    *,
    start: int,
    count: int,
    players: int,
    max_gap: int,
    seed: int,
    env: trueskill.TrueSkill,
) -> list[tuple[int, ...]]:
    """Groups `start` .. `start + count - 1` of a ladder, as entrant indices (see the module).

    `last[i]` is the last group entrant i was in (-1: none yet); inactive
    (suspended) entrants get no group. Fewer groups when too few are active.
    """
    n = len(skills)
    rng = random.Random(f"arena:ladder:{seed}:{start}")
    order = list(range(n))
    rng.shuffle(order)  # ties broken by a seeded order, never by position
    rank = {e: k for k, e in enumerate(order)}
    last = list(last)
    pending = [0] * n
    ratings = [env.create_rating(s.mu, s.sigma) for s in skills]
    together: set[tuple[int, int]] = set()
    threshold = max_gap - n + 1
    groups: list[tuple[int, ...]] = []
    for g in range(start, start + count):
        pool = [e for e in order if active[e]]
        if len(pool) < players:
            break
        waiting = min(pool, key=lambda e: (last[e], rank[e]))
        if g - last[waiting] >= threshold:
            seed_entrant = waiting
        else:
            seed_entrant = max(pool, key=lambda e: (_uncertainty(skills[e], pending[e]), -rank[e]))
        group = [seed_entrant]
        while len(group) < players:
            scored = []
            for e in pool:
                if e in group:
                    continue
                quality = env.quality([(ratings[m],) for m in (*group, e)])
                if (min(seed_entrant, e), max(seed_entrant, e)) in together:
                    quality /= 2
                scored.append((quality, -rank[e], e))
            best = sorted(scored, reverse=True)[:CANDIDATES]
            weights = [max(q, 1e-12) for q, _r, _e in best]
            group.append(rng.choices([e for _q, _r, e in best], weights)[0])
        for e in group:
            last[e] = g
            pending[e] += 1
            if e != seed_entrant:
                together.add((min(seed_entrant, e), max(seed_entrant, e)))
        groups.append(tuple(group))
    return groups


def _uncertainty(skill: Skill, pending: int) -> float:
    """sigma as lowered by `pending` more games (information adds up)."""
    return float((1 / skill.sigma**2 + pending / NOISE**2) ** -0.5)
