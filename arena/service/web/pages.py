"""The pages' endpoints: each reads its request, takes its rows from the reports and
the service's views (as `arena leaderboard`, `arena bot show`, `arena compare` and the
JSON API compute them), and renders one template. No SQL and no rule lives here."""

from __future__ import annotations

import functools
import gzip
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from arena import viewer as replay_pages
from arena.games import all_games, load_game
from arena.results import headtohead, reports
from arena.service import etags, views
from arena.service.auth import Viewer
from arena.service.errors import NotFound
from arena.service.jobs import Jobs
from arena.service.web import GZIP_LEVEL, POLICY, render
from arena.service.web.plots import rating_history
from arena.service.web.sessions import page_viewer
from arena.status import TournamentStatus
from arena.store import Store
from arena.tournament.settings import time_controls_note  # the CLI's note, one wording

router = APIRouter(include_in_schema=False)
Seen = Annotated[Viewer, Depends(page_viewer)]
#: How many rows the home page and a bot's page list of what is recent.
RECENT = 12
#: The replay viewer's page allows its own inline scripts and style and nothing else.
VIEWER_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; frame-ancestors 'self'"
)
#: A page with a plot runs the site's own scripts (uPlot and rating-plot.js), no other.
PLOT_POLICY = POLICY + "; script-src 'self'"
#: A page that follows the service (a board) also asks it for more.
LIVE_POLICY = POLICY + "; script-src 'self'; connect-src 'self'"
#: Seconds between a leaderboard page's looks for a new board.
REFRESH = 5
#: The leaderboard's sortable columns, each with the order it is first sorted in.
SORTS: dict[str, str] = {
    "rank": "asc",
    "bot": "asc",
    "version": "desc",
    "rating": "desc",
    "mu": "desc",
    "sigma": "asc",
    "games": "desc",
    "wins": "desc",
    "shared_1st": "desc",
    "avg_score": "desc",
    "forfeits": "desc",
}
Sort = Literal[
    "rank", "bot", "version", "rating", "mu", "sigma", "games", "wins", "shared_1st",
    "avg_score", "forfeits",
]  # fmt: skip


def page(html: str, status: int = 200, policy: str = POLICY) -> HTMLResponse:
    """An HTML answer with the headers every page sends."""
    headers = {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
    }
    return HTMLResponse(html, status, headers=headers)


@dataclass(frozen=True)
class Packed:
    """A page kept with its gzip form, compressed once (a replay viewer's half megabyte
    would otherwise be compressed again for every reader)."""

    html: str
    gzipped: bytes

    @classmethod
    def of(cls, html: str) -> Packed:
        return cls(html, gzip.compress(html.encode(), GZIP_LEVEL, mtime=0))


def packed_page(request: Request, packed: Packed, policy: str = POLICY) -> Response:
    """`page` of a kept page, in its gzip form for a client that accepts it (the app's
    GZipMiddleware leaves an answer that has its Content-Encoding as it is)."""
    answer: Response = page(packed.html, policy=policy)
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        headers = {k: v for k, v in answer.headers.items() if k != "content-length"}
        answer = Response(packed.gzipped, headers=headers)
        answer.headers["Content-Encoding"] = "gzip"
    answer.headers["Vary"] = "Accept-Encoding"
    return answer


def error_page(status: int, message: str, request: Request | None = None) -> HTMLResponse:
    """The one-line error of a page (a missing bot or match: 404)."""
    signed = {} if request is None else signed_in(request)
    return page(render("error.html", status=status, message=message, **signed), status)


def signed_in(request: Request) -> dict[str, Any]:
    """What every page's header needs: the signed-in account's name (None: nobody) and
    its session's CSRF token (for the sign-out form). `page_viewer` found the session."""
    session = getattr(request.state, "session", None)
    if session is None or session.token is None:
        return {"signed": None, "csrf": None}
    return {"signed": session.account, "csrf": session.csrf}


def show(
    request: Request, name: str, status: int = 200, policy: str = POLICY, **context: Any
) -> HTMLResponse:
    """The page `templates/NAME` for `request`: its header says who is signed in."""
    return page(render(name, **signed_in(request), **context), status, policy)


class Rendered:
    """Pages as an anonymous reader gets them, the newest `size`, each by its key (the
    page and its query) with the values it was rendered from: values the pages keep
    (arena.service.kept), so that while they are the same objects the page is too, and
    a hundred readers of one board cost one rendering a board (and one compression).
    Only a reader with no
    account gets them: an owner's page (its private parts) and a signed-in page (its
    header, its CSRF token) are rendered for that request alone."""

    def __init__(self, size: int = 256):
        self.size = size
        self._pages: OrderedDict[Hashable, tuple[tuple[Any, ...], Packed]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, parts: tuple[Any, ...]) -> Packed | None:
        with self._lock:
            found = self._pages.get(key)
        if found is None or len(found[0]) != len(parts):
            return None
        same = all(old is new for old, new in zip(found[0], parts, strict=True))
        return found[1] if same else None

    def put(self, key: Hashable, parts: tuple[Any, ...], html: Packed) -> None:
        with self._lock:
            self._pages[key] = (parts, html)
            self._pages.move_to_end(key)
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)


