"""The service's web pages through FastAPI's TestClient, on a store filled by the
service's fixtures and a hostile bot (tests/web_fixtures.py): each page answers 200
with the stored names and figures, hostile text is escaped and spelled, a missing bot
or match is a 404 page with one line, private output is its owner's alone."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from html import escape as html_escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from arena.controls import visible
from arena.results import headtohead, reports
from arena.service.app import create_app
from arena.service.web import number, segment
from arena.store import Store
from tests.service_fixtures import BOB_DEBUG, BOB_DETAIL
from tests.web_fixtures import (
    HOSTILE,
    HOSTILE_DETAIL,
    HOSTILE_STDERR,
    HOSTILE_VOID,
    populate_web,
    populate_with_a_match_in_play,
)


class Web:
    def __init__(self, store: Store, ids: dict[str, Any], client: TestClient):
        self.store, self.ids, self.client = store, ids, client

    def get(self, url: str, who: str | None = None, status: int = 200) -> str:
        headers = {} if who is None else {"Authorization": f"Bearer {self.ids['tokens'][who]}"}
        answer = self.client.get(url, headers=headers)
        assert answer.status_code == status, (url, answer.text[-500:])
        assert answer.headers["content-type"].startswith("text/html")
        assert "default-src 'none'" in answer.headers["content-security-policy"]
        return answer.text

    def pages(self) -> list[str]:
        return [
            "/",
            "/leaderboard/take-that",
            "/leaderboard/take-that?latest=true&sort=mu&order=asc",
            "/bots/alices",
            "/bots/bobs",
            f"/bots/{segment(HOSTILE)}",
            f"/matches/{self.ids['match']}",
            f"/matches/{self.ids['hostile_match']}",
            f"/matches/{self.ids['void_match']}",
            f"/tournaments/{self.ids['first_tournament']}",
            f"/tournaments/{self.ids['tournament']}",
        ]


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    home: Path = tmp_path_factory.mktemp("web")
    store = Store(f"sqlite:///{home / 'arena.db'}")
    ids = populate_web(store)
    with TestClient(create_app(store, home)) as client:
        yield Web(store, ids, client)


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(html: str) -> Tags:
    tags = Tags()
    tags.feed(html)
    return tags


def shown(text: str) -> str:
    """How a page prints a stored text: spelled by `visible`, then escaped."""
    return str(escape(visible(text)))


#: The only scripts a page loads: the plot library and the plot's code, on a bot's page.
PLOT_SCRIPTS = ["/static/vendor/uplot/uPlot.iife.min.js", "/static/rating-plot.js"]


def test_every_page_answers_with_no_script_no_handler_and_only_its_own_sheet(web: Web) -> None:
    for url in web.pages():
        tags = parsed(web.get(url))
        assert tags.tags, url
        names = [tag for tag, _ in tags.tags]
        assert "img" not in names and "svg" not in names, url
        scripts = [dict(attrs) for tag, attrs in tags.tags if tag == "script"]
        loaded = [s["src"] for s in scripts if "src" in s]
        # a bot's page with a plot: the plot's own; a board: its refresh
        assert loaded in ([], PLOT_SCRIPTS, ["/static/refresh.js"]), url
        assert [s for s in scripts if "src" not in s] == (
            [{"type": "application/json", "id": "rating-data"}] if loaded == PLOT_SCRIPTS else []
        ), url  # data, never code
        for tag, attrs in tags.tags:
            assert not [a for a, _ in attrs if a.startswith("on")], (url, tag, attrs)
            for attr, value in attrs:
                if attr in ("href", "src"):  # every link stays on the site
                    assert value and value.startswith(("/", "?")), (url, tag, value)
        assert ("link", [("rel", "stylesheet"), ("href", "/static/site.css")]) in tags.tags
    assert "text/css" in web.client.get("/static/site.css").headers["content-type"]
    for script in PLOT_SCRIPTS:
        assert "javascript" in web.client.get(script).headers["content-type"]


def test_the_bot_page_embeds_its_rating_history_as_stored(web: Web) -> None:
    page = web.get("/bots/bobs")
    data = page[page.index('id="rating-data">') + len('id="rating-data">') :]
    plots = orjson.loads(data[: data.index("</script>")])
    stored = [
        (m.id, s.mu_after, s.sigma_after)
        for m, s in reversed(web.store.bot_matches("bobs", 100))
        if s.mu_after is not None
    ]
    assert len(stored) == 2
    assert [(p["match"], p["mu"], p["sigma"]) for p in plots[0]["points"]] == stored
    assert plots[0]["game"] == "take-that" and plots[0]["versions"] == [1]
    policy = web.client.get("/bots/bobs").headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe" not in policy
    assert "script-src" not in web.client.get("/").headers["content-security-policy"]


def test_home_lists_games_recent_matches_and_newest_versions(web: Web) -> None:
    page = web.get("/")
    for game in ("take-that", "leylo", "twirkle", "krumme10"):
        assert f'href="/leaderboard/{game}"' in page
    recent = page[page.index('id="recent-matches"') : page.index('id="newest-versions"')]
    # newest first: the hostile bot's match was recorded after alice's and bob's
    assert recent.index(f'href="/matches/{web.ids["hostile_match"]}"') < recent.index(
        f'href="/matches/{web.ids["match"]}"'
    )
    assert "alices v1, bobs v1" in recent
    newest = page[page.index('id="newest-versions"') :]
    assert newest.index(shown(HOSTILE)) < newest.index(">bobs<") < newest.index(">alices<")


def _cells(page: str, table: str) -> list[list[str]]:
    """The text of each row of the table with id `table`."""
    part = page[page.index(f'id="{table}"') :]
    part = part[: part.index("</table>")]
    rows = part.split("<tr")[2:]  # the header row first
    return [
        ["".join(parsed("<td" + cell).text).strip() for cell in row.split("<td")[1:]]
        for row in rows
    ]


def test_the_leaderboard_shows_the_reports_figures_rules_and_time_control(web: Web) -> None:
    page = web.get("/leaderboard/take-that")
    assert "take-that, rules v1" in page and "higher score wins" in page
    assert "time control: 1s/decision (2 matches)" in page
    board = reports.leaderboard(web.store, "take-that")
    rows = _cells(page, "board")
    assert [r[1] for r in rows] == [visible(row["bot"]) for row in board]
    for cells, row in zip(rows, board, strict=True):
        assert cells[0] == str(row["rank"]) and cells[3] == str(number(row["rating"]))
        assert cells[4] == str(number(row["mu"])) and cells[5] == str(number(row["sigma"]))
        assert cells[6] == str(row["games"]) and cells[10] == str(row["forfeits"])


def test_the_leaderboard_sorts_by_a_query_parameter_and_toggles_latest(web: Web) -> None:
    by_mu = [r[1] for r in _cells(web.get("/leaderboard/take-that?sort=mu&order=asc"), "board")]
    mus = {visible(r["bot"]): r["mu"] for r in reports.leaderboard(web.store, "take-that")}
    assert by_mu == sorted(mus, key=mus.__getitem__)
    by_bot = [r[1] for r in _cells(web.get("/leaderboard/take-that?sort=bot"), "board")]
    assert by_bot == sorted(by_bot)
    page = web.get("/leaderboard/take-that?sort=mu&order=asc")
    assert 'href="?sort=mu&amp;order=desc"' in page  # the sorted column flips its order
    assert 'href="?sort=mu&amp;order=asc&amp;latest=true"' in page
    latest = web.get("/leaderboard/take-that?latest=true")
    assert "Newest version of each bot only" in latest and "Show every version" in latest
    assert "only one line" not in web.get("/leaderboard/take-that?sort=nonsense", status=400)
    assert web.get("/leaderboard/take-that?rules=9", status=404).count('id="error"') == 1


def test_the_bot_page_shows_versions_ratings_opponents_with_intervals_and_matches(
    web: Web,
) -> None:
    page = web.get("/bots/bobs")
    details = reports.bot_details(web.store, "bobs")
    assert details is not None
    assert "account:bob" in page and details["versions"][0]["sha256"][:12] in page
    opponents = page[page.index('id="opponents"') : page.index('id="recent-matches"')]
    rating = details["ratings"][0]
    assert f"<td>{number(rating['mu'])}</td><td>{number(rating['sigma'])}</td>" in page
    for rival in ("alices", HOSTILE):
        expected = headtohead.display(headtohead.compare(web.store, "take-that", "bobs", rival))
        assert f"<tr><td>{shown(rival)} v1</td>" not in opponents  # from bobs' side
        row = f"<td>bobs v1</td><td>{shown(rival)} v1</td><td>{expected['games']}</td>"
        assert row in page
        assert f"<td>{expected['score']}</td><td>{expected['elo']}</td>" in page
    recent = page[page.index('id="recent-matches"') :]
    assert f'href="/matches/{web.ids["hostile_match"]}"' in recent
    assert f'href="/matches/{web.ids["match"]}"' in recent


def test_a_bots_matches_are_read_with_every_seat_and_nothing_else(web: Web) -> None:
    # The bot page reads one bot's matches, not the game's whole seat table.
    everything = web.store.seat_rows(game="take-that")
    for name in ("bobs", "alices", HOSTILE):
        ids = [v.id for v in web.store.versions(name=name) if v.id is not None]
        theirs = {m.id for m, s in everything if s.bot_version_id in ids}
        found = web.store.seats_of_matches_with(ids, "take-that")
        assert [(m.id, s.id) for m, s in found] == [
            (m.id, s.id) for m, s in everything if m.id in theirs
        ]
        assert theirs and {m.id for m, _s in found} == theirs
    assert web.store.seats_of_matches_with([], "take-that") == []


def test_private_output_is_shown_to_its_owner_and_organisers_alone(web: Web) -> None:
    for who, sees in ((None, False), ("alice", False), ("bob", True), ("olga", True)):
        assert (BOB_DETAIL in web.get("/bots/bobs", who)) is sees
        assert (BOB_DETAIL in web.get(f"/matches/{web.ids['match']}", who)) is sees


def test_a_page_is_rendered_once_for_anonymous_readers_and_never_shared(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An anonymous reader's page is rendered once while what it shows is kept (the
    kept values' clock stands still here); an owner's page, by token or session, is
    rendered for that request alone, and neither is ever served to the other."""
    from arena.service import views
    from arena.service.kept import Kept
    from arena.service.web import pages

    rendered: list[str] = []
    original = pages.render

    def counting(name: str, **context: Any) -> str:
        rendered.append(name)
        return original(name, **context)

    monkeypatch.setattr(pages, "render", counting)
    monkeypatch.setattr(views, "KEPT", Kept(clock=lambda: 0.0))
    monkeypatch.setattr(web.client.app.state, "rendered_pages", pages.Rendered(), raising=False)
    bob = signed_in(web, "bob")
    for url in ("/bots/bobs", f"/matches/{web.ids['match']}"):
        rendered.clear()
        assert BOB_DETAIL in web.get(url, "bob")  # the owner first: not kept for others
        assert BOB_DETAIL in bob.get(url).text
        anonymous = [web.get(url) for _ in range(3)]
        assert all(BOB_DETAIL not in html for html in anonymous)
        assert anonymous == [anonymous[0]] * 3
        assert BOB_DETAIL in web.get(url, "olga") and BOB_DETAIL in bob.get(url).text
        assert BOB_DETAIL not in web.get(url, "alice") and web.get(url) == anonymous[0]
        assert len(rendered) == 6  # bob twice, anonymous once, olga, bob again, alice
    rendered.clear()
    assert web.get("/") == web.get("/") and len(rendered) == 1
    assert 'action="/signout"' in bob.get("/").text and len(rendered) == 2


