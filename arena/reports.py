"""What the CLI shows, as plain JSON-ready data: leaderboards, bots, tournaments.

The CLI prints these as tables or, with --json, as they are; no SQL here
(the store answers the queries, aggregated in the database or, for the all-time
leaderboard and `bot show`, from counters kept on the rating rows; never reading
a replay) and no terminal output. Ratings and leaderboards are per rules version
of a game: the current one unless asked for another.
"""

from __future__ import annotations

from typing import Any

from arena.games import load_game
from arena.store import Store


def leaderboard(
    store: Store, game: str, tournament_id: int | None = None, rules: int | None = None
) -> list[dict[str, Any]]:
    """Rank, bot, version, mu, sigma, conservative rating, games, wins, average score, forfeits.

    All time: under rules version `rules` of the game (default: the current one).
    For a tournament: its own matches, under the rules it was scheduled with.
    """
    if tournament_id is not None:
        found = store.tournament(tournament_id)
        rules = found.game_version if found is not None else rules
    if rules is None:
        rules = load_game(game).spec.version
    return [
        {
            "rank": i + 1,
            "bot": row.bot,
            "version": row.version,
            "mu": round(row.mu, 3),
            "sigma": round(row.sigma, 3),
            "rating": round(row.conservative, 3),
            "games": row.games,
            "wins": row.wins,
            "avg_score": None if row.average_score is None else round(row.average_score, 3),
            "forfeits": row.forfeits,
        }
        for i, row in enumerate(store.leaderboard(game, rules, tournament_id))
    ]


def bots(store: Store) -> list[dict[str, Any]]:
    """Every registered bot with its latest version."""
    latest: dict[str, Any] = {}
    names = store.bot_names()
    for version in store.versions():
        latest[names[version.bot_id]] = version
    return [
        {
            "bot": name,
            "versions": version.number,
            "sha256": version.sha256[:12],
            "games": version.games,
            "submitted": version.created_at.isoformat(timespec="seconds"),
        }
        for name, version in sorted(latest.items())
    ]


def bot_details(store: Store, name: str) -> dict[str, Any] | None:
    """Versions, games played and rating per game and rules version, recent forfeits."""
    versions = store.versions(name=name)
    if not versions:
        return None
    ids = [v.id or 0 for v in versions]
    numbers = {v.id: v.number for v in versions}
    played = store.matches_played(ids)
    ratings = [
        {
            "version": numbers[rating.bot_version_id],
            "game": rating.game,
            "rules": rating.game_version,
            "mu": round(rating.mu, 3),
            "sigma": round(rating.sigma, 3),
            "rating": round(rating.mu - 3 * rating.sigma, 3),
            "games": rating.games,
        }
        for rating in sorted(
            store.ratings_of(ids),
            key=lambda r: (numbers[r.bot_version_id], r.game, -r.game_version),
        )
    ]
    return {
        "bot": name,
        "versions": [
            {
                "version": v.number,
                "sha256": v.sha256,
                "games": v.games,
                "matches": played.get(v.id or 0, 0),
                "submitted": v.created_at.isoformat(timespec="seconds"),
            }
            for v in versions
        ],
        "ratings": ratings,
        "recent_forfeits": [
            {
                "match": match.id,
                "tournament": match.tournament_id,
                "game": match.game,
                "version": numbers.get(seat.bot_version_id),
                "status": seat.status,
                "detail": seat.detail,
                "stderr_tail": seat.stderr[-500:],
            }
            for match, seat in store.forfeits(name)
        ],
    }


def tournaments(store: Store) -> list[dict[str, Any]]:
    """Every tournament with its progress."""
    rows = []
    for t in store.tournaments():
        done, total = store.match_counts(t.id or 0)
        rows.append(
            {
                "id": t.id,
                "name": t.name,
                "game": t.game,
                "format": t.format,
                "players": t.players,
                "status": t.status,
                "played": done,
                "scheduled": total,
                "created": t.created_at.isoformat(timespec="seconds"),
            }
        )
    return rows


def tournament_details(store: Store, tournament_id: int) -> dict[str, Any] | None:
    """Status, matches played of scheduled, standings, head-to-head, forfeits by reason."""
    t = store.tournament(tournament_id)
    if t is None:
        return None
    done, total = store.match_counts(tournament_id)
    names = store.version_names()
    label = {v: f"{n} v{k}" for v, (n, k) in names.items()}
    forfeits = {k: n for k, n in store.seat_statuses(tournament_id).items() if k != "ok"}
    return {
        "id": t.id,
        "name": t.name,
        "game": t.game,
        "rules": t.game_version,
        "format": t.format,
        "players": t.players,
        "rounds": t.rounds,
        "seed": t.seed,
        "variant": t.variant,
        "status": t.status,
        "played": done,
        "scheduled": total,
        "platform_errors": store.void_matches(tournament_id),
        "standings": leaderboard(store, t.game, tournament_id),
        "head_to_head": [
            {"bot": label[a], "opponent": label[b], "better": w, "equal": d, "worse": lost}
            for (a, b), (w, d, lost) in sorted(store.head_to_head(tournament_id).items())
        ],
        "forfeits": dict(sorted(forfeits.items())),
    }
