"""The coordinator records results in batches: the same rows as one match at a time.

`runner.run` records several results in one transaction when they are there already
(`MAX_BATCH` at most) and one at a time when it would otherwise wait. Whatever the
batches, the stored seats, ratings and leaderboard are those of recording each match
alone in schedule order, suspensions included.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from arena.match.results import SeatResult
from arena.match.run import MatchResult, MatchSpec
from arena.results import reports
from arena.status import MatchStatus, SeatStatus
from arena.store import Store
from arena.store.models import Match, Tournament
from arena.tournament import runner

ROOT = Path(__file__).resolve().parents[1]

GAME = "take-that"


class Ready:
    def __init__(self, result: MatchResult, ready: bool):
        self.value, self.ready = result, ready

    def result(self) -> MatchResult:
        return self.value

    def done(self) -> bool:
        return self.ready


class Synthetic:
    """Results made from the spec's seed alone: the same match, the same result."""

    slots = 8

    def __init__(self, ready: bool):
        self.ready = ready
        self.submitted = 0

    def submit(self, spec: MatchSpec) -> Ready:
        self.submitted += 1
        rng = random.Random(spec.seed)
        count = len(spec.seats)
        ranks = [rng.randint(1, count) for _ in range(count)]
        crash = rng.random() < 0.15  # forfeits, so that suspensions happen
        seats = [
            SeatResult(
                i, ref.version_id, float(-ranks[i]), ranks[i],
                SeatStatus.CRASH if crash and ref.name == "bot0" else SeatStatus.OK, bot=ref.name,
            )
            for i, ref in enumerate(spec.seats)
        ]  # fmt: skip
        crashed = any(s.status is SeatStatus.CRASH for s in seats)
        status = MatchStatus.FORFEIT if crashed else None
        result = MatchResult(
            match_id=spec.match_id, game=GAME, game_version=1, variant={}, seed=spec.seed,
            status=status or MatchStatus.NORMAL, seats=seats, replay={"m": spec.match_id},
        )  # fmt: skip
        return Ready(result, self.ready)

    def shutdown(self, now: bool = False) -> None:
        pass


def tournament_in(store: Store) -> int:
    versions = [
        store.add_bot_version(f"bot{b}", f"{b:064x}", str(ROOT / "bots" / "random"),
                              ["python3", "bot.py"], ["*"]).id or 0
        for b in range(5)
    ]  # fmt: skip
    rng = random.Random(4)
    tournament = Tournament(
        name="t", game=GAME, game_version=1, format="round-robin", players=3, rounds=1, seed=1,
        variant={}, settings={"decision_timeout": 1.0, "startup_timeout": 5.0, "suspend_after": 2},
    )  # fmt: skip
    schedule = [
        Match(number=i, game=GAME, seed=1000 + i, lineup=rng.sample(versions, rng.randint(2, 4)))
        for i in range(250)
    ]
    return store.create_tournament(tournament, schedule)


def stored(store: Store, tid: int) -> tuple[Any, ...]:
    seats = [
        (m.number, m.status, s.seat, s.status, s.score, s.mu_after, s.sigma_after)
        for m, s in store.seat_rows(tournament_id=tid)
    ]
    return seats, reports.leaderboard(store, GAME, tid), reports.leaderboard(store, GAME)


