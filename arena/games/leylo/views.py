"""LEYLO's observation, built from parts kept between calls.

Between two decisions at most the mover's grid and the top of the discard pile
change, yet every observation shows every grid and the whole discard pile: building
them anew was most of the referee's time in a match. So each part is kept here as
last built, with a copy of the cards it was built from, and built again only when
those changed. A list comparison tells that cheaply (equal small ints are the same
objects), and it is a check by content, not by tracking which move changed what,
so a state changed from outside (a test, `_determinize`) is shown right as well.

The kept parts are never handed out: every observation gets fresh copies, so a
caller may change it. Each part is replaced as one tuple, never changed in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress
from operator import ne
from typing import Annotated, Any, Literal, TypedDict

from arena.games.leylo.cards import EMPTY, NAMES
from arena.games.observation import Field, Named, ObservationModel, V1Layout, register

#: What a grid cell shows when face up, by code (EMPTY, -1, is "empty").
SHOWN: tuple[str, ...] = (*NAMES, "empty")
HIDDEN = "hidden"
#: (cards, up, what everybody sees, face-down cards) of every grid, by seat.
GridParts = tuple[list[list[int]], list[list[bool]], list[list[str]], list[int]]
_name = NAMES.__getitem__


class ViewParts:
    """The parts of a state's observation as last built, for one state (not its clones)."""

    __slots__ = ("discard", "grids", "known")

    def __init__(self) -> None:
        #: The grids' parts as last built (GridParts).
        self.grids: GridParts = ([], [], [], [])
        #: (codes, names) of the discard pile, bottom first.
        self.discard: tuple[list[int], list[str]] = ([], [])
        #: (codes, sorted names) of the last public draw pile shown (L9).
        self.known: tuple[list[int], list[str]] = ([], [])

    def grid_views(
        self, cards: list[list[int]], up: list[list[bool]]
    ) -> tuple[list[list[str]], list[int]]:
        """What everybody sees of every grid, and its face-down cards (kept: copy them).

        Two comparisons tell that no grid changed; else only changed grids are rebuilt.
        """
        kept = self.grids
        if cards != kept[0] or up != kept[1]:
            kept = self.grids = _rebuilt(kept, cards, up)
        return kept[2], kept[3]

    def discard_names(self, codes: list[int]) -> list[str]:
        """The discard pile's card names, bottom first (kept: copy).

        The pile changes at its top: a card or a cleared line put on it, the top taken,
        or both (a claim). So the names of the unchanged part below are kept.
        """
        kept_codes, names = self.discard
        if codes != kept_codes:
            stem = min(len(codes), len(kept_codes))
            if codes[:stem] != kept_codes[:stem]:
                stem -= 1  # a claim took the top and put another card there
                if stem <= 0 or codes[:stem] != kept_codes[:stem]:
                    stem = 0  # a new round or a reshuffle
            names = names[:stem]
            names += map(_name, codes[stem:])
            self.discard = (list(codes), names)
        return names

    def known_names(self, codes: list[int]) -> list[str]:
        """The sorted names of public draw-pile cards (kept: copy)."""
        kept_codes, names = self.known
        if codes != kept_codes:
            names = list(map(_name, sorted(codes)))
            self.known = (codes, names)
        return names


def _rebuilt(kept: GridParts, cards: list[list[int]], up: list[list[bool]]) -> GridParts:
    """The grid parts for `cards` and `up`: the kept ones of unchanged grids (usually all
    but the mover's), new ones for the others (all of them after a new deal)."""
    seats = range(len(cards))
    if len(kept[0]) != len(cards):  # nothing built yet: every grid differs from []
        kept = ([[]] * len(cards), [[]] * len(cards), [[]] * len(cards), [0] * len(cards))
    # New outer lists (the kept ones are shared), holding the kept grids' parts.
    kept_cards, kept_up = list(kept[0]), list(kept[1])
    kept_shown, kept_down = list(kept[2]), list(kept[3])
    # The seats whose cards or face states changed, found by C-level loops.
    changed = {*compress(seats, map(ne, cards, kept_cards)), *compress(seats, map(ne, up, kept_up))}
    for seat in changed:
        grid, face_up = cards[seat], up[seat]
        kept_cards[seat], kept_up[seat] = list(grid), list(face_up)
        kept_shown[seat] = [
            SHOWN[code] if is_up or code == EMPTY else HIDDEN
            for code, is_up in zip(grid, face_up, strict=True)
        ]
        kept_down[seat] = face_up.count(False) - grid.count(EMPTY)  # an empty cell is never up
    return kept_cards, kept_up, kept_shown, kept_down