def _rendered(request: Request) -> Rendered:
    found: Rendered = app_state(request, "rendered_pages", Rendered)
    return found


def show_kept(
    request: Request,
    seen: Viewer,
    key: Hashable,
    parts: tuple[Any, ...],
    name: str,
    context: Callable[[], dict[str, Any]],
    policy: str = POLICY,
) -> Response:
    """`show`, its HTML kept for anonymous readers (`Rendered`) under `key` while `parts`
    (what the page was made from: kept values) are the same objects. `context()`, the
    template's values, must follow from `key` and `parts` alone; it is only called
    when the page is rendered."""
    if seen.account is not None or signed_in(request)["signed"] is not None:
        return show(request, name, policy=policy, **context())
    rendered = _rendered(request)
    packed = rendered.get(key, parts)
    if packed is None:
        packed = Packed.of(render(name, signed=None, csrf=None, **context()))
        rendered.put(key, parts, packed)
    return packed_page(request, packed, policy)


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def _labels(store: Store) -> dict[int, str]:
    return {v: f"{name} v{n}" for v, (name, n) in store.version_names().items()}


def recent_matches(store: Store, limit: int) -> list[dict[str, Any]]:
    """The newest recorded matches, each with its bots by seat."""
    labels = _labels(store)
    newest = store.recent_matches(limit)
    return [
        {
            "match": m.id,
            "tournament": m.tournament_id,
            "game": m.game,
            "status": None if m.status is None else str(m.status),
            "bots": [labels.get(v, str(v)) for v in m.lineup],
            "recorded": None
            if m.recorded_at is None
            else m.recorded_at.isoformat(timespec="seconds"),
        }
        for m in newest
    ]


def now_playing(
    store: Store, limit: int, live: frozenset[int] = frozenset()
) -> list[dict[str, Any]]:
    """The matches of running tournaments (the open ladder's rounds among them) that are
    written but not recorded yet: those in play and the next ones, in schedule order."""
    labels = _labels(store)
    found: list[dict[str, Any]] = []
    running = [t for t in store.tournaments() if t.status == TournamentStatus.RUNNING]
    for tournament in running:
        for m in store.matches(tournament.id or 0, recorded=False)[: limit - len(found)]:
            found.append(
                {
                    "match": m.id,
                    "tournament": m.tournament_id,
                    "tournament_name": tournament.name,
                    "game": m.game,
                    "bots": [labels.get(v, str(v)) for v in m.lineup],
                    "live": m.id in live,
                }
            )
        if len(found) >= limit:
            break
    return found


def newest_versions(store: Store, limit: int) -> list[dict[str, Any]]:
    """The versions submitted last, newest first."""
    names = store.bot_names()
    versions = sorted(store.versions(), key=lambda v: (v.created_at, v.id or 0), reverse=True)
    return [
        {
            "bot": names.get(v.bot_id, ""),
            "version": v.number,
            "games": v.games,
            "submitted": v.created_at.isoformat(timespec="seconds"),
        }
        for v in versions[:limit]
    ]


@router.get("/", response_class=HTMLResponse)
def home(request: Request, seen: Seen) -> Response:
    store = _store(request)
    live = request.app.state.live.playing()
    lists = {
        "playing": views.recent(
            store,
            ("playing", *live),
            lambda: now_playing(store, RECENT, frozenset(live)),
        ),
        "matches": views.recent(store, "recent", lambda: recent_matches(store, RECENT)),
        "versions": views.recent(store, "newest", lambda: newest_versions(store, RECENT)),
        "tournaments": views.recent(
            store, "tournaments", lambda: reports.tournaments(store)[:RECENT]
        ),
    }
    parts = tuple(lists.values())
    context = {"games": games_table(), **lists}
    return show_kept(request, seen, "home", parts, "home.html", lambda: context)


@functools.cache
def games_table() -> list[dict[str, Any]]:
    """The home page's table of games (they are the package's: read once)."""
    return [
        {
            "game": g.spec.id,
            "title": g.spec.title,
            "rules": g.spec.version,
            "players": f"{g.spec.min_players}-{g.spec.max_players}",
        }
        for g in all_games()
    ]


