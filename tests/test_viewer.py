"""`arena replay html`: the self-contained replay page, driven in headless Chromium.

One replay per game (made from a golden transcript: no bot process runs) is written
as a page through the command line, opened in Chromium (Debian's, through
Playwright), and stepped through event by event: the shown decision and scores must
be the replay's, a seat's view must show only that seat's observation, and any
JavaScript error fails the test. Without Chromium or Playwright the browser tests
skip, except under CI (CI=true), where they fail.
"""

from __future__ import annotations

import doctest
import json
import os
import shutil
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena import controls, viewer
from arena.cli import app, safe
from arena.games import load_game
from arena.match import replay as replays
from arena.store import MatchRecord, SeatRecord, Store
from arena.store.models import Match
from arena.viewer import events

GOLDEN = Path(__file__).resolve().parent / "golden"
#: One transcript per game (short ones: the whole test file runs in well under 30 s).
CASES = {
    "take-that": "take-that-3p",
    "leylo": "leylo-2p",
    "twirkle": "twirkle-3p",
    "krumme10": "krumme10-4p-long-teams",
}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: The flags the machine notes ask for; Playwright adds a new empty profile itself.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOSTILE = '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
#: The Unicode categories that steer a display instead of showing (arena.controls).
CATEGORIES = ("Cc", "Cf", "Zl", "Zp")
runner = CliRunner()


def golden_replay(name: str, bots: list[str] | None = None) -> dict[str, Any]:
    """A version 2 replay of a golden transcript: its chance outcomes and decisions."""
    golden = json.loads((GOLDEN / f"{name}.json").read_text())
    game = load_game(golden["game"]).from_chance(
        golden["players"], golden["chance"], golden["variant"]
    )
    events: list[dict[str, Any]] = []
    seen = 0
    for _digest, decisions in golden["steps"]:
        events.extend(game.chance.log[seen:])
        seen = len(game.chance.log)
        events.extend({"seat": s, "decision": d, "ms": 1.5} for s, _, d in decisions)
        game.apply_joint({s: d for s, _, d in decisions})
    events.extend(game.chance.log[seen:])
    outcome = game.outcome()
    names = bots or golden["bots"]
    return {
        "format": "arena-replay",
        "version": 2,
        "match": f"{golden['game']}-{golden['seed']}",
        "game": golden["game"],
        "game_version": golden["game_version"],
        "variant": game.variant,
        "seed": golden["seed"],
        "deal_seed": "0" * 64,
        "players": golden["players"],
        "seats": [
            {"seat": i, "bot": names[i], "seed": i + 1, "fallback_seed": i + 7}
            for i in range(golden["players"])
        ],
        "events": events,
        "outcome": {
            "scores": list(outcome.scores),
            "ranks": list(outcome.ranks),
            "status": ["ok"] * golden["players"],
        },
    }


def shown(value: float) -> str:
    """A score as the page writes it (viewer.js `fmt`)."""
    return str(int(value)) if value == int(value) else f"{value:.2f}"


