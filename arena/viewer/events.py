"""What each view of the replay page says of an event, and the closing announcement.

A seat's view must tell the other seats' moves as that seat saw them: a decision's
words (`Game.describe`) with the cards it moved, named only from what the viewer's
own observations show before and after it. So `tell` reads cards from two *looks*
(one viewer's observations, or for the all-seeing view the mover's with the secret
places laid over them) and never from the game state: a card a look does not show
cannot be named. Per game:

- Take That and Krumme10: every decision is public as described (Krumme10 hides
  down sides, which `describe` never names).
- LEYLO: the cards turned up, drawn, taken, placed, discarded, cleared or claimed,
  each as the look shows it (a card drawn from the pile only to its drawer).
- Twirkle: which card a seat picks or puts aside to exchange is its own (only
  placements are public), so another seat's view says "a card".

A decision asked at the same time as others (LEYLO's opening flips) applies once all
are in: until then another seat's view says only that it was chosen, and the frame
that applies them tells the earlier ones too (`joined`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.status import SeatStatus

#: One viewer's looks: its observation, protocol 2's envelope (with, for the all-seeing
#: view, the secret places laid over it) before and after the event. A game's own
#: fields are its `game`; the functions below that read them are given those.
Look = dict[str, Any]
#: A look's game fields (its `game`).
Fields = dict[str, Any]
Teller = Callable[[int, dict[str, Any], Look, Look], str]

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
TEAM_NAMES = "ABCDEF"  # as krumme10.js names them


def _new_round(before: Fields, after: Fields) -> bool:
    """True when the decision ended a round: `after` may show the next deal already."""
    return len(after["results"]) > len(before["results"])


def _leylo_after(before: Fields, after: Fields, seat: int) -> list[str]:
    """`seat`'s grid right after a decision: the round's final grid, all turned up
    (public), if the decision ended the round, else the current one."""
    if _new_round(before, after):
        return list(after["results"][-1]["grids"][seat])
    return list(after["grids"][seat])


def _shown(card: str | None) -> str:
    """A card as the text names it: its name, or "face down" when the look hides it."""
    return "face down" if card in (None, "hidden") else str(card)


def _held(before: Fields) -> str | None:
    holding = before.get("holding")
    return None if not holding or holding["card"] == "hidden" else str(holding["card"])


def _leylo_discarded(before: Fields, after: Fields) -> str | None:
    """The card a replace or discard put on the discard pile, as the look shows it."""
    if _new_round(before, after):  # a new deal: the old pile is gone
        return None
    return str(after["discard"][-1]) if after["discard"] else None


def _leylo(seat: int, decision: dict[str, Any], looks: tuple[Look, Look]) -> str:
    """The cards of a LEYLO decision, in brackets after its words."""
    before, after = looks[0]["game"], looks[1]["game"]
    action = decision.get("action")
    grid_after = _leylo_after(before, after, seat)
    grid_before = before["grids"][seat]
    if action == "flip":
        return _shown(grid_after[decision["cell"]])
    if action == "draw":  # a card from the pile shows in its drawer's looks only
        card = _held(after)
        return "" if card is None else card
    if action == "swap":
        first, second = decision["cells"]
        return f"{_shown(grid_before[first])} and {_shown(grid_before[second])}"
    if action == "replace":
        cell = decision["cell"]
        placed = _held(before) or grid_after[cell]
        gone = _leylo_discarded(before, after)
        if gone is None:
            gone = grid_before[cell]
        return f"{_shown(placed)}, replacing {_shown(gone)}"
    if action == "discard":
        gone = _held(before) or _leylo_discarded(before, after)
        return f"{_shown(gone)} discarded, {_shown(grid_after[decision['reveal']])} turned up"
    if action == "clear":
        line = decision.get("row")
        cells = (
            range(4 * line, 4 * line + 4) if line is not None else range(decision["column"], 16, 4)
        )
        return ", ".join(_shown(grid_before[c]) for c in cells)
    if action == "claim":
        claimed = before["discard"][-1] if before["discard"] else None
        return f"{_shown(claimed)}, its action card to the discard"
    return ""


#: Twirkle's decisions that name a card only its owner sees.
TWIRKLE_PRIVATE = {"pick": "picks a card to place", "exchange": "puts a card aside to exchange"}


def tell(
    game: str,
    describe: Callable[[int, dict[str, Any]], str],
    mover: int,
    decision: dict[str, Any],
    looks: tuple[Look, Look],
    own: bool,
) -> str:
    """The event's text in one view: `own` when the viewer is the mover or all-seeing.

    The cards named come from `looks` alone (see the module's text).
    """
    text = describe(mover, decision)
    if game == "twirkle" and not own and decision.get("action") in TWIRKLE_PRIVATE:
        return f"seat {mover} {TWIRKLE_PRIVATE[decision['action']]}"
    if game == "leylo":
        cards = _leylo(mover, decision, looks)
        return f"{text} ({cards})" if cards else text
    return text


def overlay(game: str, view: dict[str, Any], secret: dict[str, Any]) -> Look:
    """The all-seeing look of a seat's view: LEYLO's face-down cells filled in."""
    if game != "leylo":
        return view
    grids = [
        [
            str(secret[f"grid:{s}:cell:{i}"][0])
            if cell == "hidden" and secret.get(f"grid:{s}:cell:{i}")
            else cell
            for i, cell in enumerate(grid)
        ]
        for s, grid in enumerate(view["game"]["grids"])
    ]
    return {**view, "game": {**view["game"], "grids": grids}}


def chosen(mover: int) -> str:
    """Another seat's view of a decision that waits for the seats asked with it."""
    return f"seat {mover} chooses (shown once every seat asked with it has chosen)"


def joined(text: str, earlier: Sequence[str]) -> str:
    """A joint decision's last event, telling the earlier ones it applies with it."""
    return text if not earlier else f"{text}; with it: " + "; ".join(earlier)


@dataclass(frozen=True)
class Asked:
    """A decision of a joint one, waiting: its seat, its value, the views before it."""

    seat: int
    decision: dict[str, Any]
    before: Sequence[dict[str, Any]]
    secret_before: dict[str, Any]


@dataclass(frozen=True)
class Moment:
    """One decision event: every seat's view and the secret places before and after."""

    game: str
    describe: Callable[[int, dict[str, Any]], str]
    before: Sequence[dict[str, Any]]
    after: Sequence[dict[str, Any]]
    secret_before: dict[str, Any]
    secret_after: dict[str, Any]

    def asked(self, seat: int, decision: dict[str, Any]) -> Asked:
        return Asked(seat, decision, self.before, self.secret_before)

    def texts(self, asked: Asked) -> tuple[str, list[str]]:
        """`asked`'s text in the all-seeing view and in every seat's view, now."""
        mover, decision = asked.seat, asked.decision
        looks = (
            overlay(self.game, asked.before[mover], asked.secret_before),
            overlay(self.game, self.after[mover], self.secret_after),
        )
        every = tell(self.game, self.describe, mover, decision, looks, own=True)
        seats = [
            tell(self.game, self.describe, mover, decision, (old, new), own=seat == mover)
            for seat, (old, new) in enumerate(zip(asked.before, self.after, strict=True))
        ]
        return every, seats


def tell_frame(frame: dict[str, Any], moment: Moment, waiting: Sequence[Asked]) -> Asked:
    """Set a decision frame's `text` (all-seeing), `others` (the text most seats' views
    share, when it differs from `text`) and `told` (seat -> its view's text, where it
    differs from those); returns the decision, for the frames that wait with it.

    A waiting decision is not applied yet: the other seats learn only that it was
    chosen, its seat what it chose. The frame that applies a joint decision tells the
    waiting ones too, with the cards they turned up.
    """
    asked = moment.asked(frame["seat"], frame["decision"])
    every, seats = moment.texts(asked)
    if frame["pending"]:
        plain = moment.describe(asked.seat, asked.decision)
        seats = [plain if seat == asked.seat else chosen(asked.seat) for seat in range(len(seats))]
    else:
        earlier = [moment.texts(one) for one in waiting]
        every = joined(every, [text for text, _ in earlier])
        seats = [joined(text, [told[s] for _, told in earlier]) for s, text in enumerate(seats)]
    frame["text"] = every
    # most seats' views often agree (a LEYLO swap of face-down cards): said once
    common = max(set(seats), key=seats.count)
    if common != every and seats.count(common) > 1:
        frame["others"] = common
    usual = frame.get("others", every)
    frame["told"] = {str(seat): text for seat, text in enumerate(seats) if text != usual}
    return asked


# ----- the end of the match ------------------------------------------------------
def _ordinal(rank: int) -> str:
    return ORDINALS.get(rank, f"{rank}th")


def _number(value: float) -> str:
    """A score as the page writes it (viewer.js `fmt`): 28.5, -34, 2."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _who(seats: Sequence[int], bots: Sequence[str], status: Sequence[str]) -> str:
    """ "seat 1 (first-legal)" or "seat 0 (a) and seat 2 (b)", forfeits said."""

    def one(seat: int) -> str:
        forfeit = "" if status[seat] == SeatStatus.OK else f", forfeited: {status[seat]}"
        return f"seat {seat} ({bots[seat]}{forfeit})"

    names = [one(s) for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _points(seats: Sequence[int], scores: Sequence[float]) -> str:
    """The score of a rank's seats: one number when equal, else each ("3/1")."""
    values = [_number(scores[s]) for s in seats]
    return values[0] if len(set(values)) == 1 else "/".join(values)


def _line(rank: int, who: str, points: str, several: bool, members: str) -> str:
    """One line of the announcement: "X wins with 5", "2nd (shared): X and Y 3"."""
    if rank == 1:
        return f"{who} {'share the win' if several else 'wins'} with {points}{members}"
    return f"{_ordinal(rank)}{' (shared)' if several else ''}: {who} {points}{members}"


def announce(
    outcome: dict[str, Any],
    bots: Sequence[str],
    teams: Sequence[int] | None,
    higher_wins: bool = True,
) -> list[str]:
    """The winner and the ranking, one line per rank, from the recorded outcome.

    The recorded ranks decide (they already put forfeited seats last and rank teams
    as teams, lowest total first where the lowest wins); seats sharing a rank share
    its line. With teams, a line names the teams, then their members.
    """
    scores, ranks, status = outcome["scores"], outcome["ranks"], outcome["status"]
    groups: dict[int, list[int]] = {}
    for seat in sorted(range(len(ranks)), key=lambda s: (ranks[s], s)):
        groups.setdefault(ranks[seat], []).append(seat)
    lines = []
    for rank, seats in groups.items():
        if teams is None:
            line = _line(
                rank, _who(seats, bots, status), _points(seats, scores), len(seats) > 1, ""
            )
        else:
            line = _team_line(rank, seats, teams, scores, bots, status)
        lines.append(line)
    if lines and not higher_wins:
        lines[0] += " (the lowest total wins)"
    return lines


def _team_line(
    rank: int,
    seats: Sequence[int],
    teams: Sequence[int],
    scores: Sequence[float],
    bots: Sequence[str],
    status: Sequence[str],
) -> str:
    """A rank's line in a team game: "team A wins with 28.5: seat 0 (x) and seat 2 (y)"."""
    by_team: dict[int, list[int]] = {}
    for seat in seats:
        by_team.setdefault(teams[seat], []).append(seat)
    names = [TEAM_NAMES[team] for team in by_team]
    several = len(names) > 1
    who = (
        "team " + names[0]
        if not several
        else "teams " + ", ".join(names[:-1]) + " and " + names[-1]
    )
    leaders = [mates[0] for mates in by_team.values()]
    members = "; ".join(
        (f"{TEAM_NAMES[team]} " if several else "") + _who(mates, bots, status)
        for team, mates in by_team.items()
    )
    return _line(rank, who, _points(leaders, scores), several, ": " + members)
