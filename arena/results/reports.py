"""What the CLI shows, as plain JSON-ready data: leaderboards, bots, tournaments.

The CLI prints these as tables or, with --json, as they are; no SQL here
(the store answers the queries, aggregated in the database or, for the all-time
leaderboard and `bot show`, from counters kept on the rating rows; never reading
a replay) and no terminal output. A tournament's standings are computed here from
its seats (`event_standings`: points and its own rating from a fresh start), and
the all-time board's pools from who played whom (`rating.pools`). Ratings and
leaderboards are per rules version of a game: the current one unless asked for another.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from arena.games import load_game
from arena.results import headtohead, rating
from arena.skill import Skill
from arena.status import VOID, SeatStatus
from arena.store import LeaderRow, Store, SuspensionRecord
from arena.store.models import Match, MatchSeat, Tournament

#: How much of a forfeit's stderr the reports show (the store keeps up to 4,000 characters).
STDERR_TAIL = 500


def score_order(game: str) -> str:
    """Which final score ranks first at a game: "higher score wins" or "lower score wins"."""
    return f"{'higher' if load_game(game).spec.higher_score_wins else 'lower'} score wins"


#: Formats that choose opponents from the ratings as they go (a ladder, an SPRT run):
#: there points depend on who a bot was given, so the event's own rating ranks.
ADAPTIVE_FORMATS = frozenset({"ladder", "sprt"})
#: What ranks a tournament's standings, by kind of schedule (`ranked_by`).
BY_POINTS = "points per game, ties by the event's rating"
BY_EVENT_RATING = "the event's rating (TrueSkill from a fresh start, in schedule order)"


def leaderboard(
    store: Store,
    game: str,
    tournament_id: int | None = None,
    rules: int | None = None,
    latest: bool = False,
) -> list[dict[str, Any]]:
    """The all-time board, or a tournament's standings (`event_standings`).

    All time: rank, bot, version, mu, sigma, conservative rating, games, wins, shared
    firsts, average score, forfeits, its pool, and whether a higher or lower score
    wins; under rules version `rules` of the game (default: the current one), ranked
    by the conservative rating within each pool (`rating.pools`: bots linked by
    matches; pool 1 the largest), the rank counted within the pool.

    `wins` are the games a bot ranked first in alone (or with its team alone);
    `shared_1st` those whose first place it shared with a rival (a tie); the two
    make up its games ranked 1.
    """
    if tournament_id is not None:
        found = store.tournament(tournament_id)
        return [] if found is None else event_standings(store, found, latest)
    if rules is None:
        rules = load_game(game).spec.version
    order = score_order(game)
    rows = _board(store, game, rules, latest)
    pool_of = _pool_numbers(store, game, rules, rows)
    rows.sort(key=lambda r: pool_of[r.bot_version_id])  # stable: by rating within a pool
    ranks: dict[int, int] = {}
    board = []
    for row in rows:
        pool = pool_of[row.bot_version_id]
        ranks[pool] = ranks.get(pool, 0) + 1
        board.append(
            {
                "rank": ranks[pool],
                "bot": row.bot,
                "version": row.version,
                "mu": round(row.mu, 3),
                "sigma": round(row.sigma, 3),
                "rating": round(row.conservative, 3),
                **_tail(row),
                "pool": pool,
                "score_order": order,
            }
        )
    return board


def _tail(row: LeaderRow) -> dict[str, Any]:
    """Games, wins alone, shared firsts, average score, forfeits."""
    return {
        "games": row.games,
        "wins": row.wins - row.shared_wins,
        "shared_1st": row.shared_wins,
        "avg_score": None if row.average_score is None else round(row.average_score, 3),
        "forfeits": row.forfeits,
    }


def _pool_numbers(store: Store, game: str, rules: int, rows: list[LeaderRow]) -> dict[int, int]:
    """Version -> its pool's number (1: the largest) among the board's versions.

    Versions left off the board (older ones, with --latest) still link the others."""
    shown = {r.bot_version_id for r in rows}
    # the graph's nodes are versions and tournaments: a tournament joins who played in it
    edges = [(("t", t), ("v", v)) for t, v in store.opponents(game, rules)]
    linked = rating.pools(edges, [("v", v) for v in shown])
    found = [{v for kind, v in pool if kind == "v"} for pool in linked]
    numbered = [pool & shown for pool in found if pool & shown]
    numbered.sort(key=lambda pool: -len(pool))  # stable: ties keep the lowest id first
    return {v: number for number, pool in enumerate(numbered, start=1) for v in pool}


def ranked_by(tournament: Tournament) -> str:
    """What orders a tournament's standings (documented in README, "Standings")."""
    return BY_EVENT_RATING if tournament.format in ADAPTIVE_FORMATS else BY_POINTS


