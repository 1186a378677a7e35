"""A submission over HTTP end to end (the sandboxed build and check of `arena bot
submit`), and `arena serve` as a process stopped by SIGTERM."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arena.store import Store
from tests.helpers import TEST_BOTS
from tests.service_fixtures import Served, populate, serve

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("submit")
    store = Store(f"sqlite:///{home / 'arena.db'}")
    tokens, match_id = populate(store)
    for url in serve(store, home):
        yield Served(url, store, home, tokens, match_id)


def folder_archive(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder, arcname=".")
    return buffer.getvalue()


def test_a_submission_is_built_checked_and_stored_as_the_accounts(served: Served) -> None:
    archive = folder_archive(TEST_BOTS / "polite")
    with served.client("alice") as alice:
        answer = alice.post(
            "/api/bots", files={"archive": ("p.tar.gz", archive)}, data={"name": "polite-a"}
        )
        assert answer.status_code == 202 and answer.json()["state"] in ("queued", "unpacking")
        job = answer.json()["submission"]
        found = alice.get(f"/api/submissions/{job}", params={"wait": 30}).json()
        while not found["done"]:
            found = alice.get(f"/api/submissions/{job}", params={"wait": 30}).json()
        assert found["state"] == "registered", found
        assert (found["bot"], found["version"]) == ("polite-a", 1)
        assert served.store.bot_owner("polite-a") == "account:alice"
        again = alice.post(
            "/api/bots", files={"archive": ("p.tar.gz", archive)}, data={"name": "polite-a"}
        ).json()["submission"]
        found = alice.get(f"/api/submissions/{again}", params={"wait": 30}).json()
        assert found["state"] == "unchanged" and found["version"] == 1
    with served.client("bob") as bob:
        taken = bob.post(
            "/api/bots", files={"archive": ("p.tar.gz", archive)}, data={"name": "polite-a"}
        ).json()["submission"]
        found = bob.get(f"/api/submissions/{taken}", params={"wait": 30}).json()
        assert found["state"] == "refused" and "belongs to 'account:alice'" in found["error"]
    assert [v.number for v in served.store.versions(name="polite-a")] == [1]


def test_sigterm_stops_arena_serve_and_a_taken_port_is_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "ARENA_HOME": str(tmp_path)}
    arena = [sys.executable, "-m", "arena"]
    process = subprocess.Popen(
        [*arena, "serve", "--port", "0"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert line.startswith("serving sqlite:///"), line
        url = line.split(" on ")[1].split(" ")[0]
        assert httpx.get(f"{url}/api/health").json() == {"ok": True}
        port = url.rsplit(":", 1)[1]
        taken = subprocess.run(
            [*arena, "serve", "--port", port], env=env, capture_output=True, text=True
        )
        assert taken.returncode == 1
        assert taken.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")
        assert len(taken.stderr.strip().splitlines()) == 1
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        process.kill()
        process.wait()


def test_an_organiser_runs_a_tournament_over_http(served: Served) -> None:
    settings = {"game": "take-that", "bots": ["random", "first-legal"], "deals": 1, "seed": 3}
    with served.client("olga") as olga:
        answer = olga.post("/api/tournaments", json=settings)
        assert answer.status_code == 202, answer.text
        tid = answer.json()["tournament"]
    deadline = time.monotonic() + 120
    with served.client() as client:
        while (found := client.get(f"/api/tournaments/{tid}").json())["status"] != "finished":
            assert time.monotonic() < deadline, found
            time.sleep(0.1)  # waits for the store's state, measures nothing
    assert served.store.match_counts(tid) == (2, 2)


def test_a_submission_cut_off_by_a_restart_leaves_nothing_and_is_answered_gone(
    tmp_path: Path,
) -> None:
    """kill -9 while a job is checking: the next start sweeps its upload folder and its
    folder staged in the home, no version was stored, and the author asking for the job
    is told (410) that the service restarted and what became of it."""
    env = {**os.environ, "ARENA_HOME": str(tmp_path)}
    arena = [sys.executable, "-m", "arena"]
    made = subprocess.run([*arena, "user", "add", "alice"], env=env, capture_output=True)
    auth = {"Authorization": f"Bearer {made.stdout.decode().strip()}"}

    def start() -> tuple[subprocess.Popen[str], str]:
        process = subprocess.Popen(
            [*arena, "serve", "--port", "0"], env=env, stderr=subprocess.PIPE, text=True
        )
        assert process.stderr is not None
        return process, process.stderr.readline().split(" on ")[1].split(" ")[0]

    def left(pid: int) -> list[Path]:
        uploads = Path(tempfile.gettempdir()).glob(f"arena-uploads-{pid}-*")
        return [*uploads, *(tmp_path / "bots").glob(f".*-{pid}-*")]

    archive = folder_archive(TEST_BOTS / "polite")
    process, url = start()
    try:
        sent = httpx.post(
            f"{url}/api/bots",
            headers=auth,
            files={"archive": ("p.tar.gz", archive)},
            data={"name": "cut-off"},
        ).json()
        job = f"{url}/api/submissions/{sent['submission']}"
        while not (
            httpx.get(job, headers=auth).json()["state"] == "checking" and left(process.pid)
        ):
            time.sleep(0.05)  # a look, not a timing: the check takes seconds
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    finally:
        process.kill()
        process.wait()
    killed = process.pid
    assert len(left(killed)) == 2  # its unpacked upload, its staged folder

    process, url = start()
    try:
        assert left(killed) == []  # swept by the new start
        answer = httpx.get(f"{url}/api/submissions/{sent['submission']}", headers=auth)
        assert answer.status_code == 410
        error = answer.json()["error"]
        assert error.startswith(f"submission {sent['submission']} was made before the service")
        assert "stored nothing (submit again)" in error
        assert httpx.get(f"{url}/api/bots/cut-off").status_code == 404  # nothing stored
        again = httpx.post(
            f"{url}/api/bots",
            headers=auth,
            files={"archive": ("p.tar.gz", archive)},
            data={"name": "cut-off"},
        ).json()
        assert again["submission"] > sent["submission"]  # never an id of before
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        process.kill()
        process.wait()
