"""Matches followed as they are played: run_match's watcher, its forwarding from a pool's
workers to the coordinator, and the runner's view of it (arena.tournament.watching).
Without a watcher a match is what it was."""

from __future__ import annotations

import os
import pickle
import signal
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.match import run as match_run
from arena.match.run import MatchResult, MatchSpec, Watcher, run_match
from arena.players.pool import BotPool
from arena.service.live import KEPT_ENDED, Live
from arena.status import MatchStatus
from arena.store import Store
from arena.tournament import executors, runner, watching
from arena.tournament.config import TournamentConfig
from tests.helpers import TEST_BOTS, bot_ref_for
from tests.test_match import spec

TIMING = ("ms", "charged_ms", "bank_ms")  # what the answers took differs, nothing else


def untimed(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k not in TIMING} for e in events]


class Recorder:
    """A watcher that keeps what it is told, in order."""

    def __init__(self) -> None:
        self.told: list[tuple[str, Any]] = []

    def start(self, header: dict[str, Any]) -> None:
        self.told.append(("start", header))

    def event(self, event: dict[str, Any]) -> None:
        self.told.append(("event", event))

    def end(self, status: str) -> None:
        self.told.append(("end", status))


class Relayed:
    """A Relay that keeps its messages (any thread) and says when a match's end came."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, str, Any]] = []
        self.lock = threading.Lock()
        self.ended = threading.Event()

    def __call__(self, match: str, kind: str, payload: Any) -> None:
        with self.lock:
            self.messages.append((match, kind, payload))
        if kind == watching.END:
            self.ended.set()

    def of(self, match: str) -> list[tuple[str, Any]]:
        with self.lock:
            return [(k, p) for m, k, p in self.messages if m == match]


def test_without_a_watcher_a_match_is_what_it_was_and_a_watcher_sees_every_event() -> None:
    polite = bot_ref_for("polite")
    alone = run_match(spec(polite, polite, seed=3))
    seen = Recorder()
    watched = run_match(spec(polite, polite, seed=3), watcher=seen)
    assert alone.status is watched.status is MatchStatus.NORMAL
    assert [(s.score, s.rank, s.decisions) for s in alone.seats] == [
        (s.score, s.rank, s.decisions) for s in watched.seats
    ]
    assert alone.replay is not None and watched.replay is not None
    assert untimed(alone.replay["events"]) == untimed(watched.replay["events"])
    assert set(alone.replay) == set(watched.replay)
    kinds = [kind for kind, _ in seen.told]
    assert kinds[0] == "start" and kinds[-1] == "end" and set(kinds[1:-1]) == {"event"}
    assert [e for kind, e in seen.told if kind == "event"] == watched.replay["events"]
    header = seen.told[0][1]
    same = {k: v for k, v in watched.replay.items() if k in header and k != "seats"}
    assert {k: v for k, v in header.items() if k != "seats"} == same
    assert "deal_seed" not in header and header["seats"] == [
        {"seat": 0, "bot": "polite"},
        {"seat": 1, "bot": "polite"},
    ]  # no seat's seed: a seed tells a hand
    assert seen.told[-1] == ("end", "normal")
    pickle.dumps((run_match, spec(polite, polite)))  # still sent to workers as it was


def test_a_seat_forfeited_at_start_is_told_first_and_a_void_match_ends_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    polite, crash = bot_ref_for("polite"), bot_ref_for("crash_at_start")
    seen = Recorder()
    result = run_match(spec(crash, polite), watcher=seen)
    assert result.replay is not None and "forfeit" in result.replay["events"][0]
    assert seen.told[1] == ("event", result.replay["events"][0])

    def fails(*args: object) -> None:
        raise RuntimeError("no sandbox today")

    monkeypatch.setattr(match_run, "_start_seats", fails)
    seen = Recorder()
    void = run_match(spec(polite, polite), watcher=seen)
    assert void.status is MatchStatus.PLATFORM_ERROR
    assert [k for k, _ in seen.told] == ["start", "end"]
    assert seen.told[-1] == ("end", str(MatchStatus.PLATFORM_ERROR))


def test_forward_keeps_debug_and_detail_in_the_worker_and_never_fails_the_match() -> None:
    relayed = Relayed()
    forward = watching.Forward("m1", relayed)
    forward.event({"seat": 0, "decision": 3, "debug": "my plan"})
    forward.event({"forfeit": 1, "reason": "crash", "detail": "private stderr"})
    assert relayed.of("m1") == [
        ("event", {"seat": 0, "decision": 3}),
        ("event", {"forfeit": 1, "reason": "crash"}),
    ]

    def broken(match: str, kind: str, payload: Any) -> None:
        raise OSError("the coordinator went away")

    polite = bot_ref_for("polite")
    result = run_match(spec(polite, polite), watcher=watching.Forward("m2", broken))
    assert result.status is MatchStatus.NORMAL


def test_the_pipe_carries_whole_messages_and_a_too_large_one_is_a_lost_match() -> None:
    relayed = Relayed()
    reader = watching.PipeReader(relayed)
    try:
        send = watching.PipeSender(reader.write_fd)
        send("t1-m0", watching.START, {"game": "take-that"})
        send("t1-m0", watching.EVENT, {"seat": 1, "decision": [1, 2]})
        with pytest.raises(ValueError):
            send("t1-m1", watching.EVENT, {"seat": 0, "decision": "x" * 5000})
        send("t1-m0", watching.END, "normal")
        assert relayed.ended.wait(30)
    finally:
        reader.close()
    assert relayed.of("t1-m0") == [
        ("start", {"game": "take-that"}),
        ("event", {"seat": 1, "decision": [1, 2]}),
        ("end", "normal"),
    ]
    assert relayed.of("t1-m1") == [("lost", None)]
    assert not reader.thread.is_alive()


class Told:
    """Spectators that keep what they are told (the runner's side)."""

    def __init__(self) -> None:
        self.told: list[tuple[str, int]] = []

    def start(self, match_id: int, header: dict[str, Any]) -> None:
        self.told.append(("start", match_id))

    def event(self, match_id: int, event: dict[str, Any]) -> None:
        self.told.append(("event", match_id))

    def end(self, match_id: int) -> None:
        self.told.append(("end", match_id))


def test_following_ends_a_match_when_recorded_lost_or_given_up_and_drops_late_news() -> None:
    told = Told()
    following = watching.Following(told)
    for spec_id, match_id in (("t1-m0", 10), ("t1-m1", 11), ("t1-m2", 12)):
        following.expect(spec_id, match_id)
    following.relay("t1-m0", watching.START, {})
    following.relay("t1-m0", watching.EVENT, {})
    following.relay("t1-m0", watching.END, "normal")  # played: still shown until recorded
    assert told.told == [("start", 10), ("event", 10)]
    following.done(10)
    following.relay("t1-m0", watching.EVENT, {})  # late: dropped
    following.relay("t1-m1", watching.START, {})
    following.relay("t1-m1", watching.LOST, None)  # its worker died
    following.relay("t9-m9", watching.START, {})  # never expected: dropped
    following.close()  # the run ends: m1 and m2 are given up
    assert told.told == [
        ("start", 10),
        ("event", 10),
        ("end", 10),
        ("start", 11),
        ("end", 11),
        ("end", 11),
        ("end", 12),
    ]


def test_a_match_started_again_is_not_let_go_with_the_ended_ones() -> None:
    live = Live()
    live.start(1, {"seats": []})
    live.end(1)
    live.start(1, {"seats": []})  # its worker died: played again
    for other in range(2, KEPT_ENDED + 3):
        live.start(other, {"seats": []})
        live.end(other)
    assert live.in_play(1)


def test_the_pool_forwards_every_event_of_its_matches_to_the_coordinator() -> None:
    relayed = Relayed()
    pool = executors.Processes(2, reuse=True, pin=False, relay=relayed)
    polite = bot_ref_for("polite")
    try:
        matches = [
            pool.submit(replace(spec(polite, polite, seed=n), match_id=f"m{n}")) for n in range(3)
        ]
        results = [m.result() for m in matches]
    finally:
        pool.shutdown()
    for n, result in enumerate(results):
        assert result.status is MatchStatus.NORMAL and result.replay is not None
        told = relayed.of(f"m{n}")
        assert told[0][0] == "start" and told[-1] == ("end", "normal")
        events = [p for k, p in told if k == "event"]
        assert events == [
            {k: v for k, v in e.items() if k not in watching.PRIVATE}
            for e in result.replay["events"]
        ]


def die_once_watched(
    spec: MatchSpec, pool: BotPool | None = None, watcher: Watcher | None = None
) -> MatchResult:
    """The worker dies under the first attempt of each match, once it has told of its
    start; the second is played."""
    marker = Path(spec.match_id)
    if not marker.exists():
        marker.touch()
        assert watcher is not None
        watcher.start({"attempt": 1})
        os.kill(os.getpid(), signal.SIGKILL)
    return run_match(spec, pool, watcher)


def test_a_match_whose_worker_dies_is_lost_to_its_spectators_then_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "run_match", die_once_watched)  # forked workers inherit it
    relayed = Relayed()
    pool = executors.Processes(1, reuse=True, pin=False, relay=relayed)
    polite = bot_ref_for("polite")
    match = str(tmp_path / "m0")
    try:
        result = pool.submit(replace(spec(polite, polite), match_id=match)).result()
    finally:
        pool.shutdown()
    assert result.status is MatchStatus.NORMAL and result.replay is not None
    told = relayed.of(match)
    kinds = [k for k, _ in told]
    assert ("start", {"attempt": 1}) in told and "lost" in kinds
    last_start = len(kinds) - 1 - kinds[::-1].index("start")
    assert kinds.index("lost") < last_start  # the rerun starts after the loss was told
    assert told[last_start][1]["match"] == match
    assert [p for k, p in told[last_start:] if k == "event"] == [
        {k: v for k, v in e.items() if k not in watching.PRIVATE} for e in result.replay["events"]
    ]
    assert told[-1] == ("end", "normal")


class Checked(Told):
    """Spectators that also note, at each end, whether the match was recorded then."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.recorded_at_end: list[bool] = []

    def end(self, match_id: int) -> None:
        super().end(match_id)
        found = self.store.match(match_id)
        self.recorded_at_end.append(found is not None and found.recorded)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_shows_each_match_from_its_start_until_it_is_recorded(
    tmp_path: Path, workers: int
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    polite = str(TEST_BOTS / "polite")
    config = TournamentConfig(game="take-that", bots=("random", polite), rounds=2, seed=4)
    tid = runner.create(store, tmp_path, config)
    spectators = Checked(store)
    runner.run(store, tid, workers=workers, pin_workers=False, spectators=spectators)
    ids = [m.id for m in store.matches(tid)]
    assert store.match_counts(tid) == (len(ids), len(ids))
    assert all(spectators.recorded_at_end) and len(spectators.recorded_at_end) == len(ids)
    for match_id in ids:
        told = [kind for kind, m in spectators.told if m == match_id]
        assert told[0] == "start" and told[-1] == "end" and "event" in told
        assert told.count("start") == told.count("end") == 1
