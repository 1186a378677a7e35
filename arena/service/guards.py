"""What keeps one client from spoiling the service for the others: a bound on every
request body (its size and the time it may take to arrive), and a submission rate per
account.

The body bound is an ASGI middleware, so it holds before any parsing: a body
announced larger than the limit is refused before a byte of it is read; one that
grows past it (chunked, or lying about its length) is refused at the chunk that
passes it; one that arrives slower than the deadline is refused when it passes. A
slow client holds only its own connection: the server is asynchronous, and uvicorn
closes idle keep-alive connections.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson

from arena.service.errors import TooLarge, TooMany, TooSlow

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimit:
    """ASGI middleware: at most `max_bytes` of body per request, arrived within `seconds`."""

    def __init__(self, app: ASGIApp, max_bytes: int, seconds: float):
        self.app, self.max_bytes, self.seconds = app, max_bytes, seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        announced = dict(scope.get("headers") or []).get(b"content-length")
        if announced is not None:
            try:
                size = int(announced)
            except ValueError:
                size = -1
            if size < 0 or size > self.max_bytes:
                error = TooLarge(self._too_large()) if size >= 0 else TooLarge("bad Content-Length")
                await _answer(send, 413, str(error))
                return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        received = 0
        started = answered = False

        async def refuse(error: TooLarge | TooSlow) -> TooLarge | TooSlow:
            """Answer the refusal here, at once: the app's own parsers would make it a
            400 of theirs, which is then dropped (`sending`)."""
            nonlocal answered
            if not started and not answered:
                answered = True
                await _answer(send, 413 if isinstance(error, TooLarge) else 408, str(error))
            return error

        async def bounded() -> Message:
            nonlocal received
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                limit = f"the request body took more than {self.seconds:g} s"
                raise await refuse(TooSlow(limit)) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise await refuse(TooLarge(self._too_large()))
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            if answered:
                return  # the refusal was answered; the app's late answer is dropped
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, bounded, sending)
        except (TooLarge, TooSlow) as error:  # raised where no handler of the app saw it
            await refuse(error)

    def _too_large(self) -> str:
        return f"the request body is larger than {self.max_bytes // 2**20} MiB"


async def _answer(send: Send, status: int, message: str) -> None:
    body = orjson.dumps({"error": message, "details": ""})
    headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class RateLimit:
    """At most `count` submissions per account in any `seconds` (a sliding window, kept
    in the service's memory: a restart forgets it)."""

    def __init__(self, count: int, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.count, self.seconds, self.clock = count, seconds, clock
        self._times: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, account: str) -> None:
        """Count one submission of `account`; TooMany (with the seconds to wait) past the rate."""
        now = self.clock()
        with self._lock:
            times = self._times.setdefault(account, deque())
            while times and times[0] <= now - self.seconds:
                times.popleft()
            if len(times) >= self.count:
                wait = int(times[0] + self.seconds - now) + 1
                raise TooMany(
                    f"at most {self.count} submissions in {self.seconds:g} s per account: "
                    f"try again in {wait} s",
                    wait,
                )
            times.append(now)