def event_standings(
    store: Store,
    tournament: Tournament,
    latest: bool = False,
    seats: list[tuple[Match, MatchSeat]] | None = None,
) -> list[dict[str, Any]]:
    """A tournament's standings from its own matches alone.

    Per version: points (each counted game is worth 1 for finishing ahead of every
    rival, ½ per rival tied: a 2-player game's 1, ½, 0), points as a share of the games
    (`points_pct`), games, wins, shared firsts, the event's rating (`rating`, `mu`,
    `sigma`: `rating.event_skills` from a fresh start over the event's rated matches
    in schedule order), the all-time rating beside it (`all_time`, never deciding),
    average score and forfeits. Ranked as `ranked_by` says; the same matches give the
    same standings however many workers played them.
    """
    game, rules, tid = tournament.game, tournament.game_version, tournament.id or 0
    if seats is None:  # `tournament_details` reads them once for this and the head to head
        seats = store.seat_rows(tournament_id=tid)
    played, points = _event_matches(store, seats)
    skills = rating.event_skills(game, played)
    all_time = {r.bot_version_id: r.mu - 3 * r.sigma for r in store.ratings(game, rules)}
    rows = _board(store, game, rules, latest, tid)
    order, rule = score_order(game), ranked_by(tournament)
    board = []
    for row in rows:
        skill = skills.get(row.bot_version_id, Skill.initial())
        total = points.get(row.bot_version_id, 0.0)
        found = all_time.get(row.bot_version_id)
        board.append(
            {
                "bot": row.bot,
                "version": row.version,
                "points": round(total, 2),
                "points_pct": round(100 * total / row.games, 1) if row.games else None,
                "rating": round(skill.conservative, 3),
                "mu": round(skill.mu, 3),
                "sigma": round(skill.sigma, 3),
                "all_time": None if found is None else round(found, 3),
                **_tail(row),
                "score_order": order,
                "ranked_by": rule,
            }
        )
    board.sort(key=_event_key(rule, skills))
    return [{"rank": i + 1, **row} for i, row in enumerate(board)]


def _event_key(rule: str, skills: dict[int, Skill]) -> Any:
    """The sort key of an event's rows: points per game (none last) then the event's
    rating, or the rating alone; then the name, so that nothing is left to chance."""

    def key(row: dict[str, Any]) -> tuple[Any, ...]:
        pct = row["points_pct"]
        points = () if rule == BY_EVENT_RATING else (pct is None, -(pct or 0.0))
        return (*points, -row["rating"], row["bot"], row["version"])

    return key


def _event_matches(
    store: Store, seats: list[tuple[Match, MatchSeat]]
) -> tuple[list[rating.Played], dict[int, float]]:
    """An event's rated matches in schedule order (for `rating.event_skills`) and each
    version's points, from its recorded seats (in schedule order)."""
    teams_of = headtohead.teams_of(store)
    by_match: dict[int, tuple[Match, list[MatchSeat]]] = {}
    for match, seat in seats:
        by_match.setdefault(match.id or 0, (match, []))[1].append(seat)
    played: list[rating.Played] = []
    points: dict[int, float] = {}
    for match, group in by_match.values():
        if match.status in VOID:
            continue  # void: neither rated nor counted
        n = len(group)
        ranks = tuple(s.rank or n for s in group)  # as the runner rates: no rank is last
        teams = teams_of(match, n)
        if all(s.mu_after is not None for s in group):
            played.append(rating.Played(tuple(s.bot_version_id for s in group), ranks, teams))
        for i, seat in enumerate(group):
            if seat.score is not None:  # a counted game (arena.store.counting.tally)
                points[seat.bot_version_id] = points.get(seat.bot_version_id, 0.0) + _points(
                    i, ranks, teams
                )
    return played, points


