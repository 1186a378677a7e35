"""The one interface every referee implements, and the pieces it is made of.

A referee is a pure object: no processes, no JSON transport, no database. The
match runner, the tournament code and the conformance kit only ever call the
public methods of `Game`; a game module only implements the underscored hooks.
The public methods validate the seat and the decision, so checking untrusted
moves lives in exactly one place.

Chance is explicit: every random outcome goes through `Chance.draw`, which
records it as JSON. A replay stores those outcomes, so another program can
check a match without arena's random generator, and `Chance.replaying` feeds
them back to the referee in the same order.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, cast

from arena import ArenaError
from arena.games.observation import is_envelope, to_v1

try:
    import orjson
except ModuleNotFoundError:  # a bot importing arena.games has only the standard library
    import json as orjson  # type: ignore[no-redef]  # same loads(dumps(x)) for JSON values

#: A decision is a small JSON object, e.g. ``{"action": "play", "card": 34}``.
Decision = dict[str, Any]
#: Anything that survives a JSON round trip.
JSON = Any

T = TypeVar("T")


class GameError(ArenaError, ValueError):
    """Base class of the errors a referee raises for bad input."""


class IllegalDecision(GameError):
    """A seat offered a decision that is not in its legal list right now."""


class VariantError(GameError):
    """A variant key or value that the game does not accept."""


class ReplayMismatch(GameError):
    """A recorded chance outcome does not fit what the referee asks for."""


class ChanceExhausted(ReplayMismatch):
    """The referee draws past the recorded outcomes: of a replay still being written (a
    live match), the outcomes not published yet; of a finished one, a short log."""


def _json_copy(value: T) -> T:
    """Return a deep copy through JSON, which also proves the value is JSON."""
    result: T = orjson.loads(orjson.dumps(value))
    return result


class Chance:
    """The only source of randomness a referee may use.

    Recording mode draws from a `random.Random` seeded by the match seed and
    keeps every outcome; replaying mode returns recorded outcomes in order and
    never touches a random generator.
    """

    def __init__(self, seed: int | None = None, script: Sequence[Mapping[str, Any]] | None = None):
        """Record from `seed`, or replay `script` (a list of ``{"chance", "outcome"}``)."""
        if (seed is None) == (script is None):
            raise ValueError("Chance needs exactly one of seed or script")
        self._rng = random.Random(seed) if seed is not None else None
        self._script = list(script) if script is not None else []
        self._next = 0
        #: Every outcome drawn so far, as ``{"chance": label, "outcome": value}``.
        self.log: list[dict[str, Any]] = []
        #: A simulation (search) draws without recording or copying: nobody replays it.
        self.simulated = False

    @classmethod
    def replaying(cls, script: Sequence[Mapping[str, Any]]) -> Chance:
        """A Chance that returns the outcomes of a recorded log, in order."""
        return cls(script=script)

    def extend(self, script: Sequence[Mapping[str, Any]]) -> None:
        """More recorded outcomes to replay after those given (a live match's next ones).

        A new list: a clone made before keeps the outcomes it was given."""
        if self._rng is not None:
            raise ValueError("only a replaying Chance takes recorded outcomes")
        self._script = [*self._script, *script]

    @classmethod
    def simulation(cls, seed: int) -> Chance:
        """A Chance for search: seeded like a match, but it keeps no log and copies nothing.

        `make` must return a fresh value (every game's does), so skipping the JSON
        copy is safe; a simulation is never replayed, so it needs no log.
        """
        chance = cls(seed=seed)
        chance.simulated = True
        return chance

    def clone(self) -> Chance:
        """An independent copy that will draw the same outcomes as this one from now on."""
        twin = Chance.__new__(Chance)
        twin._rng = None
        if self._rng is not None:
            # Not `random.Random()`: that seeds itself from the OS first (~8 us of a
            # search's clone), and setstate replaces every bit of that seed anyway.
            twin._rng = random.Random.__new__(random.Random)
            twin._rng.setstate(self._rng.getstate())
        twin._script = self._script  # never mutated: shared
        twin._next = self._next
        twin.log = list(self.log)  # entries are never mutated: shared
        twin.simulated = self.simulated
        return twin

    @property
    def generator(self) -> random.Random | None:
        """The generator `draw` hands to `make` (None when replaying): for a compiled fast
        path that draws from a copy of it exactly as `make` would, then stores the state
        back (twirkle's engine), logging what `draw` would log."""
        return self._rng

    def draw(self, label: str, make: Callable[[random.Random], T]) -> T:
        """Return a random outcome named `label`, made by `make(rng)` when recording.

        The outcome must be JSON (lists, dicts, numbers, strings). The referee
        receives its own copy, so it may mutate it freely.
        """
        if self.simulated:
            assert self._rng is not None
            return make(self._rng)
        if self._rng is not None:
            outcome = _json_copy(make(self._rng))
        else:
            if self._next >= len(self._script):
                raise ChanceExhausted(f"replay has no chance outcome left for {label!r}")
            event = self._script[self._next]
            self._next += 1
            if event.get("chance") != label:
                raise ReplayMismatch(
                    f"replay has chance {event.get('chance')!r} where the referee draws {label!r}"
                )
            outcome = _json_copy(event["outcome"])
        self.log.append({"chance": label, "outcome": _json_copy(outcome)})
        return outcome

    def shuffled(self, label: str, items: Sequence[T]) -> list[T]:
        """Return `items` in a random order (recorded as the resulting order)."""

        def make(rng: random.Random) -> list[T]:
            result = list(items)
            rng.shuffle(result)
            return result

        return self.draw(label, make)


@dataclass(frozen=True)
class VariantOption:
    """One variant key a game accepts, with its default and its allowed values."""

    name: str
    default: int | bool | str
    help: str
    choices: tuple[int | bool | str, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, text: str) -> int | bool | str:
        """Turn a command-line value into this option's type, or raise VariantError."""
        if isinstance(self.default, bool):
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return self.check(True)
            if lowered in ("0", "false", "no", "off"):
                return self.check(False)
            raise VariantError(f"variant {self.name} takes true or false, not {text!r}")
        if isinstance(self.default, int):
            try:
                number = int(text)
            except ValueError:
                message = f"variant {self.name} takes a whole number, not {text!r}"
                raise VariantError(message) from None
            return self.check(number)
        return self.check(text)

    def check(self, value: Any) -> int | bool | str:
        """Validate a value of the right type (e.g. from a tournament file)."""
        if isinstance(self.default, bool) != isinstance(value, bool) or not isinstance(
            value, type(self.default)
        ):
            raise VariantError(
                f"variant {self.name} takes a {type(self.default).__name__}, not {value!r}"
            )
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise VariantError(f"variant {self.name} must be one of {allowed}, not {value!r}")
        number = value if isinstance(value, int) else None
        if self.minimum is not None and number is not None and number < self.minimum:
            raise VariantError(f"variant {self.name} must be at least {self.minimum}, not {value}")
        if self.maximum is not None and number is not None and number > self.maximum:
            raise VariantError(f"variant {self.name} must be at most {self.maximum}, not {value}")
        checked: int | bool | str = value
        return checked

    def describe(self) -> str:
        """Short human text: ``rounds=2 (1..10)``."""
        text = f"{self.name}={str(self.default).lower()}"
        if self.choices is not None:
            text += " (" + "|".join(str(c).lower() for c in self.choices) + ")"
        elif self.minimum is not None or self.maximum is not None:
            text += f" ({self.minimum if self.minimum is not None else ''}.."
            text += f"{self.maximum if self.maximum is not None else ''})"
        return text


@dataclass(frozen=True)
class GameSpec:
    """Static facts about a game: its id, rules version, player range and variants."""

    id: str
    version: int
    title: str
    min_players: int
    max_players: int
    variants: tuple[VariantOption, ...] = ()
    #: An upper bound on decisions in one match; the runner stops a runaway game there.
    max_decisions: int = 100_000
    #: True when the highest score wins (False for games such as LEYLO).
    higher_score_wins: bool = True
    #: True when the game can be played in teams (a variant decides whether it is).
    has_teams: bool = False
    #: TrueSkill's chance of a draw between equal players (ties share a rank here).
    draw_probability: float = 0.10

    def variant_option(self, name: str) -> VariantOption:
        """The option called `name`, or VariantError listing the valid keys."""
        for option in self.variants:
            if option.name == name:
                return option
        valid = ", ".join(o.name for o in self.variants) or "none"
        raise VariantError(f"{self.id} has no variant {name!r} (variants: {valid})")

    def resolve_variant(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """All variant keys with defaults filled in; raises VariantError on a bad key or value."""
        resolved: dict[str, Any] = {o.name: o.default for o in self.variants}
        for name, value in (given or {}).items():
            option = self.variant_option(name)
            resolved[name] = option.parse(value) if isinstance(value, str) else option.check(value)
        return resolved

    def check_players(self, players: int) -> None:
        """Raise GameError unless `players` is in this game's range."""
        if not self.min_players <= players <= self.max_players:
            raise GameError(
                f"{self.id} is for {self.min_players}-{self.max_players} players, not {players}"
            )


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    `ranks` are 1-based with shared ranks for equal results ("1224" ranking);
    `teams` gives each seat's team number when the game was played in teams. In a
    team game the teams are ranked, not the seats: every member gets its team's
    rank, 1 + the number of teams ahead (ABAB with A ahead: 1, 2, 1, 2).
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    teams: tuple[int, ...] | None = None


def ranks_from_scores(
    scores: Sequence[float],
    higher_is_better: bool = True,
    teams: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """Standard competition ranks, ties shared; with `teams`, ranks of the teams.

    A seat's rank is 1 + the number of seats (with `teams`: of teams) whose score
    is better. Team mates have the team's score, so they share its rank.

    >>> ranks_from_scores([3, 7, 3, 1])
    (2, 1, 2, 4)
    >>> ranks_from_scores([3, 7, 3, 1], higher_is_better=False)
    (2, 4, 2, 1)
    >>> ranks_from_scores([4, 2, 3, 4, 2], teams=[0, 1, 2, 0, 1])
    (1, 3, 2, 1, 3)
    """
    sign = 1 if higher_is_better else -1
    if teams is None:
        rivals = list(scores)
    else:  # one score per team: the first member's (members share it)
        first = {team: seat for seat, team in reversed(list(enumerate(teams)))}
        rivals = [scores[seat] for seat in first.values()]
    return tuple(1 + sum(1 for other in rivals if sign * other > sign * mine) for mine in scores)


@dataclass
class Game(ABC):
    """A referee: the state of one match of one game, with its rules.

    Construct with `new` (seeded) or `from_chance` (replaying recorded chance).
    Subclasses set `spec` and implement the hooks; they must draw every random
    outcome through `self.chance`.
    """

    spec: ClassVar[GameSpec]

    players: int
    variant: dict[str, Any]
    chance: Chance
    #: Every applied decision as (seat, decision), in order.
    history: list[tuple[int, Decision]] = field(default_factory=list)
    #: The legal lists `legal` handed out for the current state, by seat. `apply_joint`
    #: checks a decision against them instead of asking `_legal` again (the runner
    #: always asks `legal` first), and every public call that changes the state empties
    #: them. Hooks (`_apply_joint`, `_legal`) never touch them: a search that drives a
    #: state through the hooks must keep to the hooks.
    _offered: dict[int, list[Decision]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        """Validate the player count and variant, then let the game set itself up."""
        self.spec.check_players(self.players)
        self.variant = self.spec.resolve_variant(self.variant)
        self._check_variant()
        self._setup()

    # ----- construction -------------------------------------------------
    @classmethod
    def new(cls, players: int, seed: int, variant: Mapping[str, Any] | None = None) -> Game:
        """A fresh match whose chance comes from `seed`."""
        return cls(players=players, variant=dict(variant or {}), chance=Chance(seed=seed))

    @classmethod
    def from_chance(
        cls, players: int, script: Sequence[Mapping[str, Any]], variant: Mapping[str, Any] | None
    ) -> Game:
        """A match whose chance outcomes are replayed from a recorded log."""
        return cls(players=players, variant=dict(variant or {}), chance=Chance.replaying(script))

    @classmethod
    def blank(cls, players: int, variant: Mapping[str, Any] | None, seed: int) -> Game:
        """A state with no position yet (``_setup`` not run), for `_determinize` to fill in.

        Its chance is a simulation seeded by `seed`: a determinized state is searched,
        never recorded.
        """
        cls.spec.check_players(players)
        state = cls.__new__(cls)
        state.players = players
        state.variant = cls.spec.resolve_variant(variant)
        state.chance = Chance.simulation(seed)
        state.history = []
        state._offered = {}
        return state

    # ----- search support: clone, determinize, hidden places ------------
    def clone(self, seed: int | None = None) -> Game:
        """A cheap, independent copy of this state (no deepcopy, no JSON round trip).

        Without `seed` the copy is exact: its future chance draws are the ones this
        state would make. With `seed` the copy's future chance comes from a fresh
        simulation generator (no log kept): what a search wants from a playout.
        """
        twin = self.__class__.__new__(self.__class__)
        twin.__dict__.update(self.__dict__)  # immutable values are shared ...
        twin.chance = self.chance.clone() if seed is None else Chance.simulation(seed)
        twin.history = list(self.history)
        twin._offered = {}
        self._copy_state(twin)  # ... and the game copies its mutable ones
        return twin

    def playout(self, rng: random.Random, limit: int | None = None) -> int:
        """Play on with random decisions until the game ends (or `limit` decisions); return
        how many were made.

        Every seat asked picks ``rng.choice(self.legal(seat))``, seats in `to_move`
        order: exactly the loop a caller would write, without checking its own picks
        again. A game may override `_playout` with a faster loop that must make the
        very same choices from the same `rng` (the conformance kit checks it).
        """
        self._offered = {}
        return self._playout(rng, self.spec.max_decisions if limit is None else limit)

    def _playout(self, rng: random.Random, limit: int) -> int:
        made = 0
        while made < limit and not self._is_over():
            choices = {seat: rng.choice(self._legal(seat)) for seat in self._to_move()}
            self._apply_joint(choices)
            self.history.extend(choices.items())
            made += len(choices)
        return made

    @classmethod
    def determinize(
        cls,
        observation: Mapping[str, Any],
        seat: int,
        players: int,
        variant: Mapping[str, Any] | None,
        rng: random.Random,
    ) -> Game:
        """A full state consistent with `observation` of `seat`, built from it alone.

        Everything `seat` can see is taken from the observation; the hidden part (other
        hands, face-down cards, the order of the draw pile) is drawn at random, with
        `rng`, from what `seat` cannot rule out. ``result.observe(seat) == observation``
        (``result.observation(seat)`` when given protocol 2's envelope) and `result` is
        playable to the end (its future chance is a simulation seeded from `rng`). It is
        a classmethod on purpose: it cannot read a true state.
        """
        resolved = cls.spec.resolve_variant(variant)
        if is_envelope(observation):
            observation = to_v1(cls.spec.id, observation)
        return cls._determinize(observation, seat, players, resolved, rng)

    def hidden(self, seat: int) -> dict[str, list[JSON]]:
        """Where the cards `seat` cannot see are now: a place's name -> its cards.

        A place is anything a card can hide in (another seat's hand, one face-down
        cell, the draw pile); each list is a multiset (its order is not compared).
        The conformance kit uses it to check `determinize`.
        """
        self._check_seat(seat)
        return self._hidden(seat)

    def ruled_out(self, seat: int) -> dict[str, list[JSON]]:
        """Cards `seat` knows are *not* in a place (place -> cards), e.g. from a public rule.

        Only what the rules page states; by default nothing. `determinize` never puts
        such a card there, and may put any other unseen card anywhere it fits.
        """
        self._check_seat(seat)
        return self._ruled_out(seat)

    # ----- public interface: the only entry points callers use ---------
    def to_move(self) -> list[int]:
        """The seats that must decide now, in the order their decisions apply."""
        return [] if self.is_over() else self._to_move()

    def legal(self, seat: int) -> list[Decision]:
        """The decisions open to `seat` now (empty when it is not asked).

        The list is the referee's own, kept until the state changes: read it, do not
        change it. Asking again in the same state returns it without recomputing.
        """
        self._check_seat(seat)
        offered = self._offered.get(seat)
        if offered is not None:
            return offered
        if seat not in self.to_move():
            return []
        offered = self._offered[seat] = self._legal(seat)
        return offered

    def observation(self, seat: int) -> dict[str, Any]:
        """Everything `seat` may know now, and nothing more: protocol 2's envelope.

        The same keys in every game (`arena.games.observation.ENVELOPE_KEYS`): seat,
        players, phase, to_move (a list), scores, and the game's own fields under game.
        """
        self._check_seat(seat)
        return cast(dict[str, Any], self._observe(seat))  # a TypedDict is a dict

    def observation_to_send(self, seat: int) -> Mapping[str, Any]:
        """`observation`, to be encoded at once and dropped (a match's request).

        It may share lists the referee keeps between calls (Krumme10's card views), so
        it is read, never changed or kept: the same JSON as `observation`, without
        copying what an encoder only reads.
        """
        self._check_seat(seat)
        return self._observe_shared(seat)

    def observe(self, seat: int) -> dict[str, Any]:
        """Everything `seat` may know now, and nothing more: protocol 1's observation.

        Made from `observation` by the one adapter, `arena.games.observation.to_v1`.
        """
        self._check_seat(seat)
        return to_v1(self.spec.id, self._observe(seat))

    def apply(self, seat: int, decision: Decision) -> None:
        """Apply one decision of `seat`; raises IllegalDecision if it is not legal now."""
        self.apply_joint({seat: decision})

    def apply_joint(self, decisions: Mapping[int, Decision]) -> None:
        """Apply the decisions of several seats asked at the same time.

        Each decision is checked against the legal list of the state in which it
        was offered (the current one): the list `legal` handed out, else a fresh one.
        So the runner, which passes elements of that list, never makes the referee
        build the same list twice. Then
        `_apply_joint` applies them.
        """
        asked = self.to_move()
        for seat, decision in decisions.items():
            self._check_seat(seat)
            if seat not in asked:
                raise IllegalDecision(f"seat {seat} is not to move")
            if not self._is_offered(seat, decision):
                raise IllegalDecision(f"seat {seat} may not {decision!r} now")
        ordered = {seat: decisions[seat] for seat in asked if seat in decisions}
        self._offered = {}
        self._apply_joint(ordered)
        self.history.extend(ordered.items())

    def _is_offered(self, seat: int, decision: Decision) -> bool:
        """True when `decision` is in `seat`'s legal list now.

        ``in`` tests identity before ``==`` for each element, so the runner's decision
        (an element of the kept list) costs pointer comparisons only.
        """
        offered = self._offered.get(seat)
        return decision in (self._legal(seat) if offered is None else offered)

    def is_over(self) -> bool:
        """True once the game has ended."""
        return self._is_over()

    def outcome(self) -> Outcome:
        """Scores and ranks of a finished game."""
        if not self.is_over():
            raise GameError("the game is not over")
        scores = tuple(self._scores())
        teams = self._teams()
        ranks = ranks_from_scores(scores, self.spec.higher_score_wins, teams)
        return Outcome(scores, ranks, teams)

    def describe(self, seat: int, decision: Decision) -> str:
        """A short human line for a decision, used by `arena replay show`."""
        return f"seat {seat}: " + " ".join(f"{k}={v}" for k, v in decision.items())

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise GameError(f"no seat {seat!r} in a {self.players}-player game")

    # ----- hooks for the game module ------------------------------------
    def _check_variant(self) -> None:
        """Reject variant combinations that do not fit the player count (VariantError)."""
        return None

    @abstractmethod
    def _setup(self) -> None:
        """Deal and set the first position, drawing chance through `self.chance`."""

    @abstractmethod
    def _to_move(self) -> list[int]:
        """The seats to ask now; called only while the game is not over."""

    @abstractmethod
    def _legal(self, seat: int) -> list[Decision]:
        """The legal decisions of a seat that is to move, in a deterministic order."""

    @abstractmethod
    def _observe(self, seat: int) -> Mapping[str, Any]:
        """The seat's view of the game: the game's envelope (arena.games.observation), fresh."""

    def _observe_shared(self, seat: int) -> Mapping[str, Any]:
        """`_observe`, but free to share kept lists with the referee (`observation_to_send`)."""
        return self._observe(seat)

    @abstractmethod
    def _apply(self, seat: int, decision: Decision) -> None:
        """Apply a decision already checked to be legal."""

    def _apply_joint(self, decisions: Mapping[int, Decision]) -> None:
        """Apply simultaneous decisions; by default one after the other in `to_move` order."""
        for seat, decision in decisions.items():
            self._apply(seat, decision)

    @abstractmethod
    def _is_over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def _scores(self) -> Sequence[float]:
        """Final score of every seat (team games: the team's score for each member)."""

    def _teams(self) -> tuple[int, ...] | None:
        """Each seat's team number when playing in teams, else None."""
        return None

    # ----- hooks for search ---------------------------------------------
    def _copy_state(self, twin: Game) -> None:
        """Give `twin` (a shallow copy) its own copies of this state's mutable values."""
        raise NotImplementedError(f"{self.spec.id} does not support clone() yet")

    @classmethod
    def _determinize(
        cls,
        observation: Mapping[str, Any],
        seat: int,
        players: int,
        variant: dict[str, Any],
        rng: random.Random,
    ) -> Game:
        """Build a state consistent with the observation (see `determinize`); start from `blank`."""
        raise NotImplementedError(f"{cls.spec.id} does not support determinize() yet")

    def _hidden(self, seat: int) -> dict[str, list[JSON]]:
        """Where the cards `seat` cannot see are (see `hidden`)."""
        raise NotImplementedError(f"{self.spec.id} does not list hidden places yet")

    def _ruled_out(self, seat: int) -> dict[str, list[JSON]]:
        """Cards `seat` knows are not in a place (see `ruled_out`); by default none."""
        return {}
