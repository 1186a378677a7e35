"""Conformance kit: random playthroughs that check the invariants every referee must keep.

It lives inside the package (not under tests/) so that an outside game author
can run the same checks on a new game: ``check_game(MyGame, players=3, seeds=range(50))``.
Golden transcripts (`record_golden`, `check_golden`) pin one seeded match step by step,
so that a referee made faster provably plays exactly the same rules.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from arena.games.base import Decision, Game, IllegalDecision, Outcome
from arena.games.observation import COMMON_KEYS, ENVELOPE_KEYS, to_v1


@dataclass
class Playthrough:
    """What one random playthrough produced, for comparisons between runs."""

    decisions: list[tuple[int, Decision]] = field(default_factory=list)
    observations: list[bytes] = field(default_factory=list)
    chance_log: list[dict[str, Any]] = field(default_factory=list)
    outcome: Outcome | None = None
    longest_legal_list: int = 0


def play_random(game: Game, rng: random.Random, *, record_observations: bool = True) -> Playthrough:
    """Play `game` to the end with uniformly random legal decisions, checking invariants."""
    result = Playthrough()
    limit = game.spec.max_decisions
    while not game.is_over():
        seats = game.to_move()
        assert seats, "a game that is not over must have a seat to move"
        assert len(set(seats)) == len(seats), f"to_move repeats a seat: {seats}"
        choices: dict[int, Decision] = {}
        for seat in seats:
            legal = game.legal(seat)
            assert legal, f"seat {seat} is to move but has no legal decision"
            encoded = [orjson.dumps(d, option=orjson.OPT_SORT_KEYS) for d in legal]
            assert len(set(encoded)) == len(encoded), f"duplicate legal decisions: {legal}"
            assert all(isinstance(d, dict) for d in legal), "decisions must be JSON objects"
            result.longest_legal_list = max(result.longest_legal_list, len(legal))
            if record_observations:
                result.observations.append(orjson.dumps(check_observation(game, seat)))
            choices[seat] = rng.choice(legal)
        for seat in range(game.players):
            if seat not in seats:
                assert game.legal(seat) == [], f"seat {seat} is not to move but has decisions"
        game.apply_joint(choices)
        result.decisions.extend((seat, choices[seat]) for seat in seats if seat in choices)
        assert len(result.decisions) <= limit, f"game exceeded max_decisions={limit}"
    assert game.to_move() == [], "a finished game has no seat to move"
    for seat in range(game.players):
        orjson.dumps(check_observation(game, seat))  # still valid JSON after the end
    outcome = game.outcome()
    check_outcome(outcome, game.players, game.spec.higher_score_wins)
    result.outcome = outcome
    result.chance_log = list(game.chance.log)
    return result


def check_observation(game: Game, seat: int) -> dict[str, Any]:
    """`seat`'s envelope has exactly the common keys and says who moves, and version 1 is
    made from it; returns the version-1 observation.

    The common keys: `seat` and `players` as asked, `phase` a name (``over`` exactly
    when the game is over), `to_move` the list of seats `to_move` gives, `scores` one per
    seat, and `game` an object of the game's own fields, none called like a common key.
    """
    envelope = game.observation(seat)
    where = f"{game.spec.id} seat {seat}"
    assert tuple(envelope) == ENVELOPE_KEYS, f"{where}: envelope keys {list(envelope)}"
    assert envelope["seat"] == seat and envelope["players"] == game.players, where
    assert isinstance(envelope["phase"], str), f"{where}: phase {envelope['phase']!r}"
    assert (envelope["phase"] == "over") == game.is_over(), f"{where}: phase {envelope['phase']}"
    assert envelope["to_move"] == game.to_move(), f"{where}: to_move {envelope['to_move']!r}"
    assert isinstance(envelope["scores"], list) and len(envelope["scores"]) == game.players
    fields = envelope["game"]
    assert isinstance(fields, dict), f"{where}: game is not an object"
    assert not set(fields) & set(COMMON_KEYS), f"{where}: a game field is called like a common key"
    observed = game.observe(seat)
    assert to_v1(game.spec.id, envelope) == observed, f"{where}: version 1 is not made from 2"
    return observed


def check_outcome(outcome: Outcome, players: int, higher_is_better: bool) -> None:
    """Ranks must be 1-based, shared for equal scores and ordered like the scores."""
    assert len(outcome.scores) == players and len(outcome.ranks) == players
    for a in range(players):
        assert 1 <= outcome.ranks[a] <= players
        for b in range(players):
            sa, sb = outcome.scores[a], outcome.scores[b]
            better = sa > sb if higher_is_better else sa < sb
            if sa == sb:
                assert outcome.ranks[a] == outcome.ranks[b], f"equal scores, ranks {outcome}"
            elif better:
                assert outcome.ranks[a] < outcome.ranks[b], f"ranks disagree with scores {outcome}"


def replay_decisions(
    game_cls: type[Game],
    players: int,
    variant: Mapping[str, Any] | None,
    chance_log: list[dict[str, Any]],
    decisions: Iterable[tuple[int, Decision]],
) -> Game:
    """Rebuild a game from recorded chance outcomes and decisions, without any RNG."""
    game = game_cls.from_chance(players, chance_log, variant)
    pending: dict[int, Decision] = {}
    for seat, decision in decisions:
        pending[seat] = decision
        if set(pending) >= set(game.to_move()):
            game.apply_joint(pending)
            pending = {}
    assert not pending, "decisions left over after the replay"
    return game


def check_game(
    game_cls: type[Game],
    players: int,
    seeds: Iterable[int],
    variant: Mapping[str, Any] | None = None,
) -> int:
    """Run the whole conformance check for every seed; returns the longest legal list seen."""
    longest = 0
    for seed in seeds:
        rng_seed = seed * 7919 + players
        first = play_random(game_cls.new(players, seed, variant), random.Random(rng_seed))
        longest = max(longest, first.longest_legal_list)
        # Same seed and same decisions give the same game, whatever global random does.
        random.seed(seed + 1)
        second = play_random(game_cls.new(players, seed, variant), random.Random(rng_seed))
        assert first.decisions == second.decisions, f"seed {seed}: decisions differ between runs"
        assert first.observations == second.observations, f"seed {seed}: observations differ"
        assert first.outcome == second.outcome, f"seed {seed}: outcome differs"
        # The recorded chance outcomes alone rebuild the game (replay without arena's RNG).
        rebuilt = replay_decisions(game_cls, players, variant, first.chance_log, first.decisions)
        assert rebuilt.is_over(), f"seed {seed}: replayed game did not end"
        assert rebuilt.outcome() == first.outcome, f"seed {seed}: replayed outcome differs"
        # An invented decision is refused.
        fresh = game_cls.new(players, seed, variant)
        seat = fresh.to_move()[0]
        try:
            fresh.apply(seat, {"action": "no-such-action"})
        except IllegalDecision:
            pass
        else:
            raise AssertionError("an invented decision was accepted")
    return longest


# ----- golden transcripts ------------------------------------------------------------
#: A golden transcript: one seeded match pinned step by step (tests/golden/, written by
#: scripts/make_golden.py). Observations and legal lists are kept as short digests so
#: that the files stay small; decisions, chance outcomes and the outcome are kept whole.
GOLDEN_FORMAT = "arena-golden"
GOLDEN_VERSION = 1

#: A seat's policy for recording: (observation, legal list) -> one of the legal decisions.
Policy = Callable[[dict[str, Any], list[Decision]], Decision]


def digest(value: Any) -> str:
    """A short fingerprint of a JSON value (sorted keys): 12 hex digits of its SHA-256."""
    return hashlib.sha256(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)).hexdigest()[:12]


def _views(game: Game) -> str:
    """One digest of every seat's observation, in seat order."""
    return digest([game.observe(seat) for seat in range(game.players)])


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    teams = list(outcome.teams) if outcome.teams is not None else None
    return {"scores": list(outcome.scores), "ranks": list(outcome.ranks), "teams": teams}


