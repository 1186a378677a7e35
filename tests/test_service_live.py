"""The open ladder's matches, live: a real service and its ladder, a spectator following
a match's server-sent events while it is played (in this process, and on two pool
workers), every frame before the match is recorded, no seat's hand in any of them.

The ladder's recording is held back (`HeldStore`) until the spectator has seen the
match's last frame: what the stream delivered came before the match was recorded, by
construction and not by timing; then the stream ends once it is recorded."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from arena.match import replay as replays
from arena.service.ladder import LadderSpec, OpenLadders
from arena.service.live import Live, spectator_frames
from arena.store import Store
from tests.service_fixtures import serve

#: How long a test waits for what it needs (a missing event fails it, never hangs it).
DEADLINE = 120.0
SPECTATOR_KEYS = {"kind", "seat", "bot", "text", "scores", "to_move", "forfeited", "over", "view"}


class HeldStore(Store):
    """A store whose recording waits until `release` is set (at most DEADLINE seconds)."""

    def __init__(self, url: str):
        super().__init__(url)
        self.release = threading.Event()

    def record_many(self, *args: Any, **options: Any) -> list[int]:
        self.release.wait(DEADLINE)
        return super().record_many(*args, **options)


class FirstStart(Live):
    """The app's Live, which tells the test the id of the first match that starts."""

    def __init__(self) -> None:
        super().__init__()
        self.first: int | None = None
        self.started = threading.Event()

    def start(self, match_id: int, header: dict[str, Any]) -> None:
        super().start(match_id, header)
        if self.first is None:
            self.first = match_id
            self.started.set()


def sse(answer: httpx.Response) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """The (event, data) of a server-sent event stream as they come."""
    kind = None
    for line in answer.iter_lines():
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            yield kind, orjson.loads(line[6:])
            kind = None


def hands(replay: dict[str, Any]) -> list[list[bytes]]:
    """After each event of a stored replay, every hand of two cards or more, as JSON."""
    return [
        [
            orjson.dumps(game.observation(seat)["game"]["hand"])
            for seat in range(game.players)
            if len(game.observation(seat)["game"]["hand"]) > 1
        ]
        for _event, game in replays.walk(replay)
    ]


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_a_ladder_match_is_streamed_move_by_move_before_it_is_recorded(
    tmp_path: Path, workers: int
) -> None:
    store = HeldStore(f"sqlite:///{tmp_path / 'arena.db'}")
    live = FirstStart()
    spec = LadderSpec(
        game="take-that", players=2, bundled=("random", "first-legal"), workers=workers
    )
    ladders = OpenLadders(store, tmp_path, [spec], live=live)
    for url in serve(store, tmp_path, live=live):
        ladders.start()
        try:
            assert live.started.wait(DEADLINE), "no ladder match started"
            match_id = live.first
            assert match_id is not None
            frames: list[dict[str, Any]] = []
            with httpx.stream("GET", f"{url}/matches/{match_id}/live", timeout=DEADLINE) as answer:
                assert answer.status_code == 200
                events = sse(answer)
                for kind, data in events:
                    assert kind == "frame", "the stream ended before the match was recorded"
                    found = store.match(match_id)
                    assert found is not None and not found.recorded  # in play: not recorded
                    frames.append(data)
                    if data["over"]:
                        break
                store.release.set()
                rest = list(events)
            assert rest == [("end", {})]  # once recorded, and only then
        finally:
            store.release.set()
            ladders.stop(60)
    found = store.match(match_id)
    assert found is not None and found.recorded
    stored = store.replay(match_id)
    assert stored is not None
    replay = orjson.loads(stored)
    header = {k: v for k, v in replay.items() if k not in ("events", "outcome")}
    assert frames == spectator_frames(header, replay["events"])  # every event, in order
    assert len(frames) == len(replay["events"]) > 10
    for frame, seat_hands in zip(frames, hands(replay), strict=True):
        assert set(frame) == SPECTATOR_KEYS
        shown = orjson.dumps(frame)
        assert "hand" not in frame["view"]["game"] and frame["view"]["seat"] is None
        assert not [h for h in seat_hands if h in shown], (frame, seat_hands)
    for frame, (_event, game) in zip(frames, replays.walk(replay), strict=True):
        hidden = {c for s in range(game.players) for cs in game.hidden(s).values() for c in cs}
        view = frame["view"]["game"]  # the table drawn: the row, the plus and minus piles
        shown_cards = {*view["row"], *(c for cs in view["plus"] + view["minus_seen"] for c in cs)}
        assert not shown_cards & hidden, frame
        assert view["hand_sizes"] == game.observation(0)["game"]["hand_sizes"]
    assert {f["text"] for f in frames if f["kind"] == "chance"} == {"chance"}


@pytest.mark.parametrize("game", ["take-that", "leylo", "twirkle", "krumme10"])
def test_frames_are_made_once_each_as_the_events_come(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Events published one at a time, a spectator asking after each: every event is
    framed once (not the match so far again), a decision whose chance outcomes are not
    published yet waits for them (no error), and the frames are those of the whole
    replay at once."""
    from arena import viewer
    from tests.test_viewer import CASES, golden_replay

    replay = golden_replay(CASES[game])
    header = {k: v for k, v in replay.items() if k not in ("events", "outcome")}
    framed = []
    original = viewer.Framer.after

    def counting(self: viewer.Framer, event: dict[str, Any], state: Any) -> dict[str, Any]:
        framed.append(event)
        return original(self, event, state)

    monkeypatch.setattr(viewer.Framer, "after", counting)
    live = Live()
    live.start(7, header)
    shown: list[dict[str, Any]] = []
    waited = 0
    for n, event in enumerate(replay["events"], 1):
        live.event(7, event)
        found = live.frames_since(7, len(shown))
        assert found is not None
        shown.extend(found[0])
        assert len(shown) in (n, n - 1)  # at most the decision whose chance is on its way
        waited += len(shown) == n - 1
    assert framed == replay["events"]  # each once, in order
    assert waited >= 1  # a deal or a draw came after the decision that made it
    monkeypatch.undo()
    assert shown == spectator_frames(header, replay["events"])
