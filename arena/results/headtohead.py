"""Head-to-head records of bot versions with 95 % error bars, from stored match results.

Every recorded match that is not void counts once for every pair of seats held by two
different bot versions (and, in team games, by two different teams): the seat ranked
better wins, equal ranks draw. In a 2-player match that is the match result; in an
N-player match it is who finished ahead of whom. Ranks already put a forfeited seat last.

For W wins, D draws and L losses in N = W + D + L games (as cutechess-cli and fastchess
compute it, fastchess src/matchmaking/elo/elo_wdl.cpp):

    score rate   s = (W + D/2) / N
    variance     var = (W (1 - s)^2 + D (1/2 - s)^2 + L (0 - s)^2) / N     (per game)
    std. error   se = sqrt(var / N)
    95 % interval  s +- 1.959964 se, clipped to [0, 1]
    Elo          -400 log10(1/s - 1), of s and of both bounds of the interval

The Elo of a score rate of 100 % (0 %) is infinite: it is +inf (-inf) in the tables and
null in JSON, and so is the interval then (its variance is 0). The games of one N-player
match are not independent, so the interval is a guide there, not an exact 95 %.

Only matches under the current rules version of a game count (as in leaderboards).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from arena import ArenaError
from arena.games import load_game
from arena.status import VOID
from arena.store import Store
from arena.store.models import Match, MatchSeat

#: The two-sided 95 % quantile of the normal distribution (fastchess's CI95ZSCORE).
Z95 = 1.959963984540054


def elo(score: float) -> float:
    """The logistic Elo difference of a score rate; +-inf at 100 % and 0 %.

    >>> elo(0.5), round(elo(0.75), 2), elo(1.0), elo(0.0)
    (0.0, 190.85, inf, -inf)
    """
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return 400.0 * math.log10(score / (1.0 - score))  # = -400 log10(1/s - 1), never -0.0


@dataclass(frozen=True)
class Record:
    """One side's wins, draws and losses against another, with its error bars."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """W + D + L."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """(W + D/2) / N; 0.5 for no games."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5

    @property
    def stderr(self) -> float:
        """The standard error of the score rate (trinomial per-game variance)."""
        n, s = self.games, self.score
        if not n:
            return 0.0
        var = (self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s**2) / n
        return math.sqrt(var / n)

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % interval of the score rate, clipped to [0, 1]."""
        half = Z95 * self.stderr
        return max(0.0, self.score - half), min(1.0, self.score + half)

    @property
    def elo(self) -> float:
        """The Elo difference of the score rate."""
        return elo(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        """The Elo differences of the interval's bounds."""
        low, high = self.interval
        return elo(low), elo(high)

    def flipped(self) -> Record:
        """The opponent's record."""
        return Record(self.losses, self.draws, self.wins)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready numbers (an infinite Elo is None; so is every rate of no games)."""
        if not self.games:
            rates = ("score", "score_low", "score_high", "elo", "elo_low", "elo_high")
            return {"games": 0, "wins": 0, "draws": 0, "losses": 0, **dict.fromkeys(rates)}
        low, high = self.interval
        elo_low, elo_high = self.elo_interval
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": round(self.score, 4),
            "score_low": round(low, 4),
            "score_high": round(high, 4),
            "elo": _finite(self.elo),
            "elo_low": _finite(elo_low),
            "elo_high": _finite(elo_high),
        }


def _finite(value: float) -> float | None:
    return round(value, 1) if math.isfinite(value) else None


# ----- pairwise results from seats -------------------------------------------------
Teams = Callable[[Match, int], "tuple[int, ...] | None"]


def pairwise(
    rows: Iterable[tuple[Match, MatchSeat]],
    teams: Teams | None = None,
    group: Callable[[int], int] | None = None,
) -> dict[tuple[int, int], Record]:
    """(x, y) -> x's record against y, for x < y, from recorded seats (pure).

    x and y are bot versions, or what `group` maps them to (e.g. all versions of a bot
    to one key). Void matches and seats without a rank do not count; `teams(match,
    players)` gives each seat's team in a team game (teammates are not opponents).
    """
    by_match: dict[int, tuple[Match, list[MatchSeat]]] = {}
    for match, seat in rows:
        by_match.setdefault(match.id or 0, (match, []))[1].append(seat)
    tally: dict[tuple[int, int], list[int]] = {}
    for match, seats in by_match.values():
        if match.status in VOID:
            continue
        players = len(match.lineup) or len(seats)  # a caller may pass some seats only
        team = teams(match, players) if teams is not None else None
        for i, a in enumerate(seats):
            for b in seats[i + 1 :]:
                if a.rank is None or b.rank is None:
                    continue
                if team is not None and team[a.seat] == team[b.seat]:
                    continue
                x, y = a.bot_version_id, b.bot_version_id
                if group is not None:
                    x, y = group(x), group(y)
                if x == y:
                    continue
                if x > y:
                    x, y, a_rank, b_rank = y, x, b.rank, a.rank
                else:
                    a_rank, b_rank = a.rank, b.rank
                counts = tally.setdefault((x, y), [0, 0, 0])
                counts[0 if a_rank < b_rank else 1 if a_rank == b_rank else 2] += 1
    return {pair: Record(*counts) for pair, counts in tally.items()}


@cache
def _team_layout(game: str, players: int, variant: tuple[tuple[str, Any], ...]) -> Any:
    """Each seat's team in a match of `players` under `variant`, or None (not a team game)."""
    game_cls = load_game(game)
    if not game_cls.spec.has_teams:
        return None
    try:
        return game_cls.new(players, 0, dict(variant))._teams()
    except Exception:  # a variant this arena no longer accepts: no teams known
        return None