def test_hostile_text_is_escaped_and_spelled_on_every_page(web: Web) -> None:
    raw = ("<b>x", "</script><script>", "<img", 'onerror="', "\x1b", "\u202e", "\x00", "\u200b")
    for url in web.pages():
        page = web.get(url, "olga")  # the organiser sees the hostile seat's detail too
        for part in raw:
            assert part not in page, (url, part)
    bot = web.get(f"/bots/{segment(HOSTILE)}")
    assert f'<h1 id="bot-name">{shown(HOSTILE)}</h1>' in bot
    assert "\\u202eevil\\u202c\\x00\\u200b" in bot  # as the terminal spells them
    match = web.get(f"/matches/{web.ids['hostile_match']}", "olga")
    assert shown(HOSTILE_DETAIL) in match
    stderr = str(escape(visible(HOSTILE_STDERR, block=True)))
    assert f"<pre>{stderr}</pre>" in match and "line 1\n" in stderr  # its lines kept
    tournament = web.get(f"/tournaments/{web.ids['tournament']}")
    void = _cells(tournament, "void-matches")
    assert void == [
        [str(web.ids["void_match"]), "1", f"{visible(HOSTILE)} v1, bobs v1", visible(HOSTILE_VOID)]
    ]


def test_the_match_page_shows_seats_result_and_the_replay_viewer(web: Web) -> None:
    page = web.get(f"/matches/{web.ids['match']}")
    seats = _cells(page, "seats")
    assert [s[1] for s in seats] == ["alices", "bobs"]
    assert [s[3:6] for s in seats] == [["1", "1", "ok"], ["0", "2", "crash"]]
    assert "status: forfeit" in page
    url = f"/matches/{web.ids['match']}/replay"
    assert f'<iframe src="{url}"' in page and 'sandbox="allow-scripts"' in page
    viewer = web.client.get(url)
    assert viewer.status_code == 200 and 'id="replay-data"' in viewer.text
    assert "script-src 'unsafe-inline'" in viewer.headers["content-security-policy"]
    assert BOB_DETAIL not in viewer.text  # the viewer's page hides what the API hides
    void = web.get(f"/matches/{web.ids['void_match']}")
    assert "status: platform-error" in void and 'id="no-replay"' in void


