"""The HTML replay viewer: one self-contained page that replays a match as a table.

`build(replay)` walks a replay through the referee (arena.match.replay.walk) and records,
after every event, what each seat observes (`Game.observation`, protocol 2's envelope:
exactly what arena sends a seat when it is asked to decide; the same keys in every game,
so the page reads the seat, phase, seats to move and scores without knowing the game,
and each layout reads the game's own fields under `game`) and what no seat sees
(`Game.hidden` places common to all seats: the draw pile, face-down cards), the scores
and the decision's text in every view (`events.py`: a seat's view tells the others'
moves with only the cards that seat saw), and closes with the winner and the ranking.
The page embeds that as JSON and draws it with the scripts of this package: `viewer.js`
(controls, seats, scores, the phase, event list, the closing announcement) and one
layout per game (`take_that.js`, `leylo.js`, `twirkle.js`, `krumme10.js`), styled by
`viewer.css`.

A replay is untrusted (bot names, forfeit details): the JSON is embedded in a
`<script type="application/json">` with every `<`, `>` and `&` written as a JSON
escape, so no value can end the script element, and the scripts show every value
through `textContent`, never as HTML. Every string of the page's data is shown as the
terminal shows it (`arena.controls.visible`: NUL, ESC, bidi overrides, zero-width
characters spelled as escapes), so that U+202E cannot draw "evil" as "live"; the
scripts spell the same list (`arena.controls.RANGES`, embedded) in whatever text they
put together, as a second guard.
"""

from __future__ import annotations

import html
import re
from importlib import resources
from typing import TYPE_CHECKING, Any

import orjson

from arena import controls
from arena.errors import ReplayError
from arena.games import Game, GameError, load_game
from arena.viewer import events, spectator

if TYPE_CHECKING:  # the store is only passed in: building a page needs no database code
    from arena.store import Store

#: The page's scripts, in order: the card helpers and layouts register themselves
#: in `LAYOUTS`, then viewer.js starts the page.
SCRIPTS = ("cards.js", "take_that.js", "leylo.js", "twirkle.js", "krumme10.js", "viewer.js")
STYLE = "viewer.css"
#: The kinds of a viewer frame: a chance event, a seat's forfeit, a decision.
CHANCE_FRAME, FORFEIT_FRAME, DECISION_FRAME = "chance", "forfeit", "decision"
#: Every game the viewer has a layout for, with what its running score (the envelope's
#: `scores`) is called.
GAMES = {
    "take-that": "rounds done",
    "leylo": "total",
    "twirkle": "score",
    "krumme10": "points",
}


