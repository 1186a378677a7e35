"""The pages with forms: signing in and out (arena.service.web.sessions), and the
submission of a bot folder by a signed-in author, as `POST /api/bots` takes it (a
.tar.gz or .zip of the folder, unpacked by the same rules, built and checked by the
same jobs). Every POST sends its form's CSRF token back; each endpoint checks it
before it does anything else. No JavaScript: a submission's page reloads itself
(`<meta http-equiv="refresh">`) until its job is done."""

from __future__ import annotations

import shutil
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse

from arena.service.auth import REFUSED, Viewer
from arena.service.errors import NotFound
from arena.service.guards import RateLimit
from arena.service.jobs import Jobs
from arena.service.web.pages import show
from arena.service.web.sessions import (
    check_csrf,
    clear_cookie,
    current,
    page_viewer,
    sessions_of,
    set_cookie,
)
from arena.store import Store

router = APIRouter(include_in_schema=False)
Seen = Annotated[Viewer, Depends(page_viewer)]
#: Seconds between a waiting submission page's reloads.
RELOAD = 2


def _back(next_path: str | None) -> str:
    """Where to go after signing in: a path of this site only (never `//elsewhere`)."""
    if next_path and next_path.startswith("/") and not next_path.startswith(("//", "/\\")):
        return next_path
    return "/submit"


def _signin_page(
    request: Request, next_path: str | None, error: str = "", status: int = 200
) -> HTMLResponse:
    session = current(request)
    fresh = session is None
    if session is None:
        session = sessions_of(request).new()
    answer = show(
        request,
        "signin.html",
        status,
        form_csrf=session.csrf,
        next=_back(next_path),
        error=error,
        already=session.account,
    )
    if fresh:
        set_cookie(request, answer, session)
    return answer


@router.get("/signin", response_class=HTMLResponse)
def signin_form(request: Request, seen: Seen, next: str | None = None) -> HTMLResponse:
    return _signin_page(request, next)


@router.post("/signin", response_class=HTMLResponse)
def signin(
    request: Request,
    token: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "",
) -> HTMLResponse:
    sessions = sessions_of(request)
    before = check_csrf(current(request), csrf)
    store: Store = request.app.state.store
    account = store.account_by_token(token.strip()) if token.strip() else None
    if account is None:
        return _signin_page(request, next, REFUSED, 401)
    sessions.end(before.id)  # a new id: one planted before sign-in is worth nothing
    session = sessions.new(token.strip(), account.name)
    answer = RedirectResponse(_back(next), status_code=303)
    set_cookie(request, answer, session)
    return answer  # type: ignore[return-value]  # a redirect is an HTML page's answer


@router.post("/signout", response_class=HTMLResponse)
def signout(request: Request, csrf: Annotated[str, Form()] = "") -> HTMLResponse:
    session = check_csrf(current(request), csrf)
    sessions_of(request).end(session.id)
    answer = RedirectResponse("/", status_code=303)
    clear_cookie(request, answer)
    return answer  # type: ignore[return-value]


def _to_signin(path: str) -> RedirectResponse:
    return RedirectResponse(f"/signin?next={quote(path, safe='/')}", status_code=303)


@router.get("/submit", response_class=HTMLResponse)
def submit_form(request: Request, seen: Seen) -> HTMLResponse:
    if seen.account is None:
        return _to_signin("/submit")  # type: ignore[return-value]
    jobs: Jobs = request.app.state.jobs
    return show(request, "submit.html", submissions=[j.shown() for j in jobs.of(seen.account)])


@router.post("/submit", response_class=HTMLResponse)
def submit(
    request: Request,
    seen: Seen,
    archive: Annotated[UploadFile, File()],
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
) -> HTMLResponse:
    check_csrf(getattr(request.state, "session", None), csrf)
    account = seen.author()  # a session's CSRF token without an account: Unauthorized
    limit: RateLimit = request.app.state.rate
    limit.take(account.name)
    jobs: Jobs = request.app.state.jobs
    path = jobs.new_archive()
    with open(path, "wb") as saved:
        shutil.copyfileobj(archive.file, saved)
    job = jobs.add(account, path, name.strip() or None)
    return RedirectResponse(f"/submissions/{job.id}", status_code=303)  # type: ignore[return-value]


@router.get("/submissions/{job_id}", response_class=HTMLResponse)
def submission(request: Request, job_id: int, seen: Seen) -> HTMLResponse:
    if seen.account is None:
        return _to_signin(f"/submissions/{job_id}")  # type: ignore[return-value]
    jobs: Jobs = request.app.state.jobs
    if not 1 <= job_id < 2**63:
        raise NotFound(f"no submission {job_id} of yours")
    job: dict[str, Any] = jobs.get(job_id, seen.account).shown()
    return show(request, "submission.html", job=job, reload=None if job["done"] else RELOAD)
