"""Matches as they are played, for the live pages: what a spectator may see of each.

The service keeps, per match being watched, the replay as far as it has got: its
header (the game, variant, players and the seats' bots, as a replay's) and its events
in order. Whoever plays the match publishes into it (`Live.start`, `Live.event`,
`Live.end`) from any thread: the open ladder's rounds do, through `runner.run`'s
spectators (arena.tournament.watching), and end a match once it is recorded, lost
with its worker or given up. Nothing of it is written to the database (only the
coordinator records a match, when it is over, in one transaction).

A match in play has secrets: hands, the draw pile, a card picked to exchange. A
spectator is therefore never sent a frame of the replay viewer (whose views hold
every seat's hand) but `spectator` frames: the event's kind and seat, the scores,
the seats to move and those forfeited, the table as every seat may know it (`view`:
arena.viewer.spectator, no card of a hand, no face-down card), which the live
viewer page (`arena.viewer.build_live`) draws, and what the event says in the views of the
seats that did not make it (arena.viewer.events: a decision as the other seats saw
it, e.g. "a card" for Twirkle's exchange), or only "seat 2 decided" where those views
differ; a chance event is only "chance", a forfeit names no detail, no debug text is
sent. Hidden cards show when the match is over, in its stored replay.

The frames are computed by the replay viewer's own code (`arena.viewer.frames`) from
the events so far, once per new event however many spectators follow (`frames_since`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from arena import viewer
from arena.errors import ReplayError

#: Matches kept once over (their spectators may still be reading the end).
KEPT_ENDED = 50


@dataclass
class LiveMatch:
    """One match as far as it has been published."""

    match_id: int
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False
    #: The spectator frames of the first `computed` events, and how many there are.
    frames: list[dict[str, Any]] = field(default_factory=list)
    computed: int = 0


class Live:
    """The matches being played that spectators may follow (see the module)."""

    def __init__(self) -> None:
        self._matches: dict[int, LiveMatch] = {}
        self._ended: list[int] = []
        self._lock = threading.Lock()

    # ----- publishing -------------------------------------------------------------------
    def start(self, match_id: int, header: dict[str, Any]) -> None:
        """A match begins (or begins again, its worker lost): `header` holds a replay's
        game, game_version, variant, seed, players and seats (each {"seat", "bot"})."""
        with self._lock:
            if match_id in self._ended:  # played again: not to be let go as the ended one
                self._ended.remove(match_id)
            self._matches[match_id] = LiveMatch(match_id, dict(header))

    def event(self, match_id: int, event: dict[str, Any]) -> None:
        """One more event of a started match, as its replay will record it."""
        with self._lock:
            found = self._matches.get(match_id)
            if found is not None and not found.ended:
                found.events.append(event)

    def end(self, match_id: int) -> None:
        """The match is over (recorded, or given up): spectators are told, then let go."""
        with self._lock:
            found = self._matches.get(match_id)
            if found is None or found.ended:
                return
            found.ended = True
            self._ended.append(match_id)
            while len(self._ended) > KEPT_ENDED:
                self._matches.pop(self._ended.pop(0), None)

    # ----- reading ----------------------------------------------------------------------
    def playing(self) -> list[int]:
        """The matches in play (started, not ended), oldest first."""
        with self._lock:
            return [m for m, found in self._matches.items() if not found.ended]

    def in_play(self, match_id: int) -> bool:
        """True while the match is published and not over."""
        with self._lock:
            found = self._matches.get(match_id)
            return found is not None and not found.ended

    def watched(self, match_id: int) -> bool:
        with self._lock:
            return match_id in self._matches

    def header(self, match_id: int) -> dict[str, Any] | None:
        """The header a watched match started with (None: a match nobody publishes)."""
        with self._lock:
            found = self._matches.get(match_id)
            return None if found is None else dict(found.header)

    def frames_since(self, match_id: int, since: int) -> tuple[list[dict[str, Any]], bool] | None:
        """The spectator frames after the first `since`, and whether the match ended
        (None: a match nobody publishes). The frames are computed outside the lock: the
        publisher (the match's own thread, in-process) never waits for them."""
        with self._lock:
            found = self._matches.get(match_id)
            if found is None:
                return None
            events, ended = list(found.events), found.ended
            frames, computed = found.frames, found.computed
        if computed < len(events):
            frames = spectator_frames(found.header, events)
            with self._lock:
                if found.computed < len(events):
                    found.frames, found.computed = frames, len(events)
        return frames[since:], ended  # an ended match takes no more events


def spectator_frames(header: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a spectator may see after each event so far (see the module). The last
    events of a joint decision not yet complete wait for the rest of it."""
    replay = {**header, "events": list(events)}
    while True:
        try:
            full = viewer.frames(replay, public=True)
            break
        except ReplayError as error:
            if not replay["events"] or "middle of a joint decision" not in str(error):
                raise
            replay["events"] = replay["events"][:-1]
    names = {seat["seat"]: seat["bot"] for seat in header["seats"]}
    return [viewer._shown(_spectator(frame, names, header["players"])) for frame in full]


def _spectator(frame: dict[str, Any], names: dict[int, str], players: int) -> dict[str, Any]:
    kind, seat = frame["kind"], frame["seat"]
    if kind == viewer.CHANCE_FRAME:
        text = "chance"
    elif kind == viewer.FORFEIT_FRAME:
        text = f"seat {seat} ({names.get(seat)}) forfeited"
    else:
        told = frame.get("told", {})
        usual = frame.get("others", frame["text"])
        others = {told.get(str(s), usual) for s in range(players) if s != seat}
        text = others.pop() if len(others) == 1 else f"seat {seat} decided"
    return {
        "kind": kind,
        "seat": seat,
        "bot": None if seat is None else names.get(seat),
        "text": text,
        "scores": frame["scores"],
        "to_move": frame["to_move"],
        "forfeited": frame["forfeited"],
        "over": frame["over"],
        "view": frame["public"],
    }
