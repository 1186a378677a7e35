"""Conditional requests: a page the client holds already (its ETag sent back in
If-None-Match) is answered 304, without its body, and a kept page without rendering it.

A page's ETag is made from what it is rendered from (`tag`), before it is rendered:
the kept value's own ETag (a board's changes with its stamp), the request's options,
the signed-in header, and `PAGES`, which changes with every start of the process
(whose templates and code may render the same values otherwise).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import orjson
from fastapi import Request
from fastapi.responses import Response

#: This process's pages: an ETag of an earlier process never matches.
PAGES = secrets.token_hex(8)
#: Every answer with an ETag is checked again before it is used (a client or proxy may
#: keep it, but not serve it unasked); a page is the viewer's own (its header).
API_CACHE = "no-cache"
PAGE_CACHE = "private, no-cache"


def tag(*parts: Any) -> str:
    """A strong ETag of some JSON values (what a page is rendered from)."""
    digest = hashlib.blake2b(orjson.dumps(parts), digest_size=12).hexdigest()
    return f'"{digest}"'


def held(request: Request, etag: str) -> bool:
    """True when the request's If-None-Match names `etag` (weakly compared, as RFC 9110
    asks of If-None-Match; `*` is not taken: not every page exists)."""
    named = request.headers.get("if-none-match")
    if not named:
        return False
    sent = {t.strip().removeprefix("W/") for t in named.split(",")}
    return etag in sent


def not_modified(etag: str, cache: str = API_CACHE) -> Response:
    """The 304 answer to a request for a page it holds."""
    return Response(status_code=304, headers=headers(etag, cache))


def headers(etag: str, cache: str = API_CACHE) -> dict[str, str]:
    """The headers of a page with an ETag."""
    return {"ETag": etag, "Cache-Control": cache}