def record_golden(
    game: Game, seed: int, policies: Sequence[Policy], bots: Sequence[str]
) -> dict[str, Any]:
    """Play `game` (made with ``new(players, seed, variant)``) to its end and pin every step.

    A step is ``[views, [[seat, legal, decision], ...]]``: the digest of every seat's
    observation before the step, then each seat asked (in `to_move` order) with the
    digest of its legal list and the decision its policy chose.
    """
    steps: list[list[Any]] = []
    while not game.is_over():
        views = _views(game)
        moves: list[list[Any]] = []
        choices: dict[int, Decision] = {}
        for seat in game.to_move():
            legal = game.legal(seat)
            decision = policies[seat](game.observe(seat), legal)
            assert decision in legal, f"policy of seat {seat} chose {decision!r}, not offered"
            choices[seat] = decision
            moves.append([seat, digest(legal), decision])
        game.apply_joint(choices)
        steps.append([views, moves])
    return {
        "format": GOLDEN_FORMAT,
        "version": GOLDEN_VERSION,
        "game": game.spec.id,
        "game_version": game.spec.version,
        "players": game.players,
        "variant": dict(game.variant),
        "seed": seed,
        "bots": list(bots),
        "chance": list(game.chance.log),
        "steps": steps,
        "final": _views(game),
        "outcome": _outcome_json(game.outcome()),
    }