def teams_of(store: Store) -> Teams:
    """Team layouts of tournament matches (from their tournament's variant)."""
    variants: dict[int, dict[str, Any]] = {}

    def teams(match: Match, players: int) -> tuple[int, ...] | None:
        if match.tournament_id is None:
            return None
        if match.tournament_id not in variants:
            found = store.tournament(match.tournament_id)
            variants[match.tournament_id] = dict(found.variant) if found is not None else {}
        variant = tuple(sorted(variants[match.tournament_id].items()))
        layout: tuple[int, ...] | None = _team_layout(match.game, players, variant)
        return layout

    return teams


def _current(rows: list[tuple[Match, MatchSeat]], rules: int) -> list[tuple[Match, MatchSeat]]:
    return [(m, s) for m, s in rows if m.game_version == rules]


def _row(first: str, second: str, record: Record) -> dict[str, Any]:
    """A table row, from the side of the one that scored at least half."""
    if record.score < 0.5 or (record.score == 0.5 and second < first):
        first, second, record = second, first, record.flipped()
    return {"bot": first, "opponent": second, **record.as_dict()}


def table(
    store: Store,
    game: str,
    tournament_id: int | None = None,
    rules: int | None = None,
    seats: list[tuple[Match, MatchSeat]] | None = None,
) -> list[dict[str, Any]]:
    """Every pair of bot versions that met at `game` (in one tournament, or in all
    recorded matches under the current rules), one row each, from the side of the
    one that scored at least half. `seats`: those recorded seats, already read."""
    if rules is None:
        rules = load_game(game).spec.version
    if seats is None:
        seats = store.seat_rows(game=game, tournament_id=tournament_id)
    rows = _current(seats, rules)
    names = store.version_names()
    label = {v: f"{n} v{k}" for v, (n, k) in names.items()}
    records = pairwise(rows, teams_of(store))
    result = [_row(label[x], label[y], r) for (x, y), r in records.items()]
    return sorted(result, key=lambda r: (r["bot"], r["opponent"]))


def table_for_tournament(
    store: Store, tournament_id: int, seats: list[tuple[Match, MatchSeat]] | None = None
) -> list[dict[str, Any]]:
    """`table` of one tournament's matches (under the rules it was scheduled with);
    empty for an unknown tournament. `seats`: its recorded seats, already read."""
    found = store.tournament(tournament_id)
    if found is None:
        return []
    return table(store, found.game, tournament_id, found.game_version, seats)


