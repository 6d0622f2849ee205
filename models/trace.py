"""Accounting and the event stream: counters, CPU time by context and category, typed events.

Time inside the model is an integer number of picoseconds, so that adding a
poll's costs in one sum or call by call gives the same total, whatever the
grouping. Every kernel call is counted in a list indexed by its id
(`models.calls.CALL_ID`); its CPU cost is the call's constant unit cost
(from the platform, in ps) times its count, plus whatever variable cost it
carried (bytes copied, objects moved in bulk) in `extra`. The hot path
therefore does `cnt[ID] += 1; rec.t += UNIT` and nothing else; `call()` is
the readable form for the cold paths, and also appends an `Event` when a
trace buffer is attached.

CPU time per context is the span of each scheduling unit (`begin()` opens
one, the next `begin()` or a read closes it): within a unit the clock only
moves by the costs of the calls made in it.

The event stream is produced on demand by the same code: with a trace
buffer attached (`Recorder(trace=N)`) every call site also emits its
`Event`, with the transitions the call caused; without one the model does
the same work and records nothing but counts.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, NamedTuple, SupportsIndex, cast

from mypy_extensions import mypyc_attr

from .calls import CALL_ID, CALL_NAMES, CATEGORIES, CATEGORY_OF, COUNTERS, NCALLS
from .int_arrays import counters, counters_from
from .machines import NTRANSITIONS

PS: Final = 1000                  # picoseconds per nanosecond
CONTEXTS: Final = ("hardirq", "softirq", "process", "app", "device")
LOOKBACK: Final = 6               # events searched back for the call that caused a transition (its own sub-calls)


class Transition(NamedTuple):
    """One object moving along one edge of its machine (models/lifecycle.py)."""
    machine: str
    obj: str
    src: str
    dst: str
    call: str


class Event(NamedTuple):
    """One kernel call: what ran, where, when, what it cost, what it touched and moved.

    A tuple, like the other records here: a trace buffer holds hundreds of them and every
    snapshot copies it, and tuples are created and pickled in C (a frozen dataclass runs
    Python code for both).
    """
    seq: int
    t_ns: int
    call: str
    ctx: str
    cost_ns: float
    category: str
    obj: str
    detail: str
    transitions: list[Transition]          # filled in as the call moves objects

    def line(self) -> str:
        cost = f"{self.cost_ns:8.0f}ns" if self.cost_ns else " " * 10
        obj = f" {self.obj}" if self.obj else ""
        detail = f"  {self.detail}" if self.detail else ""
        return f"{self.t_ns / 1000:12.3f}us {self.ctx:<8} {cost} {self.call}{obj}{detail}"


class Halt(Exception):
    """Raised by a traced run with `halt_at` set, just before the call numbered halt_at is recorded.

    The run stops right after the call before it: what that call did is done,
    the next one has only been counted (`undo()` takes that back). The Sim is
    then a picture of one moment inside a step, for the player to show; it is
    never run on (the step it was in stops half-way).
    """

    def __init__(self, cid: int, cost: int, ctx: str) -> None:
        super().__init__(cid, cost, ctx)
        self.cid, self.cost, self.ctx = cid, cost, ctx

    def undo(self, rec: Recorder) -> None:
        """Take back the accounting of the call that was about to be recorded."""
        rec.seq -= 1
        if self.ctx == "VIOLATION":
            rec.violations.pop()
        elif self.ctx == "WARNING":
            rec.warnings.pop()
        elif self.cid >= 0:
            rec.cnt[self.cid] -= 1
            if self.ctx != "device":           # a device call leaves the CPU's clock alone
                rec.t -= self.cost
                rec.extra[self.cid] -= self.cost - rec.unit[self.cid]


class Violation(NamedTuple):
    """What a DMA-API-debug-style check (or a teardown audit) reported.

    `printed` is set for the errors CONFIG_DMA_API_DEBUG itself reports (err_printk() in
    kernel/dma/debug.c): True when the kernel printed it, False when it only counted it
    (num_errors was used up). None: a report of the model's own checker or of another part
    of the kernel.
    """
    name: str
    message: str
    t_ns: int
    obj: str = ""
    printed: bool | None = None


KEPT_REPORTS: Final = 1000       # reports kept whole; every one is counted


# A report whose text is not built yet: (name, fmt, args, t_ns, obj_fmt, obj_arg, printed); its message
# is fmt % args and its object obj_fmt % obj_arg (obj_fmt itself when obj_arg is None).
Lazy = tuple[str, str, tuple[Any, ...], int, str, Any, bool | None]


def _made(v: Violation | Lazy | None) -> Violation | None:
    """A report as kept: a lazy one has its text built now."""
    if v is None or isinstance(v, Violation):
        return v
    name, fmt, args, t_ns, obj_fmt, obj_arg, printed = v
    return Violation(name, fmt % args, t_ns, obj_fmt if obj_arg is None else obj_fmt % obj_arg, printed)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Tally:
    """What a Reports list counts, in a native object: the Recorder counts a report that is not kept
    here, with no call into the list (a method of a list subclass is a Python-level call)."""
    __slots__ = ("total", "counts", "kept", "last", "prior")

    def __init__(self, total: int, counts: dict[str, int], kept: int, last: Violation | Lazy | None) -> None:
        self.total = total                 # every report
        self.counts = counts               # every report, by name
        self.kept = kept                   # the reports kept whole (the list's length)
        self.last: Violation | Lazy | None = last
        self.prior: Violation | Lazy | None = None

    def add(self, lazy: Lazy) -> bool:
        """Count a report that is not kept (its text built only if read as `last`); False when it must
        be kept (one of the first KEPT_REPORTS, or the first of its name)."""
        counts = self.counts
        name = lazy[0]
        if self.kept < KEPT_REPORTS or name not in counts:
            return False
        counts[name] += 1
        self.total += 1
        self.prior = self.last
        self.last = lazy
        return True


@mypyc_attr(native_class=False)    # mypyc compiles no subclass of a builtin type
class Reports(list[Violation]):
    """What the checker reported, kept as dma-debug keeps its errors: every one counted.

    The kernel counts every error (error_count in kernel/dma/debug.c) but prints
    only the first (show_num_errors). Here the first KEPT_REPORTS are kept whole,
    and after them the first of each name, so a bug that fires on every frame
    costs a counter, not memory. The list is what was kept; `total` and `counts`
    are all of them, `last` the latest (counted in `tally`). A report that is not
    kept (`add()`) has its text built only if it is read as `last`: a bug that fires
    every frame costs no formatting either.
    """
    __slots__ = ("tally",)

    def __init__(self, kept: Iterable[Violation] = (), total: int = 0, counts: dict[str, int] | None = None,
                 last: Violation | None = None) -> None:
        super().__init__(kept)
        self.tally = Tally(total, counts or {}, len(self), last)

    @property
    def total(self) -> int:
        return self.tally.total

    @property
    def counts(self) -> dict[str, int]:
        return self.tally.counts

    @property
    def last(self) -> Violation | None:
        t = self.tally
        v = t.last = _made(t.last)
        return v

    def append(self, v: Violation) -> None:
        t = self.tally
        counts = t.counts
        if t.kept < KEPT_REPORTS or v.name not in counts:
            super().append(v)
            t.kept += 1
        counts[v.name] = counts.get(v.name, 0) + 1
        t.total += 1
        t.prior, t.last = t.last, v

    def add(self, lazy: Lazy) -> None:
        """append() of a report whose text is built only if it is kept (or read as `last`)."""
        if not self.tally.add(lazy):
            self.append(cast(Violation, _made(lazy)))

    def pop(self, index: SupportsIndex = -1) -> Violation:
        """Take back the latest report (Halt.undo); only the latest can be taken back."""
        v = self.last
        assert v is not None and index == -1
        t = self.tally
        if self and self[-1] is v:
            super().pop()
            t.kept -= 1
        t.counts[v.name] -= 1
        if not t.counts[v.name]:
            del t.counts[v.name]
        t.total -= 1
        t.last, t.prior = t.prior, None
        return v

    def __reduce__(self) -> tuple[Any, ...]:
        return (Reports, (list(self), self.total, dict(self.counts), self.last))


BOUNCE_BYTES: Final = "swiotlb_bounce_bytes"      # a counter no call's: the bytes SWIOTLB copied


class Counts(Mapping[str, int]):
    """The call counters by name, read from the id-indexed list (what views and checks read),
    and the one counter that is no call's count, the bytes SWIOTLB copied (Recorder.bounce_bytes)."""
    __slots__ = ("_cnt", "_bounce")

    def __init__(self, cnt: Sequence[int], bounce_bytes: int = 0) -> None:
        self._cnt = cnt
        self._bounce = bounce_bytes

    def __getitem__(self, name: str) -> int:
        if name == BOUNCE_BYTES:
            return self._bounce
        return self._cnt[CALL_ID[name]]

    def __iter__(self) -> Iterator[str]:
        yield from CALL_NAMES
        yield BOUNCE_BYTES

    def __len__(self) -> int:
        return NCALLS + 1

    def get(self, name: str, default: Any = 0) -> Any:
        if name == BOUNCE_BYTES:
            return self._bounce
        i = CALL_ID.get(name)
        return default if i is None else self._cnt[i]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Recorder:
    __slots__ = ("cnt", "extra", "unit", "moves", "t", "ctx", "t0", "cpu", "events", "seq", "violations",
                 "warnings", "bounce_bytes", "tracing", "keep_from", "keep_to", "halt_at", "move_floor")

    def __init__(self, trace: int = 0) -> None:
        self.cnt = counters(NCALLS)
        self.extra = counters(NCALLS)          # variable cost in ps (bytes, bulk sizes, charges)
        self.unit = counters(NCALLS)           # each call's constant cost in ps (set from the platform)
        self.moves = counters(NTRANSITIONS)    # times each lifecycle edge was taken (lifecycle.TRANSITION_EDGES)
        self.t = 0                          # the CPU's clock inside the current unit, ps
        self.ctx = "process"
        self.t0 = 0
        self.cpu = dict.fromkeys(CONTEXTS, 0)
        self.events: deque[Event] | None = deque(maxlen=trace) if trace else None
        self.tracing = self.events is not None
        self.move_floor = 0
        self._floor()
        self.seq = 0
        self.keep_from, self.keep_to = 0, 1 << 62      # the events kept (all, up to the buffer's size)
        self.halt_at = 1 << 62             # a traced run raises Halt before recording this event
        self.violations = Reports()
        self.warnings = Reports()             # what the kernel would print that is not a driver bug
        self.bounce_bytes = 0

    # A vec does not pickle: snapshots carry the counters as lists.
    def __getstate__(self) -> tuple[Any, ...]:
        return (list(self.cnt), list(self.extra), list(self.unit), list(self.moves), self.t, self.ctx, self.t0,
                self.cpu, self.events, self.seq, self.violations, self.warnings, self.bounce_bytes, self.tracing,
                self.keep_from, self.keep_to, self.halt_at, self.move_floor)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (cnt, extra, unit, moves, self.t, self.ctx, self.t0, self.cpu, self.events, self.seq, self.violations,
         self.warnings, self.bounce_bytes, self.tracing, self.keep_from, self.keep_to, self.halt_at,
         self.move_floor) = state
        self.cnt, self.extra, self.unit, self.moves = (counters_from(cnt), counters_from(extra),
                                                       counters_from(unit), counters_from(moves))

    # -- scheduling units ------------------------------------------------------------
    def begin(self, ctx: str, t: int) -> None:
        """Start a unit of `ctx` at time t: the previous unit's span is its CPU time."""
        self.cpu[self.ctx] += self.t - self.t0
        self.ctx = ctx
        self.t = self.t0 = t

    def settle(self) -> None:
        """Book the open unit's time so far (before reading cpu)."""
        self.cpu[self.ctx] += self.t - self.t0
        self.t0 = self.t

    @property
    def cpu_ns(self) -> dict[str, float]:
        self.settle()
        return {k: v / PS for k, v in self.cpu.items()}

    # -- calls -----------------------------------------------------------------------
    def call(self, cid: int, cost: int = -1, fmt: str = "", *args: Any) -> None:
        """Account one kernel call (cost -1: its unit cost) and, traced, record its Event."""
        self.cnt[cid] += 1
        if cost < 0:
            cost = self.unit[cid]
        else:
            self.extra[cid] += cost - self.unit[cid]
        self.t += cost
        if self.tracing:
            self.emit(cid, cost, fmt, args)

    def charge(self, cid: int, cost: int) -> None:
        """CPU time for a call already counted (the bytes of a copy, per-frame driver work)."""
        self.extra[cid] += cost
        self.t += cost

    def emit(self, cid: int, cost: int, fmt: str, args: tuple[Any, ...], ctx: str = "", t: int = -1) -> None:
        """Append the Event of a call just accounted (traced runs only)."""
        self.seq += 1
        if self.seq >= self.halt_at:
            raise Halt(cid, cost, ctx)
        if not self.keep_from <= self.seq <= self.keep_to:
            return                      # outside the window asked for (keep()): numbered, not kept
        obj, _, detail = (fmt % args if args else fmt).partition("|")
        assert self.events is not None
        self.events.append(Event(self.seq, (self.t if t < 0 else t) // PS, CALL_NAMES[cid], ctx or self.ctx,
                                 cost / PS, CATEGORY_OF[cid], obj, detail, []))

    def calls_made(self) -> int:
        """Events a fully traced run would have numbered so far: one per counted call, violation, warning."""
        return sum(self.cnt) + self.violations.total + self.warnings.total

    def set_tracing(self, on: bool) -> None:
        """Record events or not (a trace buffer must exist); the numbering stays that of a traced run."""
        if on and self.events is not None and not self.tracing:
            self.seq = self.calls_made()
            self.tracing = True
        elif not on:
            self.tracing = False
        self._floor()

    def _floor(self) -> None:
        """move_floor follows tracing: models.lifecycle.move() takes its fast path (no call, no line)
        for a transition id at or above it, so one comparison asks both "a legal edge?" (ids are
        >= 0, an illegal edge's -1) and "untraced?" (traced, no id reaches NTRANSITIONS)."""
        self.move_floor = NTRANSITIONS if self.tracing else 0

    def keep(self, first: int, last: int) -> None:
        """Keep only the events numbered first..last, all of them (a re-run for one stretch of calls)."""
        self.keep_from, self.keep_to = first, last
        self.events = deque()
        self.tracing = True
        self._floor()

    def device(self, cid: int, t: int, fmt: str = "", *args: Any) -> None:
        """A call the device makes at time t: counted, costs no CPU, leaves the CPU's clock alone."""
        self.cnt[cid] += 1
        if self.tracing:
            self.emit(cid, 0, fmt, args, ctx="device", t=t)

    def moved(self, machine: str, obj: str, src: str, dst: str, call: str) -> None:
        """A transition, added to the event of the call that caused it (traced runs only).

        Every call site moves its objects right after accounting the call, so the cause is the
        latest event of that call (a few others, such as the iommu_map inside a dma_map, may
        come between); a step that is not a call of its own ("post", "repoll") belongs to the
        call it happens in, the latest event.
        """
        events = self.events
        if not events:
            return                      # nothing recorded yet to attach it to
        tr = Transition(machine, obj, src, dst, call)
        oldest = self.seq - LOOKBACK
        for i in range(len(events) - 1, -1, -1):
            ev = events[i]
            if ev.seq <= oldest:
                break
            if ev.call == call:
                ev.transitions.append(tr)
                return
        if events[-1].seq == self.seq:
            events[-1].transitions.append(tr)
        # else: the call it belongs to is outside the kept window

    def retell(self, cid: int, obj: str, detail: str) -> None:
        """A later call completed what a recorded one did (a driver attaching the frag of the header skb
        it just allocated): the latest event of call `cid` on `obj`, LOOKBACK events back at most, says
        `detail` (traced runs only)."""
        events = self.events
        if not events:
            return
        name = CALL_NAMES[cid]
        for i in range(len(events) - 1, max(-1, len(events) - 1 - LOOKBACK), -1):
            ev = events[i]
            if ev.call == name and ev.obj == obj:
                events[i] = ev._replace(detail=detail)
                return

    # -- reading -----------------------------------------------------------------------
    @property
    def counts(self) -> Counts:
        # a live view of the calls (a vec indexes as a list does); the bounce bytes as they are now
        return Counts(cast(Sequence[int], self.cnt), self.bounce_bytes)

    def cost_ps(self, cid: int) -> int:
        return self.cnt[cid] * self.unit[cid] + self.extra[cid]

    @property
    def cost(self) -> dict[str, float]:
        """CPU ns per kernel call name."""
        return {name: self.cost_ps(i) / PS for i, name in enumerate(CALL_NAMES)}

    @property
    def cat_ns(self) -> dict[str, float]:
        """CPU time by cost category, summed from the per-call costs."""
        out = dict.fromkeys(CATEGORIES, 0)
        for i in range(NCALLS):
            c = self.cnt[i] * self.unit[i] + self.extra[i]
            if c:
                out[CATEGORY_OF[i]] += c
        return {k: v / PS for k, v in out.items()}

    def report(self, name: str, fmt: str, args: tuple[Any, ...], obj_fmt: str = "", obj_arg: Any = None,
               printed: bool | None = None) -> None:
        """violate() with the message fmt % args and the object obj_fmt % obj_arg (obj_fmt when obj_arg is
        None), built only when the report is kept or traced: a fault that fires every frame formats
        nothing past the kept ones."""
        if self.tracing:
            self.violate(name, fmt % args, obj_fmt if obj_arg is None else obj_fmt % obj_arg, printed)
            return
        lazy = (name, fmt, args, self.t // PS, obj_fmt, obj_arg, printed)
        if not self.violations.tally.add(lazy):      # one to keep: through the list
            self.violations.append(cast(Violation, _made(lazy)))

    def add(self, cid: int, cost: int = -1) -> int:
        """Account one call (cost -1: its unit cost) and return its cost, recording nothing: the hot
        path's call(), its Event emitted by the caller only when tracing (no arguments packed)."""
        self.cnt[cid] += 1
        if cost < 0:
            cost = self.unit[cid]
        else:
            self.extra[cid] += cost - self.unit[cid]
        self.t += cost
        return cost

    def violate(self, name: str, message: str, obj: str = "", printed: bool | None = None) -> None:
        self.violations.append(Violation(name, message, self.t // PS, obj, printed))
        if printed is False:
            message += " (dma-debug counted it in error_count and printed nothing: num_errors was used up)"
        self._note("VIOLATION", name, message, obj)

    def warn(self, name: str, message: str, obj: str = "") -> None:
        self.warnings.append(Violation(name, message, self.t // PS, obj))
        self._note("WARNING", name, message, obj)

    def _note(self, kind: str, name: str, message: str, obj: str) -> None:
        if self.tracing and self.events is not None:
            self.seq += 1
            if self.seq >= self.halt_at:
                raise Halt(-1, 0, kind)
            if not self.keep_from <= self.seq <= self.keep_to:
                return
            self.events.append(Event(self.seq, self.t // PS, kind, self.ctx, 0.0, "driver", obj,
                                     f"{name}: {message}", []))

    def counters(self) -> dict[str, int]:
        """The documented counters first (present even when zero), then every other call seen."""
        out = {name: self.cnt[CALL_ID[name]] for name in COUNTERS if name != "swiotlb_bounce_bytes"}
        out["swiotlb_bounce_bytes"] = self.bounce_bytes
        ordered = {name: out[name] for name in COUNTERS}
        for i, name in enumerate(CALL_NAMES):
            if self.cnt[i] and name not in ordered:
                ordered[name] = self.cnt[i]
        return ordered

    def recent(self, n: int) -> list[Event]:
        if not self.events:
            return []
        return list(self.events)[-n:]


def render(events: Iterable[Event]) -> str:
    return "\n".join(e.line() for e in events)
