"""The web pages of `arena serve`: server-side HTML (Jinja2) over the store.

Every page is rendered here from the rows the CLI and the JSON API already compute
(arena.results.reports, arena.results.headtohead, arena.service.views); no page
reads the database by itself, and none needs JavaScript (the replay viewer, an
iframe of the match page, is the only script). `install(app)` mounts the pages
(`pages.router`) and the style sheet (/static/site.css).

Everything a bot or an author wrote (names, forfeit details, stderr, void reasons)
is hostile. Autoescape is on for every template, and every string a template
prints passes `controls.visible` first (the environment's `finalize`): NUL, ESC,
bidi overrides and zero-width characters show as escapes, as on the terminal and
in the replay viewer. A multi-line block (a stderr tail) goes through the `block`
filter, which keeps its newlines and tabs and spells the rest the same way. Each
page sends a Content-Security-Policy that allows nothing from another origin.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from arena.controls import visible

STATIC = Path(__file__).resolve().parent / "static"
#: What a page may load: its own style sheet, and the replay viewer's page in a frame
#: (the viewer page sends its own, stricter policy). No script runs in these pages.
POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'self'"
)

#: Answers shorter than this many bytes are sent as they are; the level of the rest
#: (zlib's own default, not Starlette's 9: most of the bytes saved for less CPU).
GZIP_MINIMUM = 1000
GZIP_LEVEL = 6


def _finalize(value: Any) -> Any:
    """What `{{ value }}` prints: a string spelled as the terminal shows it (markup the
    templates made themselves, `Markup`, is theirs and passes as it is); None as ""."""
    if value is None:
        return ""
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return visible(value)
    return value


def block(value: Any) -> Markup:
    """A multi-line text (stderr) escaped, its newlines and tabs kept, every other
    control, bidi and invisible character spelled as an escape."""
    return Markup(escape(visible("" if value is None else value, block=True)))


def segment(value: Any) -> str:
    """`value` as one path segment of a URL: every reserved character quoted."""
    return quote(str(value), safe="")


def number(value: Any, digits: int = 3) -> Any:
    """A float rounded for a table (an int, None or text as it is)."""
    if isinstance(value, float):
        return f"{value:.{digits}f}".rstrip("0").rstrip(".") if value == value else "nan"
    return value


ENV = Environment(
    loader=PackageLoader("arena.service.web", "templates"),
    autoescape=True,
    finalize=_finalize,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
ENV.filters.update(block=block, segment=segment, number=number)


def render(name: str, **context: Any) -> str:
    """The page `templates/NAME` filled with `context`."""
    return ENV.get_template(name).render(**context)


def install(app: FastAPI) -> None:
    """Mount the pages and their style sheet on the service's application."""
    from arena.service.web import forms, pages, watch
    from arena.service.web.sessions import Sessions

    app.state.sessions = Sessions()
    app.include_router(pages.router)
    app.include_router(forms.router)
    app.include_router(watch.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
