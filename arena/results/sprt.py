"""The sequential probability ratio test of `arena match --sprt`, as fastchess computes it.

Two bots play pairs of matches: the same deal twice, seats swapped. After each pair the
test compares two hypotheses about bot A's strength against bot B, H0 "the Elo
difference is elo0" and H1 "it is elo1", by the log-likelihood ratio (LLR) of the
results so far, and stops when the LLR leaves the bounds

    lower = log(beta / (1 - alpha)),  upper = log((1 - beta) / alpha)

(Wald's bounds): below `lower` H0 is accepted, above `upper` H1. `alpha` is the chance
of accepting H1 when H0 holds, `beta` of accepting H0 when H1 holds.

The LLR is the generalized LLR of fastchess (src/matchmaking/sprt/sprt.cpp,
github.com/Disservin/fastchess), following Michel Van den Bergh's notes: the results
form a multinomial distribution over a few score values; for each hypothesis the
maximum-likelihood distribution with that hypothesis's expected score (model
"logistic": `elo` is the usual logistic Elo, score 1 / (1 + 10^(-elo/400))) or
normalized Elo (model "normalized", fastchess's default: `elo` is normalized Elo,
t = (mean score - 1/2) / standard deviation, scaled by 800 / ln 10) is found, and
LLR = N * sum_i p^_i (log p1_i - log p0_i). Counts of zero count as 0.001 (as fastchess).

Paired matches are scored pentanomially: a pair's score for A is 0, 1/2, 1, 3/2 or 2
(LL, LD, WL or DD, WD, WW), which takes the correlation of the two matches on one deal
into account; single matches trinomially (L, D, W). Everything here is pure.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from arena import ArenaError

#: The SPRT models: fastchess's default "normalized" and its "logistic".
MODELS = ("normalized", "logistic")
#: The score of each trinomial (L, D, W) and pentanomial (LL, LD, WL+DD, WD, WW) outcome.
TRINOMIAL = (0.0, 0.5, 1.0)
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Normalized Elo per unit of t = (score - 1/2) / sigma.
NELO_SCALE = 800.0 / math.log(10.0)
#: What a count of zero counts as (fastchess's `regularize`).
ZERO = 1e-3
#: The largest normalized Elo bound: beyond about 230 the iteration of the normalized
#: model cannot start (fastchess computes NaN there), and a pair of games cannot tell.
MAX_NORMALIZED = 200.0


class SprtError(ArenaError, ValueError):
    """Settings that do not make a test (one-line reason)."""


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds.

    >>> [round(b, 4) for b in bounds(0.05, 0.05)]
    [-2.9444, 2.9444]
    """
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def elo_to_score(elo: float) -> float:
    """The expected score of a logistic Elo difference.

    >>> elo_to_score(0.0), round(elo_to_score(400.0), 4)
    (0.5, 0.9091)
    """
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def check(elo0: float, elo1: float, alpha: float, beta: float, model: str) -> None:
    """SprtError unless the settings make a test (fastchess's checks)."""
    if not (math.isfinite(elo0) and math.isfinite(elo1)) or elo0 >= elo1:
        raise SprtError(f"--sprt ELO0,ELO1 needs ELO0 < ELO1, not {elo0:g},{elo1:g}")
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0 < value < 1:
            raise SprtError(f"--{name} must be between 0 and 1 (exclusive), not {value:g}")
    if alpha + beta >= 1:
        raise SprtError(f"--alpha + --beta must be below 1, not {alpha + beta:g}")
    if model not in MODELS:
        raise SprtError(f"unknown SPRT model {model!r} (models: {', '.join(MODELS)})")
    if model == "normalized" and max(abs(elo0), abs(elo1)) > MAX_NORMALIZED:
        raise SprtError(
            f"normalized Elo bounds must lie within +-{MAX_NORMALIZED:g} (the model's estimate "
            f"breaks down beyond), not {elo0:g},{elo1:g}; use --model logistic"
        )


def _root(probs: Sequence[float], phi: Sequence[float], epsilon: float) -> float:
    """The theta in (-1/max(phi), -1/min(phi)) with sum_i p_i phi_i / (1 + theta phi_i) = 0.

    That sum falls from +inf to -inf across the interval; Newton's method from 0,
    kept inside the bracket by bisection, finds its root (fastchess uses the ITP method;
    both stop within `epsilon`).
    """
    low, high = -1 / max(phi), -1 / min(phi)
    theta = 0.0
    for _ in range(200):
        value = slope = 0.0
        for q, x in zip(probs, phi, strict=True):
            term = x / (1 + theta * x)
            value += q * term
            slope -= q * term * term
        if value > 0:
            low = theta
        else:
            high = theta
        step = value / slope if slope else 0.0
        guess = theta - step
        if not low < guess < high:
            guess = (low + high) / 2
        if abs(guess - theta) < epsilon or high - low < epsilon:
            return guess
        theta = guess
    return theta


