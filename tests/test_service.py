"""The service through real HTTP: its reads, who sees what (two accounts and an
organiser on every boundary), tokens, errors in one shape, the OpenAPI description."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.store import Store
from tests.service_fixtures import ALICE_STDERR, BOB_DEBUG, BOB_DETAIL, Served, populate, serve


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("served")
    store = Store(f"sqlite:///{home / 'arena.db'}")
    tokens, match_id = populate(store)
    for url in serve(store, home):
        yield Served(url, store, home, tokens, match_id)


def test_the_openapi_description_is_served(served: Served) -> None:
    with served.client() as client:
        spec = client.get("/openapi.json").json()
        assert spec["info"]["title"] == "arena"
        assert {"/api/leaderboard/{game}", "/api/bots", "/api/bots/{name}"} <= set(spec["paths"])
        assert client.get("/docs").status_code == 200


def test_everyone_reads_boards_bots_versions_matches_and_replays(served: Served) -> None:
    with served.client() as client:
        board = client.get("/api/leaderboard/take-that").json()
        assert [row["bot"] for row in board] == ["alices", "bobs"]
        assert [b["bot"] for b in client.get("/api/bots").json()] == ["alices", "bobs"]
        assert client.get("/api/bots/bobs/versions").json()[0]["version"] == 1
        match = client.get(f"/api/matches/{served.match_id}").json()
        assert [s["bot"] for s in match["seats"]] == ["alices", "bobs"]
        replay = client.get(f"/api/matches/{served.match_id}/replay").json()
        assert replay["game"] == "take-that" and replay["outcome"]["status"] == ["ok", "crash"]


@pytest.mark.parametrize("who", [None, "alice", "bob", "olga"])
def test_private_output_is_its_owners_and_the_organisers_alone(
    served: Served, who: str | None
) -> None:
    """Bob's forfeit detail, Alice's stderr: each through every endpoint that holds it."""
    sees_alice, sees_bob = who in ("alice", "olga"), who in ("bob", "olga")
    with served.client(who) as client:
        match = client.get(f"/api/matches/{served.match_id}").json()
        alice_seat, bob_seat = match["seats"]
        assert (alice_seat.get("stderr_tail") == ALICE_STDERR) is sees_alice
        assert (bob_seat.get("detail") == BOB_DETAIL) is sees_bob
        bob = client.get("/api/bots/bobs").json()
        forfeits = bob["recent_forfeits"]
        assert len(forfeits) == 1 and forfeits[0]["status"] == "crash"  # the kind: public
        assert (forfeits[0].get("detail") == BOB_DETAIL) is sees_bob
        assert ("stderr_tail" in forfeits[0]) is sees_bob
        rows = client.get("/api/bots/bobs/matches").json()
        assert rows[0]["match"] == served.match_id and rows[0]["status"] == "crash"
        assert (rows[0].get("detail") == BOB_DETAIL) is sees_bob
        replay = client.get(f"/api/matches/{served.match_id}/replay").text
        assert (BOB_DETAIL in replay) is sees_bob
        assert (BOB_DEBUG in replay) is sees_bob
        assert ALICE_STDERR not in replay


def test_a_forged_revoked_or_malformed_token_is_refused_even_for_reads(served: Served) -> None:
    store = served.store
    token = store.add_account("carol")
    with served.client() as client:
        auth = {"Authorization": f"Bearer {token}"}
        assert client.get("/api/me", headers=auth).json()["account"] == "carol"
        forged = {"Authorization": f"Bearer {token[:-2]}xx"}
        answer = client.get("/api/bots", headers=forged)
        assert answer.status_code == 401 and "not accepted" in answer.json()["error"]
        assert client.get("/api/bots", headers={"Authorization": "Basic x"}).status_code == 401
        store.revoke("carol")
        assert client.get("/api/me", headers=auth).status_code == 401
        assert client.get("/api/me").status_code == 401  # no token: nobody
        assert client.get("/api/bots").status_code == 200  # reads need none


def test_another_account_cannot_retire_reinstate_or_delete_a_bot(served: Served) -> None:
    with served.client("bob") as bob:
        for method, path in (
            ("POST", "/api/bots/alices/retire"),
            ("POST", "/api/bots/alices/reinstate"),
            ("DELETE", "/api/bots/alices"),
        ):
            answer = bob.request(method, path)
            assert answer.status_code == 403, path
            assert answer.json()["error"] == "bot 'alices' is not account 'bob''s"
    assert served.store.latest_version("alices") is not None
    assert "alices" not in served.store.retired_bots()
    with served.client("olga") as olga:  # an organiser suspends and reinstates any version
        assert olga.post("/api/bots/alices/retire", params={"version": 1}).json()["changed"]
        assert served.store.playable_version("alices") is None
        assert olga.post("/api/bots/alices/reinstate", params={"version": 1}).json()["changed"]
        assert olga.delete("/api/bots/alices").status_code == 403  # removal: the owner's only
    with served.client("alice") as alice:  # the owner may; it played, so it is refused
        answer = alice.delete("/api/bots/alices")
        assert answer.status_code == 409 and "retire it instead" in answer.json()["error"]


def test_errors_are_one_line_in_one_shape(served: Served) -> None:
    with served.client() as client:
        for path, status in (
            ("/api/bots/nobody", 404),
            ("/api/matches/0", 404),
            (f"/api/matches/{2**64}", 404),
            ("/api/leaderboard/chess", 400),
            ("/api/leaderboard/take-that?rules_version=0", 400),
            ("/api/nothing", 404),
        ):
            answer = client.get(path)
            assert answer.status_code == status, path
            body = answer.json()
            assert set(body) == {"error", "details"} and "\n" not in body["error"], path


def test_only_organisers_start_tournaments_and_bad_settings_are_one_line(served: Served) -> None:
    settings = {"game": "take-that", "bots": ["alices", "bobs"]}
    with served.client("alice") as alice:
        answer = alice.post("/api/tournaments", json=settings)
        assert answer.status_code == 403 and "not an organiser's" in answer.json()["error"]
    with served.client("olga") as olga:
        for bad, error in (
            ({**settings, "speed": 1}, "unknown tournament setting(s): speed"),
            ({**settings, "bots": ["./x", "bobs"]}, "bots are named, not given as folders"),
            ({**settings, "players": "two"}, "players must be a int"),
        ):
            answer = olga.post("/api/tournaments", json=bad)
            assert answer.status_code == 400 and error in answer.json()["error"], answer.text
    with served.client() as client:
        assert client.get("/api/tournaments").status_code == 200
        assert client.get("/api/tournaments/999").status_code == 404
