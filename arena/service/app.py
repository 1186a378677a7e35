"""The ASGI application of `arena serve`: FastAPI over the store, its errors answered in
one shape, every request body bounded, every answer but the live event streams
compressed for clients that accept gzip, its OpenAPI description at /openapi.json (and
pages at /docs). The JSON API is under /api; every other path is a web page
(arena.service.web), whose errors are pages with one line."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException

import arena
from arena import ArenaError
from arena.controls import visible
from arena.service import views
from arena.service.errors import TooMany, status_of
from arena.service.guards import BodyLimit, RateLimit
from arena.service.jobs import Jobs
from arena.service.live import Live
from arena.service.routes import error_response, router
from arena.service.tournaments import Tournaments
from arena.service.web import GZIP_LEVEL, GZIP_MINIMUM
from arena.service.web import install as install_pages
from arena.service.web.pages import error_page
from arena.store import Store
from arena.submissions.botfiles import LIMITS


@dataclass(frozen=True)
class ServiceConfig:
    """How much the service takes from each client.

    A body may be as large as a bot folder may be (`botfiles.LIMITS`, 64 MiB) plus
    1 MiB for the archive's own headers; it must arrive within two minutes. An
    account may submit 20 times in 10 minutes; one check runs at a time.
    """

    max_body: int = LIMITS.total_bytes + 2**20
    body_seconds: float = 120.0
    submissions: int = 20
    submission_seconds: float = 600.0
    check_workers: int = 1


def create_app(
    store: Store,
    home: Path,
    config: ServiceConfig = ServiceConfig(),
    on_stop: Callable[[], None] | None = None,
    on_change: Callable[[], None] | None = None,
    live: Live | None = None,
) -> FastAPI:
    """The application over `store` (and the arena home `home`, where versions are kept).

    `on_stop` runs when the server shuts down (the open ladder's stop), before the
    submission workers are let go; `on_change` when a version is added, retired or
    reinstated (the open ladder looks at its pool again). `live`: the matches in play
    that spectators may follow (arena.service.live), published by whoever plays them.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        views.KEPT.settle()  # no page is read again from a store being let go
        if on_stop is not None:
            on_stop()
        app.state.jobs.close()

    app = FastAPI(
        title="arena",
        version=arena.__version__,
        description="Bots, versions, leaderboards, matches and replays of an arena "
        "competition; submissions of bot folders by accounts' tokens.",
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.live = live or Live()
    app.state.home = home
    app.state.rate = RateLimit(config.submissions, config.submission_seconds)
    app.state.changed = on_change or (lambda: None)
    app.state.jobs = Jobs(store, home, config.check_workers, app.state.changed)
    app.state.tournaments = Tournaments(store, home)
    app.include_router(router)
    install_pages(app)

    @app.exception_handler(ArenaError)
    async def arena_error(request: Request, error: ArenaError) -> JSONResponse | HTMLResponse:
        if _is_page(request):
            return error_page(status_of(error), str(error), request)
        headers = {"Retry-After": str(error.retry_after)} if isinstance(error, TooMany) else {}
        return error_response(status_of(error), str(error), error.details, **headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(
        request: Request, error: RequestValidationError
    ) -> JSONResponse | HTMLResponse:
        first = error.errors()[0] if error.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = visible(f"{where}: {first.get('msg', 'bad request')}")
        return (
            error_page(400, message, request) if _is_page(request) else error_response(400, message)
        )

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse | HTMLResponse:
        if _is_page(request):
            return error_page(error.status_code, str(error.detail), request)
        return error_response(error.status_code, str(error.detail))

    # answers compressed for clients that accept it (not the live event stream, which
    # Starlette leaves as it is: each frame must reach its spectator at once)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM, compresslevel=GZIP_LEVEL)
    app.add_middleware(BodyLimit, max_bytes=config.max_body, seconds=config.body_seconds)
    return app


#: Paths that answer JSON (or are FastAPI's own pages); every other path is a web page,
#: whose errors are pages too (arena.service.web).
NOT_PAGES = ("/api/", "/openapi.json", "/docs", "/redoc")


def _is_page(request: Request) -> bool:
    return not request.url.path.startswith(NOT_PAGES)