def _points(seat: int, ranks: tuple[int, ...], teams: tuple[int, ...] | None) -> float:
    """A seat's points in one match: the share of its rivals it finished ahead of, a tie
    counting half; teammates are not rivals.

    >>> _points(0, (1, 2), None), _points(1, (1, 1, 3), None)
    (1.0, 0.75)
    >>> _points(0, (1, 2, 1, 2), (0, 1, 0, 1))
    1.0
    """
    rivals = [
        r
        for other, r in enumerate(ranks)
        if other != seat and (teams is None or teams[other] != teams[seat])
    ]
    if not rivals:
        return 0.0
    mine = ranks[seat]
    return sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in rivals) / len(rivals)


def _board(
    store: Store, game: str, rules: int, latest: bool, tournament_id: int | None = None
) -> list[LeaderRow]:
    """The store's leaderboard rows (the all-time one, or a tournament's counters);
    `latest`: only each bot's newest version on it that is not retired (a retired bot
    is not in the field any more: left out).

    Versions are rated apart (a new one starts from its predecessor's rating,
    `rating.inherited`), so a bot has a row per version unless `latest`.
    """
    rows = store.leaderboard(game, rules, tournament_id)
    if not latest:
        return rows
    retired = store.retired_versions()
    rows = [row for row in rows if row.bot_version_id not in retired]
    newest: dict[str, int] = {}
    for row in rows:
        newest[row.bot] = max(newest.get(row.bot, 0), row.version)
    return [row for row in rows if row.version == newest[row.bot]]


