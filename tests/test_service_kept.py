"""The pages the service keeps in memory (arena.service.kept, arena.service.views): read
again off the requests once they are old, shared by requests that wait, a board kept
while its stamp holds; and the served board is `arena leaderboard --json`'s, before and
after a match is recorded or a bot retired, with its ETag. Time is a test's own clock:
nothing waits for it."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from arena.cli import app as cli
from arena.results import rating, reports
from arena.service import views
from arena.service.app import create_app
from arena.service.kept import Kept
from arena.store import MatchRecord, SeatRecord, Store
from arena.store.models import Match, Tournament
from tests.databases import BACKENDS, database_url
from tests.service_fixtures import populate


class Clock:
    """A monotonic clock that moves only when a test moves it."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    """The views' pages kept under a test's clock."""
    ticking = Clock()
    kept = Kept(clock=ticking)
    monkeypatch.setattr(views, "KEPT", kept)
    yield ticking
    kept.close()


def test_a_value_is_served_fresh_then_stale_while_it_is_read_again() -> None:
    clock = Clock()
    kept = Kept(fresh=1.0, stale=2.0, clock=clock)
    given: list[Any] = []

    def read(previous: Any) -> int:
        given.append(previous)
        return len(given)

    assert kept.get("k", read) == 1  # never read: the request waits for the read
    clock.now += 0.9
    assert kept.get("k", read) == 1 and given == [None]  # fresh: not read again
    clock.now += 0.2
    assert kept.get("k", read) == 1  # old: still served while it is read again
    kept.settle()
    assert given == [None, 1]  # the read is given the value it replaces
    assert kept.get("k", read) == 2
    clock.now += 3.1  # older than fresh + stale: the request waits again
    assert kept.get("k", read) == 3
    kept.close()


def test_requests_waiting_for_one_key_share_one_read_and_a_failed_read_is_theirs() -> None:
    kept = Kept(clock=Clock())
    let_go = threading.Event()
    reads: list[int] = []

    def slow(_previous: Any) -> str:
        reads.append(1)
        let_go.wait(30)
        return "board"

    found: list[str] = []
    waiting = [threading.Thread(target=lambda: found.append(kept.get("k", slow))) for _ in range(5)]
    for thread in waiting:
        thread.start()
    let_go.set()
    for thread in waiting:
        thread.join(30)
    # the clock stands still: whoever came after the read found it fresh
    assert found == ["board"] * 5 and reads == [1]

    def broken(_previous: Any) -> str:
        raise ValueError("no such game")

    with pytest.raises(ValueError, match="no such game"):
        kept.get("other", broken)
    assert kept.get("other", lambda _p: None) is None  # nothing kept: read again
    assert kept.get("other", lambda _p: "now") == "now"
    kept.close()


def record_one(store: Store, winner: str) -> None:
    """One more recorded take-that match of alices against bobs, `winner` first."""
    names = store.bot_names()
    lineup = [v.id or 0 for v in sorted(store.versions(), key=lambda v: names[v.bot_id])]
    tid = store.create_tournament(
        Tournament(
            name="again", game="take-that", game_version=1, format="round-robin", players=2,
            rounds=1, seed=2, variant={}, settings={},
        ),
        [Match(number=0, game="take-that", game_version=1, seed=2, lineup=lineup)],
    )  # fmt: skip
    match = store.matches(tid)[0]
    ranks = [1, 2] if winner == "alices" else [2, 1]
    seats = [SeatRecord(s, v, float(2 - ranks[s]), ranks[s], "ok") for s, v in enumerate(lineup)]
    store.record(
        MatchRecord(match.id or 0, "normal", seats),
        lambda skills: rating.rate("take-that", skills, ranks),
    )


def printed(home: Path, url: str) -> Any:
    """What `arena leaderboard take-that --json` prints for the store at `url`."""
    result = CliRunner().invoke(
        cli, ["--home", str(home), "--db", url, "leaderboard", "take-that", "--json"]
    )
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def board_stamp(client: TestClient) -> str:
    """The leaderboard page's stamp of the board it shows (its rows' hash)."""
    page = client.get("/leaderboard/take-that").text
    found = re.search(r'id="board-area"[^>]*data-stamp="([0-9a-f]+)"', page)
    assert found is not None, page
    return found[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_served_board_is_the_clis_and_follows_the_recording(
    tmp_path: Path, backend: str, clock: Clock
) -> None:
    with database_url(backend, tmp_path) as url:
        store = Store(url)
        tokens, _match = populate(store)
        client = TestClient(create_app(store, tmp_path))
        first = client.get("/api/leaderboard/take-that")
        assert first.json() == printed(tmp_path, url)
        page = board_stamp(client)
        etag = first.headers["etag"]
        assert (
            client.get("/api/leaderboard/take-that", headers={"If-None-Match": etag}).status_code
            == 304
        )

        record_one(store, "bobs")
        assert client.get("/api/leaderboard/take-that").json() == first.json()  # fresh: kept
        clock.now += views.BOARD_FRESH
        assert board_stamp(client) == page  # the web page's board, served while read again
        views.KEPT.settle()
        second = client.get("/api/leaderboard/take-that")
        assert second.json() == printed(tmp_path, url) != first.json()
        assert [r["games"] for r in second.json()] == [2, 2]
        assert second.headers["etag"] != etag
        again = {"If-None-Match": etag}
        assert client.get("/api/leaderboard/take-that", headers=again).status_code == 200
        assert board_stamp(client) != page

        # a retirement changes no rating row: the stamp holds the retired versions too
        olga = {"Authorization": f"Bearer {tokens['olga']}"}
        assert client.post("/api/bots/bobs/retire", headers=olga).json()["changed"]
        clock.now += views.BOARD_FRESH
        assert client.get("/api/leaderboard/take-that").json() == second.json()  # read again
        views.KEPT.settle()
        third = client.get("/api/leaderboard/take-that").json()
        assert third == printed(tmp_path, url)
        assert [r["retired"] for r in third if r["bot"] == "bobs"] == [True]
        store.close()


def test_a_board_whose_stamp_holds_is_not_computed_again(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    populate(store)
    computed: list[str] = []
    board = reports.leaderboard

    def counted(*args: Any, **options: Any) -> Any:
        computed.append(args[1])
        return board(*args, **options)

    monkeypatch.setattr(reports, "leaderboard", counted)
    client = TestClient(create_app(store, tmp_path))
    shown = client.get("/api/leaderboard/take-that").json()
    for _ in range(3):
        clock.now += views.BOARD_FRESH
        assert client.get("/api/leaderboard/take-that").json() == shown
        views.KEPT.settle()
    assert computed == ["take-that"]  # read again three times, computed once
    record_one(store, "alices")
    clock.now += views.BOARD_FRESH
    client.get("/api/leaderboard/take-that")
    views.KEPT.settle()
    assert computed == ["take-that"] * 2
    assert client.get("/api/leaderboard/take-that").json() != shown


def test_a_bot_page_is_kept_whole_for_its_owner_and_without_private_parts_for_others(
    tmp_path: Path, clock: Clock
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tokens, _match = populate(store)
    client = TestClient(create_app(store, tmp_path))
    bob = {"Authorization": f"Bearer {tokens['bob']}"}
    own = client.get("/api/bots/bobs", headers=bob)
    public = client.get("/api/bots/bobs")
    assert own.json() == reports.bot_details(store, "bobs")
    assert own.json()["recent_forfeits"][0]["detail"]
    assert "detail" not in public.json()["recent_forfeits"][0]
    assert own.headers["etag"] != public.headers["etag"]
    assert (
        client.get("/api/bots/bobs", headers={"If-None-Match": public.headers["etag"]}).status_code
        == 304
    )
    assert client.get("/api/bots/nobody").status_code == 404


def test_the_leaderboard_page_answers_304_while_its_board_and_reader_are_the_same(
    tmp_path: Path, clock: Clock
) -> None:
    """Its ETag follows what it is rendered from: the kept board (a recorded match), the
    sorting, who is signed in; a page held with it is not rendered again."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tokens, _match = populate(store)
    client = TestClient(create_app(store, tmp_path))
    first = client.get("/leaderboard/take-that")
    etag = first.headers["etag"]
    assert first.status_code == 200 and first.headers["cache-control"] == "private, no-cache"
    held = client.get("/leaderboard/take-that", headers={"If-None-Match": etag})
    assert (held.status_code, held.content, held.headers["etag"]) == (304, b"", etag)
    both = {"If-None-Match": f'"other", W/{etag}'}  # a list, weakly compared
    assert client.get("/leaderboard/take-that", headers=both).status_code == 304
    sorted_by_mu = client.get("/leaderboard/take-that?sort=mu", headers={"If-None-Match": etag})
    assert sorted_by_mu.status_code == 200 and sorted_by_mu.headers["etag"] != etag

    signing = TestClient(client.app)
    form = signing.get("/signin").text
    csrf = re.findall(r'name="csrf" value="([^"]+)"', form)[-1]
    signing.post("/signin", data={"token": tokens["bob"], "csrf": csrf}, follow_redirects=False)
    own = signing.get("/leaderboard/take-that", headers={"If-None-Match": etag})
    assert own.status_code == 200 and own.headers["etag"] != etag  # its header: signed in
    assert (
        signing.get(
            "/leaderboard/take-that", headers={"If-None-Match": own.headers["etag"]}
        ).status_code
        == 304
    )

    record_one(store, "bobs")
    clock.now += 1.0  # the board and the note of its time controls are read again
    client.get("/leaderboard/take-that")
    views.KEPT.settle()
    after = client.get("/leaderboard/take-that", headers={"If-None-Match": etag})
    assert after.status_code == 200 and after.headers["etag"] != etag
    assert "(2 matches)" in after.text
    store.close()


def test_a_replay_page_held_by_an_anonymous_reader_is_answered_304(tmp_path: Path) -> None:
    """A stored replay never changes: its page is not built or sent again to an
    anonymous reader that holds it (a signed-in reader's page is built for it)."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tokens, match_id = populate(store)
    client = TestClient(create_app(store, tmp_path))
    first = client.get(f"/matches/{match_id}/replay")
    assert first.status_code == 200 and "<html" in first.text.lower()
    etag = first.headers["etag"]
    held = client.get(f"/matches/{match_id}/replay", headers={"If-None-Match": etag})
    assert (held.status_code, held.content) == (304, b"")
    missing = client.get(f"/matches/{match_id + 1}/replay", headers={"If-None-Match": etag})
    assert missing.status_code == 404
    bob = {"Authorization": f"Bearer {tokens['bob']}", "If-None-Match": etag}
    assert client.get(f"/matches/{match_id}/replay", headers=bob).status_code == 200
    store.close()
