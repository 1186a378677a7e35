"""The service's web pages in Debian's Chromium (playwright, as tests/test_viewer.py
drives it; `playwright install` is never run), served by uvicorn on loopback: every
page with JavaScript off and on, no console error, no request leaving the page's
origin, hostile text shown as text and never run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.controls import visible
from arena.service.live import Live
from arena.service.web import segment
from arena.store import Store
from tests.service_fixtures import serve
from tests.test_viewer import CHROMIUM, FLAGS
from tests.web_fixtures import HOSTILE, HOSTILE_DETAIL, HOSTILE_VOID, populate_web

pytestmark = pytest.mark.slow  # it starts chromium


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    home = tmp_path_factory.mktemp("site")
    store = Store(f"sqlite:///{home / 'arena.db'}")
    ids = populate_web(store)
    live = Live()
    for url in serve(store, home, live=live):
        yield url, {**ids, "store": store, "live": live}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if ci:
            pytest.fail("CI needs the playwright package (pip install -e '.[test]')")
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    if CHROMIUM is None:
        if ci:
            pytest.fail("CI needs Chromium: apt-get install chromium")
        pytest.skip("no chromium on this machine: apt-get install chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


class Visit:
    """A browser context with JavaScript on or off that notes every console error,
    uncaught exception and request, and refuses the requests to another origin."""

    def __init__(self, browser: Any, origin: str, javascript: bool):
        self.origin = origin
        self.context = browser.new_context(java_script_enabled=javascript)
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.context.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        self.requests.append(url)
        if url == self.origin or url.startswith(self.origin + "/"):
            route.continue_()
        else:
            route.abort()

    def open(self, path: str) -> Any:
        tab = self.context.new_page()
        tab.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))
        tab.on(
            "console",
            lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None,
        )
        answer = tab.goto(self.origin + path, wait_until="load")
        assert answer is not None and answer.status == 200, path
        return tab

    def close(self) -> None:
        self.context.close()


def _paths(ids: dict[str, Any]) -> list[str]:
    return [
        "/",
        "/leaderboard/take-that",
        "/leaderboard/take-that?sort=mu&order=asc&latest=true",
        "/bots/bobs",
        f"/bots/{segment(HOSTILE)}",
        f"/matches/{ids['match']}",
        f"/matches/{ids['hostile_match']}",
        f"/matches/{ids['void_match']}",
        f"/matches/{ids['hostile_match']}/replay",
        f"/tournaments/{ids['tournament']}",
        "/signin",
        "/submit",  # leads to /signin for a reader who is not signed in
    ]


@pytest.mark.parametrize("javascript", [False, True], ids=["no-js", "js"])
def test_every_page_renders_alone_with_no_error_and_runs_nothing_hostile(
    browser: Any, site: tuple[str, dict[str, Any]], javascript: bool
) -> None:
    origin, ids = site
    visit = Visit(browser, origin, javascript)
    try:
        for path in _paths(ids):
            tab = visit.open(path)
            # the page, and the replay viewer's frame on a match page: no other frame
            frames = tab.frames
            assert [f.url for f in frames[1:]] in ([], [origin + path + "/replay"]), path
            if javascript:
                for frame in frames:
                    assert frame.evaluate("typeof window.pwned") == "undefined", path
                assert tab.locator("h1, #app").count() >= 1, path
            tab.close()
        assert visit.errors == []
        assert visit.requests and all(url.startswith(origin + "/") for url in visit.requests)
        assert f"{origin}/static/site.css" in visit.requests
    finally:
        visit.close()


@pytest.mark.parametrize("javascript", [False, True], ids=["no-js", "js"])
def test_a_hostile_name_detail_and_void_reason_show_as_text(
    browser: Any, site: tuple[str, dict[str, Any]], javascript: bool
) -> None:
    origin, ids = site
    visit = Visit(browser, origin, javascript)
    try:
        bot = visit.open(f"/bots/{segment(HOSTILE)}")
        assert bot.inner_text("#bot-name") == visible(HOSTILE)
        assert (
            bot.locator("main script:not([type='application/json']), main img, main b").count() == 0
        )
        board = visit.open("/leaderboard/take-that")
        names = board.locator("#board tbody tr td:nth-child(2)").all_inner_texts()
        assert visible(HOSTILE) in names
        # the name's link leads to its page
        board.locator("#board a", has_text="window.pwned=1").click()
        board.wait_for_load_state("load")
        assert board.inner_text("#bot-name") == visible(HOSTILE)
        tournament = visit.open(f"/tournaments/{ids['tournament']}")
        why = tournament.locator("#void-matches tbody td:nth-child(4)").inner_text()
        assert why == visible(HOSTILE_VOID)
        assert tournament.locator("main iframe").count() == 0
        match = visit.open(f"/matches/{ids['hostile_match']}")
        assert visible(HOSTILE_DETAIL) not in match.inner_text("main")  # eve's alone
        if javascript:  # the embedded viewer draws the match, the name as text
            viewer = match.frame_locator("#replay iframe")
            viewer.locator("#scores td.score").first.wait_for()
            assert visible(HOSTILE) in viewer.locator("body").inner_text()
        assert visit.errors == []
    finally:
        visit.close()


def test_the_plots_points_are_the_stored_ratings(
    browser: Any, site: tuple[str, dict[str, Any]]
) -> None:
    origin, ids = site
    store: Store = ids["store"]
    visit = Visit(browser, origin, True)
    try:
        for name in ("bobs", HOSTILE):
            tab = visit.open(f"/bots/{segment(name)}")
            tab.wait_for_function("() => window.arenaPlots && window.arenaPlots.length > 0")
            drawn = tab.evaluate("window.arenaPlots.map(p => [p.game, p.plot.data])")
            seats = [
                (m, s) for m, s in reversed(store.bot_matches(name, 1000)) if s.mu_after is not None
            ]
            assert len(drawn) == 1 and drawn[0][0] == "take-that"
            x, mu, upper, lower = drawn[0][1]
            assert x == list(range(1, len(seats) + 1))
            assert mu == [s.mu_after for _, s in seats]
            assert upper == pytest.approx([s.mu_after + 2 * s.sigma_after for _, s in seats])
            assert lower == pytest.approx([s.mu_after - 2 * s.sigma_after for _, s in seats])
            assert tab.locator("#rating-plots canvas").count() == 1
            assert tab.evaluate("typeof window.pwned") == "undefined"
        assert visit.errors == []
        assert all(url.startswith(origin + "/") for url in visit.requests)
    finally:
        visit.close()


def _public_table(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """After each event of a Take That replay: the cards some seat cannot see (hands,
    the draw pile, unseen minus cards: every seat's `hidden`), each hand's size, the row."""
    from arena.match import replay as replays

    tables = []
    for _event, game in replays.walk(replay):
        hidden = {
            card
            for seat in range(game.players)
            for cards in game.hidden(seat).values()
            for card in cards
        }
        view = game.observation(0)["game"]
        tables.append(
            {"hidden": hidden, "sizes": view["hand_sizes"], "row": view["row"], "fields": set(view)}
        )
    return tables


#: What a spectator's table shows: every card's value (data-card), and per seat its
#: hand as drawn (backs and faces).
DRAWN = """() => ({
  cards: [...document.querySelectorAll("#table [data-card]")].map(c => Number(c.dataset.card)),
  row: [...document.querySelectorAll("#table .row [data-card]")].map(c => Number(c.dataset.card)),
  hands: [...document.querySelectorAll("#table .hand")].map(h => ({
    seat: Number(h.dataset.seat),
    backs: h.querySelectorAll(".card.back").length,
    faces: h.querySelectorAll(".card:not(.back)").length,
  })),
  counter: document.getElementById("counter").textContent,
})"""


def _check_drawn(drawn: dict[str, Any], table: dict[str, Any]) -> None:
    """The viewer's table at one event is the public one: no hidden card, backs only."""
    assert not set(drawn["cards"]) & table["hidden"], drawn
    assert drawn["row"] == table["row"]
    assert [h["backs"] for h in drawn["hands"]] == table["sizes"]
    assert [h["faces"] for h in drawn["hands"]] == [0] * len(table["sizes"])


def test_a_live_match_page_receives_every_move(
    browser: Any, site: tuple[str, dict[str, Any]]
) -> None:
    import orjson

    from arena.status import TournamentStatus
    from arena.store.models import Match
    from tests.service_fixtures import BOB_DEBUG, BOB_DETAIL, replay_of

    origin, ids = site
    store: Store = ids["store"]
    live: Live = ids["live"]
    tid = ids["first_tournament"]
    first = store.matches(tid)[0]
    (playing,) = store.add_matches(
        tid, [Match(number=1, game="take-that", game_version=1, seed=9, lineup=first.lineup)]
    )
    assert playing.id is not None
    store.set_tournament_status(tid, TournamentStatus.RUNNING)
    replay = replay_of(playing.id, ["alices v1", f"{HOSTILE} v1"])
    tables = _public_table(replay)
    live.start(playing.id, {k: v for k, v in replay.items() if k not in ("events", "outcome")})
    visit = Visit(browser, origin, True)
    try:
        home = visit.open("/")
        assert home.locator("#now-playing .live").count() == 1
        tab = visit.open(f"/matches/{playing.id}")
        assert [f.url for f in tab.frames[1:]] == [f"{origin}/matches/{playing.id}/watch"]
        viewer = tab.frames[1]
        viewer.wait_for_function("() => window.arenaViewer !== undefined")
        assert "waiting" in viewer.inner_text("#counter")
        events = replay["events"]
        for n, event in enumerate(events, 1):  # published one by one as a match plays
            live.event(playing.id, event)
            if n % 7 == 0 or n == len(events):  # the page follows: it draws the newest
                viewer.wait_for_function(f"() => window.arenaViewer.count === {n}")
                drawn = viewer.evaluate(DRAWN)
                assert drawn["counter"] == f"event {n} / {n}"
                _check_drawn(drawn, tables[n - 1])
        received = viewer.evaluate("window.arenaViewer.received")
        assert len(received) == len(events)
        assert [f["seat"] for f in received] == [e.get("seat", e.get("forfeit")) for e in events]
        sent = orjson.dumps(received).decode()
        assert BOB_DEBUG not in sent and BOB_DETAIL not in sent
        for frame, table in zip(received, tables, strict=True):  # nothing hidden was sent
            view = frame["view"]["game"]
            assert set(view) == table["fields"] - {"hand"}
            cards = {*view["row"], *(c for cs in view["plus"] + view["minus_seen"] for c in cs)}
            assert not cards & table["hidden"], frame
        for index, table in enumerate(tables):  # every frame's table, drawn again
            viewer.evaluate(f"window.arenaViewer.go({index})")
            _check_drawn(viewer.evaluate(DRAWN), table)
        assert viewer.locator("#log li").count() == len(events)
        assert "chance:" not in viewer.inner_text("#log")  # a chance event is only "chance"
        assert visible(HOSTILE) in viewer.inner_text("#scores")  # the name, as text
        for frame in tab.frames:
            assert frame.evaluate("typeof window.pwned") == "undefined"
        with tab.expect_navigation():
            live.end(playing.id)  # the page loads itself again: the match as stored
        assert tab.locator("#live").count() == 0
        assert visit.errors == []
        assert all(url.startswith(origin + "/") for url in visit.requests)
    finally:
        visit.close()


def test_an_author_signs_in_uploads_a_starter_kit_and_finds_it_on_the_leaderboard(
    browser: Any, tmp_path: Path
) -> None:
    import tarfile

    from typer.testing import CliRunner

    from arena.cli import app as cli
    from arena.service.ladder import LadderSpec, OpenLadders

    home = tmp_path / "home"
    home.mkdir()
    store = Store(f"sqlite:///{home / 'arena.db'}")
    token = store.add_account("carol")
    kit = tmp_path / "carols"
    made = CliRunner().invoke(cli, ["init", str(kit), "--kit", "python"])
    assert made.exit_code == 0, made.output
    archive = tmp_path / "carols.tar.gz"
    with tarfile.open(archive, "w:gz") as packed:
        packed.add(kit, arcname="carols")
    spec = LadderSpec(game="take-that", players=2, matches=1000, bundled=("random",), workers=1)
    ladders = OpenLadders(store, home, [spec])
    ladders.start()
    visit = Visit(browser, "", True)
    try:
        for origin in serve(store, home, on_change=ladders.poke):
            visit.origin = origin
            tab = visit.open("/submit")  # not signed in: the sign-in form
            assert tab.url.startswith(origin + "/signin")
            tab.fill("#token", token)
            with tab.expect_navigation():
                tab.click("#signin-button")
            assert tab.url == origin + "/submit" and tab.inner_text("#signed-in") == "carol"
            tab.set_input_files("#archive", str(archive))
            with tab.expect_navigation():
                tab.click("#submit-button")
            assert "/submissions/" in tab.url
            # the page reloads itself (no script) until the job is done
            tab.wait_for_selector("#state.state-registered", timeout=180_000)
            tab.click("#result a")
            tab.wait_for_load_state("load")
            assert tab.inner_text("#bot-name") == "carols"
            board = visit.open("/leaderboard/take-that")
            # the board follows the recording by itself: carols appears once rated
            board.locator("#board a", has_text="carols").wait_for(timeout=180_000)
            rows = board.locator("#board tbody tr td:nth-child(2)").all_inner_texts()
            assert "carols" in rows
            assert visit.errors == []
            assert all(url.startswith(origin + "/") for url in visit.requests)
    finally:
        visit.close()
        ladders.stop(60)
