"""Time controls and what a bot is charged for an answer.

A time control limits each seat's thinking: either a fixed allowance per decision
(today's deadline, ``1s/decision``), or a Fischer bank (``10s+100ms``): the seat
starts a match with the bank, each answer's charge is taken from it, the increment
is added after each answer, and the seat loses on time when an answer's charge is
more than the bank it had. A start-up allowance (the start/ready handshake) is apart.

**What an answer costs** (`charge`): the CPU time the bot's process tree used for it
(its cgroup's CPU usage, from the moment arena starts waiting for the answer to the
moment it has it), or a third of the answer's wall time if that is more
(`WALL_FACTOR`), not counting the time the bot's main process was ready to run but
waited for a CPU (the kernel's run delay). The CPU part means that a bot is charged for
its own work only: other processes loading the machine slow its wall clock, not its
charge; the run delay is left out of the wall part for the same reason, so that a bot
starved of CPU by the machine is charged its CPU alone, and so is the time arena's own
thread, starved likewise, waited for a CPU before it read the answer (`Spent.late`); the
limit counts from the request's write (`Session.decide`). The wall part means that a bot
that sleeps or blocks still cannot stall a match: it is charged a third of the time it
sleeps, so it loses on time at the latest after three times its limit.
Arena reads no clock before it has waited a millisecond (`HEAD_S`): that first
millisecond is charged in full, and whatever arena itself was late past it (its own
wait for a CPU) a third, as time the bot may have slept (`Spent.head`). That is only
for a bot whose last answer was instant: after a slow one, the clocks are read before
the request is written, so the answer's CPU is counted from the request and there is
no head. Arena's own wait for a CPU is left out of the wall time only when it made
arena see the answer late: after its last look at the clocks, or when the answer was
there at its first read (a look's late wake-up overlapped the bot's own time).
Where the machine gives no CPU accounting for the bot (no cgroup), the charge is the
wall time, and `arena doctor` and the start of a run say so.

>>> control = TimeControl.parse("10s+100ms")
>>> control.bank, control.increment, str(control)
(10.0, 0.1, '10s+100ms')
>>> str(TimeControl.parse("250ms/decision")), TimeControl.parse("1s/decision").per_decision
('250ms/decision', 1.0)
>>> charge(wall=0.9, cpu=0.2), charge(wall=0.9, cpu=None), charge(wall=0.9, cpu=0.2, waited=0.6)
(0.3, 0.9, 0.2)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from arena import ArenaError

#: An answer is charged at least its wall time divided by this (see the module's text).
WALL_FACTOR = 3.0
#: How long arena first waits for an answer without reading the bot's CPU clock.
HEAD_S = 0.001
#: Bounds of every duration of a time control, in seconds.
LONGEST_S = 3600.0
SHORTEST_S = 0.001


class TimeControlError(ArenaError, ValueError):
    """A time control that cannot be read (the message says which form is expected)."""


_DURATION = re.compile(r"(?P<number>\d+(?:\.\d+)?|\.\d+)(?P<unit>ms|s|m)?")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, None: 1.0}


def _duration(text: str, what: str, *, zero: bool = False) -> float:
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise TimeControlError(f"{what} {text!r} is not a duration such as 500ms, 2s or 1.5m")
    seconds = float(match["number"]) * _UNITS[match["unit"]]
    low = 0.0 if zero else SHORTEST_S
    if not (low <= seconds <= LONGEST_S) or not math.isfinite(seconds):
        raise TimeControlError(
            f"{what} {text!r} must be {'0 or ' if zero else ''}from 1ms to {LONGEST_S:.0f}s"
        )
    return round(seconds, 6)


def _spelled(seconds: float) -> str:
    """A duration as the shortest of its usual spellings: 0.1 -> 100ms, 10.0 -> 10s."""
    if seconds == 0:
        return "0"
    if seconds < 1 or seconds * 1000 % 1000:
        return f"{round(seconds * 1000, 3):g}ms"
    return f"{seconds:g}s"


@dataclass(frozen=True)
class TimeControl:
    """Either `per_decision` seconds for each answer, or a `bank` with an `increment`."""

    per_decision: float | None = 1.0
    bank: float | None = None
    increment: float = 0.0

    def __post_init__(self) -> None:
        if (self.per_decision is None) == (self.bank is None):
            raise TimeControlError("a time control has either a per-decision limit or a bank")

    @classmethod
    def per(cls, seconds: float) -> TimeControl:
        """`seconds` for each decision (the deadline of protocol 1)."""
        return cls(per_decision=float(seconds))

    @classmethod
    def fischer(cls, bank: float, increment: float = 0.0) -> TimeControl:
        """A bank of `bank` seconds, `increment` added after each answer."""
        return cls(per_decision=None, bank=float(bank), increment=float(increment))

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``2s/decision`` (per decision) or ``BANK+INCREMENT`` such as ``10s+100ms``."""
        text = text.strip()
        if text.endswith("/decision"):
            return cls.per(_duration(text.removesuffix("/decision"), "the per-decision limit"))
        bank, plus, increment = text.partition("+")
        if not plus:
            raise TimeControlError(
                f"time control {text!r}: write a bank and an increment such as 10s+100ms "
                "(60s+0 for none) or a limit per decision such as 1s/decision"
            )
        return cls.fischer(
            _duration(bank, "the bank"), _duration(increment, "the increment", zero=True)
        )

    def __str__(self) -> str:
        if self.per_decision is not None:
            return f"{_spelled(self.per_decision)}/decision"
        assert self.bank is not None
        return f"{_spelled(self.bank)}+{_spelled(self.increment)}"

    @property
    def first_limit(self) -> float:
        """The longest the first answer may take (what protocol 1's `start` announces)."""
        return self.per_decision if self.per_decision is not None else float(self.bank or 0)

    def message(self) -> dict[str, Any]:
        """The time control as protocol 2's `start` gives it (milliseconds)."""
        if self.per_decision is not None:
            return {"kind": "per-decision", "decision_ms": _ms(self.per_decision)}
        return {"kind": "bank", "bank_ms": _ms(self.bank or 0), "increment_ms": _ms(self.increment)}


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def charge(wall: float, cpu: float | None, waited: float = 0.0) -> float:
    """What an answer that took `wall` seconds and `cpu` seconds of the bot's CPU costs,
    when its main process `waited` seconds of it for a CPU (None: the machine does not
    account the bot's CPU, so wall time is charged)."""
    if cpu is None:
        return wall
    return max(cpu, max(0.0, wall - waited) / WALL_FACTOR)


