"""Replaying a lesson: every variant in lockstep, step by step, with exact step-back.

All variants receive the same number of frames at every step (the step's
`run` decides how many, on the variant the step shows), so a compare view
is always fair. Going back is exact: after each step the whole model is
snapshotted (a deep copy); going to step k restores the nearest snapshot at
or before k and replays forward deterministically.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from .calls import CALL_ID
from .lesson.schema import Check, Lesson, Step
from .sim import Sim
from .snapshot import clone
from .trace import Event, Halt

_OPS = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


@dataclass
class StepNote:
    """What happened when a step ran (for `rxviz check` and the status line)."""
    step: int
    frames: int
    reached: bool = True
    at: int = 0             # `until` steps: the number of the event the lead ran until (0: none)


@dataclass
class CheckResult:
    check: Check
    ok: bool
    actual: Any
    message: str


TRACED_TAIL = 64        # frames at the end of a long step that are traced: the player shows its last calls


def _run_traced_tail(sim: Sim, frames: int) -> None:
    """Run `frames`, recording events only for the last TRACED_TAIL of them.

    Tracing changes nothing the model computes, only what it records, so the
    state at the end is the same; the events kept (the player's buffer holds a
    few hundred) are the step's last, numbered as in a fully traced run.
    """
    if frames <= TRACED_TAIL or not sim.rec.tracing:
        sim.run_frames(frames)
        return
    _untraced(sim, lambda: sim.run_frames(frames - TRACED_TAIL))
    sim.run_frames(TRACED_TAIL)


def _untraced(sim: Sim, run: Callable[[], object]) -> None:
    """`run()` with the events off; afterwards they are on again, numbered as in a traced run."""
    sim.rec.set_tracing(False)
    try:
        run()
    finally:
        sim.rec.set_tracing(True)


class LessonRun:
    def __init__(self, lesson: Lesson, *, sets: dict[str, Any] | None = None, trace: int = 400,
                 faults: tuple[str, ...] = ()) -> None:
        self.lesson = lesson
        self.sets = dict(sets or {})
        self.trace = trace
        self.faults = faults
        self.names = list(lesson.variants)
        self.step = 0                      # steps applied so far (0 = the scenario as set up)
        self.sims = self._fresh()
        self.notes: list[StepNote] = []
        self._snaps: dict[int, tuple[dict[str, Sim], list[StepNote]]] = {0: (clone(self.sims), [])}
        self._tails: dict[tuple[int, str], tuple[Sim, int]] = {}       # see _tail
        self._events: dict[tuple[int, str], list[Event]] = {}         # see step_events
        self._moves: dict[tuple[int, str, str], list[Event]] = {}     # see moves_of

    def _fresh(self) -> dict[str, Sim]:
        out = {}
        for name in self.names:
            prm = self.lesson.params_for(name)
            prm.update(self.sets)
            out[name] = Sim(prm, trace=self.trace, faults=self.lesson.faults_for(name, self.faults))
        return out

    @property
    def total(self) -> int:
        return len(self.lesson.steps)

    def shown(self, k: int | None = None) -> str:
        """The variant step k (1-based; default the current one) shows."""
        k = self.step if k is None else k
        if k <= 0:
            return self.lesson.steps[0].show or self.names[0]
        return self.lesson.steps[k - 1].show or self.names[0]

    def _run_step(self, index: int, sims: dict[str, Sim]) -> StepNote:
        """Step index+1 on `sims`: every variant runs what the step says, the lead deciding `until`."""
        step = self.lesson.steps[index]
        run = step.run
        note = StepNote(index + 1, 0)
        if run is not None:
            lead_name = step.show or self.names[0]
            if run.kind == "frames":
                for sim in sims.values():
                    _run_traced_tail(sim, run.frames)
                note.frames = run.frames
            elif run.kind == "until":
                if lead_name in sims:
                    lead = sims[lead_name]
                    start = lead.processed
                    note.reached = lead.run_until(run.call, run.count, run.limit)
                    note.frames = lead.processed - start
                    if note.reached and lead.rec.events:
                        # The moment the step is about: the call it ran until (the rest of that
                        # frame's calls follow it in the same step).
                        note.at = next((e.seq for e in reversed(lead.rec.events) if e.call == run.call), 0)
                else:                       # a re-run of another variant alone: the lead decided
                    note.frames = self._snaps[index + 1][1][-1].frames
                for name, sim in sims.items():
                    if name != lead_name:
                        _run_traced_tail(sim, note.frames)
            elif run.kind == "teardown":
                for sim in sims.values():
                    sim.teardown(run.wait_ns)
        return note

    def _apply(self, index: int) -> None:
        note = self._run_step(index, self.sims)
        self.notes.append(note)
        self.step = index + 1
        if self.step not in self._snaps:     # a replay reaches the same state: keep the first copy
            self._snaps[self.step] = (clone(self.sims), list(self.notes))

    def forward(self) -> bool:
        if self.step >= self.total:
            return False
        self._apply(self.step)
        return True

    def goto(self, k: int) -> None:
        """Go to step k (0..total): restore the nearest snapshot, replay the rest."""
        k = max(0, min(self.total, k))
        base = max(i for i in self._snaps if i <= k)
        sims, notes = self._snaps[base]
        self.sims = clone(sims)
        self.notes = list(notes)
        self.step = base
        while self.step < k:
            self._apply(self.step)

    @property
    def computed(self) -> int:
        """Steps snapshotted so far: every step up to this one can be read back without running."""
        return max(self._snaps)

    def snapshot(self, k: int) -> tuple[dict[str, Sim], list[StepNote]]:
        """The model as it was after step k, running forward to it first if needed.

        The sims returned are the stored snapshot itself, shared, not a copy:
        callers must only read them (a view, a frame on screen). Reading never
        changes a Sim, and `goto` copies a snapshot before running it on.
        """
        k = max(0, min(self.total, k))
        while k not in self._snaps:
            if self.step != self.computed:
                self.goto(self.computed)
            self.forward()
        return self._snaps[k]

    # -- one kernel call at a time -------------------------------------------------------
    def call_range(self, k: int, variant: str, reachable: bool = True) -> tuple[int, int, int]:
        """(first, last, reachable): the event numbers of step k's calls in `variant`.

        `reachable` is the first one the step can be stopped right after: a long step
        records (and can be stopped in) only its last TRACED_TAIL frames, and finding
        where they start runs the step's head again (once; `reachable=False` skips it
        and gives `first`). Step 0, the set-up, happens before the lesson starts and
        cannot be stopped in (first > last).
        """
        after = self.snapshot(k)[0][variant]
        if k <= 0:
            return 1, 0, 1
        before = self.snapshot(k - 1)[0][variant]
        first, last = before.rec.seq + 1, after.rec.seq
        start = self._tail(k, variant)[1] if reachable and self._head_frames(k) else first
        return first, last, min(start, last)

    def at_call(self, k: int, variant: str, seq: int) -> Sim:
        """`variant` right after its call numbered `seq` in step k, before the next one.

        The step is run again from the snapshot before it (or from the start of its
        traced end) and stopped there (trace.Halt). The Sim returned is a picture of
        that moment, to be read only: running it on would finish half a step. At or
        past the step's last call it is the step's own snapshot.
        """
        first, last, reachable = self.call_range(k, variant)
        if k <= 0 or seq >= last:
            return self.snapshot(k)[0][variant]
        seq = max(seq, first)
        if seq >= reachable:
            sim, rest = self._rerun(k, variant)
            parts = [rest]
        else:                   # in a long step's untraced head: run it again traced from its start
            sim = clone(self.snapshot(k - 1)[0][variant])
            parts = self._parts(k, variant, sim)
        sim.rec.halt_at = seq + 1
        try:
            for part in parts:
                part()
        except Halt as h:
            h.undo(sim.rec)
        sim.rec.halt_at = 1 << 62
        return sim

    def moves_of(self, k: int, variant: str, obj: str) -> list[Event]:
        """Every event of step k in `variant` that moves `obj` (or names it), traced whole, in order.

        A long step is run again from its start with every event on, a chunk of
        frames at a time, keeping only this object's: the player's `o` follows a
        buffer across steps whose calls it does not otherwise record.
        """
        key = (k, variant, obj)
        got = self._moves.get(key)
        if got is None:
            got = []
            if k > 0:
                sim = clone(self.snapshot(k - 1)[0][variant])
                first, last, _ = self.call_range(k, variant, reachable=False)
                sim.rec.keep(first, last)
                for part in self._parts(k, variant, sim):
                    part()
                    events = sim.rec.events
                    assert events is not None
                    got += [e for e in events if e.obj == obj or any(t.obj == obj for t in e.transitions)]
                    events.clear()
            if len(self._moves) >= 64:
                self._moves.pop(next(iter(self._moves)))
            self._moves[key] = got
        return got

    def _parts(self, k: int, variant: str, sim: Sim, chunk: int = 2_000) -> list[Callable[[], object]]:
        """Step k on `sim` as a few calls run one after the other: frame by frame the same run."""
        step = self.lesson.steps[k - 1]
        run = step.run
        if run is None or run.kind == "teardown" or not self._head_frames(k):
            return [lambda: self._run_step(k - 1, {variant: sim})]
        if run.kind == "until" and variant == self._lead(step):
            goal = sim.rec.cnt[CALL_ID[run.call]] + run.count
            start, end = sim.processed, sim.processed + run.limit
            return [partial(sim.run_until, run.call, goal=goal, stop=min(end, start + i + chunk))
                    for i in range(0, run.limit, chunk)]
        frames = run.frames if run.kind == "frames" else self.snapshot(k)[1][-1].frames
        return [partial(sim.run_frames, min(chunk, frames - i)) for i in range(0, frames, chunk)]

    def step_events(self, k: int, variant: str) -> list[Event]:
        """Every event of step k in `variant` from its first reachable call to its last, with transitions."""
        key = (k, variant)
        got = self._events.get(key)
        if got is None:
            first, last, reachable = self.call_range(k, variant)
            if k <= 0 or last < reachable:
                got = []
            else:
                sim, rest = self._rerun(k, variant)
                sim.rec.keep(reachable, last)
                rest()
                got = list(sim.rec.events or ())
            if len(self._events) >= 16:
                self._events.pop(next(iter(self._events)))
            self._events[key] = got
        return got

    def _head_frames(self, k: int) -> int:
        """Frames at the start of step k that run without a trace (0: the step is traced whole)."""
        run = self.lesson.steps[k - 1].run
        if run is None or run.kind == "teardown":
            return 0
        frames = run.frames if run.kind == "frames" else self.snapshot(k)[1][-1].frames
        return max(0, frames - TRACED_TAIL)

    def _tail(self, k: int, variant: str) -> tuple[Sim, int]:
        """The model where step k's traced end starts, and the number of its first event (kept, a few)."""
        key = (k, variant)
        got = self._tails.get(key)
        if got is None:
            sim = clone(self.snapshot(k - 1)[0][variant])
            head = self._head_frames(k)
            step = self.lesson.steps[k - 1]
            if step.run is not None and step.run.kind == "until" and variant == self._lead(step):
                run = step.run
                goal = sim.rec.cnt[CALL_ID[run.call]] + run.count
                stop = sim.processed + head
                _untraced(sim, lambda: sim.run_until(run.call, goal=goal, stop=stop))
            else:
                _untraced(sim, lambda: sim.run_frames(head))
            got = (sim, sim.rec.seq + 1)
            if len(self._tails) >= 4:
                self._tails.pop(next(iter(self._tails)))
            self._tails[key] = got
        return got

    def _lead(self, step: Step) -> str:
        return step.show or self.names[0]

    def _rerun(self, k: int, variant: str) -> tuple[Sim, Callable[[], object]]:
        """(a fresh copy of the model, what runs the rest of step k on it): from the start of the
        step, or from the start of its traced end when it has an untraced head."""
        if not self._head_frames(k):
            sim = clone(self.snapshot(k - 1)[0][variant])
            return sim, lambda: self._run_step(k - 1, {variant: sim})
        base, _ = self._tail(k, variant)
        sim = clone(base)
        step = self.lesson.steps[k - 1]
        assert step.run is not None
        run = step.run
        if run.kind == "until" and variant == self._lead(step):
            start = self.snapshot(k - 1)[0][variant]
            goal = start.rec.cnt[CALL_ID[run.call]] + run.count
            stop = start.processed + run.limit
            return sim, lambda: sim.run_until(run.call, goal=goal, stop=stop)
        return sim, lambda: sim.run_frames(TRACED_TAIL)

    def calls(self, k: int, variant: str, first: int, last: int) -> list[Event]:
        """Every event numbered first..last of step k in one variant, with its transitions.

        The player's trace buffer keeps only a step's last few hundred calls; this runs step k
        again from the snapshot before it (the model is deterministic, so it is the same run),
        keeping exactly that stretch. Step 0 is the set-up: its calls are in the snapshot.
        """
        if k <= 0:
            sims, _ = self.snapshot(0)
            return [e for e in sims[variant].rec.events or () if first <= e.seq <= last]
        self.snapshot(k)                    # step k computed: its note says what the lead did
        base, _ = self.snapshot(k - 1)
        sim = clone(base[variant])
        sim.rec.keep(first, last)
        self._run_step(k - 1, {variant: sim})
        return list(sim.rec.events or ())

    def back(self) -> bool:
        if self.step == 0:
            return False
        self.goto(self.step - 1)
        return True

    def run_to_end(self) -> None:
        while self.forward():
            pass

    # -- checks ------------------------------------------------------------------
    def evaluate(self, check: Check) -> CheckResult:
        sim = self.sims[check.variant]
        if check.kind == "violation":
            found = any(v.name == check.name for v in sim.rec.violations)
            ok = found == check.present
            want = "reported" if check.present else "not reported"
            return CheckResult(check, ok, found, f"{check.variant}: violation {check.name} {want}"
                               + ("" if ok else f" (it was {'reported' if found else 'not reported'})"))
        if check.kind == "metric":
            actual = sim.metrics().get(check.name)
        elif check.name == "swiotlb_bounce_bytes":
            actual = sim.rec.bounce_bytes
        else:
            actual = sim.rec.counts.get(check.name, 0)
        ok = actual is not None and _OPS[check.op](actual, check.value)
        return CheckResult(check, ok, actual,
                           f"{check.variant}: {check.name} {check.op} {check.value:g}"
                           + ("" if ok else f" failed: it is {actual}"))

    def check_all(self) -> list[CheckResult]:
        self.run_to_end()
        return [self.evaluate(c) for c in self.lesson.checks]