def mark_retired(store: Store, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An all-time board's rows, each with `retired` (`arena bot retire`): a retired
    version stays on the board, as the matches it played rated its rivals too."""
    names = store.version_names()
    retired = {names[v] for v in store.retired_versions()}
    return [{**row, "retired": (row["bot"], row["version"]) in retired} for row in rows]


def bots(store: Store) -> list[dict[str, Any]]:
    """Every registered bot with its latest version."""
    latest: dict[str, Any] = {}
    names = store.bot_names()
    for version in store.versions():
        latest[names[version.bot_id]] = version
    retired = store.retired_bots()
    return [
        {
            "bot": name,
            "status": "retired" if name in retired else "active",
            "versions": version.number,
            "sha256": version.sha256[:12],
            "games": version.games,
            "submitted": version.created_at.isoformat(timespec="seconds"),
        }
        for name, version in sorted(latest.items())
    ]


def _description(folder: str) -> str:
    """A stored version's `description`; "" when its folder cannot be read any more."""
    from arena.submissions.manifest import load_manifest

    try:
        return load_manifest(Path(folder)).description
    except (OSError, ValueError):
        return ""


def bot_details(store: Store, name: str) -> dict[str, Any] | None:
    """Versions, games played and rating per game and rules version, suspensions with
    the forfeits that caused them, recent forfeits (of matches played, not skipped)."""
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
    retired = store.retired_versions()
    return {
        "bot": name,
        "owner": store.bot_owner(name),
        # the newest version's own words (bot.toml), read from its stored folder
        "description": _description(versions[-1].folder),
        "retired": name in store.retired_bots(),
        "versions": [
            {
                "version": v.number,
                "status": "retired" if v.id in retired else "active",
                "sha256": v.sha256,
                "games": v.games,
                "matches": played.get(v.id or 0, 0),
                "submitted": v.created_at.isoformat(timespec="seconds"),
            }
            for v in versions
        ],
        "ratings": ratings,
        "suspensions": suspensions(store, ids, numbers),
        "recent_forfeits": _forfeit_rows(store.forfeits(name, suspended=False), numbers),
    }


def _forfeit_rows(
    forfeits: Iterable[tuple[Match, MatchSeat]], numbers: dict[int | None, int]
) -> list[dict[str, Any]]:
    """Match id, tournament, game, bot version, status (the kind), detail, stderr tail."""
    return [
        {
            "match": match.id,
            "tournament": match.tournament_id,
            "game": match.game,
            "version": numbers.get(seat.bot_version_id),
            "status": seat.status,
            "detail": seat.detail,
            "stderr_tail": seat.stderr[-STDERR_TAIL:],
        }
        for match, seat in forfeits
    ]


def suspensions(
    store: Store, version_ids: list[int], numbers: dict[int | None, int]
) -> list[dict[str, Any]]:
    """Each tournament that suspended one of these bot versions: when, by which rule,
    the forfeits in a row that did it (with their stderr), and the matches it then missed.

    The suspensions are those the runner recorded when they happened (`Store.suspensions`,
    in the transaction of the match whose forfeit completed the streak; filled in for
    older databases by the store's migration): only tournaments where a version has a
    seat not `ok` are asked.
    """
    wanted = set(version_ids)
    where = sorted({tournament_id for tournament_id, _v in store.forfeit_tournaments(version_ids)})
    found: dict[int, list[tuple[Tournament, SuspensionRecord]]] = {}
    for tournament_id in where:
        tournament = store.tournament(tournament_id)
        if tournament is None:
            continue
        for suspension in store.suspensions(tournament_id):
            if suspension.version_id in wanted:
                found.setdefault(suspension.version_id, []).append((tournament, suspension))
    return [
        _suspension(store, tournament, numbers, suspension)
        for version in sorted(found, key=lambda v: numbers[v])
        for tournament, suspension in found[version]
    ]


def _suspension(
    store: Store,
    tournament: Tournament,
    numbers: dict[int | None, int],
    suspension: SuspensionRecord,
) -> dict[str, Any]:
    """One recorded suspension: the forfeits in a row that ended with its match (the
    version's counted seats there: not void, not skipped) and the matches it missed."""
    limit = suspension.forfeits
    streak: list[int] = []
    skipped: set[int] = set()
    ended = False
    for _t, seat, match, status, seat_status, skipped_match in store.version_seats(
        suspension.version_id, [tournament.id or 0]
    ):
        if skipped_match:
            if seat_status == SeatStatus.SUSPENDED:
                skipped.add(match)
        elif ended or status in VOID:
            continue
        elif seat_status == SeatStatus.OK:
            streak.clear()
        else:
            streak.append(seat)
        ended = ended or match == suspension.match_id
    forfeits = store.seats(streak[-limit:])
    last = forfeits[-1][0] if forfeits else None
    return {
        "tournament": tournament.id,
        "game": tournament.game,
        "version": numbers[suspension.version_id],
        "since_match": suspension.match_id,
        "since": None
        if last is None or last.recorded_at is None
        else last.recorded_at.isoformat(timespec="seconds"),
        "rule": f"{limit} forfeits in a row (suspend_after = {limit})",
        "skipped_matches": len(skipped),
        "forfeits": _forfeit_rows(forfeits, numbers),
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
    """Status, matches played of scheduled, standings, head-to-head, forfeits by reason,
    void matches with their reason."""
    t = store.tournament(tournament_id)
    if t is None:
        return None
    done, total = store.match_counts(tournament_id)
    names = store.version_names()
    label = {v: f"{n} v{k}" for v, (n, k) in names.items()}
    forfeits = {k: n for k, n in store.seat_statuses(tournament_id).items() if k != SeatStatus.OK}
    seats = store.seat_rows(tournament_id=tournament_id)
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
        "void_matches": [
            {
                "match": m.id,
                "number": m.number,
                "bots": [label.get(v, str(v)) for v in m.lineup],
                "reason": m.error or "",
            }
            for m in store.void_match_rows(tournament_id)
        ],
        "score_order": score_order(t.game),
        "ranked_by": ranked_by(t),
        "standings": event_standings(store, t, seats=seats),
        "head_to_head": headtohead.table_for_tournament(store, tournament_id, seats),
        "forfeits": dict(sorted(forfeits.items())),
    }


def tournament_matches(store: Store, tournament_id: int) -> list[dict[str, Any]] | None:
    """Every recorded match of a tournament in schedule order: its label (what `arena
    replay html --match` takes), number, status, and per seat the bot, score and rank;
    None for an unknown tournament."""
    if store.tournament(tournament_id) is None:
        return None
    names = store.version_names()
    rows: dict[int, dict[str, Any]] = {}
    for match, seat in store.seat_rows(tournament_id=tournament_id):
        row = rows.setdefault(
            match.id or 0,
            {
                "match": f"t{tournament_id}-m{match.number}",
                "number": match.number,
                "status": match.status,
                "bots": [],
                "scores": [],
                "ranks": [],
            },
        )
        name, version = names.get(seat.bot_version_id, (str(seat.bot_version_id), 0))
        row["bots"].append(f"{name} v{version}")
        row["scores"].append(seat.score)
        row["ranks"].append(seat.rank)
    return list(rows.values())