def copy_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A round result with its own lists, so that a caller may change it."""
    return {
        **result,
        "points": list(result["points"]),
        "scores": list(result["scores"]),
        "grids": list(map(list, result["grids"])),
    }


# ----- the observation's model (L11) ------------------------------------------------
Seat = Annotated[int, Field(minimum=0, maximum=5)]
CardName = Literal[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "11",
    "joker-green",
    "joker-yellow",
    "joker-red",
    "action",
]
Cell = Annotated[
    Literal[CardName, "hidden", "empty"],
    Field(
        'One cell: the card\'s name when face up, "hidden" when face down, "empty" when its '
        "card was cleared in a line."
    ),
    Named("cell"),
]
Grid = Annotated[
    list[Cell],
    Field(minItems=16, maxItems=16),
    Named("grid"),
]
Grids = Annotated[list[Grid], Field(minItems=2, maxItems=6)]


class Gap(TypedDict):
    """The gap between two turns."""

    after: Annotated[Seat, Field("The seat that has just taken its turn.")]
    before: Annotated[Seat, Field("The seat that moves next.")]


class Holding(TypedDict):
    """The held card."""

    source: Annotated[Literal["pile", "discard"], Field("Where it was taken from.")]
    card: Annotated[
        Literal[CardName, "hidden"],
        Field('Its name; "hidden" for other seats when it came from the draw pile.'),
    ]


class RoundResult(TypedDict):
    """One scored round."""

    round: Annotated[int, Field("Round number.", minimum=1, maximum=5)]
    ender: Annotated[
        Seat | None,
        Field("The seat that ended the round; null when the stalling guard ended it (L10)."),
    ]
    guard: Annotated[
        bool, Field("True when the round ended by the stalling guard (L10), without doubling.")
    ]
    doubled: Annotated[bool, Field("True when the ender's round score was doubled (L7).")]
    points: Annotated[
        list[Annotated[int, Field("Card points of that seat.", minimum=0)]],
        Field("Card points per seat (L6), before doubling.", minItems=2, maxItems=6),
    ]
    scores: Annotated[
        list[Annotated[int, Field("Round score of that seat.", minimum=0)]],
        Field("Round score per seat after doubling (L7).", minItems=2, maxItems=6),
    ]
    grids: Annotated[
        list[Annotated[Grid, Field("That seat's final grid, all cards face up.")]],
        Field("Every grid as scored, by seat.", minItems=2, maxItems=6),
    ]


class LeyloFields(TypedDict):
    """LEYLO's own fields of an observation."""

    round: Annotated[
        int,
        Field(
            "The current round, from 1 (the last round once the game is over).",
            minimum=1,
            maximum=5,
        ),
    ]
    rounds: Annotated[int, Field("Rounds in this match (variant `rounds`).", minimum=3, maximum=5)]
    dealer: Annotated[Seat, Field("The dealer of this round: (round - 1) mod players (L2).")]
    start_seat: Annotated[
        Seat | None,
        Field(
            "The seat that took the first turn of this round (L2); null while the opening "
            "flips run."
        ),
    ]
    current: Annotated[
        Seat | None,
        Field(
            "The seat whose turn is running (phases turn and place, and clear after its own "
            "action); null during flips, a claim gap and after the match."
        ),
    ]
    gap: Annotated[
        Gap | None,
        Field(
            "Set while a claim gap between two turns is being resolved (phase claim, or clear "
            "after a claim), else null."
        ),
    ]
    turns_taken: Annotated[
        int, Field("Turns completed in this round (all players together).", minimum=0)
    ]
    turn_limit: Annotated[
        int,
        Field(
            "L10: the round ends after this many turns (60 per player) unless its final lap "
            "has begun.",
            minimum=120,
        ),
    ]
    ender: Annotated[
        Seat | None,
        Field(
            "The seat that ended this round by having no face-down card left (L6); null until then."
        ),
    ]
    final_turns_left: Annotated[
        Annotated[int, Field(minimum=0, maximum=5)] | None,
        Field(
            "Turns left in the round's final lap once a player has ended it, counting a turn "
            "in progress; null before."
        ),
    ]
    action_card_value: Annotated[
        Literal[0, 12], Field("Points of an action card: 12, or 0 with 2 players (L6).")
    ]
    grids: Annotated[
        list[
            Annotated[
                Grid,
                Field(
                    "One player's 4x4 grid as 16 cells, index = 4 * row + column (rows top to "
                    "bottom, columns left to right)."
                ),
            ]
        ],
        Field("Every player's grid, by seat.", minItems=2, maxItems=6),
    ]
    face_down: Annotated[
        list[Annotated[int, Field("Face-down cards of that seat.", minimum=0, maximum=16)]],
        Field("Face-down cards per seat.", minItems=2, maxItems=6),
    ]
    discard: Annotated[
        list[Annotated[CardName, Field("A card of the discard pile.")]],
        Field(
            "The whole discard pile, bottom first: the last element is the top card. Empty "
            "only while the player to move holds its only card."
        ),
    ]
    draw_pile_size: Annotated[int, Field("Cards in the draw pile.", minimum=0)]
    draw_pile_known: Annotated[
        Annotated[
            list[Annotated[CardName, Field("A card in the draw pile.")]],
            Field("The pile's known cards."),
        ]
        | None,
        Field(
            "null until the draw pile has been rebuilt from the discard pile in this round "
            "(L9); afterwards its cards, sorted by code (number cards 0-11, then jokers green, "
            "yellow, red, then action), order unknown. For seats other than the player "
            "holding a card just drawn from the pile, that card is still counted here."
        ),
    ]
    holding: Annotated[
        Holding | None,
        Field(
            "The card the player whose turn runs has drawn and not yet placed (phase place), "
            "else null."
        ),
    ]
    results: Annotated[list[RoundResult], Field("Every round scored so far, in order.", maxItems=5)]


