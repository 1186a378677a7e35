"""Twirkle's observation: its typed model (protocol 2's envelope) and version-1 layout.

The referee builds the observation (`Twirkle._observe`); this module says what it
is, field by field, for `arena.games.schemas` and for bot authors.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from arena.games.observation import Field, Named, ObservationModel, V1Layout, register

Seat = Annotated[int, Field(minimum=0, maximum=3)]
CardName = Annotated[
    str,
    Field(
        pattern="^(blue|yellow|green|purple|red|black)-(swirl|star|pyramid|clover|rosette|crystal)$"
    ),
    Named("card"),
]
COORDINATES = (
    "coordinate (W8: the first card lies at (0, 0), x grows to the right, y grows downwards)."
)
Position = Annotated[
    list[Annotated[int, Field("x, then y.")]],
    Field("A cell [x, y].", minItems=2, maxItems=2),
    Named("cell"),
]
TurnAction = Literal["place", "exchange", "pass"]


class PlacedCard(TypedDict):
    """A card on a cell."""

    x: Annotated[int, Field("x " + COORDINATES)]
    y: Annotated[int, Field("y " + COORDINATES)]
    card: Annotated[CardName, Field("The card on this cell.")]


Placed = Annotated[PlacedCard, Named("placed_card")]


class Shift(TypedDict):
    """The shift in progress (null when no card has been lifted in this turn's shift yet)."""

    source: Annotated[
        list[Position],
        Field(
            "The remaining cards of the source line (the run from the first lifted card, as it "
            "was when the shift began), next first; one follows only while it is a leaf and "
            "not part of the target line.",
            maxItems=6,
        ),
    ]
    direction: Annotated[
        Annotated[
            Literal["right", "left", "down", "up"],
            Field(
                "Which end of the target line: the step from the line's end card to this cell "
                "(right = +x, left = -x, down = +y, up = -y)."
            ),
        ]
        | None,
        Field("The end of the target line the cards go to (null before the first put)."),
    ]
    moved: Annotated[int, Field("Cards moved so far in this shift.", minimum=0, maximum=4)]
    lifted: Annotated[
        Annotated[Placed, Field("The lifted card and the cell it was lifted from.")] | None,
        Field("The card in the air, waiting for its put (null between moves)."),
    ]
    last_put: Annotated[
        Position | None,
        Field(
            "The cell of the card put last in this shift, the end of the target line (null "
            "before the first put); the next card goes to the cell beyond it in direction. "
            "Public, like the shift."
        ),
    ]


class LastTurn(TypedDict):
    """Summary of one turn."""

    action: Annotated[TurnAction, Field("What the turn did.")]
    cards: Annotated[int, Field("Cards placed or exchanged (0 for a pass).", minimum=0, maximum=6)]
    points: Annotated[int, Field("Points scored by the placement.", minimum=0)]
    shifted: Annotated[int, Field("Cards moved by the turn's shift.", minimum=0, maximum=4)]


class End(TypedDict):
    """How the game ended."""

    reason: Annotated[
        Literal["out", "all_passed", "idle"],
        Field(
            "out = a player laid their last card (W7); all_passed = every player passed in one "
            "round (W7); idle = the idle guard (T11)."
        ),
    ]
    first_out: Annotated[
        Seat | None, Field("The seat that went out and got +6 (null for the other ends).")
    ]
    adjustments: Annotated[
        list[
            Annotated[
                int, Field("+6 for the player out, minus one per card left for everybody else.")
            ]
        ],
        Field("End adjustments by seat, already included in scores.", minItems=2, maxItems=4),
    ]


class TwirkleFields(TypedDict):
    """Twirkle's own fields of an observation."""

    start_seat: Annotated[Seat, Field("The seat that laid the starting line (W2).")]
    opening_size: Annotated[
        int,
        Field(
            "Size of the starting line: the largest set of hand cards that could form one line "
            "at the deal (W2).",
            minimum=1,
            maximum=6,
        ),
    ]
    hand: Annotated[
        list[Annotated[CardName, Field("A card in your hand.")]],
        Field(
            "Your hand, in card order (colour, then symbol); a picked card is still in it, "
            "cards chosen for an exchange are not.",
            maxItems=6,
        ),
    ]
    picked: Annotated[
        Annotated[CardName, Field("The picked card.")] | None,
        Field(
            "The card you picked to place next (the next decision is its place), or null; "
            "always null for the other seats."
        ),
    ]
    exchange_selected: Annotated[
        list[Annotated[CardName, Field("A card chosen for the exchange.")]],
        Field(
            "The cards you have chosen so far in this exchange (empty for everybody else and "
            "outside an exchange).",
            maxItems=6,
        ),
    ]
    exchange_count: Annotated[
        int,
        Field(
            "How many cards the player to move has chosen so far in this exchange (public).",
            minimum=0,
            maximum=6,
        ),
    ]
    exchanged: Annotated[
        int,
        Field(
            "How many cards the player to move exchanged this turn, once its exchange is done "
            "(its shift); 0 before that and in a turn without an exchange (public, T6).",
            minimum=0,
            maximum=6,
        ),
    ]
    returned: Annotated[
        list[Annotated[CardName, Field("A card you gave back.")]],
        Field(
            "Only yours: the cards you gave back in your latest exchange, in card order, while "
            "they are surely still in the bag: from that exchange until the next card is drawn "
            "from the bag (by anybody); empty otherwise. The other players never see which "
            "cards you gave back (T6).",
            maxItems=6,
        ),
    ]
    board: Annotated[
        list[Annotated[Placed, Field("One card of the layout.")]],
        Field("Every card on the table, sorted by y, then x.", maxItems=108),
    ]
    turn_action: Annotated[
        Annotated[
            TurnAction,
            Field(
                "place = this turn lays cards (the start player's opening included), from its "
                "first place on; exchange = from its first exchange decision on; pass = from "
                "the pass on."
            ),
        ]
        | None,
        Field(
            "What the turn under way does, once chosen (public): null before (a pick alone "
            "does not choose it). During the shift it tells a shift after an exchange from one "
            "after a pass, which matters for the all-pass end (T10). Once the game is over: "
            "the last turn's."
        ),
    ]
    placed: Annotated[
        list[Annotated[Placed, Field("A card placed this turn, where it was placed.")]],
        Field(
            "The cards placed in the current turn, in order (empty when the turn placed "
            "nothing). During the shift they keep the cells where they were placed, even if a "
            "shift moved one.",
            maxItems=6,
        ),
    ]
    placement_points: Annotated[
        int, Field("Points of this turn's placement so far (W4).", minimum=0)
    ]
    shift: Annotated[Shift | None, Field("The shift in progress, or null.")]
    bag: Annotated[int, Field("Cards left in the bag.", minimum=0, maximum=108)]
    hand_sizes: Annotated[
        list[
            Annotated[
                int,
                Field(
                    "Cards in this seat's hand (cards chosen for an exchange included).",
                    minimum=0,
                    maximum=6,
                ),
            ]
        ],
        Field("Hand sizes by seat.", minItems=2, maxItems=4),
    ]
    turns: Annotated[int, Field("Turns completed so far (the opening is turn 1).", minimum=0)]
    passes: Annotated[
        int,
        Field(
            "Consecutive turns that were passes; the game ends when it reaches the number of "
            "players (W7).",
            minimum=0,
            maximum=4,
        ),
    ]
    idle_turns: Annotated[
        int, Field("Consecutive turns without a placement (exchanges and passes).", minimum=0)
    ]
    idle_limit: Annotated[
        int,
        Field(
            "The idle guard (ruling T11): the game ends when idle_turns reaches this number.",
            minimum=60,
            maximum=120,
        ),
    ]
    last_turns: Annotated[
        list[Annotated[LastTurn | None, Field("A turn summary or null.")]],
        Field("Each seat's most recent turn (null before its first).", minItems=2, maxItems=4),
    ]
    end: Annotated[End | None, Field("null while the game runs.")]


class TwirkleObservation(TypedDict):
    """What one seat knows in a Twirkle match, in the envelope of protocol 2."""

    seat: Annotated[
        Seat,
        Field(
            "The seat this observation is for (0-based; play goes clockwise = increasing seat "
            "numbers)."
        ),
    ]
    players: Annotated[int, Field("Number of players.", minimum=2, maximum=4)]
    phase: Annotated[
        Literal["opening", "turn", "placing", "exchanging", "shifting", "over"],
        Field(
            "The step of the game: opening = the start player lays its starting line; turn = "
            "start of a turn (pick a card to place, exchange or pass); placing = pick more "
            "cards for this turn's line or end_placing; exchanging = more cards to exchange or "
            "end_exchange; shifting = the optional shift at the end of the turn; over = the "
            "game has ended. In opening, turn and placing, a non-null picked means the next "
            "decision places that card."
        ),
    ]
    to_move: Annotated[
        list[Seat],
        Field(
            "The seats asked now: the seat whose turn it is, none once the game is over.",
            maxItems=1,
        ),
    ]
    scores: Annotated[
        list[
            Annotated[
                int,
                Field("This seat's total so far (end adjustments included once the game is over)."),
            ]
        ],
        Field("Totals by seat.", minItems=2, maxItems=4),
    ]
    game: Annotated[TwirkleFields, Field("Twirkle's own fields.")]


OBSERVATION = register(
    ObservationModel(
        game="twirkle",
        title="Twirkle observation",
        description=(
            "What one seat knows in a Twirkle match: its own hand, the whole layout, every "
            "score and public turn summary, the turn under way (its action, a running shift "
            "with its last put); the cards it gave back in an exchange while they are surely "
            "in the bag; the other hands and the bag only as counts."
        ),
        envelope=TwirkleObservation,
        v1=V1Layout(
            keys=(
                "seat",
                "players",
                "phase",
                "to_move",
                "start_seat",
                "opening_size",
                "hand",
                "picked",
                "exchange_selected",
                "exchange_count",
                "exchanged",
                "returned",
                "board",
                "turn_action",
                "placed",
                "placement_points",
                "shift",
                "bag",
                "hand_sizes",
                "scores",
                "turns",
                "passes",
                "idle_turns",
                "idle_limit",
                "last_turns",
                "end",
            ),
            to_move_type=Annotated[
                Seat | None,
                Field("The seat whose turn it is (null once the game is over)."),
            ],
        ),
    )
)