@dataclass(frozen=True)
class Spent:
    """What one answer took: `wall` seconds, and `cpu` seconds of the bot's process tree
    (None where the machine does not count it)."""

    wall: float
    cpu: float | None
    #: Seconds of it the bot's main process was ready to run but waited for a CPU.
    waited: float = 0.0
    #: Seconds from the request to the first reading of the bot's CPU clock, charged in
    #: full (arena reads no clock for an answer that comes at once); `cpu` and `waited`
    #: count from then.
    head: float = 0.0
    #: Seconds after the first reading that arena's own thread was ready to run but
    #: waited for a CPU (it noticed the answer late): no part of the bot's wall time.
    late: float = 0.0

    @property
    def charged(self) -> float:
        """What the answer costs the seat: its `head` (the first HEAD_S in full, beyond
        it a third), then `charge` of the rest."""
        head = self.head
        if head:
            head = min(head, HEAD_S) + max(0.0, head - HEAD_S) / WALL_FACTOR
        return head + charge(self.wall - self.head, self.cpu, self.waited + self.late)

    def describe(self) -> str:
        """For a timeout's detail: ``charged 1020 ms (CPU 1010 ms, wall 1050 ms)``."""
        if self.cpu is None:
            return f"charged {self.wall * 1000:.0f} ms of wall time (no CPU accounting)"
        waited = f", {self.waited * 1000:.0f} ms of it waiting for a CPU" if self.waited else ""
        if self.late:
            waited += f", arena {self.late * 1000:.0f} ms late to read it"
        if self.head:
            waited += f", the first {self.head * 1000:.1f} ms in full"
        return (
            f"charged {self.charged * 1000:.0f} ms "
            f"(CPU {self.cpu * 1000:.0f} ms, wall {self.wall * 1000:.0f} ms{waited})"
        )


class SeatClock:
    """One seat's clock in one match: the limit of its next answer and its bank."""

    def __init__(self, control: TimeControl):
        """A full clock under `control`."""
        self.control = control
        #: Seconds left in the bank (None under a per-decision limit).
        self.bank: float | None = control.bank
        #: Seconds charged in this match so far.
        self.used = 0.0

    def limit(self) -> float:
        """The most the next answer may be charged before the seat loses on time."""
        if self.bank is None:
            assert self.control.per_decision is not None
            return self.control.per_decision
        return self.bank

    def charge(self, seconds: float) -> None:
        """Take an answer's charge (within its limit) and add the increment."""
        self.used += seconds
        if self.bank is not None:
            self.bank = max(0.0, self.bank - seconds) + self.control.increment

    def request(self) -> dict[str, Any]:
        """The time part of protocol 2's `decide`: this answer's limit and the bank."""
        return {
            "limit_ms": _ms(self.limit()),
            "bank_ms": None if self.bank is None else _ms(self.bank),
            "increment_ms": _ms(self.control.increment),
        }
