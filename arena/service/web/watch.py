"""Live pages: a match followed move by move, and boards that follow the recording.

`GET /matches/ID/live` streams a match in play as server-sent events (text/event-stream):
one `frame` event per replay event, each a spectator's frame (arena.service.live: no
hand, no secret place, no debug text), its `id` the frame's index, so that a browser
that reconnects (EventSource sends Last-Event-ID) gets only what it missed; then one
`end` event when the match is over, and the stream closes. The match page frames
`GET /matches/ID/watch`, the replay viewer's page for a spectator
(`arena.viewer.build_live`): it follows the stream and draws each frame's public
table (no hand, no face-down card) with the viewer's own layouts and, at the end,
loads the match page again: the recorded match, with its full replay.

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
from fastapi.responses import HTMLResponse, StreamingResponse

from arena import viewer
from arena.service.errors import NotFound
from arena.service.live import Live
from arena.service.web.pages import VIEWER_POLICY, page

router = APIRouter(include_in_schema=False)
#: Seconds between a stream's looks for new frames, and between its keep-alive comments.
STEP = 0.1
KEEP_ALIVE = 15.0
#: The spectator's viewer page also asks its own server for the stream.
WATCH_POLICY = VIEWER_POLICY + "; connect-src 'self'"


def live_of(request: Request) -> Live:
    found: Live = request.app.state.live
    return found


@router.get("/matches/{match_id}/watch", response_class=HTMLResponse)
def watch(request: Request, match_id: int) -> HTMLResponse:
    """The replay viewer's page of a match in play, as a spectator sees it."""
    header = live_of(request).header(match_id)
    if header is None:
        raise NotFound(f"match {match_id} is not being played here")
    base = f"/matches/{match_id}"
    return page(viewer.build_live(header, f"{base}/live", base), policy=WATCH_POLICY)


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