def asset(name: str) -> str:
    """One of this package's files (a script or the style sheet), as text."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def embed_json(value: Any) -> str:
    """JSON that is safe inside a `<script>` element: `<`, `>`, `&` as `\\u` escapes.

    In JSON these characters only occur inside strings, where the escapes mean the
    same characters; U+2028 and U+2029 are escaped too (orjson writes them raw).
    """
    text = orjson.dumps(value).decode()
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def _secret(game: Game) -> dict[str, Any]:
    """The places no seat sees (the draw pile, face-down cards), by place name."""
    per_seat = [game.hidden(seat) for seat in range(game.players)]
    common = set(per_seat[0]).intersection(*per_seat[1:])
    return {place: per_seat[0][place] for place in sorted(common)}


def _delta(previous: dict[str, Any] | None, current: dict[str, Any]) -> dict[str, Any]:
    """The top-level keys of `current` that differ from `previous` (all of them at first).

    A key of `previous` that `current` lacks is given as null: a secret place (a list)
    that is no longer hidden. Observations always have the same keys.
    """
    if previous is None:
        return current
    changed = {key: value for key, value in current.items() if previous.get(key) != value}
    changed.update({key: None for key in previous if key not in current})
    return changed


def _view_delta(previous: dict[str, Any] | None, current: dict[str, Any]) -> dict[str, Any]:
    """The keys of an envelope that differ from `previous`'s, its game's fields one level
    down: ``{"to_move": [2], "game": {"row": [...]}}`` (all of it at first).

    Envelopes always have the same keys, and a game's fields too.
    """
    if previous is None:
        return current
    changed = {
        key: value for key, value in current.items() if key != "game" and previous.get(key) != value
    }
    fields = _delta(previous["game"], current["game"])
    if fields:
        changed["game"] = fields
    return changed


class _Clocks:
    """Each seat's clock as the replay records it (version 3): the bank left after its
    last answer (None under a per-decision limit, or before it answered), and what its
    answers were charged so far."""

    def __init__(self, players: int):
        self.seats = [{"bank_ms": None, "used_ms": 0.0} for _ in range(players)]

    def after(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """The clocks once `event` happened (a copy, for one frame)."""
        seat = event.get("seat")
        if seat is not None and "charged_ms" in event:
            clock = self.seats[seat]
            clock["used_ms"] = round(float(clock["used_ms"] or 0) + event["charged_ms"], 3)
            if "bank_ms" in event:
                clock["bank_ms"] = event["bank_ms"]
        return [dict(clock) for clock in self.seats]


def frames(replay: dict[str, Any], public: bool = False) -> list[dict[str, Any]]:
    """One frame per replay event: the event and the table right after it.

    A frame holds `kind` (chance, decision, forfeit), `seat`, `text` (as the
    all-seeing view tells it), for a decision `others` (the text most seats' views
    share, if not `text`) and `told` (seat -> its view's text, where it differs from
    those), `scores`, `to_move`, `forfeited` (the seats forfeited so far), once
    over `teams` (or null), `views` (each seat's
    envelope) and `secret` (what no seat sees), the last two as changed keys only (a
    view's common keys and its game's fields, `_view_delta`): seat 0's view and the
    secret against the frame before (the first frame holds them whole), every other
    seat's view against seat 0's of the same frame. viewer.js rebuilds the full views.
    With `public`, a frame also holds `public`: the spectator's whole envelope
    (arena.viewer.spectator), what every seat may know.
    """
    from arena.match import replay as replays

    framer = Framer(replay, public)
    try:
        return [framer.after(event, game) for event, game in replays.walk(replay)]
    except GameError as error:
        raise ReplayError(f"the referee rejects the replay: {error}") from None


class Framer:
    """`frames`, one event at a time: what a frame needs of the frames before it (the
    views and the secret it is told against, the clocks, the forfeits, a joint
    decision's earlier parts). A live match's frames are made as its events come
    (arena.service.live), each once."""

    def __init__(self, replay: dict[str, Any], public: bool = False):
        """`replay`: a replay or its header (game, players, seats)."""
        self.game_id: str = replay["game"]
        self.public = public
        self.names = {seat["seat"]: seat["bot"] for seat in replay["seats"]}
        self.view0: dict[str, Any] | None = None
        self.secret: dict[str, Any] | None = None
        self.clocks = _Clocks(replay["players"])
        self.applied = 0
        self.forfeited: list[int] = []
        # every view before the event, and the decisions waiting for a joint one to apply
        self.before: list[dict[str, Any]] = []
        self.secret_before: dict[str, Any] = {}
        self.waiting: list[events.Asked] = []

    def after(self, event: dict[str, Any], game: Game) -> dict[str, Any]:
        """The frame of `event`, `game` being the state right after it (`walk`'s)."""
        from arena.match import replay as replays

        frame = self._event(event, game)
        now = [replays.referee_step(game.observation, seat) for seat in range(game.players)]
        hidden = replays.referee_step(_secret, game)
        if frame["kind"] == "decision":
            moment = events.Moment(
                self.game_id, game.describe, self.before or now, now, self.secret_before, hidden
            )
            asked = replays.referee_step(events.tell_frame, frame, moment, self.waiting)
            self.waiting = [*self.waiting, asked] if frame["pending"] else []
        over = replays.referee_step(game.is_over)
        frame["to_move"] = replays.referee_step(game.to_move)
        frame["forfeited"] = self.forfeited
        frame["over"] = over
        if over:  # the closing announcement names teams (Krumme10's variant)
            teams = replays.referee_step(game.outcome).teams
            frame["teams"] = None if teams is None else list(teams)
        frame["scores"] = (
            list(replays.referee_step(game.outcome).scores) if over else list(now[0]["scores"])
        )
        # seat 0's view against its view before, every other seat's against seat 0's
        frame["views"] = [_view_delta(self.view0, now[0])]
        frame["views"] += [_view_delta(now[0], v) for v in now[1:]]
        frame["secret"] = _delta(self.secret, hidden)
        if self.public:
            frame["public"] = spectator.public_view(self.game_id, now)
        self.view0, self.secret = now[0], hidden
        self.before, self.secret_before = now, hidden
        frame["clocks"] = self.clocks.after(event)
        return frame

    def _event(self, event: dict[str, Any], game: Game) -> dict[str, Any]:
        """A frame's kind, seat and text (an all-seeing one; a decision's is told later)."""
        if "chance" in event:
            return {"kind": CHANCE_FRAME, "seat": None, "text": f"chance: {event['chance']}"}
        if "forfeit" in event:
            seat = event["forfeit"]
            detail = f" ({event['detail']})" if event.get("detail") else ""
            text = f"seat {seat} ({self.names.get(seat)}) forfeited: {event['reason']}{detail}"
            self.forfeited = sorted({*self.forfeited, seat})
            return {"kind": FORFEIT_FRAME, "seat": seat, "text": text}
        pending = len(game.history) == self.applied
        self.applied = len(game.history)
        return {
            "kind": DECISION_FRAME,
            "seat": event["seat"],
            "decision": event["decision"],
            "ms": event.get("ms", 0),
            "fallback": event.get("by") == "fallback",
            # what it was charged on its clock and the bot's own words
            # (protocol 2): shown only in the views its seat's owner may see
            "charged_ms": event.get("charged_ms"),
            "debug": event.get("debug"),
            # a simultaneous decision waits for the other seats asked with it
            "pending": pending,
        }


def _shown(value: Any) -> Any:
    """`value` with every string in it (keys too) spelled as the terminal shows it.

    >>> _shown({"bot\\u202e": ["evil\\x00", 1]})
    {'bot\\\\u202e': ['evil\\\\x00', 1]}
    """
    if isinstance(value, str):
        return controls.visible(value)
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_shown(v) for v in value]
    return value


def page_data(replay: dict[str, Any]) -> dict[str, Any]:
    """Everything the page shows, as one JSON value, its strings made `visible`.

    The referee's own strings (card names, actions) have no character to escape, so
    only what came from a bot or a replay file changes.
    """
    meta = _meta(replay)
    shown = frames(replay)
    meta["result"] = _result(replay, shown[-1] if shown else {}, meta["higher_score_wins"])
    return dict(_shown({"meta": meta, "frames": shown}))


def _meta(replay: dict[str, Any]) -> dict[str, Any]:
    """What the page says of the match, from a replay or a match's header (no outcome)."""
    if replay["game"] not in GAMES:
        raise ReplayError(f"the viewer has no table for game {replay['game']!r}")
    spec = load_game(replay["game"]).spec
    meta = {
        key: replay.get(key)
        for key in ("match", "game", "game_version", "variant", "seed", "players", "outcome")
    }
    meta["title"] = spec.title
    meta["higher_score_wins"] = spec.higher_score_wins
    meta["score_label"] = GAMES[replay["game"]]
    meta["seats"] = [{"seat": s["seat"], "bot": s["bot"]} for s in replay["seats"]]
    meta["time_control"] = replay.get("time_control")  # None: a replay of before (version 2)
    meta["result"] = []
    return meta


def _result(replay: dict[str, Any], last: dict[str, Any], higher_wins: bool) -> list[str]:
    """The closing lines: who won, then every rank (the recorded ranks decide)."""
    if not last.get("over"):
        return []
    bots = [seat["bot"] for seat in sorted(replay["seats"], key=lambda seat: seat["seat"])]
    lines = events.announce(replay["outcome"], bots, last.get("teams"), higher_wins)
    if last["scores"] != list(replay["outcome"]["scores"]):
        # the page is not a verifier, but it does not hide this
        lines.append("the recorded scores differ from the referee's: see arena replay verify")
    return lines


def build(replay: dict[str, Any]) -> str:
    """The whole page for one replay (loaded and checked by arena.match.replay.load/parse)."""
    return _page(page_data(replay))


def build_live(
    header: dict[str, Any],
    stream: str,
    done: str,
    last: dict[str, Any] | None = None,
    moves: int = 0,
    refresh: int = 5,
) -> str:
    """The page of a match in play, as a spectator sees it: no frame yet; viewer.js
    follows the server-sent events at `stream` (each a spectator frame, as
    arena.service.live makes them, its `view` the public table), and once the match
    is over loads the page that framed it again, or `done` when none did.

    Without JavaScript the page shows `last`, the spectator frame after the first
    `moves` events, as plain HTML (`spectator.table_html`), and loads itself again
    every `refresh` seconds (a meta refresh inside <noscript>, which a browser that
    runs scripts ignores)."""
    data = dict(_shown({"meta": _meta(header), "frames": []}))
    seats = data["meta"]["seats"]
    position = spectator.table_html(last, seats, moves)
    quoted = html.escape(done, quote=True)
    plain = (
        f"<noscript><h1>{html.escape(data['meta']['title'])} live</h1>\n{position}\n"
        f'<p><a href="">refresh</a> (this page refreshes every {refresh} s;'
        f' <a href="{quoted}" target="_top">the match page</a>)</p></noscript>'
    )
    head = f'<noscript><meta http-equiv="refresh" content="{refresh}"></noscript>'
    return _page({**data, "live": {"stream": stream, "done": done}}, head, plain)


def _page(data: dict[str, Any], head: str = "", plain: str = "") -> str:
    """The page of `data`; `head` and `plain`: markup (already escaped) put at the end of
    the head and before the viewer in the body (the live page's, for no JavaScript)."""
    meta = data["meta"]
    what = "live" if "live" in data else "replay"
    title = html.escape(f"{meta['title']} {what} {meta['match'] or ''}", quote=True)
    # a live page asks its own server for the moves, and nothing else
    connect = " connect-src 'self';" if "live" in data else ""
    scripts = []
    for name in SCRIPTS:
        code = asset(name)
        if "</script" in code.lower():  # our own files; checked so the page cannot break
            raise RuntimeError(f"{name} contains </script")
        scripts.append(f"<script>\n// {name}\n{code}\n</script>")
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            # nothing may be fetched: the page is the whole replay
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\';'
            f"{connect} style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
            f"<title>{title}</title>",
            f"<style>\n{asset(STYLE)}\n</style>",
            *([head] if head else []),
            "</head>",
            "<body>",
            *([plain] if plain else []),
            '<div id="app"></div>',
            f'<script type="application/json" id="replay-data">{embed_json(data)}</script>',
            # the characters never shown raw, for cards.js (`ArenaViewer.visible`)
            '<script type="application/json" id="unsafe-chars">'
            f"{embed_json(controls.RANGES)}</script>",
            *scripts,
            "</body>",
            "</html>",
            "",
        ]
    )


def stored_replay(store: Store, match: str) -> dict[str, Any]:
    """The replay of a stored match, checked like a replay file.

    `match` is the match's database id (`17`) or its label (`t3-m17`: tournament 3,
    match 17 of its schedule, as replays and logs name it).
    """
    from arena.match import replay as replays

    label = re.fullmatch(r"(?:t(\d+)-m)?(\d+)", match.strip().lower())
    if label is None:
        raise ReplayError(f"--match takes a match id (17) or label (t3-m17), not {match!r}")
    numbers = [int(part) for part in label.groups() if part is not None]
    if max(numbers) >= 2**63:  # no database holds it (and SQLite could not even look)
        raise ReplayError(f"no match {match} in the database")
    found = store.match(numbers[0]) if len(numbers) == 1 else store.match_at(*numbers)
    if found is None:
        raise ReplayError(f"no match {match} in the database")
    text = store.replay(found.id or 0)
    if text is None:
        why = f"status {found.status}" if found.recorded else "it is not played yet"
        raise ReplayError(f"match {match} has no stored replay ({why})")
    return replays.parse(text.encode(), f"match {match}")
