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

The frames are made by the replay viewer's own code (`arena.viewer.Framer`, the
referee stepped by `arena.match.replay.Walker`) as the events come, each event once
however many spectators follow (`frames_since`): a new event costs one referee step,
not a walk through the match so far. A decision is published before the chance
outcomes it draws (a new deal, a card from the bag); until those have come too it
waits, the state as it was.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from arena import viewer
from arena.errors import ReplayError
from arena.games import GameError
from arena.games.base import ChanceExhausted
from arena.match.replay import Walker

#: Matches kept once over (their spectators may still be reading the end).
KEPT_ENDED = 50


class Spectating:
    """A match's spectator frames, made event by event (see the module)."""

    def __init__(self, header: dict[str, Any]):
        self.header = header
        #: Made with the first event (a header is only read once there is one).
        self.framer: viewer.Framer | None = None
        self.walker: Walker | None = None
        #: The events looked at for chance outcomes, and those made into frames.
        self.scanned = 0
        self.done = 0
        self.frames: list[dict[str, Any]] = []

    def advance(self, events: list[dict[str, Any]]) -> None:
        """The frames of `events` (the match's so far) after the first `done`, as far
        as the referee can go. Raises ReplayError when it rejects them."""
        try:
            self._advance(events)
        except GameError as error:
            raise ReplayError(f"the referee rejects the match: {error}") from None

    def _advance(self, events: list[dict[str, Any]]) -> None:
        if self.walker is None:
            try:
                self.walker = Walker.of({**self.header, "events": events})
            except ChanceExhausted:  # the deal is not all published yet
                return
            self.framer = viewer.Framer(self.header, public=True)
        else:
            self.walker.game.chance.extend([e for e in events[self.scanned :] if "chance" in e])
        self.scanned = len(events)
        last = max((i for i, e in enumerate(events) if "chance" not in e), default=-1)
        names = {seat["seat"]: seat["bot"] for seat in self.header["seats"]}
        assert self.framer is not None  # made with the walker
        for index in range(self.done, len(events)):
            event = events[index]
            try:  # the last decision's chance may still be on its way
                game = self.walker.step(event, tentative=index == last)
            except ChanceExhausted:
                if index != last:
                    raise
                return
            frame = _spectator(self.framer.after(event, game), names, self.header["players"])
            self.frames.append(viewer._shown(frame))
            self.done = index + 1


@dataclass
class LiveMatch:
    """One match as far as it has been published."""

    match_id: int
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False
    spectating: Spectating = field(init=False)
    #: Held while its frames are made (the publisher never waits for it).
    making: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.spectating = Spectating(self.header)


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
        with found.making:
            if found.spectating.done < len(events):
                found.spectating.advance(events)
            return found.spectating.frames[since:], ended  # an ended match takes no more

    def latest(self, match_id: int) -> tuple[dict[str, Any] | None, int, bool] | None:
        """The newest spectator frame (None: none yet), how many there are, and whether
        the match ended (None: a match nobody publishes)."""
        found = self.frames_since(match_id, 0)
        if found is None:
            return None
        frames, ended = found
        return (frames[-1] if frames else None), len(frames), ended


def spectator_frames(header: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a spectator may see after each event so far (see the module), at once."""
    spectating = Spectating(header)
    spectating.advance(list(events))
    return spectating.frames


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
