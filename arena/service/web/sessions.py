"""Signing in to the pages: a session cookie for an account's token, and a CSRF token
for every form.

`POST /signin` takes an account's token (the one `arena user add` printed) and, if the
store accepts it, starts a session: a random id (32 bytes, `secrets`) in a cookie
that is HttpOnly (no script reads it), SameSite=Lax (another site's form cannot send
it with a POST) and Secure when the request came over TLS (`request.url.scheme`,
which uvicorn takes from a proxy's X-Forwarded-Proto when the proxy is a trusted
address, loopback by default). The session lives in the service's memory, not in the
cookie: the cookie is only its id, so signing out (`POST /signout`) ends it on the
server, and a restart of the service signs everyone out.

A session keeps the token it was started with, never sent back to the browser, and
every request of a signed-in page asks the store again whether that token is still
the account's (`Store.account_by_token`): a token rotated, revoked or expired ends
its sessions at once.

Every form carries a CSRF token tied to the session (`csrf`, 32 random bytes), which
each POST must send back (compared in constant time). The sign-in form has one too:
visiting /signin starts an anonymous session for it, and signing in replaces that
session by a new one (a session id planted before sign-in is worth nothing after it).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response

from arena.service.auth import Viewer, token_of, viewer
from arena.service.errors import Forbidden
from arena.store import Store

#: The session cookie's name.
COOKIE = "arena_session"
#: Seconds a signed-in session lasts without a request, and at most in all.
IDLE_SECONDS = 7 * 24 * 3600.0
LONGEST_SECONDS = 30 * 24 * 3600.0
#: Seconds an anonymous session (a sign-in form's CSRF token) lasts.
ANONYMOUS_SECONDS = 3600.0
#: Sessions kept at most; past it the oldest are dropped (anonymous ones first).
MOST = 20_000


@dataclass
class Session:
    """One browser's session: its id (the cookie), its CSRF token, the account's token
    (None before sign-in) and the account's name as the pages show it."""

    id: str
    csrf: str
    token: str | None
    account: str | None
    started: float
    seen: float


class Sessions:
    """The service's sessions, in memory (see the module)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, most: int = MOST):
        self.clock, self.most = clock, most
        self._found: dict[str, Session] = {}
        self._lock = threading.Lock()

    def new(self, token: str | None = None, account: str | None = None) -> Session:
        now = self.clock()
        session = Session(
            secrets.token_urlsafe(32), secrets.token_urlsafe(32), token, account, now, now
        )
        with self._lock:
            if len(self._found) >= self.most:
                self._prune(now)
            self._found[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        """The live session of a cookie's id, None for an unknown or expired one."""
        if not session_id:
            return None
        now = self.clock()
        with self._lock:
            session = self._found.get(session_id)
            if session is None:
                return None
            if not self._alive(session, now):
                del self._found[session_id]
                return None
            session.seen = now
            return session

    def end(self, session_id: str | None) -> None:
        with self._lock:
            self._found.pop(session_id or "", None)

    def __len__(self) -> int:
        return len(self._found)

    def _alive(self, session: Session, now: float) -> bool:
        if session.token is None:
            return now - session.started < ANONYMOUS_SECONDS
        return now - session.seen < IDLE_SECONDS and now - session.started < LONGEST_SECONDS

    def _prune(self, now: float) -> None:
        """Drop the expired sessions, then the oldest (anonymous first) down to 90 %."""
        self._found = {k: s for k, s in self._found.items() if self._alive(s, now)}
        excess = len(self._found) - self.most * 9 // 10
        if excess > 0:
            order = sorted(self._found.values(), key=lambda s: (s.token is not None, s.seen))
            for session in order[:excess]:
                del self._found[session.id]


def sessions_of(request: Request) -> Sessions:
    found: Sessions = request.app.state.sessions
    return found


def current(request: Request) -> Session | None:
    """The request's session (its cookie's), if it is live."""
    return sessions_of(request).get(request.cookies.get(COOKIE))


def page_viewer(request: Request) -> Viewer:
    """Who reads a page: the bearer token's account (as in the API), else the signed-in
    session's account (its token asked of the store again), else nobody. A session whose
    token the store no longer accepts is ended. A FastAPI dependency; the session is kept
    on `request.state.session` for the page's header and forms."""
    session = current(request)
    request.state.session = session
    if token_of(request) is not None:
        return viewer(request)
    if session is None or session.token is None:
        return Viewer(None)
    store: Store = request.app.state.store
    account = store.account_by_token(session.token)
    if account is None:
        sessions_of(request).end(session.id)
        request.state.session = None
        return Viewer(None)
    return Viewer(account)


def set_cookie(request: Request, response: Response, session: Session) -> None:
    """Send `session`'s cookie: HttpOnly, SameSite=Lax, Secure over TLS."""
    lasting = ANONYMOUS_SECONDS if session.token is None else LONGEST_SECONDS
    response.set_cookie(
        COOKIE,
        session.id,
        max_age=int(lasting),
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def clear_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )


def check_csrf(session: Session | None, sent: str | None) -> Session:
    """The session a form's POST belongs to; Forbidden when the form's CSRF token is not
    that session's (no session, none sent, or another)."""
    if session is None or not sent or not hmac.compare_digest(session.csrf, sent):
        raise Forbidden(
            "the form's CSRF token does not match your session: reload the page and send it again"
        )
    return session
