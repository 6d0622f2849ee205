"""Kernel calls as typed events, counters and CPU time by category.

`Recorder.call()` is the one place a kernel call is accounted: it bumps the
call's counter, charges its CPU cost to the current context and category, and
(only when a trace buffer is attached) appends an `Event`. Headless runs keep
tracing off and pay for a counter and an addition; the TUI and `rxviz trace`
attach a bounded buffer.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Iterable

from .calls import CALLS, CATEGORIES, COUNTERS

_CATEGORY = {name: cat for name, (cat, _) in CALLS.items()}


@dataclass(frozen=True, slots=True)
class Event:
    """One kernel call: what ran, where, when, what it cost and what it touched."""
    seq: int
    t_ns: int
    call: str
    ctx: str
    cost_ns: float
    category: str
    obj: str
    detail: str

    def line(self) -> str:
        cost = f"{self.cost_ns:8.0f}ns" if self.cost_ns else " " * 10
        obj = f" {self.obj}" if self.obj else ""
        detail = f"  {self.detail}" if self.detail else ""
        return f"{self.t_ns / 1000:12.3f}us {self.ctx:<8} {cost} {self.call}{obj}{detail}"


@dataclass(frozen=True, slots=True)
class Violation:
    """What a DMA-API-debug-style check (or a teardown audit) reported."""
    name: str
    message: str
    t_ns: int
    obj: str = ""


class Recorder:
    __slots__ = ("counts", "cpu_ns", "cost", "ctx", "t", "events", "seq", "violations", "warnings",
                 "bounce_bytes", "call")

    def __init__(self, trace: int = 0) -> None:
        self.counts: dict[str, int] = dict.fromkeys(CALLS, 0)
        self.cpu_ns: dict[str, float] = {"hardirq": 0.0, "softirq": 0.0, "process": 0.0, "app": 0.0, "device": 0.0}
        self.cost: dict[str, float] = dict.fromkeys(CALLS, 0.0)     # CPU ns per kernel call
        self.ctx = "process"
        self.t = 0.0           # the CPU's clock inside the current scheduling point
        self.events: deque[Event] | None = deque(maxlen=trace) if trace else None
        self.seq = 0
        self.violations: list[Violation] = []
        self.warnings: list[Violation] = []   # what the kernel would print that is not a driver bug
        self.bounce_bytes = 0
        # Headless runs take the lean path; a trace buffer switches to the recording one.
        self.call = self._call_traced if self.events is not None else self._call

    def _call(self, name: str, cost: float = 0.0, fmt: str = "", *args: Any) -> None:
        """Account one kernel call: its counter and, when it costs CPU, its time."""
        self.counts[name] += 1
        if cost:
            self.t += cost
            self.cost[name] += cost
            self.cpu_ns[self.ctx] += cost

    def _call_traced(self, name: str, cost: float = 0.0, fmt: str = "", *args: Any) -> None:
        """As _call, and record an Event; `fmt % args` ("obj|detail") is only formatted here."""
        self._call(name, cost)
        self.seq += 1
        obj, _, detail = (fmt % args if args else fmt).partition("|")
        self.events.append(Event(self.seq, int(self.t), name, self.ctx, cost, _CATEGORY[name], obj, detail))

    @property
    def cat_ns(self) -> dict[str, float]:
        """CPU time by cost category, summed from the per-call costs."""
        out = dict.fromkeys(CATEGORIES, 0.0)
        for name, ns in self.cost.items():
            if ns:
                out[_CATEGORY[name]] += ns
        return out

    def charge(self, name: str, cost: float) -> None:
        """CPU time for a call already counted (e.g. the bytes of a copy)."""
        self.t += cost
        self.cost[name] += cost
        self.cpu_ns[self.ctx] += cost

    def violate(self, name: str, message: str, obj: str = "") -> None:
        self.violations.append(Violation(name, message, int(self.t), obj))
        if self.events is not None:
            self.seq += 1
            self.events.append(Event(self.seq, int(self.t), "VIOLATION", self.ctx, 0.0, "driver", obj,
                                     f"{name}: {message}"))

    def warn(self, name: str, message: str, obj: str = "") -> None:
        self.warnings.append(Violation(name, message, int(self.t), obj))
        if self.events is not None:
            self.seq += 1
            self.events.append(Event(self.seq, int(self.t), "WARNING", self.ctx, 0.0, "driver", obj,
                                     f"{name}: {message}"))

    def counters(self) -> dict[str, int]:
        """The documented counters first (present even when zero), then every other call seen."""
        out = {name: self.counts.get(name, 0) for name in COUNTERS if name != "swiotlb_bounce_bytes"}
        out["swiotlb_bounce_bytes"] = self.bounce_bytes
        ordered = {name: out[name] for name in COUNTERS}
        for name, n in self.counts.items():
            if n and name not in ordered:
                ordered[name] = n
        return ordered

    def recent(self, n: int) -> list[Event]:
        if not self.events:
            return []
        return list(self.events)[-n:]


def render(events: Iterable[Event]) -> str:
    return "\n".join(e.line() for e in events)


def snapshot_counts(rec: Recorder) -> dict[str, Any]:
    return dict(rec.counts)
