"""Krumme10's observation, built from parts kept between calls.

An observation lists every card outside the pile as a small dict (`Card.view`),
and rebuilding all of them was most of the referee's time in a match. Each card
list of the observation (a hand, the display, the cards being taken, the
discard pile, a points pile) is kept here as the list of card views it showed
last, with a copy of the cards it was built from. It is rebuilt only when those
cards changed, which a list comparison tells cheaply (unchanged cards are the
same objects, so it compares pointers). The kept views are shared: every
observation gets fresh copies, so a caller may change it, but for the one that a
match encodes at once and drops (`Game.observation_to_send`), which shares them.

The check is by content, not by tracking which move changed what, so a state
changed from outside (a test, `_determinize`) is seen right as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypedDict

from arena.games.krumme10.cards import FACE, TOP, VIEWS, Card, Entry
from arena.games.observation import Field, Named, ObservationModel, V1Layout, register

#: A card's view, e.g. ``{"top": 3, "down": None, "pink": None}`` (shared: copy it).
View = dict[str, Any]
_copy = dict.copy


class CardList:
    """The views of one card list as last built; `copies` hands out fresh ones."""

    __slots__ = ("cards", "total", "views")

    def __init__(self) -> None:
        self.cards: list[Card] = []
        self.views: list[View] = []
        #: The sum of the cards' top sides (a points pile's score).
        self.total = 0

    def update(self, cards: list[Card], sort: bool = False) -> CardList:
        """Rebuild the views if `cards` changed since the last call (sorted by face if asked)."""
        if cards != self.cards:
            self.cards = list(cards)
            shown = sorted(cards, key=FACE) if sort else cards
            self.views = [VIEWS[card] for card in shown]
            self.total = sum(map(TOP, cards))
        return self

    def copies(self) -> list[Any]:
        """Fresh copies of the views (the caller may change them): `CardView`s."""
        return list(map(_copy, self.views))

    def shown(self, fresh: bool) -> list[Any]:
        """`copies` if `fresh`, else the kept views themselves (to be read only: an
        update replaces the list, never changes it)."""
        return self.copies() if fresh else self.views


class DisplayList:
    """The display's entries as JSON objects as last built; `copies` hands out fresh ones."""

    __slots__ = ("entries", "views")

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.views: list[View] = []

    def update(self, entries: list[Entry]) -> DisplayList:
        """Rebuild the entries' JSON if the display changed since the last call."""
        if entries != self.entries:
            self.entries = list(entries)
            self.views = [
                {
                    "card": VIEWS[e.card],
                    "by": e.by,
                    "flipped": e.flipped,
                    "stolen_from": e.stolen_from,
                }
                for e in entries
            ]
        return self

    def copies(self) -> list[Any]:
        """Fresh copies of the entries, each with a fresh card view: `DisplayEntry`s."""
        return [{**view, "card": view["card"].copy()} for view in self.views]

    def shown(self, fresh: bool) -> list[Any]:
        """`copies` if `fresh`, else the kept entries themselves (read only)."""
        return self.copies() if fresh else self.views


class ObservedParts:
    """Every card list of a Krumme10 observation, each kept until its cards change."""

    __slots__ = ("discard", "display", "hands", "points", "to_take")

    def __init__(self, players: int) -> None:
        self.display = DisplayList()
        self.to_take = CardList()
        self.discard = CardList()
        self.hands = [CardList() for _ in range(players)]
        self.points = [CardList() for _ in range(players)]

    def hand_views(self, hands: Sequence[list[Card]], fresh: bool = True) -> list[list[Any]]:
        """Every hand's views, sorted by what is visible only (R2), fresh copies if `fresh`."""
        return [
            kept.update(hand, sort=True).shown(fresh)
            for kept, hand in zip(self.hands, hands, strict=True)
        ]

    def point_views(self, points: Sequence[list[Card]], fresh: bool = True) -> list[list[Any]]:
        """Every points pile's views, fresh copies if `fresh`."""
        return [
            kept.update(pile).shown(fresh) for kept, pile in zip(self.points, points, strict=True)
        ]

    def scores(self, points: Sequence[list[Card]]) -> list[int]:
        """K4: the top sides of every points pile."""
        return [kept.update(pile).total for kept, pile in zip(self.points, points, strict=True)]


# ----- the observation's model (K2) ---------------------------------------------------
Side = Annotated[int, Field(minimum=0, maximum=5), Named("side")]
Seat = Annotated[int, Field(minimum=0, maximum=5), Named("seat")]


class CardView(TypedDict):
    """A card as everybody sees it. No id: two cards with the same visible sides are
    indistinguishable."""

    top: Annotated[Side, Field("The side facing up; it counts.")]
    down: Annotated[
        Side | None, Field("The down side when it was seen (the card was flipped), else null.")
    ]
    pink: Annotated[
        Literal["top", "down", None],
        Field(
            'Variant pink4: which visible side is a pink 4 ("down" only when the down side '
            "was seen), else null."
        ),
    ]


CardDef = Annotated[CardView, Named("card")]
Cards = Annotated[list[CardDef], Named("cards")]
PerSeatCards = Annotated[list[Cards], Field(minItems=2, maxItems=6), Named("per_seat_cards")]


