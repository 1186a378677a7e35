"""Live pages: a match followed move by move, and boards that follow the recording.

`GET /matches/ID/live` streams a match in play as server-sent events (text/event-stream):
one `frame` event per replay event, each a spectator's frame (arena.service.live: no
hand, no secret place, no debug text), its `id` the frame's index, so that a browser
that reconnects (EventSource sends Last-Event-ID) gets only what it missed; then one
`end` event when the match is over, and the stream closes. The match page frames
`GET /matches/ID/watch`, the replay viewer's page for a spectator
(`arena.viewer.build_live`): it follows the stream and draws each frame's public
table (no hand, no face-down card) with the viewer's own layouts and, at the end,
loads the match page again: the recorded match, with its full replay. Without
JavaScript the same page shows the newest frame's table as plain HTML and loads
itself again every few seconds (`arena.viewer.build_live`); it is the same for every
spectator, so it is built once a frame.

A leaderboard page runs static/refresh.js, which asks for the same page again every
few seconds and puts the new board in place of the old (the page is the server's
escaped HTML, parsed by the browser and moved node by node; no string becomes markup).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated

import orjson
from fastapi import APIRouter, Header, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse

from arena import viewer
from arena.service.errors import NotFound
from arena.service.live import Live
from arena.service.web.pages import VIEWER_POLICY, Built, app_state, packed_page

router = APIRouter(include_in_schema=False)
#: Seconds between a stream's looks for new frames, and between its keep-alive comments.
STEP = 0.1
KEEP_ALIVE = 15.0
#: Seconds between a spectator page's loads of itself when scripts do not run.
REFRESH = 5
#: Spectator pages kept (a match's newest one is the one asked for).
WATCH_PAGES = 16
#: The spectator's viewer page also asks its own server for the stream.
WATCH_POLICY = VIEWER_POLICY + "; connect-src 'self'"


def live_of(request: Request) -> Live:
    found: Live = request.app.state.live
    return found


@router.get("/matches/{match_id}/watch", response_class=HTMLResponse)
def watch(request: Request, match_id: int) -> Response:
    """The replay viewer's page of a match in play, as a spectator sees it (the same
    for everyone: kept, with its gzip form, until the next frame)."""
    live = live_of(request)
    header, latest = live.header(match_id), live.latest(match_id)
    if header is None or latest is None:
        raise NotFound(f"match {match_id} is not being played here")
    last, count, ended = latest
    base = f"/matches/{match_id}"
    built: Built = app_state(request, "watch_pages", lambda: Built(WATCH_PAGES))
    packed = built.get(
        (match_id, count, ended),
        lambda: viewer.build_live(header, f"{base}/live", base, last, count, REFRESH),
    )
    return packed_page(request, packed, WATCH_POLICY)


@router.get("/matches/{match_id}/live")
async def follow(
    request: Request,
    match_id: int,
    last_event_id: Annotated[str | None, Header()] = None,
    since: int = 0,
) -> StreamingResponse:
    live = live_of(request)
    if not live.watched(match_id):
        raise NotFound(f"match {match_id} is not being played here")
    if last_event_id is not None and last_event_id.isdigit():
        since = int(last_event_id) + 1
    since = max(0, since)

    async def stream() -> AsyncIterator[bytes]:
        sent, quiet = since, 0.0
        yield b"retry: 1000\n\n"
        while not await request.is_disconnected():
            found = live.frames_since(match_id, sent)
            if found is None:  # let go while nobody looked: the page shows what is stored
                yield b"event: end\ndata: {}\n\n"
                return
            frames, ended = found
            for frame in frames:
                yield b"event: frame\nid: %d\ndata: %s\n\n" % (sent, orjson.dumps(frame))
                sent += 1
            if ended:
                yield b"event: end\ndata: {}\n\n"
                return
            if frames:
                quiet = 0.0
            else:
                quiet += STEP
                if quiet >= KEEP_ALIVE:
                    quiet = 0.0
                    yield b": still playing\n\n"
            await asyncio.sleep(STEP)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)
