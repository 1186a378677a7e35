"""Issue 11, item 9: nothing a bot is given lets it compute the deal (arena.match.seeds).

The attacker, tests/bots/deal_from_seed, tries exactly what once worked: recompute
the match seed from its `seed` and `match` id under the old public derivations,
with tournament seed 0 and `arena play --seed 123456`, rebuild the deal, and answer
an illegal decision once its prediction of the opponents' cards comes true.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.match import seeds
from arena.match.run import MatchSpec, run_match
from arena.status import SeatStatus
from arena.store import Store
from arena.tournament import runner
from arena.tournament.config import TournamentConfig
from tests.helpers import TEST_BOTS, bot_ref_for, register_unchecked

ATTACKER = str(TEST_BOTS / "deal_from_seed")
POLITE = str(TEST_BOTS / "polite")
SHOW_START = str(TEST_BOTS / "show_start")
cli = CliRunner()


@pytest.fixture
def own_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each database uses its own stored secret (the suite otherwise shares one)."""
    monkeypatch.delenv(seeds.SECRET_ENV, raising=False)


def old_bot_seed(match_seed: int, seat: int) -> int:
    """How arena once derived a bot's seed: public, from the match seed."""
    digest = hashlib.sha256(f"arena:bot:{match_seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def tournament(home: Path, bots: tuple[str, ...], seed: int = 0) -> tuple[Store, int]:
    """Play a round robin of two-seat, one-round Take That in the database in `home`.

    `bots` are tests/bots names, stored without their submission check (tests/test_check.py
    covers it; its matches were most of this file's time), the first as version 1."""
    store = Store(f"sqlite:///{home / 'arena.db'}")
    for name in bots:
        if store.latest_version(name) is None:
            register_unchecked(store, name)
    config = TournamentConfig(
        game="take-that",
        bots=bots,
        rounds=2,
        seed=seed,
        variant={"rounds": 1},
        decision_timeout=5.0,
    )
    tid = runner.create(store, home, config)
    runner.run(store, tid, workers=1)
    return store, tid


def test_the_attacker_succeeds_when_the_seeds_are_derived_the_old_public_way() -> None:
    """The control: against the old derivation the bot does compute the deal."""
    seats = (bot_ref_for("deal_from_seed"), bot_ref_for("polite"))
    old = seeds.MatchKeys(
        match="take-that-123456",
        deal=123456,
        bots=(old_bot_seed(123456, 0), old_bot_seed(123456, 1)),
        fallbacks=(0, 1),
    )
    spec = MatchSpec(
        match_id="take-that-123456",
        game="take-that",
        seed=123456,
        seats=seats,
        variant={"rounds": 1},
        decision_timeout=5.0,
        keys=old,
    )
    attacker = run_match(spec).seats[0]
    assert attacker.status is SeatStatus.ILLEGAL, attacker.stderr
    assert "i-know-the-deal" in attacker.detail
    assert "my hand is the deal of seed 123456" in attacker.stderr


def test_the_attacker_learns_nothing_in_a_tournament_with_seed_0(
    tmp_path: Path, own_secrets: None
) -> None:
    store, tid = tournament(tmp_path, ("deal_from_seed", "polite"), seed=0)
    attacker = [s for _m, s in store.seat_rows(tournament_id=tid) if s.bot_version_id == 1]
    assert len(attacker) == 4
    assert {s.status for s in attacker} == {"ok"}, [s.detail for s in attacker]
    assert all("learned nothing" in s.stderr for s in attacker)


def play_json(home: Path, *args: str) -> dict[str, Any]:
    result = cli.invoke(app, ["--home", str(home), "play", "take-that", *args, "--json"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def test_the_attacker_learns_nothing_from_arena_play_seed_123456(
    tmp_path: Path, own_secrets: None
) -> None:
    args = (ATTACKER, POLITE, "--seed", "123456", "--variant", "rounds=1")
    first = play_json(tmp_path, *args)
    attacker = first["seats"][0]
    assert attacker["status"] == "ok", attacker["detail"]
    assert "learned nothing" in attacker["stderr_tail"]
    # The home's secret makes the same seed the same match again.
    again = play_json(tmp_path, *args)
    assert [s["score"] for s in again["seats"]] == [s["score"] for s in first["seats"]]


def starts(store: Store, tid: int) -> list[tuple[int, int, Any, Any]]:
    """(match number, seat, match id, seed) of every start message show_start was given."""
    given = []
    for match, seat in store.seat_rows(tournament_id=tid):
        for line in seat.stderr.splitlines():
            message = json.loads(line)
            if message.get("type") == "start" and seat.bot_version_id == 1:
                given.append((match.number, seat.seat, message["match"], message["seed"]))
    return sorted(given)


def test_what_bots_are_given_depends_on_the_secret_not_only_on_the_seed(
    tmp_path: Path, own_secrets: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots = ("show_start", "polite")
    homes = [tmp_path / name for name in ("a", "b", "c")]
    for home in homes:
        home.mkdir()
    store_a, tid_a = tournament(homes[0], bots)
    store_b, tid_b = tournament(homes[1], bots)
    a, b = starts(store_a, tid_a), starts(store_b, tid_b)
    assert len(a) == len(b) == 4
    assert [x[:2] for x in a] == [x[:2] for x in b]
    assert all(x[2] != y[2] and x[3] != y[3] for x, y in zip(a, b, strict=True))
    # The same tournament again in the same database gives the same starts...
    _store, tid_again = tournament(homes[0], bots)
    assert starts(store_a, tid_again) == a
    # ...and so does another database given the first one's secret.
    monkeypatch.setenv(seeds.SECRET_ENV, store_a.secret().hex())
    store_c, tid_c = tournament(homes[2], bots)
    assert starts(store_c, tid_c) == a
    # Match ids are opaque: nothing of the tournament, the schedule or the seed.
    assert all(len(x[2]) == seeds.MATCH_ID_HEX and "t" not in x[2] for x in a)


def test_a_replay_records_its_seeds_and_verifies_without_any_secret(
    tmp_path: Path, own_secrets: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    summary = play_json(tmp_path, SHOW_START, POLITE, "--seed", "7", "--replay", str(path))
    given = json.loads(summary["seats"][0]["stderr_tail"].splitlines()[0])
    data = json.loads(path.read_text())
    assert data["version"] == 3 and data["seed"] == 7
    assert len(data["deal_seed"]) == 64 and int(data["deal_seed"], 16) != 7
    assert data["seats"][0]["seed"] == given["seed"]
    assert data["match"] == "take-that-7" != given["match"]  # the label is never given
    secret = Store(f"sqlite:///{tmp_path / 'arena.db'}").secret().hex()
    assert secret not in path.read_text()

    monkeypatch.setenv(seeds.SECRET_ENV, "00" * 32)  # verifying needs no secret at all
    verified = cli.invoke(app, ["replay", "verify", str(path)])
    assert verified.exit_code == 0, verified.output

    # A version 1 replay (no deal seed) is still read...
    old = {k: v for k, v in data.items() if k not in ("deal_seed", "time_control")}
    old["version"] = 1  # (and none of version 3's timing per decision)
    v3 = ("charged_ms", "bank_ms", "debug")
    old["events"] = [{k: v for k, v in e.items() if k not in v3} for e in data["events"]]
    (tmp_path / "v1.json").write_text(json.dumps(old))
    assert cli.invoke(app, ["replay", "verify", str(tmp_path / "v1.json")]).exit_code == 0
    # ...and a deal seed that does not give the recorded deal is refused.
    data["deal_seed"] = f"{int(data['deal_seed'], 16) ^ 1:064x}"
    path.write_text(json.dumps(data))
    tampered = cli.invoke(app, ["replay", "verify", str(path)])
    assert tampered.exit_code == 2 and "deal_seed" in tampered.output


def test_the_secret_is_made_once_per_database_and_arena_secret_overrides_it(
    tmp_path: Path, own_secrets: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = Store(f"sqlite:///{tmp_path / 'a.db'}").secret()
    assert Store(f"sqlite:///{tmp_path / 'a.db'}").secret() == first
    assert len(first) == seeds.SECRET_BYTES
    assert Store(f"sqlite:///{tmp_path / 'b.db'}").secret() != first
    monkeypatch.setenv(seeds.SECRET_ENV, "ab" * 32)
    assert Store(f"sqlite:///{tmp_path / 'a.db'}").secret() == bytes.fromhex("ab" * 32)


@pytest.mark.parametrize("command", [["play", "take-that", "random", "random"], ["demo"]])
def test_a_malformed_arena_secret_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.setenv(seeds.SECRET_ENV, "not-hex")
    result = cli.invoke(app, ["--home", str(tmp_path), *command])
    assert result.exit_code == 2, result.output
    assert "ARENA_SECRET" in result.output and "Traceback" not in result.output


def test_one_off_keys_look_like_any_other_match_keys() -> None:
    """A smoke match (one-off keys) and a real one give bots values of the same shape."""
    for keys in (seeds.one_off(1, "smoke", 3), seeds.derive(seeds.new_secret(), 1, "m0", 3)):
        assert len(keys.match) == seeds.MATCH_ID_HEX and int(keys.match, 16) >= 0
        assert len(keys.bots) == 3 and all(0 <= s < 2**seeds.SEAT_SEED_BITS for s in keys.bots)
        assert 0 <= keys.deal < 2**256
    assert seeds.one_off(1, "smoke", 3) != seeds.one_off(1, "smoke", 3)