class LeyloObservation(TypedDict):
    """What one seat knows in a LEYLO match, in the envelope of protocol 2."""

    seat: Annotated[
        Seat,
        Field(
            "The seat this observation is for (0-based; play goes clockwise = increasing seat "
            "numbers)."
        ),
    ]
    players: Annotated[int, Field("Number of players.", minimum=2, maximum=6)]
    phase: Annotated[
        Literal["flip", "turn", "place", "clear", "claim", "over"],
        Field(
            "What is being asked now: flip = opening flips; turn = start of a turn (draw or "
            "swap); place = the player holds a drawn card; clear = the seat in to_move may "
            "clear a complete line; claim = the seat in to_move may claim the top discard "
            "with an action card; over = the match has ended."
        ),
    ]
    to_move: Annotated[
        list[Annotated[Seat, Field("A seat that must decide now.")]],
        Field(
            "The seats asked now: all seats still flipping in the flip phase, else exactly "
            "one seat; empty when the match is over.",
            maxItems=6,
        ),
    ]
    scores: Annotated[
        list[Annotated[int, Field("Total points of that seat.", minimum=0)]],
        Field(
            "Total points per seat over the rounds scored so far (lowest wins).",
            minItems=2,
            maxItems=6,
        ),
    ]
    game: Annotated[LeyloFields, Field("LEYLO's own fields.")]


OBSERVATION = register(
    ObservationModel(
        game="leylo",
        title="LEYLO observation",
        description=(
            "What one seat knows in a LEYLO match (ruling L11): every face-up card, the whole "
            "discard pile, counts, scores; never a face-down card."
        ),
        envelope=LeyloObservation,
        v1=V1Layout(
            keys=(
                "seat",
                "players",
                "round",
                "rounds",
                "dealer",
                "start_seat",
                "phase",
                "to_move",
                "current",
                "gap",
                "turns_taken",
                "turn_limit",
                "ender",
                "final_turns_left",
                "action_card_value",
                "grids",
                "face_down",
                "discard",
                "draw_pile_size",
                "draw_pile_known",
                "holding",
                "totals",
                "results",
            ),
            renamed={"totals": "scores"},
            to_move=None,
        ),
    )
)