def sorted_board(rows: list[dict[str, Any]], sort: str, order: str) -> list[dict[str, Any]]:
    """A board's rows by one column (rows without a value last); "rank" is the board's
    own order: by pool, then by rank in the pool."""
    if sort == "rank":
        ranked = sorted(rows, key=lambda r: (r["pool"], r["rank"]))
        return ranked if order == "asc" else ranked[::-1]
    present = [r for r in rows if r.get(sort) is not None]
    missing = [r for r in rows if r.get(sort) is None]
    present.sort(key=lambda r: r[sort], reverse=order == "desc")
    return present + missing


@router.get("/leaderboard/{game}", response_class=HTMLResponse)
def leaderboard(
    request: Request,
    game: str,
    seen: Seen,
    sort: Sort = "rank",
    order: Literal["asc", "desc"] | None = None,
    latest: bool = False,
    rules: Annotated[int | None, Query(ge=1)] = None,
) -> Response:
    """A game's board; 304 to a reader that holds this very page (its ETag: the kept
    board's, the time controls' note, the options and who is signed in)."""
    store = _store(request)
    spec = load_game(game).spec  # an unknown game: its one-line error (404)
    if rules is not None and rules > spec.version:
        raise NotFound(f"{game} has rules versions 1 to {spec.version}, not {rules}")
    shown_rules = rules or spec.version
    direction = order or SORTS[sort]
    board = views.board_answer(store, game, latest, rules)
    note = views.recent(
        store,
        ("time-control", game, shown_rules),
        lambda: time_controls_note(store, game, shown_rules),
    )
    header = signed_in(request)  # who is signed in, and the sign-out form's token
    etag = etags.tag(etags.PAGES, board.etag, note, sort, direction, latest, rules, header)
    if etags.held(request, etag):  # the board, its options and the header unchanged
        return etags.not_modified(etag, etags.PAGE_CACHE)

    def context() -> dict[str, Any]:
        rows = sorted_board(board.rows, sort, direction)
        return {
            "refresh": REFRESH,
            "stamp": hashlib.sha256(orjson.dumps(rows)).hexdigest()[:16],
            "game": game,
            "title": spec.title,
            "rules": shown_rules,
            "current": spec.version,
            "score_order": reports.score_order(game),
            "time_control": note,
            "rows": rows,
            "sort": sort,
            "order": direction,
            "latest": latest,
            "sorts": SORTS,
        }

    key = ("leaderboard", game, sort, direction, latest, rules)
    answer = show_kept(request, seen, key, (board, note), "leaderboard.html", context, LIVE_POLICY)
    answer.headers.update(etags.headers(etag, etags.PAGE_CACHE))
    return answer


def _oriented(row: dict[str, Any], ours: set[str]) -> dict[str, Any]:
    """A head-to-head row from the side of one of `ours` (flipped by the compare code's
    own `Record.flipped` when the row was written from the opponent's side)."""
    if row["bot"] in ours:
        return row
    record = headtohead.Record(row["wins"], row["draws"], row["losses"]).flipped()
    return {"bot": row["opponent"], "opponent": row["bot"], **record.as_dict()}


def by_opponent(store: Store, name: str, details: dict[str, Any]) -> list[dict[str, Any]]:
    """Per game the bot played under its current rules: its versions' records against
    every version they met, with the 95 % intervals of `arena compare`."""
    ours = {f"{name} v{v['version']}" for v in details["versions"]}
    ids = [v.id for v in store.versions(name=name) if v.id is not None]
    games = sorted({r["game"] for r in details["ratings"]})
    tables = []
    for game in games:
        seats = store.seats_of_matches_with(ids, game)  # its matches only, every seat
        rows = [
            _oriented(row, ours)
            for row in headtohead.table(store, game, seats=seats)
            if row["bot"] in ours or row["opponent"] in ours
        ]
        rows = [r for r in rows if r["games"]]
        if rows:
            rows.sort(key=lambda r: (r["bot"], r["opponent"]))
            shown = [headtohead.display(r) for r in rows]
            tables.append({"game": game, "rules": load_game(game).spec.version, "rows": shown})
    return tables


@router.get("/bots/{name:path}", response_class=HTMLResponse)
def bot(request: Request, name: str, seen: Seen) -> Response:
    store = _store(request)
    details = views.bot(store, seen, name)  # NotFound: the 404 page
    jobs: Jobs = request.app.state.jobs
    history = views.recent(store, ("history", name), lambda: rating_history(store, name))
    # the head-to-head of its every match: read at most once a second, as its plot
    opponents = views.recent(store, ("opponents", name), lambda: by_opponent(store, name, details))
    matches = views.kept_matches(store, name, RECENT)
    own = seen.account is not None and seen.sees(details["owner"])

    def context() -> dict[str, Any]:
        return {
            "bot": details,
            "opponents": opponents,
            "matches": matches.shown(seen),
            "submissions": [j.shown() for j in jobs.of(seen.author(), name)] if own else None,
            "history": history,
            "history_json": Markup(replay_pages.embed_json(history)),
        }

    parts = (details, history, opponents, matches)
    policy = PLOT_POLICY if history else POLICY
    return show_kept(request, seen, ("bot", name), parts, "bot.html", context, policy)


