"""The author's side of the service: an HTTP client (httpx) for `arena remote`, its
login kept in the arena home, and the service's answers turned into arena's errors,
one exit code for each kind of failure a script may want to tell apart.

| exit code | what |
|---|---|
| 2 | bad input: no such bot or match, a bad option (the server's 400/404) |
| 3 | the server cannot be reached (connection refused, timed out, not arena) |
| 4 | the token is refused (forged, revoked, replaced, expired), or none is stored |
| 5 | the submission is refused (its archive, name, build or check; the rate limit) |
| 1 | the server failed (5xx) |
"""

from __future__ import annotations

import io
import json
import os
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from arena import ArenaError
from arena.submissions.snapshot import snapshot

#: The login file in the arena home (user-only permissions: it holds a token).
LOGIN_FILE = "remote.json"
#: Seconds a request may take (a submission's job is followed by short waits).
TIMEOUT = 60.0


class RemoteError(ArenaError, RuntimeError):
    """What the server said no to (bad input: exit code 2)."""


class RemoteUnreachable(RemoteError):
    """The server cannot be reached (exit code 3)."""

    exit_code = 3


class TokenRefused(RemoteError):
    """The server refuses the token, or there is no login (exit code 4)."""

    exit_code = 4


class SubmissionRefused(RemoteError):
    """The server refused a submission; `details` holds its build or check output (exit 5)."""

    exit_code = 5

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


class ServerFailed(RemoteError):
    """The server failed (a 5xx answer: exit code 1)."""

    exit_code = 1


@dataclass(frozen=True)
class Login:
    """Where the service is and the token to send it."""

    url: str
    token: str


def save_login(home: Path, login: Login) -> Path:
    """Write the login into the home, readable by this user alone; its path."""
    path = home / LOGIN_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        os.fchmod(f.fileno(), 0o600)
        json.dump({"url": login.url, "token": login.token}, f)
    return path


def load_login(home: Path) -> Login:
    """The saved login; TokenRefused when there is none."""
    try:
        data = json.loads((home / LOGIN_FILE).read_text())
        return Login(str(data["url"]), str(data["token"]))
    except (OSError, ValueError, KeyError, TypeError):
        raise TokenRefused("not logged in: arena remote login URL") from None


def pack(folder: str | Path) -> bytes:
    """A bot folder as the .tar.gz the service takes: the files a submission reads
    (`snapshot`: never through a link out of it, .arenaignore honoured, bounded),
    links inside it as copies. BotFolderError for a folder `arena bot submit` refuses."""
    read = snapshot(folder)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for parts, item in sorted(read.files.items()):
            info = tarfile.TarInfo("/".join(parts))
            info.size = len(item.data)
            info.mode = 0o755 if item.executable else 0o644
            tar.addfile(info, io.BytesIO(item.data))
    return buffer.getvalue()


class Remote:
    """A client of one service (`login`), every answer checked (see the module)."""

    def __init__(self, login: Login, transport: httpx.BaseTransport | None = None):
        headers = {"Authorization": f"Bearer {login.token}"} if login.token else {}
        self.url = login.url.rstrip("/")
        self.http = httpx.Client(
            base_url=self.url, headers=headers, timeout=TIMEOUT, transport=transport
        )

    def close(self) -> None:
        self.http.close()

    def get(self, path: str, **params: Any) -> Any:
        """The JSON of a GET."""
        return self._json(self._send("GET", path, params=params))

    def me(self) -> dict[str, Any]:
        """Who the token is; TokenRefused when it is refused."""
        found: dict[str, Any] = self.get("/api/me")
        return found

    def submit(
        self, archive: bytes, name: str | None, progress: Callable[[str], None]
    ) -> dict[str, Any]:
        """Submit a packed folder and follow its job to the end; its final state.
        SubmissionRefused with the server's line and details when it is refused."""
        answer = self._send(
            "POST",
            "/api/bots",
            files={"archive": ("bot.tar.gz", archive, "application/gzip")},
            data={"name": name} if name else {},
            refused=SubmissionRefused,
        )
        job: dict[str, Any] = self._json(answer)
        last = ""
        while not job["done"]:
            if job["state"] != last:
                progress(job["state"])
                last = job["state"]
            job = self.get(f"/api/submissions/{job['submission']}", wait=20)
        if job["state"] == "refused":
            raise SubmissionRefused(job["error"], job.get("details", ""))
        return job

    def _send(
        self, method: str, path: str, refused: type[RemoteError] = RemoteError, **options: Any
    ) -> httpx.Response:
        try:
            answer = self.http.request(method, path, **options)
        except httpx.TimeoutException:
            raise RemoteUnreachable(f"{self.url} did not answer in {TIMEOUT:g} s") from None
        except httpx.TransportError as error:
            raise RemoteUnreachable(f"cannot reach {self.url}: {error}") from None
        if answer.is_success:
            return answer
        message = _message(answer)
        if answer.status_code == 401:
            raise TokenRefused(f"{message} (arena remote login {self.url})")
        if answer.status_code >= 500:
            raise ServerFailed(f"{self.url} failed: {message}")
        if refused is SubmissionRefused:
            raise SubmissionRefused(message, _details(answer))
        raise RemoteError(message)

    def _json(self, answer: httpx.Response) -> Any:
        try:
            return answer.json()
        except ValueError:
            raise RemoteUnreachable(f"{self.url} does not answer as an arena service") from None


def _message(answer: httpx.Response) -> str:
    try:
        found = answer.json()
        return str(found["error"])
    except (ValueError, KeyError, TypeError):
        return f"HTTP {answer.status_code} from a server that is not an arena service"


def _details(answer: httpx.Response) -> str:
    try:
        return str(answer.json().get("details", ""))
    except (ValueError, AttributeError):
        return ""