def check_golden(game_cls: type[Game], golden: Mapping[str, Any]) -> None:
    """Replay a golden transcript through the referee; AssertionError at the first difference.

    The game is rebuilt from the recorded seed (so the seed must still give the
    recorded chance outcomes) and, a second time, from the recorded chance outcomes
    alone; at every step the observations of all seats, the seats asked, their legal
    lists and finally the outcome must be exactly the recorded ones.
    """
    name = f"{golden['game']} {golden['players']}p {golden['variant']}"
    assert golden["format"] == GOLDEN_FORMAT and golden["version"] == GOLDEN_VERSION
    assert golden["game_version"] == game_cls.spec.version, (
        f"{name}: recorded under rules version {golden['game_version']}, the referee has "
        f"version {game_cls.spec.version}: regenerate with scripts/make_golden.py"
    )
    hint = (
        "the referee no longer plays this transcript; if the rules changed on purpose, "
        "bump the game's version and regenerate with scripts/make_golden.py"
    )
    players, variant = golden["players"], golden["variant"]
    game = game_cls.new(players, golden["seed"], variant)
    for index, (views, moves) in enumerate(golden["steps"]):
        where = f"{name}, step {index}"
        assert not game.is_over(), f"{where}: the game is over early; {hint}"
        assert _views(game) == views, f"{where}: an observation differs; {hint}"
        asked = [move[0] for move in moves]
        assert game.to_move() == asked, f"{where}: asks {game.to_move()}, not {asked}; {hint}"
        for seat, legal, _decision in moves:
            assert digest(game.legal(seat)) == legal, (
                f"{where}: the legal list of seat {seat} differs; {hint}"
            )
        game.apply_joint({seat: decision for seat, _legal, decision in moves})
    assert game.is_over(), f"{name}: the game is not over after the last step; {hint}"
    assert _views(game) == golden["final"], f"{name}: a final observation differs; {hint}"
    assert game.chance.log == golden["chance"], f"{name}: the seed deals otherwise; {hint}"
    assert _outcome_json(game.outcome()) == golden["outcome"], f"{name}: outcome; {hint}"
    decisions = [(seat, d) for _step_views, moves in golden["steps"] for seat, _l, d in moves]
    rebuilt = replay_decisions(game_cls, players, variant, golden["chance"], decisions)
    assert rebuilt.is_over() and rebuilt.outcome() == game.outcome(), (
        f"{name}: replayed from the chance outcomes alone, the game ends otherwise; {hint}"
    )