class DisplayEntry(TypedDict):
    """One card of the display, with who laid it and how."""

    card: Annotated[CardDef, Field("The card as everybody sees it.")]
    by: Annotated[Seat, Field("The seat that played it.")]
    flipped: Annotated[
        bool, Field("True when it was played flipped (its down side is then known).")
    ]
    stolen_from: Annotated[Seat | None, Field("The seat it was stolen from with a 1, or null.")]


class Variant(TypedDict):
    """The variant keys of this match."""

    pink4: Annotated[
        bool, Field("Die pinke 4: a pink 4 that comes up by flipping raises the target to 15.")
    ]
    teams: Annotated[bool, Field("Teamplay (4-6 players).")]
    long: Annotated[bool, Field("Zu kurz?: the discard pile is reshuffled into a new pile once.")]
    showdown: Annotated[
        bool,
        Field(
            "Showdown: after the pile is used up, play on without drawing until all hands "
            "are empty."
        ),
    ]


class Krumme10Fields(TypedDict):
    """Krumme10's own fields of an observation."""

    variant: Annotated[Variant, Field("The variant keys of this match.")]
    turn: Annotated[
        Seat,
        Field("The seat whose turn it is (the thief during steals, the culprit during scoring)."),
    ]
    target: Annotated[
        Literal[10, 15],
        Field(
            "The target of the current display: 10, or 15 after a flipped pink 4 (variant pink4)."
        ),
    ]
    sum: Annotated[
        int,
        Field("Sum of the display's top sides, including the cards in `to_take`.", minimum=0),
    ]
    display: Annotated[list[DisplayEntry], Field("The display in the order the cards were laid.")]
    to_take: Annotated[
        Cards,
        Field(
            "Phase take: the cards the player whose play hit the target exactly still takes "
            "to points, the first one is decided now (the last played card, then pink 4s); "
            "else empty."
        ),
    ]
    score_highest: Annotated[
        bool | None,
        Field(
            "Phase score: true when the highest cards score (overrun of 15), false for the "
            "lowest; null in other phases."
        ),
    ]
    hands: Annotated[
        PerSeatCards,
        Field("Every seat's cards in front of it, sorted by visible face (top, then pink)."),
    ]
    draw_pile: Annotated[int, Field("Cards in the covered draw pile.", minimum=0, maximum=54)]
    discard: Annotated[Cards, Field("The discard pile, oldest first.")]
    points: Annotated[
        PerSeatCards, Field("Every seat's points pile, in the order the cards were scored.")
    ]
    teams: Annotated[
        list[Annotated[int, Field(minimum=0, maximum=2)]] | None,
        Field("Variant teams: each seat's team (0 = A, 1 = B, 2 = C), else null."),
    ]
    team_scores: Annotated[
        list[Annotated[float, Field(minimum=0)]] | None,
        Field("Variant teams: each team's points summed and divided by its size, else null."),
    ]
    reshuffled: Annotated[
        bool, Field("Variant long: true once the discard pile was reshuffled into the pile.")
    ]
    drawing: Annotated[bool, Field("False once a showdown has begun (nobody draws any more).")]


class Krumme10Observation(TypedDict):
    """What one seat knows in a Krumme10 match, in the envelope of protocol 2."""

    seat: Annotated[Seat, Field("The seat this observation is for (0-based).")]
    players: Annotated[int, Field("Number of players.", minimum=2, maximum=6)]
    phase: Annotated[
        Literal["play", "steal", "take", "score", "over"],
        Field(
            "What the seat to move decides now: play = play a card of its hand, top side up "
            "or flipped; steal = steal a card from another seat while a 1 shows, or pass; "
            "take = take the next card of `to_take` to points, top side up or flipped; "
            "score = give another seat a card of the display to score (`score_highest`), "
            "or pass; over = the game has ended."
        ),
    ]
    to_move: Annotated[
        list[Seat],
        Field(
            "The seats asked now: exactly one while the game runs, none once it is over.",
            maxItems=1,
        ),
    ]
    scores: Annotated[
        list[Annotated[int, Field(minimum=0)]],
        Field("Every seat's points (K4: sum of the top sides of its points pile)."),
    ]
    game: Annotated[Krumme10Fields, Field("Krumme10's own fields.")]


OBSERVATION = register(
    ObservationModel(
        game="krumme10",
        title="Krumme10 observation",
        description=(
            "What one seat knows in a Krumme10 match (ruling K2): every card's top side, the "
            "down sides that were seen, the visible pink 4s, and counts of everything else. "
            "The same for every seat except `seat`."
        ),
        envelope=Krumme10Observation,
        v1=V1Layout(
            keys=(
                "seat",
                "players",
                "variant",
                "phase",
                "to_move",
                "turn",
                "target",
                "sum",
                "display",
                "to_take",
                "score_highest",
                "hands",
                "draw_pile",
                "discard",
                "points",
                "scores",
                "teams",
                "team_scores",
                "reshuffled",
                "drawing",
            ),
            to_move_type=Annotated[
                Seat | None, Field("The seat asked now; null once the game is over.")
            ],
        ),
    )
)
