"""A real arena service for tests: uvicorn on a free loopback port in a thread, over a
store in a temporary home, with two authors and an organiser, and a recorded match
whose seats hold private output (stderr, forfeit details) and a replay."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

from arena.games import load_game
from arena.results import rating
from arena.service import server
from arena.service.app import ServiceConfig, create_app
from arena.store import MatchRecord, SeatRecord, Store
from arena.store.models import Match, Tournament

GOLDEN = Path(__file__).resolve().parent / "golden"
#: What only the owners (and organisers) may read.
ALICE_STDERR, BOB_DETAIL = "alice-private-stderr", "bob-private-detail"
BOB_DEBUG = "bob-private-debug"


@dataclass
class Served:
    """A running service and what the tests need of it."""

    url: str
    store: Store
    home: Path
    tokens: dict[str, str]
    match_id: int

    def client(self, who: str | None = None, **options: Any) -> httpx.Client:
        headers = {} if who is None else {"Authorization": f"Bearer {self.tokens[who]}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, **options)


def replay_of(match_id: int, bots: list[str]) -> dict[str, Any]:
    """A real two-seat Take That replay (its golden transcript), seat 1 forfeiting, with a
    debug text of seat 1's."""
    golden = json.loads((GOLDEN / "take-that-2p-pro-rounds1.json").read_text())
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
    first = next(e for e in events if e.get("seat") == 1 and "decision" in e)
    first["debug"] = BOB_DEBUG  # protocol 2's debug text, kept with the decision
    events.append({"forfeit": 1, "reason": "crash", "detail": BOB_DETAIL})
    outcome = game.outcome()
    return {
        "format": "arena-replay",
        "version": 3,
        "match": f"t1-m{match_id}",
        "time_control": "1s/decision",
        "game": golden["game"],
        "game_version": golden["game_version"],
        "variant": game.variant,
        "seed": golden["seed"],
        "deal_seed": "0" * 64,
        "players": 2,
        "seats": [
            {"seat": i, "bot": bots[i], "seed": i + 1, "fallback_seed": i + 7} for i in range(2)
        ],
        "events": events,
        "outcome": {
            "scores": list(outcome.scores),
            "ranks": list(outcome.ranks),
            "status": ["ok", "crash"],
        },
    }


def populate(store: Store) -> tuple[dict[str, str], int]:
    """Accounts alice, bob (authors) and olga (organiser), a bot of each author and
    one recorded match between them; the tokens and the match's id."""
    tokens = {
        "alice": store.add_account("alice"),
        "bob": store.add_account("bob"),
        "olga": store.add_account("olga", organiser=True),
    }
    a = store.add_bot_version("alices", "a" * 64, "/nowhere/a", ["x"], ["*"], "account:alice")
    b = store.add_bot_version("bobs", "b" * 64, "/nowhere/b", ["x"], ["*"], "account:bob")
    lineup = [a.id or 0, b.id or 0]
    tid = store.create_tournament(
        Tournament(
            name="t", game="take-that", game_version=1, format="round-robin", players=2,
            rounds=1, seed=1, variant={}, settings={},
        ),
        [Match(number=0, game="take-that", game_version=1, seed=1, lineup=lineup)],
    )  # fmt: skip
    match_id = store.matches(tid)[0].id or 0
    replay = orjson.dumps(replay_of(match_id, ["alices v1", "bobs v1"])).decode()
    seats = [
        SeatRecord(0, lineup[0], 1.0, 1, "ok", "", ALICE_STDERR),
        SeatRecord(1, lineup[1], 0.0, 2, "crash", BOB_DETAIL, "bob-stderr"),
    ]
    store.record(
        MatchRecord(match_id, "forfeit", seats, replay=replay),
        lambda skills: rating.rate("take-that", skills, [1, 2]),
    )
    return tokens, match_id


def serve(
    store: Store, home: Path, config: ServiceConfig | None = None, **options: Any
) -> Iterator[str]:
    """Run the service in a thread until the block ends; yields its URL. `options` go to
    `create_app` (on_change, live)."""
    app = create_app(store, home, config or ServiceConfig(), **options)
    sock = server.listen("127.0.0.1", 0)
    host, port = sock.getsockname()[:2]
    running = server.server(app)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:  # uvicorn sets it once it serves (no timing is measured)
        assert thread.is_alive() and time.monotonic() < deadline, "the service did not start"
        time.sleep(0.005)
    try:
        yield f"http://{host}:{port}"
    finally:
        running.should_exit = True
        thread.join(30)
        sock.close()