def _mle_logistic(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution nearest the empirical one whose mean score is `s` (Van den Bergh,
    "Comparing the approximations for the generalized log likelihood ratio of a
    multinomial distribution", Proposition 1.1)."""

    phi = [a - s for a in scores]
    theta = _root(probs, phi, 1e-10)
    return [p / (1 + theta * x) for x, p in zip(phi, probs, strict=True)]


def _mle_normalized(scores: Sequence[float], probs: Sequence[float], t: float) -> list[float]:
    """The distribution nearest the empirical one with (mean - 1/2) / sigma = `t` (Van den
    Bergh, "Comments on normalized Elo", section 4.1), iterated from the uniform one."""
    p = [1 / len(scores)] * len(scores)
    for _ in range(10):
        mu = sum(a * q for a, q in zip(scores, p, strict=True))
        sigma = math.sqrt(max(0.0, sum(q * (a - mu) ** 2 for a, q in zip(scores, p, strict=True))))
        if sigma <= 0:
            break
        phi = [a - 0.5 - 0.5 * t * sigma * (1 + ((a - mu) / sigma) ** 2) for a in scores]
        if not min(phi) < 0 < max(phi):
            break  # no distribution near this one has mean t: keep the last estimate
        theta = _root(probs, phi, 1e-10)
        new = [q / (1 + theta * x) for q, x in zip(probs, phi, strict=True)]
        moved = max(abs(a - b) for a, b in zip(new, p, strict=True))
        p = new
        if moved < 1e-4:
            break
    return p


@lru_cache(maxsize=65536)
def llr(counts: tuple[int, ...], elo0: float, elo1: float, model: str = "normalized") -> float:
    """The LLR of H1 (elo1) against H0 (elo0) for outcome counts, worst outcome first:
    trinomial (L, D, W) or pentanomial (LL, LD, WL+DD, WD, WW)."""
    scores: tuple[float, ...]
    if len(counts) == 3:
        scores, root2 = TRINOMIAL, 1.0
    elif len(counts) == 5:
        scores, root2 = PENTANOMIAL, math.sqrt(2.0)
    else:
        raise ValueError("counts are trinomial (3) or pentanomial (5)")
    regular = [float(n) if n else ZERO for n in counts]
    total = sum(regular)
    probs = [n / total for n in regular]
    if model == "normalized":
        p0 = _mle_normalized(scores, probs, root2 * elo0 / NELO_SCALE)
        p1 = _mle_normalized(scores, probs, root2 * elo1 / NELO_SCALE)
    elif model == "logistic":
        p0 = _mle_logistic(scores, probs, elo_to_score(elo0))
        p1 = _mle_logistic(scores, probs, elo_to_score(elo1))
    else:
        raise ValueError(f"unknown SPRT model {model!r}")
    return total * sum(
        q * (math.log(b) - math.log(a)) for q, a, b in zip(probs, p0, p1, strict=True)
    )


@dataclass(frozen=True)
class Sprt:
    """One test's settings; `llr` and `decision` of the results so far."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        check(self.elo0, self.elo1, self.alpha, self.beta, self.model)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return bounds(self.alpha, self.beta)[0]

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return bounds(self.alpha, self.beta)[1]

    def llr(self, counts: Sequence[int]) -> float:
        """The LLR of trinomial or pentanomial counts (see `llr`)."""
        return llr(tuple(counts), self.elo0, self.elo1, self.model)

    def decision(self, value: float) -> str | None:
        """ "H1" at or above the upper bound, "H0" at or below the lower one, else None."""
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None


@dataclass
class Tally:
    """Results of paired matches from A's side: per match (W/D/L) and per pair."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: Pairs by A's pair score 0, 1/2, 1, 3/2, 2: LL, LD, WL, DD, WD, WW (WL and DD apart).
    pairs: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("LL", "LD", "WL", "DD", "WD", "WW"), 0)
    )

    def add_pair(self, first: str, second: str) -> None:
        """Count a pair from its two results for A, each "W", "D" or "L"."""
        for result in (first, second):
            if result == "W":
                self.wins += 1
            elif result == "D":
                self.draws += 1
            elif result == "L":
                self.losses += 1
            else:
                raise ValueError(f"a match result is W, D or L, not {result!r}")
        points = sum({"W": 2, "D": 1, "L": 0}[r] for r in (first, second))
        key = ("LL", "LD", "DD" if first == "D" else "WL", "WD", "WW")[points]
        self.pairs[key] += 1

    @property
    def pentanomial(self) -> tuple[int, int, int, int, int]:
        """(LL, LD, WL + DD, WD, WW): the counts the LLR is computed from."""
        p = self.pairs
        return p["LL"], p["LD"], p["WL"] + p["DD"], p["WD"], p["WW"]

    @property
    def matches(self) -> int:
        """Matches counted."""
        return self.wins + self.draws + self.losses


def simulate(
    test: Sprt, p_win: float, p_draw: float, max_pairs: int, rng: random.Random
) -> tuple[str | None, int]:
    """One test on simulated pairs of independent matches with these chances for A;
    (decision or None at the limit, pairs played)."""
    tally = Tally()

    def one() -> str:
        x = rng.random()
        return "W" if x < p_win else "D" if x < p_win + p_draw else "L"

    for played in range(1, max_pairs + 1):
        tally.add_pair(one(), one())
        decided = test.decision(test.llr(tally.pentanomial))
        if decided is not None:
            return decided, played
    return None, max_pairs
