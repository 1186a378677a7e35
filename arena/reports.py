"""What the CLI shows, as plain JSON-ready data: leaderboards, bots, tournaments.

The CLI prints these as tables or, with --json, as they are; no SQL here
(the store answers the queries) and no terminal output.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.store import Store


def leaderboard(store: Store, game: str, tournament_id: int | None = None) -> list[dict[str, Any]]:
    """Rank, bot, version, mu, sigma, conservative rating, games, wins, average score, forfeits."""
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
        for i, row in enumerate(store.leaderboard(game, tournament_id))
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
    """Versions, games played and rating per game, recent forfeits with stderr tails."""
    versions = store.versions(name=name)
    if not versions:
        return None
    ratings = []
    played: Counter[int] = Counter()
    ids = {v.id for v in versions}
    for _match, seat in store.seat_rows():
        if seat.bot_version_id in ids:
            played[seat.bot_version_id] += 1
    for version in versions:
        for game in sorted({r.game for r in store.ratings_of(version.id or 0)}):
            for row in store.leaderboard(game):
                if row.bot_version_id == version.id:
                    ratings.append(
                        {
                            "version": version.number,
                            "game": game,
                            "mu": round(row.mu, 3),
                            "sigma": round(row.sigma, 3),
                            "rating": round(row.conservative, 3),
                            "games": row.games,
                        }
                    )
    numbers = {v.id: v.number for v in versions}
    return {
        "bot": name,
        "versions": [
            {
                "version": v.number,
                "sha256": v.sha256,
                "games": v.games,
                "matches": played[v.id or 0],
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
    forfeits: Counter[str] = Counter()
    errors = 0
    for match, seat in store.seat_rows(tournament_id=tournament_id):
        if seat.status != "ok":
            forfeits[seat.status] += 1
        if match.status == "platform-error" and seat.seat == 0:
            errors += 1
    return {
        "id": t.id,
        "name": t.name,
        "game": t.game,
        "format": t.format,
        "players": t.players,
        "rounds": t.rounds,
        "seed": t.seed,
        "variant": t.variant,
        "status": t.status,
        "played": done,
        "scheduled": total,
        "platform_errors": errors,
        "standings": leaderboard(store, t.game, tournament_id),
        "head_to_head": [
            {"bot": label[a], "opponent": label[b], "better": w, "equal": d, "worse": lost}
            for (a, b), (w, d, lost) in sorted(store.head_to_head(tournament_id).items())
        ],
        "forfeits": dict(sorted(forfeits.items())),
    }