def _match_id(match_id: int) -> int:
    if not 1 <= match_id < 2**63:
        raise NotFound(f"no match {match_id}")
    return match_id


@router.get("/matches/{match_id}", response_class=HTMLResponse)
def match(request: Request, match_id: int, seen: Seen) -> Response:
    found = views.kept_match(_store(request), _match_id(match_id))
    viewable = found.head["game"] in replay_pages.GAMES and found.replay
    live = not found.head["recorded"] and request.app.state.live.in_play(match_id)
    context = {"match": found.shown(seen), "replay": viewable, "live": live}
    key = ("match", match_id, live)
    return show_kept(request, seen, key, (found,), "match.html", lambda: context)


class Built:
    """The replay viewer's pages, the newest `size`, by (match id, the seats whose
    private parts are left out): a recorded match's replay never changes, and its page
    costs a parse and check of the replay and a walk of the match through the referee
    (a LEYLO match of 570 events: about 150 ms of CPU, half a megabyte). A page holds
    nothing but the match and those seats' share, so readers who may see the same seats
    (every anonymous reader; an owner and the readers who may see the same) share it. The
    readers who ask for a page not built yet wait for one build of it."""

    def __init__(self, size: int = 32):
        self.size = size
        self._pages: OrderedDict[Hashable, Packed] = OrderedDict()
        self._building: dict[Hashable, Future[Packed]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, build: Callable[[], str]) -> Packed:
        """The page of `key`, built by `build()` if it is not kept."""
        with self._lock:
            found = self._pages.get(key)
            if found is not None:
                self._pages.move_to_end(key)
                return found
            building = self._building.get(key)
            mine = building is None
            if building is None:
                building = self._building[key] = Future()
        if not mine:
            return building.result()
        try:
            html = Packed.of(build())
        except BaseException as error:
            with self._lock:
                self._building.pop(key, None)
            building.set_exception(error)
            raise
        with self._lock:
            self._pages[key] = html
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)
            self._building.pop(key, None)
        building.set_result(html)
        return html


_STATE_LOCK = threading.Lock()


def app_state(request: Request, name: str, make: Callable[[], Any]) -> Any:
    """The application's one `name` (made by `make` the first time it is asked for)."""
    state = request.app.state
    with _STATE_LOCK:
        if getattr(state, name, None) is None:
            setattr(state, name, make())
        return getattr(state, name)


@router.get("/matches/{match_id}/replay", response_class=HTMLResponse)
def replay(request: Request, match_id: int, seen: Seen) -> Response:
    """The replay viewer's page of a stored match (what `arena replay html` writes),
    with the private parts of the seats the viewer may not see left out; 304 to an
    anonymous reader that holds it."""
    # a stored replay never changes: an anonymous reader's page is this process's own
    etag = etags.tag(etags.PAGES, "replay", match_id) if seen.account is None else None
    if etag is not None and etags.held(request, etag):
        return etags.not_modified(etag, etags.PAGE_CACHE)
    store, found = _store(request), _match_id(match_id)
    hidden = views.hidden_seats(store, seen, found)
    built: Built = app_state(request, "viewer_pages", Built)
    packed = built.get(
        (found, hidden), lambda: replay_pages.build(views.replay_without(store, found, hidden))
    )
    answer = packed_page(request, packed, VIEWER_POLICY)
    if etag is not None:
        answer.headers.update(etags.headers(etag, etags.PAGE_CACHE))
    return answer


@router.get("/tournaments/{tournament_id}", response_class=HTMLResponse)
def tournament(request: Request, tournament_id: int, seen: Seen) -> HTMLResponse:
    found = None
    if 1 <= tournament_id < 2**63:
        found = reports.tournament_details(_store(request), tournament_id)
    if found is None:
        raise NotFound(f"no tournament {tournament_id}")
    standings = found["standings"]
    columns = [c for c in (standings[0] if standings else {}) if c not in NOT_COLUMNS]
    pairs = [headtohead.display(r) for r in found["head_to_head"] if r["games"]]
    return show(request, "tournament.html", t=found, columns=columns, pairs=pairs)


#: Row keys a standings table says once (in its heading), not in every row.
NOT_COLUMNS = ("score_order", "ranked_by", "pool", "retired")
