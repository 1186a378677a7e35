"""The service's endpoints: each reads its request, calls the store, the reports or the
submissions, and answers JSON. No rule, SQL or sandbox logic lives here."""

from __future__ import annotations

import asyncio
import shutil
import time
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import JSONResponse, Response

from arena.games import all_games
from arena.results import reports
from arena.service import etags, views
from arena.service.auth import Viewer, quick_viewer, viewer
from arena.service.errors import Forbidden, NotFound
from arena.service.guards import RateLimit
from arena.service.jobs import Jobs
from arena.service.tournaments import Tournaments
from arena.store import Store
from arena.submissions.removal import remove_bot

router = APIRouter(prefix="/api")
Seen = Annotated[Viewer, Depends(viewer)]
#: The viewer of the busiest reads, on the event loop (their pages are kept in memory).
QuickSeen = Annotated[Viewer, Depends(quick_viewer)]
#: How often a waiting request looks at its job (seconds).
WAIT_STEP = 0.1


def _kept(request: Request, answer: views.Answer) -> Response:
    """A page kept in memory (arena.service.views): its JSON, or 304 when the client
    already holds it (If-None-Match: its ETag)."""
    if etags.held(request, answer.etag):
        return etags.not_modified(answer.etag)
    return Response(answer.body, media_type="application/json", headers=etags.headers(answer.etag))


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


@router.get("/health", summary="Whether the service answers")
def health() -> dict[str, Any]:
    return {"ok": True}


@router.get("/me", summary="The account of the request's token")
def me(seen: Seen) -> dict[str, Any]:
    account = seen.author()
    return {"account": account.name, "owner": account.owner, "organiser": account.organiser}


@router.get("/games", summary="The games, their player ranges and rules versions")
def games() -> list[dict[str, Any]]:
    return [
        {
            "game": g.spec.id,
            "rules": g.spec.version,
            "min_players": g.spec.min_players,
            "max_players": g.spec.max_players,
        }
        for g in all_games()
    ]


@router.get("/leaderboard/{game}", summary="A game's all-time board (arena leaderboard GAME)")
async def leaderboard(
    request: Request,
    game: str,
    seen: QuickSeen,
    latest: bool = False,
    rules_version: Annotated[int | None, Query(ge=1)] = None,
) -> Response:
    """At most half a second old while it is read often (arena.service.views), with an
    ETag: a client that sends it back in If-None-Match is answered 304."""
    return _kept(request, await views.aboard_answer(_store(request), game, latest, rules_version))


@router.get("/bots", summary="Every registered bot (arena bot list)")
def bots(request: Request, seen: Seen) -> list[dict[str, Any]]:
    return reports.bots(_store(request))


@router.get("/bots/{name}", summary="A bot's page (arena bot show NAME)")
async def bot(request: Request, name: str, seen: QuickSeen) -> Response:
    """At most a second old while it is read often, with an ETag (as the board)."""
    return _kept(request, await views.abot_answer(_store(request), seen, name))


@router.get("/bots/{name}/versions", summary="A bot's versions")
def versions(request: Request, name: str, seen: Seen) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = views.bot(_store(request), seen, name)["versions"]
    return found


@router.get("/bots/{name}/matches", summary="A bot's recent recorded matches")
def bot_matches(
    request: Request, name: str, seen: Seen, limit: Annotated[int, Query(ge=1, le=500)] = 50
) -> list[dict[str, Any]]:
    return views.matches(_store(request), seen, name, limit)


@router.get("/matches/{match_id}", summary="One match and its seats")
def match(request: Request, match_id: int, seen: Seen) -> dict[str, Any]:
    return views.match(_store(request), seen, _id(match_id))


@router.get("/matches/{match_id}/replay", summary="A stored match's replay (protocol/REPLAY.md)")
def replay(request: Request, match_id: int, seen: Seen) -> dict[str, Any]:
    return views.replay(_store(request), seen, _id(match_id))


def _id(match_id: int) -> int:
    if not 1 <= match_id < 2**63:
        raise NotFound(f"no match {match_id}")
    return match_id


