"""A tournament's stored settings: one frozen type, one serialisation.

`Tournament.settings` (a JSON column) holds what a run needs beyond the tournament's
own columns (game, format, players, deals, seed, variant): timeouts, limits, the
suspension rule, how it runs (which `tournament resume` reuses), and what its format
adds (a ladder's pool and plan, an `arena match` run's test). `TournamentSettings.of`
makes them from a TournamentConfig, `to_json` writes them when the tournament is
created, `from_json` reads them in every run, resume and summary.

`from_json` reads the settings of every database of before alike: a key added since
(`limits`; how it runs: `workers`, `executor`, `fresh_processes`, `pin_workers`) takes
the value those versions ran with, which is the TournamentConfig default. The defaults
live there, once; the stored keys and values are exactly those of before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.protocol.clock import TimeControl
from arena.results.sprt import Sprt
from arena.skill import Skill
from arena.tournament.config import TournamentConfig

if TYPE_CHECKING:  # the store is not imported by every command that reads settings
    from arena.store import Store

_DEFAULTS = TournamentConfig()


@dataclass(frozen=True)
class LadderPlan:
    """What a ladder (arena.tournament.ladder) adds: its fixed pool and its plan."""

    #: The pool's bot versions, in entrant order.
    versions: tuple[int, ...]
    #: Groups to play (each in every seat rotation).
    groups: int
    #: Matches it plays in all: groups x players.
    planned: int
    #: Groups scheduled at once from the same ratings.
    batch: int
    #: Every bot plays in any `max_gap` consecutive groups.
    max_gap: int
    #: Each version's rating when the ladder was created (other tournaments may move the
    #: live ratings meanwhile: a ladder's choices depend only on its own results).
    start: Mapping[int, Skill]

    def to_json(self) -> dict[str, Any]:
        """The stored keys (beside the tournament's others)."""
        return {
            "versions": list(self.versions),
            "planned": self.planned,
            "groups": self.groups,
            "batch": self.batch,
            "max_gap": self.max_gap,
            "start": {str(v): [s.mu, s.sigma] for v, s in self.start.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LadderPlan:
        """Read back what `to_json` wrote."""
        return cls(
            versions=tuple(int(v) for v in data["versions"]),
            groups=int(data["groups"]),
            planned=int(data["planned"]),
            batch=int(data["batch"]),
            max_gap=int(data["max_gap"]),
            start={int(v): Skill(float(m), float(s)) for v, (m, s) in data["start"].items()},
        )


@dataclass(frozen=True)
class PairedPlan:
    """What an `arena match` run (arena.tournament.paired) adds: its test and limit."""

    #: None: a fixed number of matches, no test.
    test: Sprt | None
    max_matches: int

    def to_json(self) -> dict[str, Any]:
        """The stored keys (`sprt` is {} without a test)."""
        test = self.test
        sprt = (
            {}
            if test is None
            else {
                "elo0": test.elo0,
                "elo1": test.elo1,
                "alpha": test.alpha,
                "beta": test.beta,
                "model": test.model,
            }
        )
        return {"sprt": sprt, "max_matches": self.max_matches}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PairedPlan:
        """Read back what `to_json` wrote."""
        sprt = data.get("sprt") or {}
        test = (
            Sprt(sprt["elo0"], sprt["elo1"], sprt["alpha"], sprt["beta"], sprt["model"])
            if sprt
            else None
        )
        return cls(test, int(data["max_matches"]))


@dataclass(frozen=True)
class TournamentSettings:
    """Everything of a tournament's run that its columns do not hold (see the module)."""

    #: The bots as named when it was created (names or folders).
    bots: tuple[str, ...] = ()
    decision_timeout: float = _DEFAULTS.decision_timeout
    startup_timeout: float = _DEFAULTS.startup_timeout
    #: The time control as `TimeControl` spells it; None (every tournament before time
    #: controls): `decision_timeout` per decision.
    time_control: str | None = None
    #: Forfeits in a row after which a bot sits out the rest (0: never, an `arena match` run).
    suspend_after: int = _DEFAULTS.suspend_after
    #: Stricter per-bot limits (arena.sandbox.limits.from_settings).
    limits: dict[str, Any] = field(default_factory=dict)
    # How it runs: `tournament resume` runs the same unless told otherwise.
    workers: int = _DEFAULTS.workers
    executor: str = _DEFAULTS.executor
    fresh_processes: bool = _DEFAULTS.fresh_processes
    pin_workers: bool = _DEFAULTS.pin_workers
    #: A ladder's pool and plan.
    ladder: LadderPlan | None = None
    #: An `arena match` run's test and limit.
    paired: PairedPlan | None = None
    #: Written by `Store.cancel_tournament`: the scheduled matches it dropped.
    unplayed_when_cancelled: int | None = None

    @classmethod
    def of(cls, config: TournamentConfig) -> TournamentSettings:
        """The settings a tournament created from `config` stores."""
        return cls(
            bots=tuple(config.bots),
            decision_timeout=config.decision_timeout,
            startup_timeout=config.startup_timeout,
            time_control=(
                None if config.time_control is None else str(TimeControl.parse(config.time_control))
            ),
            suspend_after=config.suspend_after,
            limits=dict(config.limits),
            workers=config.workers,
            executor=config.executor,
            fresh_processes=config.fresh_processes,
            pin_workers=config.pin_workers,
        )

    @property
    def control(self) -> TimeControl:
        """The seats' time control."""
        if self.time_control is None:
            return TimeControl.per(self.decision_timeout)
        return TimeControl.parse(self.time_control)

    @property
    def planned(self) -> int | None:
        """How many matches it plays in all when its schedule is written as it goes (a
        ladder's); None when the written schedule is the whole."""
        return self.ladder.planned if self.ladder is not None else None

    def to_json(self) -> dict[str, Any]:
        """The stored JSON: the same keys and values as every arena before wrote."""
        data: dict[str, Any] = {
            "bots": list(self.bots),
            "decision_timeout": self.decision_timeout,
            "startup_timeout": self.startup_timeout,
            "suspend_after": self.suspend_after,
            "limits": dict(self.limits),
            "workers": self.workers,
            "executor": self.executor,
            "fresh_processes": self.fresh_processes,
            "pin_workers": self.pin_workers,
        }
        if self.time_control is not None:  # only then: older settings keep their keys
            data["time_control"] = self.time_control
        if self.ladder is not None:
            data.update(self.ladder.to_json())
        if self.paired is not None:
            data.update(self.paired.to_json())
        if self.unplayed_when_cancelled is not None:
            data["unplayed_when_cancelled"] = self.unplayed_when_cancelled
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentSettings:
        """Read the stored settings of any arena's database (see the module)."""
        unplayed = data.get("unplayed_when_cancelled")
        return cls(
            bots=tuple(str(b) for b in data.get("bots", ())),
            decision_timeout=float(data.get("decision_timeout", cls.decision_timeout)),
            startup_timeout=float(data.get("startup_timeout", cls.startup_timeout)),
            time_control=None if data.get("time_control") is None else str(data["time_control"]),
            suspend_after=int(data.get("suspend_after", cls.suspend_after)),
            limits=dict(data.get("limits", {})),
            workers=int(data.get("workers", cls.workers)),
            executor=str(data.get("executor", cls.executor)),
            fresh_processes=bool(data.get("fresh_processes", cls.fresh_processes)),
            pin_workers=bool(data.get("pin_workers", cls.pin_workers)),
            ladder=LadderPlan.from_json(data) if "groups" in data else None,
            paired=PairedPlan.from_json(data) if "max_matches" in data else None,
            unplayed_when_cancelled=None if unplayed is None else int(unplayed),
        )


def time_controls_note(store: Store, game: str, rules: int) -> str:
    """Which time controls the board's rated matches were played under, and whether it
    mixes them: the all-time ratings count every match alike, whatever its clock
    (README, "Time controls"); a tournament's standings are one time control."""
    counts: dict[str, int] = {}
    for settings, matches in store.match_settings(game, rules):
        control = str(TournamentSettings.from_json(settings).control)
        counts[control] = counts.get(control, 0) + matches
    shown = ", ".join(f"{c} ({n} matches)" for c, n in sorted(counts.items()))
    if len(counts) > 1:
        return f"mixed time controls, rated alike: {shown}"
    return f"time control: {shown}" if counts else "time control: none recorded"
