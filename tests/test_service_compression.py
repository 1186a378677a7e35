"""Compression through real HTTP: `arena serve`'s application under uvicorn on a loopback
socket; pages, JSON, scripts and the replay viewer gzipped for a client that accepts it
and as they are for one that does not; the live event stream never, each frame
arriving while the match is still being played."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.service import server
from arena.service.app import create_app
from arena.service.live import Live
from arena.store import Store
from tests.service_fixtures import replay_of
from tests.web_fixtures import HOSTILE, populate_with_a_match_in_play

#: Seconds a read of the socket may wait before the test fails (not a timing assertion:
#: a frame held back by a compressor would never come).
PATIENCE = 30.0


class Served:
    def __init__(self, url: str, live: Live, ids: dict[str, Any], playing: int):
        self.url, self.live, self.ids, self.playing = url, live, ids, playing


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home: Path = tmp_path_factory.mktemp("gzip")
    store = Store(f"sqlite:///{home / 'arena.db'}")
    ids, unplayed = populate_with_a_match_in_play(store)
    live = Live()
    uvicorn = server.server(create_app(store, home, live=live))
    sock = server.listen("127.0.0.1", 0)
    host, port = sock.getsockname()[:2]
    thread = threading.Thread(target=lambda: asyncio.run(uvicorn.serve(sockets=[sock])))
    thread.start()
    deadline = time.monotonic() + PATIENCE
    while not uvicorn.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)  # waits for the server to listen; nothing is timed
    assert uvicorn.started
    try:
        yield Served(f"http://{host}:{port}", live, ids, unplayed.id)
    finally:
        uvicorn.should_exit = True
        thread.join(PATIENCE)


def _get(served: Served, path: str, encoding: str) -> httpx.Response:
    with httpx.Client(base_url=served.url, timeout=PATIENCE) as client:
        answer = client.get(path, headers={"Accept-Encoding": encoding})
    assert answer.status_code == 200, (path, answer.text[-300:])
    return answer


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/leaderboard/take-that",
        "/bots/bobs",
        "/openapi.json",  # JSON (the fixture's API pages are under 1000 bytes: sent as they are)
        "/static/vendor/uplot/uPlot.iife.min.js",
        "/static/site.css",
        "replay",
    ],
)
def test_pages_json_scripts_and_the_replay_are_gzipped_for_a_client_that_accepts_it(
    served: Served, path: str
) -> None:
    if path == "replay":
        path = f"/matches/{served.ids['hostile_match']}/replay"
    plain, packed = _get(served, path, "identity"), _get(served, path, "gzip, deflate")
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["vary"]
    assert packed.content == plain.content  # httpx unpacked it
    assert packed.num_bytes_downloaded < len(plain.content) / 2
    assert int(packed.headers["content-length"]) == packed.num_bytes_downloaded
    if "/replay" in path:  # the kept page's own gzip form: its policy headers kept
        assert packed.headers["content-security-policy"] == plain.headers["content-security-policy"]


def _read_until(sock: socket.socket, seen: bytearray, wanted: bytes) -> None:
    while wanted not in seen:
        chunk = sock.recv(65536)
        assert chunk, f"the stream closed before {wanted!r}"
        seen += chunk


def test_the_live_stream_is_not_compressed_and_delivers_each_frame_at_once(
    served: Served,
) -> None:
    match = served.playing
    replay = replay_of(match, [f"{HOSTILE} v1", "bobs v1"])
    served.live.start(match, {k: v for k, v in replay.items() if k not in ("events", "outcome")})
    host, port = served.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=PATIENCE) as sock:
        sock.sendall(
            b"GET /matches/%d/live HTTP/1.1\r\nHost: test\r\nAccept-Encoding: gzip\r\n\r\n" % match
        )
        seen = bytearray()
        _read_until(sock, seen, b"\r\n\r\n")
        head = bytes(seen[: seen.index(b"\r\n\r\n")]).lower()
        assert b"text/event-stream" in head and b"content-encoding" not in head
        sent = 0
        for event in replay["events"]:
            served.live.event(match, event)
            found = served.live.frames_since(match, 0)
            assert found is not None
            for frame in range(sent, len(found[0])):  # every frame made so far, at once
                _read_until(sock, seen, b"id: %d\n" % frame)
            sent = len(found[0])
        assert sent > 10 and b"event: end" not in seen  # all came while it was in play
        served.live.end(match)
        _read_until(sock, seen, b"event: end")