def test_a_replay_viewer_page_is_built_once_for_anonymous_readers(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored replay never changes: its page is built once for every anonymous reader;
    a signed-in reader who may see a seat's private output gets a page of its own."""
    from arena import viewer as replay_pages
    from arena.service.web.pages import Built

    built: list[str] = []
    original = replay_pages.build

    def counting(data: dict[str, Any]) -> str:
        built.append(data["match"])
        return original(data)

    monkeypatch.setattr(replay_pages, "build", counting)
    monkeypatch.setattr(web.client.app.state, "viewer_pages", Built(), raising=False)
    url = f"/matches/{web.ids['hostile_match']}/replay"
    first = web.client.get(url).text
    assert [web.client.get(url).text for _ in range(3)] == [first] * 3
    assert len(built) == 1
    owned = web.client.get(url, headers={"Authorization": f"Bearer {web.ids['tokens']['bob']}"})
    assert owned.status_code == 200 and len(built) == 2
    assert BOB_DEBUG not in first and BOB_DEBUG in owned.text  # bob's seat: his own debug
    assert web.client.get(url).text == first  # the owner's page was not kept for the others
    assert len(built) == 2


def test_the_tournament_page_shows_standings_head_to_head_and_void_matches(web: Web) -> None:
    page = web.get(f"/tournaments/{web.ids['tournament']}")
    details = reports.tournament_details(web.store, web.ids["tournament"])
    assert details is not None
    standings = page[page.index('id="standings"') : page.index('id="head-to-head"')]
    for row in details["standings"]:
        assert shown(row["bot"]) in standings
    pair = headtohead.display(details["head_to_head"][0])
    assert f"<td>{pair['score']}</td><td>{pair['elo']}</td>" in page
    assert "2 of 2 matches played" in page


@pytest.mark.parametrize(
    ("url", "line"),
    [
        ("/bots/nobody", "no bot called &#39;nobody&#39;"),
        ("/matches/987654", "no match 987654"),
        ("/matches/0", "no match 0"),
        ("/tournaments/987654", "no tournament 987654"),
        ("/nowhere", "Not Found"),
    ],
)
def test_a_missing_page_is_a_404_page_with_one_line(web: Web, url: str, line: str) -> None:
    page = web.get(url, status=404)
    errors = [t for t in parsed(page).tags if ("id", "error") in t[1]]
    assert len(errors) == 1 and f'<p class="error" id="error">{line}</p>' in page
    assert web.client.get("/api/bots/nobody").json()["error"] == "no bot called 'nobody'"


# ----- signing in, CSRF, the submission form ------------------------------------------
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def browser(web: Web, base_url: str = "http://testserver") -> TestClient:
    """A client of its own (its own cookies) on the same application."""
    return TestClient(web.client.app, base_url=base_url)


def signed_in(web: Web, who: str, base_url: str = "http://testserver") -> TestClient:
    client = browser(web, base_url)
    form = client.get("/signin")
    answer = client.post(
        "/signin",
        data={"token": web.ids["tokens"][who], "csrf": CSRF.findall(form.text)[-1]},
        follow_redirects=False,
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/submit"
    return client


def csrf_of(client: TestClient, url: str = "/submit") -> str:
    return CSRF.findall(client.get(url).text)[-1]


def test_signing_in_gives_an_httponly_samesite_cookie_secure_over_tls(web: Web) -> None:
    client = browser(web)
    form = client.get("/signin")
    first = form.headers["set-cookie"]
    assert "HttpOnly" in first and "SameSite=lax" in first and "Secure" not in first
    answer = client.post(
        "/signin",
        data={"token": web.ids["tokens"]["bob"], "csrf": CSRF.findall(form.text)[-1]},
        follow_redirects=False,
    )
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    assert cookie.split(";")[0] != first.split(";")[0]  # a new session id on sign-in
    assert web.ids["tokens"]["bob"] not in cookie  # the cookie is an id, never the token
    page = client.get("/bots/bobs").text
    assert '<span id="signed-in">bob</span>' in page and BOB_DETAIL in page
    assert 'id="build-output"' in page  # the owner's own submissions' output
    tls = browser(web, "https://testserver")  # over TLS (or a proxy's X-Forwarded-Proto)
    form = tls.get("/signin")
    assert "Secure" in form.headers["set-cookie"]
    answer = tls.post(
        "/signin",
        data={"token": web.ids["tokens"]["alice"], "csrf": CSRF.findall(form.text)[-1]},
        follow_redirects=False,
    )
    assert "Secure" in answer.headers["set-cookie"] and "HttpOnly" in answer.headers["set-cookie"]


def test_a_session_shows_private_output_to_its_owner_alone(web: Web) -> None:
    alice, olga = signed_in(web, "alice"), signed_in(web, "olga")
    assert BOB_DETAIL not in alice.get("/bots/bobs").text
    assert 'id="build-output"' not in alice.get("/bots/bobs").text
    assert BOB_DETAIL in olga.get(f"/matches/{web.ids['match']}").text
    assert BOB_DETAIL not in browser(web).get(f"/matches/{web.ids['match']}").text


def test_a_refused_token_signs_nobody_in(web: Web) -> None:
    client = browser(web)
    csrf = CSRF.findall(client.get("/signin").text)[-1]
    answer = client.post("/signin", data={"token": "arena_forged", "csrf": csrf})
    assert answer.status_code == 401 and 'id="error"' in answer.text
    assert 'id="signin-link"' in client.get("/").text


def test_every_post_needs_its_sessions_csrf_token(web: Web) -> None:
    bob, alice = signed_in(web, "bob"), signed_in(web, "alice")
    theirs = csrf_of(alice)
    for data in ({}, {"csrf": ""}, {"csrf": theirs}, {"csrf": "x" * 43}):
        assert bob.post("/signout", data=data).status_code == 403
        answer = bob.post("/submit", data=data, files={"archive": ("b.zip", b"PK")})
        assert answer.status_code == 403 and 'id="error"' in answer.text
    assert '<span id="signed-in">bob</span>' in bob.get("/").text  # still signed in
    # the sign-in form's own token: another browser's is refused
    stranger = browser(web)
    stranger.get("/signin")
    answer = stranger.post(
        "/signin", data={"token": web.ids["tokens"]["bob"], "csrf": theirs}, follow_redirects=False
    )
    assert answer.status_code == 403


def test_signing_out_ends_the_session_on_the_server(web: Web) -> None:
    client = signed_in(web, "bob")
    cookie = client.cookies["arena_session"]
    answer = client.post("/signout", data={"csrf": csrf_of(client)}, follow_redirects=False)
    assert answer.status_code == 303 and 'arena_session=""' in answer.headers["set-cookie"]
    replayed = browser(web)
    replayed.cookies.set("arena_session", cookie)
    page = replayed.get("/bots/bobs").text  # the old cookie sent again: nobody
    assert 'id="signin-link"' in page and BOB_DETAIL not in page
    assert replayed.get("/submit", follow_redirects=False).headers["location"] == (
        "/signin?next=/submit"
    )


def test_a_rotated_token_ends_its_sessions(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    ids = populate_web(store)
    client = TestClient(create_app(store, tmp_path))
    csrf = CSRF.findall(client.get("/signin").text)[-1]
    client.post("/signin", data={"token": ids["tokens"]["bob"], "csrf": csrf})  # type: ignore[index]
    assert BOB_DETAIL in client.get("/bots/bobs").text
    store.rotate_token("bob")
    assert BOB_DETAIL not in client.get("/bots/bobs").text
    assert 'id="signin-link"' in client.get("/").text


def test_a_service_that_took_no_upload_leaves_no_folder_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the uploads would go
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    populate_web(store)
    app = create_app(store, tmp_path)
    assert TestClient(app).get("/").status_code == 200  # no lifespan: never closed
    assert list(scratch.iterdir()) == []
    archive = app.state.jobs.new_archive()
    assert archive.parent.parent == scratch
    app.state.jobs.close()
    assert list(scratch.iterdir()) == []


def test_sign_in_goes_back_to_this_site_only(web: Web) -> None:
    client = browser(web)
    away = ("//evil.example/", "https://evil.example/", "/\\evil.example")
    for asked, went in [("/bots/bobs", "/bots/bobs"), *((a, "/submit") for a in away)]:
        csrf = CSRF.findall(client.get("/signin").text)[-1]
        answer = client.post(
            "/signin",
            data={"token": web.ids["tokens"]["bob"], "csrf": csrf, "next": asked},
            follow_redirects=False,
        )
        assert answer.headers["location"] == went


def test_the_submission_form_queues_the_archive_and_its_page_tells_the_refusal(web: Web) -> None:
    client = signed_in(web, "alice")
    assert 'enctype="multipart/form-data"' in client.get("/submit").text
    answer = client.post(
        "/submit",
        data={"csrf": csrf_of(client), "name": "<b>x"},
        files={"archive": ("bot.zip", b"not a zip at all")},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    where = answer.headers["location"]
    job_id = int(where.rsplit("/", 1)[1])
    jobs = web.client.app.state.jobs  # type: ignore[attr-defined]
    alice = web.store.account("alice")
    assert alice is not None
    job = jobs.get(job_id, alice)
    assert job.done.wait(30)
    page = client.get(where).text
    assert "State: <strong>refused</strong>" in page and job.error
    assert shown(job.error) in page and 'http-equiv="refresh"' not in page
    assert f'href="/submissions/{job_id}"' in client.get("/submit").text
    # another account's submission is not told apart from none
    assert signed_in(web, "bob").get(where).status_code == 404
    assert browser(web).get(where, follow_redirects=False).status_code == 303


# ----- live: a match followed by server-sent events, a board that follows -------------
def _events(client: TestClient, url: str, headers: dict[str, str] | None = None) -> list[Any]:
    """The (event, id, data) of a stream, read to its end."""
    found: list[Any] = []
    kind, ident = None, None
    with client.stream("GET", url, headers=headers or {}) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        for line in answer.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("id: "):
                ident = int(line[4:])
            elif line.startswith("data: "):
                found.append((kind, ident, orjson.loads(line[6:])))
                kind = ident = None
    return found


def test_a_live_match_streams_every_event_as_a_spectator_sees_it(tmp_path: Path) -> None:
    from arena.service.live import Live
    from tests.service_fixtures import replay_of

    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    _, unplayed = populate_with_a_match_in_play(store)
    live = Live()
    client = TestClient(create_app(store, tmp_path, live=live))
    replay = replay_of(unplayed.id, [f"{HOSTILE} v1", "bobs v1"])  # names as published
    header = {k: v for k, v in replay.items() if k not in ("events", "outcome")}
    assert client.get(f"/matches/{unplayed.id}/live").status_code == 404
    live.start(unplayed.id, header)
    home = client.get("/").text
    playing = home[home.index('id="now-playing"') : home.index('id="recent-matches"')]
    assert f'href="/matches/{unplayed.id}">{unplayed.id}</a> <span class="live">live</span>' in (
        playing
    )
    page = client.get(f"/matches/{unplayed.id}")
    assert 'id="live"' in page.text
    assert f'<iframe src="/matches/{unplayed.id}/watch"' in page.text
    watching = client.get(f"/matches/{unplayed.id}/watch")  # the viewer, as a spectator
    assert watching.status_code == 200
    assert "connect-src 'self'" in watching.headers["content-security-policy"]
    data = orjson.loads(watching.text.split('id="replay-data">')[1].split("</script>")[0])
    assert data["frames"] == [] and data["live"]["stream"] == f"/matches/{unplayed.id}/live"
    assert visible(HOSTILE) + " v1" in [s["bot"] for s in data["meta"]["seats"]]
    assert "<b>x</b>" not in watching.text
    for event in replay["events"]:
        live.event(unplayed.id, event)
    live.end(unplayed.id)
    streamed = _events(client, f"/matches/{unplayed.id}/live")
    frames = [data for kind, _, data in streamed if kind == "frame"]
    assert [kind for kind, _, _ in streamed][-1] == "end"
    assert len(frames) == len(replay["events"])  # every event, once
    assert [i for kind, i, _ in streamed if kind == "frame"] == list(range(len(frames)))
    decisions = [e for e in replay["events"] if "decision" in e]
    assert len([f for f in frames if f["kind"] == "decision"]) == len(decisions)
    for frame in frames:  # a spectator's: no seat's view, no secret, no debug, no decision
        assert set(frame) == {
            "kind",
            "seat",
            "bot",
            "text",
            "scores",
            "to_move",
            "forfeited",
            "over",
            "view",
        }
        assert frame["view"]["seat"] is None and "hand" not in frame["view"]["game"]
    assert {f["text"] for f in frames if f["kind"] == "chance"} == {"chance"}
    assert BOB_DEBUG not in str(frames) and BOB_DETAIL not in str(frames)
    assert frames[-1]["over"] and frames[-1]["bot"] == "bobs v1"
    assert visible(HOSTILE) + " v1" in {f["bot"] for f in frames}
    # a browser that reconnects gets only what it missed
    again = _events(client, f"/matches/{unplayed.id}/live", {"Last-Event-ID": "69"})
    assert [i for kind, i, _ in again if kind == "frame"] == list(range(70, len(frames)))


def test_without_javascript_the_live_page_shows_the_public_table_and_refreshes(
    tmp_path: Path,
) -> None:
    """The spectator page's <noscript> part: the newest frame's table in plain HTML (the
    row, the hand sizes, hostile names escaped), never a card of a hand, and a meta
    refresh; a new move gives a new page."""
    from arena.match.replay import walk
    from arena.service.live import Live
    from tests.service_fixtures import replay_of

    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    populate_web(store)
    live = Live()
    client = TestClient(create_app(store, tmp_path, live=live))
    replay = replay_of(90, [f"{HOSTILE} v1", "bobs v1"])
    live.start(90, {k: v for k, v in replay.items() if k not in ("events", "outcome")})
    empty = client.get("/matches/90/watch").text
    assert "No move yet." in empty
    played = replay["events"][:20]
    for event in played:
        live.event(90, event)
    page = client.get("/matches/90/watch").text
    assert '<noscript><meta http-equiv="refresh" content="5"></noscript>' in page
    plain = page[page.index("<noscript><h1>") : page.index('<div id="app">')]
    frames = live.frames_since(90, 0)
    assert frames is not None
    last = frames[0][-1]["view"]["game"]
    assert f"<td>{' '.join(map(str, last['row']))}</td>" in plain  # the row, as played
    assert "<td>" + str(last["hand_sizes"][0]) + "</td>" in plain
    assert html_escape(visible(HOSTILE)) in plain and "<b>x" not in plain
    *_, (_, game) = walk({**replay, "events": played})
    for seat in (0, 1):
        hand = game.observation(seat)["game"]["hand"]
        assert hand and " ".join(map(str, hand)) not in plain
        assert "hand</th>" not in plain.replace("cards in hand</th>", "")
    assert page != empty and client.get("/matches/90/watch").text == page


def test_the_home_page_marks_a_live_match_and_the_board_follows(web: Web) -> None:
    board = web.client.get("/leaderboard/take-that")
    assert "connect-src 'self'" in board.headers["content-security-policy"]
    assert 'id="board-area"' in board.text and 'src="/static/refresh.js"' in board.text
    stamp = re.search(r'data-stamp="([0-9a-f]+)"', board.text)
    assert stamp is not None
    assert stamp.group(1) in web.client.get("/leaderboard/take-that").text  # unchanged board
