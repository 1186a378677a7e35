"""The table as a spectator sees it: what every seat may know, nothing one seat alone knows.

A match in play is watched through this view (the live pages, arena.service.live):
the piles, the scores, the cards played, how many cards each hand holds, never a
card of a hand or a face-down card. It is made from the seats' own observations
(protocol 2's envelopes, `Game.observation`), not from the game state, so it can
hold nothing a seat does not see:

- the fields that are about the viewing seat itself (its own hand, the card it
  picked, what it set aside to exchange) are left out (`OWN`): every seat's view
  holds its own, so they differ by construction, and the hand sizes stay;
- a field a game shows differently to one seat (LEYLO's card held from the pile,
  the draw pile's known cards after a reshuffle) gets the form the others see
  (`REDACTED`);
- every other field must be the same in every seat's view: then every seat knows
  it. One that is not (a game whose views changed, not yet listed here) is left
  out too, as None, rather than shown from one seat's view.

The layouts draw it as they draw another seat's view of a hand: backs, counted.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

#: Per game, the fields of a view that belong to the viewing seat alone.
OWN: dict[str, frozenset[str]] = {
    "take-that": frozenset({"hand"}),
    "twirkle": frozenset({"hand", "picked", "exchange_selected", "returned"}),
    "leylo": frozenset(),
    "krumme10": frozenset(),
}


def _leylo_holding(values: Sequence[Any]) -> Any:
    """The card held, as the seats that did not draw it see it: face down."""
    return {**values[0], "card": "hidden"} if values[0] is not None else None


#: Per game, the fields some seats see and others not, and their form for everyone:
#: made from the field's value in every seat's view (they differ).
REDACTED: dict[str, dict[str, Callable[[Sequence[Any]], Any]]] = {
    "leylo": {"holding": _leylo_holding, "draw_pile_known": lambda _values: None},
}


def public_view(game: str, views: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A spectator's envelope from every seat's (`views`, by seat): seat is None."""
    own, redacted = OWN[game], REDACTED.get(game, {})
    fields: dict[str, Any] = {}
    for key, value in views[0]["game"].items():
        if key in own:
            continue
        values = [view["game"][key] for view in views]
        if all(other == value for other in values[1:]):
            fields[key] = value
        else:
            fields[key] = redacted[key](values) if key in redacted else None
    common = {
        key: value if all(view[key] == value for view in views[1:]) else None
        for key, value in views[0].items()
        if key not in ("seat", "game")
    }
    return {**common, "seat": None, "game": fields}


def _text(value: Any) -> str:
    """A field of the public table as plain text: cards and numbers by spaces, a pair of
    braces per object, None (what no spectator may know) as "hidden"."""
    if value is None:
        return "hidden"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return "; ".join(f"{key}: {_text(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        if any(isinstance(item, list | tuple | dict) for item in value):
            return " | ".join(_text(item) or "-" for item in value)
        return " ".join(_text(item) for item in value)
    return str(value)


def table_html(frame: dict[str, Any] | None, seats: Sequence[dict[str, Any]], moves: int) -> str:
    """A spectator's frame as plain HTML, for a page without JavaScript: who sits where
    with their scores, who is to move, the last move's text and every field of the
    public table (`public_view`: nothing one seat alone knows). Every string is escaped
    here; the frame's strings are already spelled as the terminal shows them
    (arena.service.live's frames pass `arena.viewer._shown`)."""
    if frame is None:
        return '<p id="position">No move yet.</p>'
    view = frame["view"]
    fields = dict(view["game"])
    sizes = fields.pop("hand_sizes", None)
    rows = []
    for seat in seats:
        index = seat["seat"]
        marks = [
            "to move" if index in (frame["to_move"] or []) else "",
            "forfeited" if index in frame["forfeited"] else "",
        ]
        cells = [
            str(index),
            str(seat["bot"]),
            _text(_at(frame["scores"], index)),
            "" if sizes is None else _text(_at(sizes, index)),
            ", ".join(m for m in marks if m),
        ]
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    table = [
        f'<tr><th scope="row">{html.escape(str(key))}</th><td>{html.escape(_text(value))}</td></tr>'
        for key, value in fields.items()
    ]
    said = "over" if frame["over"] else f"phase: {_text(view.get('phase'))}"
    return "\n".join(
        [
            '<div id="position">',
            f"<p>After {moves} events ({html.escape(said)}): {html.escape(str(frame['text']))}</p>",
            '<table id="position-seats"><thead><tr><th>seat</th><th>bot</th><th>score</th>'
            "<th>cards in hand</th><th></th></tr></thead><tbody>",
            *rows,
            "</tbody></table>",
            '<table id="position-table"><tbody>',
            *table,
            "</tbody></table>",
            "</div>",
        ]
    )


def _at(values: Sequence[Any] | None, index: int) -> Any:
    return values[index] if values is not None and 0 <= index < len(values) else None