def bots_for(pairs: int) -> int:
    """The most bots whose pairs number at most `pairs` (k (k - 1) / 2 <= pairs).

    >>> bots_for(15), bots_for(14), bots_for(1)
    (6, 5, 2)
    """
    bots = 2
    while (bots + 1) * bots // 2 <= pairs:
        bots += 1
    return bots


def among(rows: list[dict[str, Any]], order: list[str], bots: int) -> list[dict[str, Any]]:
    """The rows of `table` between two of the first `bots` labels of `order` (a
    standings' order), the best placed pair first: a crosstable of the leaders.

    >>> rows = [{"bot": b, "opponent": o} for b, o in (("c", "a"), ("a", "b"), ("b", "c"))]
    >>> [(r["bot"], r["opponent"]) for r in among(rows, ["a", "b", "c"], 2)]
    [('a', 'b')]
    >>> [(r["bot"], r["opponent"]) for r in among(rows, ["a", "b", "c"], 3)]
    [('a', 'b'), ('c', 'a'), ('b', 'c')]
    """
    place = {label: i for i, label in enumerate(order[:bots])}
    chosen = [r for r in rows if r["bot"] in place and r["opponent"] in place]

    def key(row: dict[str, Any]) -> tuple[int, int]:
        a, b = place[row["bot"]], place[row["opponent"]]
        return min(a, b), max(a, b)

    return sorted(chosen, key=key)


class UnknownBot(ArenaError, ValueError):
    """A bot name with no stored version."""


def compare(store: Store, game: str, a: str, b: str, all_versions: bool = False) -> dict[str, Any]:
    """A's record against B at `game` under its current rules: by default between the
    newest version of each, with `all_versions` between all their versions pooled.

    UnknownBot when either has never been registered.
    """
    rules = load_game(game).spec.version
    sides: list[tuple[str, set[int], int]] = []
    for key, name in enumerate((a, b)):
        versions = store.versions(name=name)
        if not versions:
            raise UnknownBot(f"no bot {name!r} is registered (see `arena bot list`)")
        chosen = versions if all_versions else [versions[-1]]
        label = f"{name} (all versions)" if all_versions else f"{name} v{versions[-1].number}"
        sides.append((label, {v.id or 0 for v in chosen}, key))
    if sides[0][1] & sides[1][1]:
        raise UnknownBot(f"{a} and {b} are the same bot")
    side_of = {v: key for _label, ids, key in sides for v in ids}
    mine = side_of.keys()
    rows = [
        (m, s) for m, s in _current(store.seat_rows(game=game), rules) if s.bot_version_id in mine
    ]
    # seats of other bots are dropped: the records count A's and B's seats only
    records = pairwise(rows, teams_of(store), group=lambda v: side_of[v])
    record = records.get((0, 1), Record(0, 0, 0))
    return {
        "game": game,
        "rules": rules,
        "bot": sides[0][0],
        "opponent": sides[1][0],
        **record.as_dict(),
    }


# ----- display ---------------------------------------------------------------------
def _signed(value: float | None, sign: int) -> str:
    if value is None:
        return "+inf" if sign > 0 else "-inf"
    return f"{value:+.1f}"


def display(row: dict[str, Any]) -> dict[str, Any]:
    """A row of `table` or `compare` for a table: the score rate and Elo with their
    intervals as text (an infinite Elo as +inf / -inf)."""
    shown = {k: row[k] for k in ("bot", "opponent", "games", "wins", "draws", "losses")}
    if not row["games"]:
        return {**shown, "score": "", "elo": ""}
    shown["score"] = (
        f"{100 * row['score']:.1f}% [{100 * row['score_low']:.1f}, {100 * row['score_high']:.1f}]"
    )
    side = 1 if row["score"] >= 0.5 else -1
    low_side = 1 if row["score_low"] >= 0.5 else -1
    high_side = 1 if row["score_high"] >= 0.5 else -1
    shown["elo"] = (
        f"{_signed(row['elo'], side)} "
        f"[{_signed(row['elo_low'], low_side)}, {_signed(row['elo_high'], high_side)}]"
    )
    return shown
