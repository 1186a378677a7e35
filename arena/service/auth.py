"""Who is asking: the account of a request's token, and what that account may see.

A request carries its token as `Authorization: Bearer TOKEN`. Reads need none; a
token that is given must be good (a forged, revoked, replaced or expired one is
refused with 401 even on a read, so that a client learns at once that its token no
longer works). Only the token's hash is looked up (arena.store.accounts).
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from arena.service.errors import Forbidden, Unauthorized
from arena.store import AccountRecord, Store

#: What a refused token is told: nothing about why (unknown, revoked or expired).
REFUSED = "the token is not accepted (forged, revoked, replaced or expired): ask the organiser"


@dataclass(frozen=True)
class Viewer:
    """The account behind a request, or nobody (an anonymous reader)."""

    account: AccountRecord | None

    def sees(self, owner: str | None) -> bool:
        """True when this viewer may see the private output of bots owned by `owner`
        (stderr, forfeit details, build output, debug text): their owner and organisers."""
        if self.account is None:
            return False
        return self.account.organiser or self.account.owner == owner

    def author(self) -> AccountRecord:
        """The account, or Unauthorized for an anonymous request."""
        if self.account is None:
            raise Unauthorized("this needs an account: send its token (arena remote login)")
        return self.account

    def organiser(self) -> AccountRecord:
        """The account if it is an organiser's; Forbidden (Unauthorized) otherwise."""
        account = self.author()
        if not account.organiser:
            raise Forbidden(f"account {account.name!r} is not an organiser's")
        return account


def token_of(request: Request) -> str | None:
    """The bearer token of a request, None when it sends none; Unauthorized for another
    kind of Authorization header."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    kind, _space, token = header.partition(" ")
    if kind.lower() != "bearer" or not token.strip():
        raise Unauthorized("send the token as 'Authorization: Bearer TOKEN'")
    return token.strip()


def viewer(request: Request) -> Viewer:
    """The request's viewer (a FastAPI dependency)."""
    token = token_of(request)
    if token is None:
        return Viewer(None)
    store: Store = request.app.state.store
    account = store.account_by_token(token)
    if account is None:
        raise Unauthorized(REFUSED)
    return Viewer(account)


async def quick_viewer(request: Request) -> Viewer:
    """`viewer` for an endpoint on the event loop: an anonymous request (no token) is
    answered without a thread; a token is looked up on one, as the store reads block."""
    if token_of(request) is None:
        return Viewer(None)
    return await run_in_threadpool(viewer, request)
