"""Screenshots of every page of `arena serve`, at 1280 and at 400 pixels wide.

Builds a store in a temporary home with the web tests' fixtures (tests/web_fixtures.py:
two authors' bots, a recorded match with a replay, a hostile bot, a void match), serves
it on a free loopback port, signs in as bob for the pages only an author sees, and
writes one full-page PNG per page and width to FOLDER (made if missing), with Debian's
chromium through playwright (as tests/test_viewer.py launches it). Look at them.

    .venv/bin/python scripts/screenshot_pages.py /tmp/pages
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests' fixtures

import importlib  # noqa: E402

from arena.service.live import Live  # noqa: E402
from arena.service.web import segment  # noqa: E402
from arena.store import Store  # noqa: E402

# the tests' fixtures, loaded as the tests load them (not type-checked with the scripts)
_served = importlib.import_module("tests.service_fixtures")
_viewer_tests = importlib.import_module("tests.test_viewer")
_web = importlib.import_module("tests.web_fixtures")
replay_of, serve = _served.replay_of, _served.serve
CHROMIUM, FLAGS = _viewer_tests.CHROMIUM, _viewer_tests.FLAGS
HOSTILE, populate_web = _web.HOSTILE, _web.populate_web

WIDTHS = (1280, 400)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where the PNGs go (made if missing)")
    args = parser.parse_args(argv)
    if CHROMIUM is None:
        parser.exit(1, "no chromium on this machine: apt-get install chromium\n")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    from playwright.sync_api import sync_playwright

    from arena.status import TournamentStatus
    from arena.store.models import Match

    args.folder.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="screenshots-"))
    store = Store(f"sqlite:///{home / 'arena.db'}")
    ids = populate_web(store)
    tid = ids["first_tournament"]
    assert isinstance(tid, int)
    lineup = store.matches(tid)[0].lineup
    (playing,) = store.add_matches(
        tid, [Match(number=1, game="take-that", game_version=1, seed=9, lineup=lineup)]
    )
    store.set_tournament_status(tid, TournamentStatus.RUNNING)
    assert playing.id is not None
    live = Live()
    replay = replay_of(playing.id, ["alices v1", "bobs v1"])
    live.start(playing.id, {k: v for k, v in replay.items() if k not in ("events", "outcome")})
    for event in replay["events"][:30]:  # a match half-way through
        live.event(playing.id, event)
    pages = {
        "home": "/",
        "leaderboard": "/leaderboard/take-that",
        "bot": "/bots/bobs",
        "bot-hostile": f"/bots/{segment(HOSTILE)}",
        "match": f"/matches/{ids['match']}",
        "match-live": f"/matches/{playing.id}",
        "match-void": f"/matches/{ids['void_match']}",
        "tournament": f"/tournaments/{ids['tournament']}",
        "signin": "/signin",
        "error-404": "/bots/nobody",
    }
    signed = {"submit": "/submit", "bot-owner": "/bots/bobs"}
    tokens = ids["tokens"]
    assert isinstance(tokens, dict)
    for origin in serve(store, home, live=live):
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            for width in WIDTHS:
                context = chromium.new_context(viewport={"width": width, "height": 900})
                tab = context.new_page()
                for name, path in pages.items():
                    tab.goto(
                        origin + path, wait_until="networkidle" if "live" not in name else "load"
                    )
                    if name == "match-live":
                        tab.wait_for_function("() => window.frames.length === 1")
                        tab.frames[1].wait_for_function(
                            "() => window.arenaViewer && window.arenaViewer.count >= 30"
                        )
                    shot = args.folder / f"{name}-{width}.png"
                    tab.screenshot(path=str(shot), full_page=True)
                    print(shot)
                tab.goto(origin + "/signin")
                tab.fill("#token", tokens["bob"])
                with tab.expect_navigation():
                    tab.click("#signin-button")
                for name, path in signed.items():
                    tab.goto(origin + path, wait_until="networkidle")
                    shot = args.folder / f"{name}-{width}.png"
                    tab.screenshot(path=str(shot), full_page=True)
                    print(shot)
                context.close()
            chromium.close()


if __name__ == "__main__":
    main()