# ----- search support: clone, playout, determinize ------------------------------------
def _all_views(game: Game) -> list[bytes]:
    return [
        orjson.dumps(game.observe(seat), option=orjson.OPT_SORT_KEYS)
        for seat in range(game.players)
    ]


def _positions(game: Game, rng: random.Random, stops: int) -> Iterable[Game]:
    """Yield `game` at `stops` points of one random playthrough (the start among them)."""
    total = game.clone().playout(random.Random(rng.random()))
    marks = sorted({0, *(rng.randrange(total) for _ in range(stops - 1))}) if total else [0]
    made = 0
    for mark in marks:
        made += game.playout(rng, mark - made) if mark > made else 0
        if game.is_over():
            return
        yield game


def check_clone(
    game_cls: type[Game],
    players: int,
    seeds: Iterable[int],
    variant: Mapping[str, Any] | None = None,
) -> None:
    """`clone()` is exact and independent; `playout` makes the same choices as the plain loop.

    At several points of random games: a clone shows every seat the same observation
    and legal lists; playing the clone to the end leaves the original untouched; the
    original and an exact clone played on with equal generators end identically; and
    a game's own `playout` ends exactly where the plain ``rng.choice(legal)`` loop does.
    """
    for seed in seeds:
        rng = random.Random(seed)
        game = game_cls.new(players, seed, variant)
        for position in _positions(game, rng, stops=4):
            before = _all_views(position)
            twin = position.clone()
            assert _all_views(twin) == before, f"seed {seed}: a clone sees otherwise"
            for seat in range(players):
                assert twin.legal(seat) == position.legal(seat), f"seed {seed}: legal differs"
            twin.playout(random.Random(seed + 1))
            assert twin.is_over()
            assert _all_views(position) == before, f"seed {seed}: playing a clone changed it"
            plain, fast = position.clone(), position.clone()
            plain_rng, fast_rng = random.Random(seed + 2), random.Random(seed + 2)
            while not plain.is_over():
                seats = plain.to_move()
                plain.apply_joint({s: plain_rng.choice(plain.legal(s)) for s in seats})
            fast.playout(fast_rng)
            assert fast.is_over(), f"seed {seed}: playout stopped before the end"
            assert _all_views(fast) == _all_views(plain), f"seed {seed}: playout chose otherwise"
            assert fast.outcome() == plain.outcome(), f"seed {seed}: playout ends otherwise"
            assert fast.history == plain.history, f"seed {seed}: playout history differs"
            searched = position.clone(seed=seed)  # a simulation: plays on, keeps no log
            searched.playout(random.Random(seed + 3))
            assert searched.is_over() and searched.chance.log == []
            assert _all_views(position) == before


def _needed_samples(room: int, pool: int) -> int:
    """Samples after which a card that fits `room` of `pool` unseen slots was missed with
    probability below 1e-6 (if cards were placed uniformly)."""
    share = min(1.0, room / max(pool, 1))
    if share >= 1.0:
        return 1
    return math.ceil(math.log(1e-6) / math.log(1.0 - share))


def check_determinize(
    game_cls: type[Game],
    players: int,
    seeds: Iterable[int],
    variant: Mapping[str, Any] | None = None,
    max_samples: int = 3000,
) -> None:
    """`determinize` builds, from one seat's observation alone, states that seat cannot tell
    from the true one, covering every hidden place each unseen card could be in.

    At several points of random games, for every seat:
    - the sampler gets the observation as bytes decoded anew (it cannot reach the
      true state: it is a classmethod given JSON), version 1 or protocol 2's envelope;
    - every sample shows that seat the same observation and the same legal list, has
      the same hidden places holding as many cards, with the same unseen cards in all,
      never a card in a place `ruled_out` names, and can be played to the end;
    - over enough samples every unseen card turns up in every place it is not ruled
      out of (the number of samples makes a miss below 1e-6 for a uniform sampler).
    """
    resolved = game_cls.spec.resolve_variant(variant)
    for seed in seeds:
        rng = random.Random(seed)
        game = game_cls.new(players, seed, variant)
        for position in _positions(game, rng, stops=3):
            for seat in range(players):
                _check_samples(game_cls, position, seat, resolved, rng, max_samples, seed)