@router.post(
    "/bots",
    status_code=202,
    summary="Submit a bot folder as a .tar.gz or .zip (the job's state: GET /api/submissions/ID)",
)
def submit(
    request: Request,
    seen: Seen,
    archive: Annotated[UploadFile, File(description="The bot folder, .tar.gz or .zip")],
    name: Annotated[str | None, Form(description="Register under this name")] = None,
) -> dict[str, Any]:
    account = seen.author()
    limit: RateLimit = request.app.state.rate
    limit.take(account.name)
    jobs: Jobs = request.app.state.jobs
    path = jobs.new_archive()
    with open(path, "wb") as saved:
        shutil.copyfileobj(archive.file, saved)
    return jobs.add(account, path, name or None).shown()


@router.get("/submissions/{job_id}", summary="How far a submission has got")
async def submission(
    request: Request, job_id: int, seen: Seen, wait: Annotated[float, Query(ge=0, le=30)] = 0.0
) -> dict[str, Any]:
    """A job's state; with `wait`, once it is done or `wait` seconds have passed (the wait
    holds no thread: a client waiting on many cannot starve the others' reads)."""
    jobs: Jobs = request.app.state.jobs
    job = jobs.get(job_id, seen.author())
    deadline = time.monotonic() + wait
    while not job.done.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(WAIT_STEP)
    return job.shown()


@router.post("/bots/{name}/retire", summary="Retire a bot or one version (owner or organiser)")
def retire(
    request: Request, name: str, seen: Seen, version: Annotated[int | None, Query(ge=1)] = None
) -> dict[str, Any]:
    return _retire(request, seen, name, version, True)


@router.post(
    "/bots/{name}/reinstate", summary="Reinstate a bot or one version (owner or organiser)"
)
def reinstate(
    request: Request, name: str, seen: Seen, version: Annotated[int | None, Query(ge=1)] = None
) -> dict[str, Any]:
    return _retire(request, seen, name, version, False)


def _retire(
    request: Request, seen: Seen, name: str, version: int | None, retired: bool
) -> dict[str, Any]:
    store = _store(request)
    account = seen.author()
    owner = store.bot_owner(name)
    if owner is None:
        raise NotFound(f"no bot called {name!r}")
    if owner != account.owner and not account.organiser:
        raise Forbidden(f"bot {name!r} is not account {account.name!r}'s")
    # an organiser acts as the owner (the store checks the owner in its transaction)
    changed = store.retire(name, owner, version, retired)
    if changed:
        request.app.state.changed()
    return {"bot": name, "version": version, "retired": retired, "changed": changed}


@router.delete("/bots/{name}", summary="Remove a bot that never played (its owner only)")
def remove(request: Request, name: str, seen: Seen) -> dict[str, Any]:
    store = _store(request)
    account = seen.author()
    owner = store.bot_owner(name)
    if owner is None:
        raise NotFound(f"no bot called {name!r}")
    if owner != account.owner:
        raise Forbidden(f"bot {name!r} is not account {account.name!r}'s")
    removed = remove_bot(store, request.app.state.home, name, account.owner)
    return {"bot": name, "folders": len(removed.folders)}


@router.get("/tournaments", summary="Every tournament (arena tournament list)")
def tournaments(request: Request, seen: Seen) -> list[dict[str, Any]]:
    return reports.tournaments(_store(request))


@router.get("/tournaments/{tournament_id}", summary="A tournament (arena tournament show)")
def tournament(request: Request, tournament_id: int, seen: Seen) -> dict[str, Any]:
    found = None
    if 1 <= tournament_id < 2**63:
        found = reports.tournament_details(_store(request), tournament_id)
    if found is None:
        raise NotFound(f"no tournament {tournament_id}")
    return found


@router.post(
    "/tournaments",
    status_code=202,
    summary="Start a tournament (organisers): a tournament file's settings as JSON",
)
def start_tournament(
    request: Request, seen: Seen, settings: Annotated[dict[str, Any], Body()]
) -> dict[str, Any]:
    seen.organiser()
    played: Tournaments = request.app.state.tournaments
    return {"tournament": played.start(settings)}


def error_response(status: int, message: str, details: str = "", **headers: str) -> JSONResponse:
    """The one shape of every error the service answers."""
    return JSONResponse({"error": message, "details": details}, status, headers=headers or None)