def expected(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """Per event, from the referee: the decision's text, the scores and every seat's view."""
    result = []
    applied = 0
    for event, game in replays.walk(replay):
        waits = "seat" in event and len(game.history) == applied
        applied = len(game.history)
        if "seat" in event:
            text = game.describe(event["seat"], event["decision"])
        else:
            text = f"chance: {event['chance']}"
        views = [game.observe(s) for s in range(game.players)]
        if game.is_over():
            scores = list(game.outcome().scores)
        elif replay["game"] == "take-that":
            scores = [sum(r[s] for r in views[0]["round_scores"]) for s in range(game.players)]
        else:
            scores = list(views[0]["totals" if replay["game"] == "leylo" else "scores"])
        scores_text = [shown(s) for s in scores]
        result.append(
            {
                "text": text,
                "seat": event.get("seat"),
                "action": event["decision"].get("action") if "seat" in event else None,
                "pending": waits,
                "scores": scores_text,
                "views": views,
                "to_move": game.to_move(),
            }
        )
    return result


def write_page(replay: dict[str, Any], folder: Path) -> Path:
    source, page = folder / "replay.json", folder / "match.html"
    replays.write(source, replay)
    result = runner.invoke(app, ["replay", "html", str(source), "-o", str(page)])
    assert result.exit_code == 0, result.output
    return page


# ----- the browser ---------------------------------------------------------------
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


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A new page; any console error or uncaught exception fails the test."""
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    tab.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    # nothing may be fetched: the page is self-contained
    tab.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    yield tab
    tab.close()
    assert errors == []


#: Steps through every event in one evaluation: what the page shows at each.
WALK = """() => {
  const v = window.arenaViewer;
  v.batch = true;
  const seen = [];
  for (let i = 0; i < v.count; i++) {
    v.go(i);
    seen.push({
      text: document.querySelector("#decision .text").textContent,
      scores: [...document.querySelectorAll("#scores td.score")].map((c) => c.textContent),
      toMove: [...document.querySelectorAll("#scores tr.to-move")].map((r) => +r.dataset.seat),
    });
  }
  v.batch = false;
  return seen;
}"""

#: For one view at some events: the cards on the table, hand by hand, and what is secret.
LOOK = """([seat, indices]) => {
  const v = window.arenaViewer;
  v.batch = true;
  v.setSeat(seat);
  const seen = [];
  for (const i of indices) {
    v.go(i);
    const table = document.getElementById("table");
    const hands = {};
    for (const h of table.querySelectorAll(".hand[data-seat], .grid4[data-seat]")) {
      hands[h.dataset.seat] = {
        cards: [...h.querySelectorAll("[data-card]:not(.secret)")].map((c) => c.dataset.card),
        backs: h.querySelectorAll(".back").length,
        secret: h.querySelectorAll(".secret").length,
      };
    }
    seen.push({
      index: i,
      decision: document.querySelector("#decision .text").textContent,
      cards: [...table.querySelectorAll("[data-card]")].map((c) => c.dataset.card),
      secret: table.querySelectorAll(".secret").length,
      hands: hands,
    });
  }
  v.batch = false;
  return seen;
}"""


def scalars(value: Any) -> set[str]:
    """Every number and string in a JSON value, as text."""
    if isinstance(value, dict):
        return set().union(*(scalars(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(scalars(v) for v in value)) if value else set()
    return {str(value).lower() if isinstance(value, bool) else str(value)}


def public_words(game: str, truth: dict[str, Any], seat: int) -> str:
    """How a seat's view of an event (an `expected` entry) must begin: the referee's
    words, but for what the seat does not see (another seat's choice still waiting for
    the seats asked with it; which card another Twirkle seat picks or puts aside)."""
    mover, action = truth["seat"], truth["action"]
    if mover is None or mover == seat:
        return str(truth["text"])
    if truth["pending"]:
        return f"seat {mover} chooses (shown once every seat asked with it has chosen)"
    if game == "twirkle" and action == "pick":
        return f"seat {mover} picks a card to place"
    if game == "twirkle" and action == "exchange":
        return f"seat {mover} puts a card aside to exchange"
    return str(truth["text"])


def hand_cards(game: str, view: dict[str, Any], seat: int) -> list[str] | None:
    """The cards of `seat`'s hand (grid) as `view` shows them, face up only."""
    if game in ("take-that", "twirkle"):
        return [str(c) for c in view["hand"]] if view["seat"] == seat else []
    if game == "leylo":
        return [c for c in view["grids"][seat] if c not in ("hidden", "empty")]
    return [str(c["top"]) for c in view["hands"][seat]]  # krumme10: top sides are public


@pytest.mark.parametrize("game", list(CASES))
def test_every_event_of_a_match_is_shown_as_in_the_replay(
    game: str, page: Any, tmp_path: Path
) -> None:
    replay = golden_replay(CASES[game])
    path = write_page(replay, tmp_path)
    want = expected(replay)
    page.goto(path.as_uri())
    assert page.evaluate("window.arenaViewer.count") == len(want) == len(replay["events"])

    seen = page.evaluate(WALK)
    for index, (got, truth) in enumerate(zip(seen, want, strict=True)):
        # the all-seeing view names the cards in brackets (LEYLO) after the referee's words
        assert got["text"].startswith(truth["text"]), f"event {index}"
        if game != "leylo":
            assert got["text"] == truth["text"], f"event {index}"
        assert got["scores"] == truth["scores"], f"event {index}"
        assert got["toMove"] == sorted(truth["to_move"]), f"event {index}"
    assert seen[-1]["scores"] == [shown(s) for s in replay["outcome"]["scores"]]

    players = replay["players"]
    sample = [*range(0, len(want), max(1, len(want) // 16)), len(want) - 1]
    for seat in range(players):
        for look in page.evaluate(LOOK, [seat, sample]):
            truth = want[look["index"]]
            view = truth["views"][seat]
            assert look["secret"] == 0, f"seat {seat} is shown a hidden card"
            assert look["decision"].startswith(public_words(game, truth, seat))
            assert set(look["cards"]) <= scalars(view), f"seat {seat}: not in its view"
            for other in range(players):
                cards = look["hands"][str(other)]["cards"]
                assert sorted(cards) == sorted(hand_cards(game, view, other) or []), (
                    f"seat {seat}'s view of seat {other}'s hand at event {look['index']}"
                )
    # the all-seeing view shows every hand, and the hidden cards marked
    for look in page.evaluate(LOOK, [None, sample]):
        views = want[look["index"]]["views"]
        for other in range(players):
            hand = look["hands"][str(other)]
            assert sorted(hand["cards"]) == sorted(hand_cards(game, views[other], other) or [])
            if game == "leylo":
                assert hand["backs"] == 0  # every face-down card is shown, marked
    assert any(look["secret"] for look in page.evaluate(LOOK, [None, [1]]))

    page.evaluate(f"window.arenaViewer.setSeat(null); window.arenaViewer.go({len(want) // 2})")
    page.screenshot(path=str(tmp_path / f"{game}-all.png"), full_page=True)
    page.evaluate("window.arenaViewer.setSeat(0)")
    page.screenshot(path=str(tmp_path / f"{game}-seat0.png"))
    assert (tmp_path / f"{game}-all.png").stat().st_size > 10_000


def test_buttons_keys_slider_and_view_switch(page: Any, tmp_path: Path) -> None:
    replay = golden_replay(CASES["take-that"])
    page.goto(write_page(replay, tmp_path).as_uri())
    last = len(replay["events"]) - 1

    def index() -> int:
        return int(page.evaluate("window.arenaViewer.state().index"))

    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert index() == 2
    page.keyboard.press("ArrowLeft")
    assert index() == 1
    page.keyboard.press("End")
    assert index() == last
    page.keyboard.press("ArrowRight")
    assert index() == last
    page.keyboard.press("Home")
    assert index() == 0
    page.click("#btn-next")
    page.click("#btn-next")
    page.click("#btn-back")
    assert index() == 1
    page.click("#btn-last")
    assert index() == last
    page.click("#btn-first")
    assert index() == 0
    page.fill("#slider", "40")  # a range input takes fill(); fires input
    assert index() == 40
    assert page.text_content("#counter") == f"event 41 / {last + 1}"
    page.select_option("#view", "1")
    assert page.evaluate("window.arenaViewer.state().seat") == 1
    assert "Seat 1's view" in (page.text_content("#view-note") or "")
    page.select_option("#view", "all")
    assert page.evaluate("window.arenaViewer.state().seat") is None


def test_hostile_strings_stay_text(page: Any, tmp_path: Path) -> None:
    """Bot names and forfeit details are shown as text: they cannot end the data's
    script element, and nothing of them runs."""
    replay = golden_replay("take-that-2p-pro-rounds1", bots=[HOSTILE, "b\u2028<!--"])
    at = next(i for i, e in enumerate(replay["events"]) if e.get("seat") == 1)
    replay["events"].insert(at, {"forfeit": 1, "reason": "crash", "detail": HOSTILE})
    replay["events"][at + 1]["by"] = "fallback"
    replay["outcome"]["status"][1] = "crash"
    path = write_page(replay, tmp_path)
    source = path.read_text()
    assert source.count("</script>") == len(viewer.SCRIPTS) + 2  # ours only (and 2 data)
    assert "<script>window.pwned" not in source and "<img" not in source  # only escaped
    page.goto(path.as_uri())
    page.evaluate(f"window.arenaViewer.go({at})")
    assert page.evaluate("window.pwned") is None
    assert HOSTILE in (page.text_content("#scores") or "")
    assert HOSTILE in (page.text_content("#decision") or "")
    assert page.locator("img").count() == 0
    assert page.locator("#scores tr.forfeited").count() == 1
    page.evaluate(f"window.arenaViewer.go({at + 1})")  # the fallback's decision, tagged
    assert page.text_content("#decision .fallback") == "fallback"
    assert (page.text_content("#decision .text") or "").startswith("seat 1 ")
    page.evaluate(f"window.arenaViewer.go({at - 1})")
    assert page.locator("#scores tr.forfeited").count() == 0
    page.click("#btn-last")  # the closing lines name the bots, as text
    assert HOSTILE in (page.text_content("#result") or "")
    assert page.evaluate("window.pwned") is None and page.locator("img").count() == 0


# ----- issue 30 item 11: bidi and control characters are shown as the terminal shows them
#: A name that U+202E draws as "evil" reversed, with ESC, NUL, a zero-width space, a
#: tag character (invisible "A") and a right-to-left isolate.
STEERING_NAME = "\u202eevil\x1b[2J\x00\u200b\U000e0041\u2067x"
STEERING_DETAIL = "answered \u202elive\x00\x1b]0;pwn\x07 \u2066, which was not offered"


def raw_controls(text: str) -> list[str]:
    """The characters of the shared list in `text`, but the page's own newlines."""
    return [hex(ord(c)) for c in text if ord(c) in controls.CODES and c != "\n"]


def test_bidi_and_control_characters_are_shown_escaped(page: Any, tmp_path: Path) -> None:
    replay = golden_replay("take-that-2p-pro-rounds1", bots=["polite", STEERING_NAME])
    at = next(i for i, e in enumerate(replay["events"]) if e.get("seat") == 1)
    replay["events"].insert(at, {"forfeit": 1, "reason": "illegal", "detail": STEERING_DETAIL})
    replay["events"][at + 1]["by"] = "fallback"
    replay["outcome"]["status"][1] = "illegal"
    replay["match"] = "m\u202e1"
    page.goto(write_page(replay, tmp_path).as_uri())
    page.evaluate(f"window.arenaViewer.go({at})")
    page.evaluate("window.arenaViewer.setSeat(1)")  # the seat's name in the view switch too
    assert raw_controls(page.content()) == []  # nowhere in the DOM, attributes included
    assert raw_controls(page.title()) == []
    name = controls.visible(STEERING_NAME)
    assert name == r"\u202eevil\x1b[2J\x00\u200b\U000e0041\u2067x"
    assert name in (page.text_content("#scores") or "")
    assert name in (page.text_content("#view") or "")
    assert controls.visible(STEERING_DETAIL) in (page.text_content("#decision") or "")
    assert controls.visible(STEERING_DETAIL) in (page.text_content("#log") or "")
    assert r"m\u202e1" in page.title() and r"m\u202e1" in (page.text_content("h1") or "")
    page.click("#btn-last")  # the closing lines too
    assert name in (page.text_content("#result") or "")
    assert raw_controls(page.content()) == []


def test_the_page_and_the_terminal_escape_the_same_characters(page: Any, tmp_path: Path) -> None:
    """One list (arena.controls) for both: cards.js spells every character of it as
    arena.cli.safe does, and nothing else."""
    page.goto(write_page(golden_replay(CASES["leylo"]), tmp_path).as_uri())
    every = "".join(map(chr, sorted(controls.CODES)))
    sample = f"plain é ü 漢 🂡 \\u202e {every} end"
    shown = page.evaluate("(text) => ArenaViewer.visible(text)", sample)
    assert shown == controls.visible(sample) == safe.visible(sample)
    assert raw_controls(shown) == []
    assert page.evaluate("(t) => ArenaViewer.visible(t)", "é ü 漢 🂡") == "é ü 漢 🂡"


def test_the_shared_list_is_every_control_and_format_character() -> None:
    """arena.controls.RANGES is written out (scanning costs 0.1 s a command): it must be
    every Cc, Cf, Zl and Zp character of this Python's Unicode tables, and beyond them
    only characters that these tables have not assigned yet (a newer Unicode's format
    characters: Python 3.11 has Unicode 14, 3.13 has 15.1)."""
    wanted = {c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in CATEGORIES}
    assert wanted <= controls.CODES, sorted(map(hex, wanted - controls.CODES))
    newer = controls.CODES - wanted
    assert all(unicodedata.category(chr(c)) == "Cn" for c in newer), sorted(map(hex, newer))
    assert list(controls.RANGES) == sorted(controls.RANGES)
    assert viewer.embed_json(controls.RANGES) in viewer.build(golden_replay(CASES["leylo"]))


def test_the_controls_doctests() -> None:
    assert doctest.testmod(controls).failed == 0
    assert doctest.testmod(viewer).failed == 0


# ----- the command line without a browser ------------------------------------------
def test_html_needs_a_replay_and_a_writable_output(tmp_path: Path) -> None:
    replay = golden_replay(CASES["krumme10"])
    source = tmp_path / "replay.json"
    replays.write(source, replay)
    not_replay = tmp_path / "other.json"
    not_replay.write_text('{"hello": 1}')
    cases = [
        (["replay", "html", str(tmp_path / "missing.json")], "no replay file"),
        (["replay", "html", str(not_replay)], "is not an arena replay"),
        (["replay", "html", str(source), "-o", str(tmp_path / "no" / "x.html")], "no folder"),
        (["replay", "html", str(source), "-o", str(tmp_path)], "is a folder"),
        (["replay", "html"], "either a replay FILE or --match"),
        (["replay", "html", str(source), "--match", "3"], "either a replay FILE or --match"),
        (["replay", "html", str(source), "-o", str(source)], "is the replay file itself"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and result.output.count("\n") == 1, result.output
    result = runner.invoke(app, ["replay", "html", str(source)])  # -o defaults to FILE.html
    assert result.exit_code == 0 and (tmp_path / "replay.html").is_file(), result.output


def test_html_of_a_stored_match(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    try:
        a = store.add_bot_version("alpha", "a" * 64, "/x", ["x"], ["*"]).id or 0
        b = store.add_bot_version("beta", "b" * 64, "/y", ["y"], ["*"]).id or 0
        from arena.store.models import Tournament

        tournament = Tournament(
            name="t",
            game="take-that",
            game_version=1,
            format="round-robin",
            players=2,
            rounds=1,
            seed=1,
            variant={},
            settings={},
        )
        schedule = [Match(number=n, game="take-that", seed=n, lineup=[a, b]) for n in (0, 1)]
        tid = store.create_tournament(tournament, schedule)
        played, waiting = store.matches(tid)
        replay = golden_replay("take-that-2p-pro-rounds1")
        seats = [SeatRecord(s, [a, b][s], replay["outcome"]["scores"][s], 1, "ok") for s in (0, 1)]
        store.record(MatchRecord(played.id or 0, "normal", seats, replay=json.dumps(replay)))
    finally:
        store.close()
    page = tmp_path / "stored.html"
    result = runner.invoke(
        app, ["--db", url, "replay", "html", "--match", str(played.id), "-o", str(page)]
    )
    assert result.exit_code == 0, result.output
    assert '"game":"take-that"' in page.read_text()
    label = tmp_path / "label.html"
    result = runner.invoke(
        app, ["--db", url, "replay", "html", "--match", f"t{tid}-m0", "-o", str(label)]
    )
    assert result.exit_code == 0, result.output
    assert label.read_text() == page.read_text()
    missing = [(waiting.id, "has no stored replay"), (999, "no match 999")]
    missing += [(f"t{tid}-m7", f"no match t{tid}-m7"), ("../x", "takes a match id")]
    missing += [(str(10**30), "no match 1000"), (f"t{10**20}-m0", "no match t1000")]
    for match_id, message in missing:
        result = runner.invoke(
            app, ["--db", url, "replay", "html", "--match", str(match_id), "-o", str(page)]
        )
        assert result.exit_code == 2 and message in result.output, result.output


def test_the_page_is_self_contained() -> None:
    page = viewer.build(golden_replay(CASES["twirkle"]))
    assert "http://" not in page.replace('"http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "src=" not in page
    assert "default-src 'none'" in page
    for name in viewer.SCRIPTS:  # text from a replay is only ever set as textContent
        code = viewer.asset(name)
        assert ".innerHTML" not in code and "insertAdjacentHTML" not in code, name


@pytest.mark.parametrize("game", list(CASES))
def test_frames_rebuild_every_view_and_the_secret(game: str) -> None:
    """What the page embeds (changed keys only) rebuilds, as viewer.js does, exactly
    each seat's observation (protocol 2's envelope, whose game fields change one level
    down) and the places no seat sees, at every event."""
    replay = golden_replay(CASES[game])
    frames = viewer.frames(replay)

    def merged(base: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
        return {**base, **delta, "game": {**base.get("game", {}), **delta.get("game", {})}}

    view0: dict[str, Any] = {}
    secret: dict[str, Any] = {}
    for frame, (_event, state) in zip(frames, replays.walk(replay), strict=True):
        view0 = merged(view0, frame["views"][0])
        views = [view0] + [merged(view0, delta) for delta in frame["views"][1:]]
        secret = {k: v for k, v in {**secret, **frame["secret"]}.items() if v is not None}
        assert views == [state.observation(s) for s in range(state.players)]
        assert all(set(delta) <= {"seat", "game"} for delta in frame["views"][1:])
        hidden = [state.hidden(s) for s in range(state.players)]
        assert secret == {k: v for k, v in hidden[0].items() if all(k in h for h in hidden)}
        assert frame["to_move"] == state.to_move()


# ----- issue 31 item 19: the end, the fit, the controls, the seat's view, colours, legend
def test_the_announcement_ranks_from_the_recorded_outcome() -> None:
    """Lower-score-wins, shared ranks, forfeits and teams: the recorded ranks decide."""
    leylo = {"scores": [-101, -34], "ranks": [2, 1], "status": ["ok", "ok"]}
    assert events.announce(leylo, ["random", "first-legal"], None, higher_wins=False) == [
        "seat 1 (first-legal) wins with -34 (the lowest total wins)",
        "2nd: seat 0 (random) -101",
    ]
    shared = {"scores": [5, 5, 3, 3], "ranks": [1, 1, 3, 3], "status": ["ok"] * 3 + ["crash"]}
    assert events.announce(shared, ["a", "b", "c", "d"], None) == [
        "seat 0 (a) and seat 1 (b) share the win with 5",
        "3rd (shared): seat 2 (c) and seat 3 (d, forfeited: crash) 3",
    ]
    teams = {"scores": [4, 2, 3.5, 4, 2, 3.5], "ranks": [1, 3, 2, 1, 3, 2], "status": ["ok"] * 6}
    assert events.announce(teams, list("abcdef"), [0, 1, 2, 0, 1, 2]) == [
        "team A wins with 4: seat 0 (a) and seat 3 (d)",
        "2nd: team C 3.50: seat 2 (c) and seat 5 (f)",
        "3rd: team B 2: seat 1 (b) and seat 4 (e)",
    ]
    tied = {"scores": [4, 4, 4, 4], "ranks": [1, 1, 1, 1], "status": ["ok"] * 4}
    assert events.announce(tied, list("abcd"), [0, 1, 0, 1]) == [
        "teams A and B share the win with 4:"
        " A seat 0 (a) and seat 2 (c); B seat 1 (b) and seat 3 (d)"
    ]


def test_the_announcement_says_when_the_recorded_scores_are_not_the_referees() -> None:
    replay = golden_replay(CASES["leylo"])
    assert viewer.page_data(replay)["meta"]["result"][-1].startswith("2nd: seat 1")
    replay["outcome"]["scores"] = [1, 2]  # a hand-edited file: not verified here, but said
    result = viewer.page_data(replay)["meta"]["result"]
    assert result[-1] == "the recorded scores differ from the referee's: see arena replay verify"


@pytest.mark.parametrize("game", list(CASES))
def test_the_end_of_a_match_names_the_winner_and_the_ranking(
    game: str, page: Any, tmp_path: Path
) -> None:
    replay = golden_replay(CASES[game])
    page.goto(write_page(replay, tmp_path).as_uri())
    page.click("#btn-last")
    lines = page.locator("#result > div").all_text_contents()
    assert "the match is over" not in (page.text_content("#decision") or "")
    outcome, bots = replay["outcome"], [s["bot"] for s in replay["seats"]]
    winners = [s for s, rank in enumerate(outcome["ranks"]) if rank == 1]
    assert page.text_content("#result .winner") == lines[0]
    if game == "krumme10":  # teams ABAB, A ahead: the team and both its members
        assert outcome["ranks"] == [1, 2, 1, 2]
        assert lines == [
            f"team A wins with 28.50: seat 0 ({bots[0]}) and seat 2 ({bots[2]})",
            f"2nd: team B 2: seat 1 ({bots[1]}) and seat 3 ({bots[3]})",
        ]
        return
    (winner,) = winners
    assert lines[0].startswith(f"seat {winner} ({bots[winner]}) wins with ")
    assert len(lines) == replay["players"]  # one line per rank, no ties in these matches
    if game == "leylo":  # the lowest total wins: the winner has the lower score
        assert outcome["scores"][winner] == min(outcome["scores"])
        assert lines[0].endswith("(the lowest total wins)")
    page.click("#btn-back")
    assert page.locator("#result").count() == 0
    assert (page.text_content("#decision .next") or "").startswith("to move: seat")


def test_the_late_twirkle_board_fits_a_900_pixel_window(browser: Any, tmp_path: Path) -> None:
    tab = browser.new_page(viewport={"width": 900, "height": 700})
    try:
        tab.goto(write_page(golden_replay(CASES["twirkle"]), tmp_path).as_uri())
        tab.click("#btn-last")
        board = tab.locator("#table .board")
        columns = int(board.get_attribute("data-cols") or 0)
        assert columns * 46 > 900  # at full size this board would not fit
        board.scroll_into_view_if_needed()
        box = tab.evaluate(FIT)
        assert box["scrollWidth"] <= box["innerWidth"], box  # no horizontal scroll
        assert box["left"] >= 0 and box["right"] <= box["innerWidth"], box
        assert box["height"] <= box["innerHeight"], box
        assert box["cards"] and all(  # every card of the board is inside the window
            c["left"] >= 0 and c["right"] <= box["innerWidth"] and c["bottom"] - c["top"] > 8
            for c in box["cards"]
        ), box
        tab.set_viewport_size({"width": 1800, "height": 1400})  # more room, bigger cards
        # the page redraws on its resize event, which may come after this call returns
        tab.wait_for_function(
            "(cell) => parseFloat(getComputedStyle(document.querySelector('#table .board'))"
            ".getPropertyValue('--tw-cell')) > cell",
            arg=box["cell"],
        )
    finally:
        tab.close()


FIT = """() => {
  const board = document.querySelector("#table .board");
  const r = board.getBoundingClientRect();
  return {
    scrollWidth: document.scrollingElement.scrollWidth,
    innerWidth: innerWidth, innerHeight: innerHeight,
    left: r.left, right: r.right, height: r.height,
    cell: parseFloat(getComputedStyle(board).getPropertyValue("--tw-cell")),
    cards: [...board.querySelectorAll(".card")].map((c) => c.getBoundingClientRect().toJSON()),
  };
}"""


def test_play_pauses_steps_are_arrows_and_the_speed_is_set(page: Any, tmp_path: Path) -> None:
    # The autoplay timer runs on the test's clock alone: installed, the fake clock still
    # flows with real time (a loaded machine steps on its own), paused it moves by run_for only.
    page.clock.install(time=0)
    page.goto(write_page(golden_replay(CASES["take-that"]), tmp_path).as_uri())
    page.clock.pause_at(1_000_000)
    labels = {
        name: page.text_content(f"#btn-{name}") or "" for name in ("first", "back", "next", "last")
    }
    assert page.text_content("#btn-play") == "▶ play"
    assert all("▶" not in label and "◀" not in label for label in labels.values()), labels
    assert page.evaluate("window.arenaViewer.state().stepMs") == 500
    page.select_option("#speed", "4")
    assert page.evaluate("window.arenaViewer.state().stepMs") == 125
    page.click("#btn-play")
    assert page.text_content("#btn-play") == "❚❚ pause"
    page.clock.run_for(125 * 3 + 10)
    assert page.evaluate("window.arenaViewer.state()")["index"] == 3
    page.select_option("#speed", "0.5")  # a new speed while playing: 1000 ms a step
    page.clock.run_for(1010)
    assert page.evaluate("window.arenaViewer.state()")["index"] == 4
    page.click("#btn-play")
    assert page.text_content("#btn-play") == "▶ play"
    assert page.evaluate("window.arenaViewer.state()")["playing"] is False
    page.clock.run_for(5000)
    assert page.evaluate("window.arenaViewer.state()")["index"] == 4


#: Every event's text in one view: the decision line and the event list's line.
TELLS = """(seat) => {
  const v = window.arenaViewer;
  v.batch = true;
  v.setSeat(seat);
  const seen = [];
  for (let i = 0; i < v.count; i++) {
    v.go(i);
    seen.push([document.querySelector("#decision .text").textContent,
               document.querySelectorAll("#log li")[i].textContent]);
  }
  v.batch = false;
  return seen;
}"""


def test_a_seat_sees_the_others_public_moves_and_no_hidden_card(page: Any, tmp_path: Path) -> None:
    """LEYLO: a card drawn from the pile is named to its drawer only; the cards turned
    up, taken, placed and discarded are named to every seat, as its grid shows them."""
    replay = golden_replay(CASES["leylo"])
    want = expected(replay)
    page.goto(write_page(replay, tmp_path).as_uri())
    tells = {seat: page.evaluate(TELLS, seat) for seat in (0, 1)}
    draws = 0
    for index, truth in enumerate(want):
        mover, event = truth["seat"], replay["events"][index]
        if mover is None or truth["action"] != "draw":
            continue
        other = 1 - mover
        held = truth["views"][mover]["holding"]["card"]
        if event["decision"]["source"] == "pile":
            draws += 1
            assert truth["views"][other]["holding"]["card"] == "hidden"
            assert tells[other][index] == [truth["text"]] * 2  # "draws from the pile", no card
            assert tells[mover][index] == [f"{truth['text']} ({held})"] * 2
        else:  # the top discard was seen by all
            assert tells[other][index] == [f"{truth['text']} ({held})"] * 2
    assert draws > 10
    # a flip names the card it turned up, in every view
    flip = next(i for i, t in enumerate(want) if t["action"] == "flip" and not t["pending"])
    mover = want[flip]["seat"]
    cell = replay["events"][flip]["decision"]["cell"]
    card = want[flip]["views"][0]["grids"][mover][cell]
    for seat in (0, 1):
        assert tells[seat][flip][0].startswith(f"seat {mover} turns up cell {cell} ({card})")


def test_a_seat_is_not_told_which_card_another_twirkle_seat_picks(
    page: Any, tmp_path: Path
) -> None:
    from arena.games.twirkle.cards import NAMES

    replay = golden_replay(CASES["twirkle"])
    want = expected(replay)
    page.goto(write_page(replay, tmp_path).as_uri())
    private = [i for i, t in enumerate(want) if t["action"] in ("pick", "exchange")]
    assert len(private) > 50
    for seat in range(replay["players"]):
        tells = page.evaluate(TELLS, seat)
        for index in private:
            truth = want[index]
            card = replay["events"][index]["decision"]["card"]
            if truth["seat"] == seat:
                assert card in tells[index][0]
            else:
                assert not any(name in text for text in tells[index] for name in NAMES), (
                    seat,
                    index,
                    tells[index],
                )
        placed = next(i for i, t in enumerate(want) if t["action"] == "place" and t["seat"] != seat)
        assert tells[placed][0] == want[placed]["text"]  # a placement is public


def luminance(rgb: str) -> float:
    """The relative luminance of a CSS rgb() colour (0 black .. 1 white)."""
    parts = [int(float(p)) / 255 for p in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    lin = [p / 12.92 if p <= 0.03928 else ((p + 0.055) / 1.055) ** 2.4 for p in parts]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_twirkle_black_cards_are_drawn_black(page: Any, tmp_path: Path) -> None:
    page.goto(write_page(golden_replay(CASES["twirkle"]), tmp_path).as_uri())
    page.click("#btn-last")
    colours = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("#table .card.tw")].map((c) => {
             const shape = c.querySelector(".symbol > *");
             return [c.dataset.card.split("-")[0],
                     [getComputedStyle(shape).fill, getComputedStyle(c).backgroundColor]];
           }))"""
    )
    assert set(colours) == {"blue", "yellow", "green", "purple", "red", "black"}
    fill, card = colours["black"]
    assert luminance(fill) < 0.02 and luminance(card) > 0.8, colours["black"]
    assert len({fill for fill, _ in colours.values()}) == 6  # six colours, told apart


def test_krumme10_explains_its_marks(page: Any, tmp_path: Path) -> None:
    replay = golden_replay(CASES["krumme10"])
    page.goto(write_page(replay, tmp_path).as_uri())
    page.evaluate("window.arenaViewer.go(40)")
    marks = page.eval_on_selector_all(
        "#legend .legend-item", "(items) => items.map((i) => i.dataset.mark)"
    )
    assert set(marks) == {"unseen", "seen", "flipped", "pink", "by", "secret", "sum"}
    legend = page.text_content("#legend") or ""
    downs = page.eval_on_selector_all(
        "#table .card .down", "(ds) => ds.map((d) => d.textContent[0])"
    )
    assert {"?", "↓"} <= set(downs)  # the table uses both, and the legend says what they mean
    assert "? — the down side was never seen" in legend and "↓4 — the down side" in legend
    page.evaluate("window.arenaViewer.setSeat(2)")  # no secret in a seat's view, so no such mark
    marks = page.eval_on_selector_all(
        "#legend .legend-item", "(items) => items.map((i) => i.dataset.mark)"
    )
    assert "secret" not in marks and page.locator("#table .secret").count() == 0


def test_a_version_3_replay_shows_each_seats_clock_and_its_debug_text_as_text(
    page: Any, tmp_path: Path
) -> None:
    """Protocol 2: a clock per seat (the bank left) and the debug text of a decision,
    escaped, in the views that may see it (the deciding seat's and the all-seeing)."""
    replay = golden_replay("take-that-2p-pro-rounds1")
    replay["version"] = 3
    replay["time_control"] = "10s+100ms"
    bank = [10_000.0, 10_000.0]
    for event in replay["events"]:
        if "decision" in event:
            seat = event["seat"]
            bank[seat] = bank[seat] - 1.5 + 100
            event.update(charged_ms=1.5, bank_ms=bank[seat], debug=f"{HOSTILE} \x1b[31m")
    path = write_page(replay, tmp_path)
    assert "<img" not in path.read_text() and "<script>window.pwned" not in path.read_text()
    page.goto(path.as_uri())
    at = next(i for i, e in enumerate(replay["events"]) if e.get("seat") == 1)
    page.evaluate(f"window.arenaViewer.go({at})")
    assert "clock · 10s+100ms" in (page.text_content("#scores") or "")
    seat1 = page.text_content('#scores tr[data-seat="1"] .clock') or ""
    assert seat1 == f"{(10_000 - 1.5 + 100) / 1000:.2f} s left"
    said = page.text_content("#decision .debug") or ""
    assert said == f"debug: {HOSTILE} \\x1b[31m"  # text, the escape spelled as the terminal does
    assert "charged 1.50 ms" in (page.text_content("#decision .by") or "")
    assert page.evaluate("window.pwned") is None and page.locator("img").count() == 0
    page.select_option("#view", "0")  # seat 0 does not see seat 1's words
    assert page.locator("#decision .debug").count() == 0
    page.select_option("#view", "1")
    assert page.locator("#decision .debug").count() == 1


def test_a_spectator_sees_only_the_public_table_of_a_live_match(browser: Any) -> None:
    """The live page (`viewer.build_live`, served here by the browser's own routes),
    fed a match's spectator frames as server-sent events (arena.service.live): every
    frame drawn, each hand as another seat sees it, no secret, nothing from elsewhere."""
    from arena.service.live import spectator_frames

    for game in CASES:  # one browser page per game, in one test: chromium starts once
        replay = golden_replay(CASES[game], ["a", HOSTILE, "c", "d"][: _players(game)])
        header = {k: v for k, v in replay.items() if k not in ("events", "outcome")}
        frames = spectator_frames(header, replay["events"])
        stream = "retry: 100000000\n\n" + "".join(
            f"event: frame\nid: {i}\ndata: {json.dumps(f)}\n\n" for i, f in enumerate(frames)
        )
        origin = "http://arena.test"
        pages = {
            f"{origin}/watch": ("text/html", viewer.build_live(header, "/live", "/done")),
            f"{origin}/live": ("text/event-stream", stream),
        }
        elsewhere: list[str] = []
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        tab.on("pageerror", lambda error, errors=errors: errors.append(f"pageerror: {error}"))
        tab.route("**/*", _answering(pages, elsewhere))
        tab.goto(f"{origin}/watch")
        tab.wait_for_function(f"() => window.arenaViewer.count === {len(frames)}")
        want = expected(replay)
        players = replay["players"]
        looks = tab.evaluate(LOOK, [None, list(range(len(frames)))])
        assert tab.evaluate("window.arenaViewer.state().index") == len(frames) - 1
        for look, truth in zip(looks, want, strict=True):
            views = truth["views"]
            assert look["secret"] == 0, f"{game}: a hidden card is shown at {look['index']}"
            common = set.intersection(*(scalars(v) for v in views))
            assert set(look["cards"]) <= common, f"{game}: not in every seat's view"
            for other in range(players):  # every hand as another seat's view shows it
                cards = look["hands"][str(other)]["cards"]
                another = views[(other + 1) % players]
                assert sorted(cards) == sorted(hand_cards(game, another, other) or []), (
                    f"{game}: seat {other}'s hand at event {look['index']}"
                )
            if truth["seat"] is None:
                assert look["decision"] == "chance"
            else:
                seat = (truth["seat"] + 1) % players
                assert look["decision"].startswith(public_words(game, truth, seat))
        assert tab.evaluate("typeof window.pwned") == "undefined"
        assert controls.visible(HOSTILE) in tab.inner_text("#scores")
        tab.close()
        assert errors == [] and elsewhere == [], game


def _answering(pages: dict[str, tuple[str, str]], elsewhere: list[str]) -> Any:
    """A browser route that answers `pages` (url -> type, body) and refuses the rest."""

    def answer(route: Any) -> None:
        found = pages.get(route.request.url)
        if found is None:
            elsewhere.append(route.request.url)
            route.abort()
        else:
            route.fulfill(status=200, content_type=found[0], body=found[1])

    return answer


def _players(game: str) -> int:
    return int(json.loads((GOLDEN / f"{CASES[game]}.json").read_text())["players"])


@pytest.mark.parametrize("game", list(CASES))
def test_the_spectators_view_is_what_every_seat_sees_and_no_seats_own(game: str) -> None:
    """Over random matches of every player count: the public view holds no field of the
    viewing seat's own (`spectator.OWN`), and every other field is every seat's (none
    falls to None because one seat saw it otherwise, but for those `REDACTED` names)."""
    import random

    from arena.viewer import spectator

    spec = load_game(game).spec
    redacted = set(spectator.REDACTED.get(game, {}))
    changed: set[str] = set()
    for players in range(spec.min_players, spec.max_players + 1):
        match = load_game(game).new(players, players, {})
        rng = random.Random(players)
        while not match.is_over():
            views = [match.observation(s) for s in range(players)]
            public = spectator.public_view(game, views)
            assert public["seat"] is None
            assert not set(public["game"]) & spectator.OWN[game]
            assert set(public["game"]) == set(views[0]["game"]) - spectator.OWN[game]
            for key, value in public["game"].items():
                if any(v["game"][key] != views[0]["game"][key] for v in views):
                    assert key in redacted, key  # a field no seat alone may fill in
                    assert value is None or value["card"] == "hidden"  # LEYLO's held card
                    changed.add(key)
                else:
                    assert value == views[0]["game"][key]
            for key in ("phase", "to_move", "scores", "players"):
                assert public[key] == views[0][key]
            match.apply_joint({s: rng.choice(match.legal(s)) for s in match.to_move()})
    if game == "leylo":
        assert "holding" in changed  # a card drawn from the pile: face down