def _card_key(card: Any) -> Any:
    """A hashable, comparable stand-in for a card: a name or number as it is, else its JSON."""
    if isinstance(card, str):
        return card
    return orjson.dumps(card, option=orjson.OPT_SORT_KEYS).decode()


def _multiset(values: Iterable[Any]) -> list[Any]:
    return sorted(_card_key(v) for v in values)


def _check_samples(
    game_cls: type[Game],
    truth: Game,
    seat: int,
    variant: dict[str, Any],
    rng: random.Random,
    max_samples: int,
    seed: int,
) -> None:
    where = f"{game_cls.spec.id} {truth.players}p seed {seed} seat {seat}"
    encoded = orjson.dumps(truth.observe(seat), option=orjson.OPT_SORT_KEYS)
    legal = truth.legal(seat)
    hidden = truth.hidden(seat)
    ruled = {place: set(_multiset(cards)) for place, cards in truth.ruled_out(seat).items()}
    pool = _multiset(card for cards in hidden.values() for card in cards)
    # Which (place, card) pairs must turn up, and how many samples make that near certain.
    wanted: set[tuple[str, Any]] = set()
    samples = 1
    for place, cards in hidden.items():
        if not cards:
            continue
        fits = {c for c in set(pool) if c not in ruled.get(place, set())}
        wanted |= {(place, c) for c in fits}
        free = sum(1 for c in pool if c in fits)
        samples = max(samples, _needed_samples(len(cards), free))
    samples = min(samples, max_samples)
    sizes = {place: len(cards) for place, cards in hidden.items()}
    seen: dict[str, set[Any]] = {}  # the cards each place held in some sample
    for index in range(samples):
        sample = game_cls.determinize(orjson.loads(encoded), seat, truth.players, variant, rng)
        view = orjson.dumps(sample.observe(seat), option=orjson.OPT_SORT_KEYS)
        assert view == encoded, f"{where}: a sample shows the seat another observation"
        assert sample.to_move() == truth.to_move(), f"{where}: a sample asks other seats"
        assert sample.legal(seat) == legal, f"{where}: a sample offers other decisions"
        places = sample.hidden(seat)
        # One pass over the places (a leylo sample has a hundred): thousands of samples each.
        resized = len(places) != len(sizes)
        every: list[Any] = []
        banned: tuple[str, set[Any]] | None = None
        for place, cards in places.items():
            resized = resized or sizes.get(place) != len(cards)
            keys = [card if isinstance(card, str) else _card_key(card) for card in cards]
            every += keys
            out = ruled.get(place)
            if banned is None and out is not None and not out.isdisjoint(keys):
                banned = place, out.intersection(keys)
            seen.setdefault(place, set()).update(keys)
        assert not resized, f"{where}: a sample's hidden places differ in size"
        every.sort()
        assert every == pool, f"{where}: a sample hides other cards than the seat cannot see"
        assert banned is None, f"{where}: a sample puts {banned[1]} in {banned[0]}, ruled out of it"
        if index < 3:
            sample.playout(random.Random(index))
            assert sample.is_over(), f"{where}: a sample could not be played to the end"
    # Given protocol 2's envelope instead, a sample shows the seat that envelope.
    envelope = orjson.dumps(truth.observation(seat), option=orjson.OPT_SORT_KEYS)
    sample = game_cls.determinize(orjson.loads(envelope), seat, truth.players, variant, rng)
    shown = orjson.dumps(sample.observation(seat), option=orjson.OPT_SORT_KEYS)
    assert shown == envelope, f"{where}: a sample from the envelope shows another one"
    missing = {(place, card) for place, card in wanted if card not in seen.get(place, ())}
    assert not missing, f"{where}: after {samples} samples, never " + ", ".join(
        f"{c} in {p}" for p, c in sorted(missing)[:5]
    )