@pytest.mark.parametrize("max_batch", [3, 100])
def test_batched_recording_stores_what_one_match_at_a_time_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, max_batch: int
) -> None:
    batches: list[int] = []
    real = Store.record_many

    def counting(self: Store, batch: list[Any], **kwargs: Any) -> list[int]:
        batches.append(len(batch))
        return real(self, batch, **kwargs)

    monkeypatch.setattr(Store, "record_many", counting)
    monkeypatch.setattr(runner, "MAX_BATCH", max_batch)
    found = []
    for ready in (False, True):
        batches.clear()
        store = Store(f"sqlite:///{tmp_path / f'{ready}.db'}")
        tid = tournament_in(store)
        executor = Synthetic(ready)
        runner.run(store, tid, executor=executor)
        found.append(stored(store, tid))
        assert store.match_counts(tid) == (250, 250)
        assert sum(batches) == 250
        if ready:  # every result there at once: full batches
            assert max(batches) == max_batch and len(batches) == -(-250 // max_batch)
        else:  # waiting for each result: each recorded before the wait (matches skipped
            # at submission, for suspended bots, are there at once and join a batch)
            assert executor.submitted <= len(batches) < 250
        store.close()
    assert found[0] == found[1]
    assert any(s[3] == "suspended" for s in found[0][0])  # suspensions were exercised


@pytest.mark.parametrize("stop", [7, 40, 130])
def test_a_resumed_run_records_the_suspensions_an_uninterrupted_one_does(
    tmp_path: Path, stop: int
) -> None:
    """A suspension is recorded with the match that caused it; a run cut off anywhere
    resumes from the recorded ones (and everyone's forfeits in a row) to the same rows."""
    whole = Store(f"sqlite:///{tmp_path / 'whole.db'}")
    tid = tournament_in(whole)
    runner.run(whole, tid, executor=Synthetic(True))
    expected = stored(whole, tid), whole.suspensions(tid)
    assert expected[1], "no suspension happened"
    suspended = {s.version_id for s in expected[1]}
    assert all(s.forfeits == 2 for s in expected[1])  # the tournament's suspend_after

    cut = Store(f"sqlite:///{tmp_path / f'cut{stop}.db'}")
    tid = tournament_in(cut)
    told: list[str] = []

    def stop_at(progress: runner.Progress) -> None:
        told.extend(progress.suspended_now)
        if progress.done == stop:
            raise KeyboardInterrupt

    with pytest.raises(runner.Interrupted):
        runner.run(cut, tid, executor=Synthetic(False), on_progress=stop_at)
    runner.run(cut, tid, executor=Synthetic(True), on_progress=stop_at)
    assert (stored(cut, tid), cut.suspensions(tid)) == expected
    assert len(told) == len(suspended)  # each told once, when it happened
    whole.close()
    cut.close()


class Holding(Synthetic):
    """Plays each match when its result is asked for, as the in-process executor does,
    and lets results wait up to `hold_seconds` to be recorded together; the result of
    match `cut` (counted from 1) is a Ctrl-C instead."""

    slots = 1
    hold_seconds = 60.0

    def __init__(self, cut: int | None = None):
        super().__init__(ready=False)
        self.cut = cut
        self.asked = 0

    def submit(self, spec: MatchSpec) -> Ready:
        made = super().submit(spec)
        owner = self

        class Lazy(Ready):
            def result(self) -> MatchResult:
                owner.asked += 1
                if owner.asked == owner.cut:
                    raise KeyboardInterrupt
                return self.value

        return Lazy(made.value, False)


def test_held_results_are_recorded_together_and_kept_when_the_run_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches: list[int] = []
    real = Store.record_many

    def counting(self: Store, batch: list[Any], **kwargs: Any) -> list[int]:
        batches.append(len(batch))
        return real(self, batch, **kwargs)

    monkeypatch.setattr(Store, "record_many", counting)
    whole = Store(f"sqlite:///{tmp_path / 'whole.db'}")
    tid = tournament_in(whole)
    runner.run(whole, tid, executor=Synthetic(False))
    expected = stored(whole, tid)

    batches.clear()
    held = Store(f"sqlite:///{tmp_path / 'held.db'}")
    tid = tournament_in(held)
    runner.run(held, tid, executor=Holding())
    assert stored(held, tid) == expected
    assert sum(batches) == 250 and max(batches) == runner.MAX_BATCH  # held to the limit

    batches.clear()
    cut = Store(f"sqlite:///{tmp_path / 'cut.db'}")
    tid = tournament_in(cut)
    with pytest.raises(runner.Interrupted):
        runner.run(cut, tid, executor=Holding(cut=30))
    assert batches == [29] and cut.match_counts(tid)[0] == 29  # the held 29 were kept
    runner.run(cut, tid, executor=Holding())
    assert stored(cut, tid) == expected
    for store in (whole, held, cut):
        store.close()
