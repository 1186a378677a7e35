"""run_match against well-behaved and hostile bots: every way a seat can end has a name."""

from __future__ import annotations

import os
import resource
from pathlib import Path

import pytest

from arena.games import Outcome
from arena.match import replay, seeds
from arena.match.run import BotRef, MatchSpec, final_ranks, run_match
from arena.players.process import STDERR_TAIL_BYTES
from arena.sandbox import view
from arena.sandbox.limits import MIB, Limits
from arena.status import MatchStatus, SeatStatus
from tests.held_uids import HeldUids
from tests.helpers import bot_ref_for, expected_status, hostile_bots, needs_sandbox, sandboxed

#: Small limits keep the hostile bots quick: the memory hog stops at 256 MB, /tmp at 16 MB.
HOSTILE_LIMITS = Limits(
    cpu_seconds=20,
    processes=64,
    file_size_bytes=8 * MIB,
    open_files=64,
    address_space_bytes=1024 * MIB,
    memory_bytes=256 * MIB,
    tmp_bytes=16 * MIB,
)


def spec(
    *seats: BotRef,
    seed: int = 5,
    timeout: float = 0.5,
    limits: Limits | None = None,
    **variant: object,
) -> MatchSpec:
    return MatchSpec(
        match_id=f"test-{seed}",
        game="take-that",
        seed=seed,
        seats=seats,
        variant=dict(variant),
        decision_timeout=timeout,
        startup_timeout=3.0,
        limits=limits or Limits(),
        keys=seeds.derive(b"test" * 8, seed, "test", len(seats)),  # the same seed, the same match
    )


def descendants() -> set[int]:
    """Every process below this one (a bot's leftovers would be here, or in its PID namespace)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found - set(view.keepers())  # arena's own keeper of the system view stays


def test_polite_bots_play_a_normal_match_that_replays(polite: BotRef) -> None:
    result = run_match(spec(polite, polite, polite))
    assert result.status is MatchStatus.NORMAL
    assert [s.status for s in result.seats] == [SeatStatus.OK] * 3
    assert all(s.decisions > 10 for s in result.seats)
    assert result.replay is not None
    assert list(replay.verify(result.replay).scores) == [s.score for s in result.seats]


def test_same_seed_same_match(polite: BotRef) -> None:
    first, second = run_match(spec(polite, polite)), run_match(spec(polite, polite))
    assert [s.score for s in first.seats] == [s.score for s in second.seats]
    timing = ("ms", "charged_ms", "bank_ms")  # what the answers took differs, nothing else
    strip = [{k: v for k, v in e.items() if k not in timing} for e in first.replay["events"]]  # type: ignore[index]
    again = [{k: v for k, v in e.items() if k not in timing} for e in second.replay["events"]]  # type: ignore[index]
    assert strip == again


@pytest.mark.parametrize("name", hostile_bots())
def test_hostile_bot_is_forfeited_with_its_reason(
    name: str, polite: BotRef, used_uids: HeldUids, host_listener: None
) -> None:
    if needs_sandbox(name) and not sandboxed():
        pytest.skip("only safe inside bubblewrap, which is not available here")
    before = descendants()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run_match(spec(polite, bot_ref_for(name), polite, timeout=0.3, limits=HOSTILE_LIMITS))
    hostile = result.seats[1]
    assert hostile.status == expected_status(name), hostile.detail
    # Every process is gone, the platform's memory stayed bounded, stderr was capped.
    assert descendants() - before == set()
    assert used_uids.leftovers() == []
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before < 64 * 1024
    assert len(hostile.stderr.encode()) <= STDERR_TAIL_BYTES
    if hostile.status is SeatStatus.OK:  # an attack that was denied: the bot played on
        assert result.status is MatchStatus.NORMAL, hostile.detail
        assert all(s.status is SeatStatus.OK for s in result.seats)
        assert result.replay is not None
        replay.verify(result.replay)
        return
    assert hostile.detail
    assert result.status is MatchStatus.FORFEIT
    assert result.seats[0].status is SeatStatus.OK and result.seats[2].status is SeatStatus.OK
    assert hostile.rank == 3  # a forfeited seat ranks last
    assert result.replay is not None
    replay.verify(result.replay)  # the other seats finished a normal game
    forfeits = [e for e in result.replay["events"] if "forfeit" in e]
    assert forfeits == [{"forfeit": 1, "reason": hostile.status, "detail": hostile.detail}]


def test_crash_keeps_the_last_of_stderr(polite: BotRef) -> None:
    result = run_match(spec(polite, bot_ref_for("crash_mid_game")))
    assert result.seats[1].status is SeatStatus.CRASH
    assert "something broke" in result.seats[1].stderr
    assert result.seats[1].decisions == 2


def test_forfeited_seat_ranks_last_even_with_a_better_score() -> None:
    outcome = Outcome(scores=(10, 3, 3), ranks=(1, 2, 2))
    assert final_ranks(outcome, [True, False, False], True) == [3, 1, 1]
    assert final_ranks(outcome, [False, False, False], True) == [1, 2, 2]
    teams = Outcome(scores=(4, 9, 4, 9), ranks=(2, 1, 2, 1), teams=(0, 1, 0, 1))
    assert final_ranks(teams, [False, True, False, False], True) == [1, 2, 1, 2]


def test_team_games_rank_teams_also_after_forfeits() -> None:
    """Ranks count teams (ABCAB: 1 + teams ahead), a forfeited seat's whole team last."""
    abcab = Outcome(scores=(4, 2, 3, 4, 2), ranks=(1, 3, 2, 1, 3), teams=(0, 1, 2, 0, 1))
    assert final_ranks(abcab, [False] * 5, True) == [1, 3, 2, 1, 3]
    assert final_ranks(abcab, [False, False, False, True, False], True) == [3, 2, 1, 3, 2]
    assert final_ranks(abcab, [False, False, True, False, False], True) == [1, 2, 3, 1, 2]
    both = [True, False, True, False, False]  # A and C forfeited: behind B, by score
    assert final_ranks(abcab, both, True) == [2, 1, 3, 2, 1]
    # The numbering of earlier arenas (seats counted), kept for verifying old replays.
    assert final_ranks(abcab, [False] * 5, True, seat_counted=True) == [1, 4, 3, 1, 4]
    abab = Outcome(scores=(4, 9, 4, 9), ranks=(2, 1, 2, 1), teams=(0, 1, 0, 1))
    assert final_ranks(abab, [False] * 4, True, seat_counted=True) == [3, 1, 3, 1]


def test_broken_referee_is_a_platform_error_not_a_forfeit(
    polite: BotRef, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.games.take_that import TakeThat

    def broken(self: TakeThat, seat: int, decision: object) -> None:
        raise RuntimeError("referee bug")

    monkeypatch.setattr(TakeThat, "_apply", broken)
    result = run_match(spec(polite, polite))
    assert result.status is MatchStatus.PLATFORM_ERROR
    assert "referee bug" in result.error
    assert all(s.status is SeatStatus.OK and s.rank is None for s in result.seats)
