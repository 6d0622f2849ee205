"""Replaying a lesson: its variants step by step, with exact step-back.

All variants receive the same number of frames at every step (the step's
`run` decides how many, on the variant the step shows), so a compare view
is always fair. Going back is exact: after a step its variants are
snapshotted; going to step k restores the nearest snapshot at or before k
and replays forward deterministically.

A snapshot is kept as bytes, one blob per variant (models.step_snapshot),
with the few figures read without the model (each variant's call counters,
event number and frames). A variant is thawed the first time something
reads it and kept.

The variants are separate models: only an `until` step's lead decides
something for the others, the frames that step runs. So a jump far ahead
(`End`, a step picked on the map) runs only the variants it will show, and
freezes them only where it lands (`reach`): a frozen copy costs about as
much as running a short step. The rest is filled in afterwards, a step at a
time, by the lockstep walk (`stored`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

from .calls import CALL_ID
from .drivers import variant_sim
from .lesson.schema import Check, Lesson, Run, Step
from .lifecycle import TRANSITION_EDGES
from .sim import Sim
from .step_snapshot import Snapshot, StepNote, Thawed
from .trace import Event, Recorder

__all__ = ["TRACED_TAIL", "CheckResult", "LessonRun", "Snapshot", "StepNote", "Thawed", "run_until", "until_count",
           "until_hit", "untraced"]

_OPS = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


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
    untraced(sim, lambda: sim.run_frames(frames - TRACED_TAIL))
    sim.run_frames(TRACED_TAIL)


def until_count(rec: Recorder, run: Run) -> int:
    """What an `until` run counts: its call, or with `from` the objects that call moved out of that state."""
    if not run.source:
        return rec.cnt[CALL_ID[run.call]]
    return sum(rec.moves[i] for i, (_, src, call, _) in enumerate(TRANSITION_EDGES)
               if call == run.call and src == run.source)


def run_until(sim: Sim, run: Run, goal: int, stop: int) -> bool:
    """Run `sim` frame by frame until `until_count` reaches `goal` (or the frame count `stop`).

    Without `from` it is Sim.run_until; with it the same loop reads the lifecycle moves, which an
    untraced run counts too (a call counts once however many objects it moves: the goal is one more).
    """
    if not run.source:
        return sim.run_until(run.call, goal=goal, stop=stop)
    while until_count(sim.rec, run) < goal and sim.processed < stop:
        before = (sim.processed, sim.engine.now, len(sim.engine))
        sim.run_frames(1)
        if (sim.processed, sim.engine.now, len(sim.engine)) == before:
            break
    return until_count(sim.rec, run) >= goal


def until_hit(ev: Event, run: Run) -> bool:
    """`ev` is a call an `until` run stops after: its call, moving an object out of `from` if given."""
    return ev.call == run.call and (not run.source or any(t.src == run.source for t in ev.transitions))


def untraced(sim: Sim, run: Callable[[], object]) -> None:
    """`run()` with the events off; afterwards they are on again, numbered as in a traced run."""
    sim.rec.set_tracing(False)
    try:
        run()
    finally:
        sim.rec.set_tracing(True)


class LessonRun:
    """A lesson's variants stepped through, every step snapshotted (see the module's docstring).

    Two ways forward. `forward`/`goto` move every variant in lockstep, one step at
    a time, freezing each (`stored(k)` walks so). `reach(k, names)` brings only some
    variants to step k, each from the nearest step it is frozen at, freezing them
    there and keeping only their figures at the steps between: the player's jump,
    which needs the variant it shows, not the lesson's every step of every variant.
    """

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
        self._notes: dict[int, StepNote] = {}         # step -> its note, once its lead has run it
        self._snaps: dict[int, Snapshot] = {}
        for name, sim in self.sims.items():
            self._snap_at(0).record(name, sim, keep=True)
        self._full = 0                                 # steps 0.._full hold every variant frozen

    def _fresh(self) -> dict[str, Sim]:
        out = {}
        for name in self.names:
            prm = self.lesson.params_for(name)
            prm.update(self.sets)
            # A variant may be built by a factory the lesson object carries (a learner's own driver,
            # models.driver.lesson); lesson files never supply one.
            make = getattr(self.lesson, "factories", {}).get(name)
            out[name] = (make(prm, trace=self.trace) if make is not None
                         else variant_sim(prm, runs=self.lesson.runs.get(name, ""), trace=self.trace,
                                          faults=self.lesson.faults_for(name, self.faults)))
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

    def _run_step(self, index: int, sims: dict[str, Sim]) -> StepNote:  # noqa: C901 (older than the complexity rule)
        """Step index+1 on `sims`: every variant runs what the step says, the lead deciding `until`."""
        step = self.lesson.steps[index]
        run = step.run
        note = StepNote(index + 1, 0)
        if run is not None:
            lead_name = self.lead(step)
            if run.kind == "frames":
                for sim in sims.values():
                    _run_traced_tail(sim, run.frames)
                note.frames = run.frames
            elif run.kind == "until":
                if lead_name in sims:
                    lead = sims[lead_name]
                    start = lead.processed
                    note.reached = run_until(lead, run, until_count(lead.rec, run) + run.count, start + run.limit)
                    note.frames = lead.processed - start
                    if note.reached and lead.rec.events:
                        # The moment the step is about: the call it ran until (the rest of that
                        # frame's calls follow it in the same step).
                        note.at = next((e.seq for e in reversed(lead.rec.events) if until_hit(e, run)), 0)
                else:                       # a run of other variants alone: the lead decided
                    note.frames = self._notes[index + 1].frames
                for name, sim in sims.items():
                    if name != lead_name:
                        _run_traced_tail(sim, note.frames)
            elif run.kind == "teardown":
                for sim in sims.values():
                    sim.teardown(run.wait_ns)
        return note

    def _decides(self, index: int, sims: Collection[str]) -> bool:
        """Running step index+1 on `sims` gives the step's own note (its lead runs it, or it has no `until`)."""
        run = self.lesson.steps[index].run
        return run is None or run.kind != "until" or self.lead(self.lesson.steps[index]) in sims

    def _snap_at(self, k: int) -> Snapshot:
        """Step k's snapshot, made (empty) the first time: the notes of every step up to k are known by then."""
        snap = self._snaps.get(k)
        if snap is None:
            snap = Snapshot(self.names, [self._notes[i] for i in range(1, k + 1)])
            self._snaps[k] = snap
        return snap

    def _apply(self, index: int) -> None:
        try:
            note = self._run_step(index, self.sims)
        except BaseException:
            # The step failed half-way (a bug, a learner's driver raising): what it left is no step's
            # state; the next try starts again from the snapshot before it.
            snap = self._snaps[self.step]
            self.sims = {name: snap.fresh(name) for name in self.names}
            raise
        self._notes.setdefault(index + 1, note)
        self.notes.append(self._notes[index + 1])
        self.step = index + 1
        snap = self._snap_at(self.step)      # a replay reaches the same state: what is kept stays
        for name, sim in self.sims.items():
            snap.record(name, sim, keep=True)
        self._count_full()

    def _count_full(self) -> None:
        while self._full + 1 in self._snaps and self._snaps[self._full + 1].full:
            self._full += 1

    def forward(self) -> bool:
        if self.step >= self.total:
            return False
        self._apply(self.step)
        return True

    def goto(self, k: int) -> None:
        """Go to step k (0..total), every variant: restore the nearest full snapshot, replay the rest."""
        k = max(0, min(self.total, k))
        base = max(i for i in range(self._full + 1) if i <= k)
        snap = self._snaps[base]
        self.sims = {name: snap.fresh(name) for name in self.names}
        self.notes = list(snap.notes)
        self.step = base
        while self.step < k:
            self._apply(self.step)

    def lead(self, step: Step) -> str:
        """The variant a step shows: the one whose `until` decides how far every variant runs."""
        return step.show or self.names[0]

    @property
    def computed(self) -> int:
        """Steps snapshotted whole so far: every variant of every step up to this one reads back without running."""
        return self._full

    def stored(self, k: int) -> Snapshot:
        """Step k's snapshot with every variant frozen, running forward to it first if needed."""
        k = max(0, min(self.total, k))
        while self._full < k:
            if self.step != self._full:
                self.goto(self._full)
            self.forward()
        return self._snaps[k]

    def at(self, k: int) -> Snapshot:
        """Step k's snapshot as far as it is made (after `reach` or `stored` for it): the variants run to it."""
        return self._snaps[max(0, min(self.total, k))]

    def full(self, k: int) -> bool:
        """Every variant is frozen at step k."""
        snap = self._snaps.get(k)
        return k <= self._full or (snap is not None and snap.full)

    def has(self, k: int, name: str) -> bool:
        """Variant `name` is frozen at step k."""
        snap = self._snaps.get(k)
        return snap is not None and name in snap.blobs

    def seq_at(self, k: int, name: str) -> int | None:
        """The events variant `name` had numbered after step k, if it has passed that step (kept or not)."""
        snap = self._snaps.get(k)
        return snap.seq.get(name) if snap is not None else None

    def reach(self, k: int, names: Iterable[str], keep: Collection[int] = (),  # noqa: C901 (one walk; its parts share the plan)
              progress: Callable[[int, int], None] | None = None,
              cancelled: Callable[[], bool] | None = None) -> bool:
        """Freeze `names` at step k, each run alone from the nearest step it is frozen at.

        The steps passed keep each variant's figures, and its frozen copy only where
        `keep` says. An `until` step passed whose note is not known yet runs its lead
        too, as far as that step. `progress(done, total)` hears of each step run;
        False if `cancelled()` stopped it on the way (what was done stays done).
        """
        k = max(0, min(self.total, k))
        asked = set(names)
        stop = {name: k for name in self.names if name in asked and not self.has(k, name)}
        for i in range(k, 0, -1):               # leads of `until` steps not yet decided
            step = self.lesson.steps[i - 1]
            if i not in self._notes and not self._decides(i - 1, ()):
                lead = self.lead(step)
                stop.setdefault(lead, i)
        if not stop:
            return True
        start = {name: max(j for j in self._snaps if j <= last and name in self._snaps[j].blobs)
                 for name, last in stop.items()}
        sims = {name: self._snaps[j].fresh(name) for name, j in start.items()}
        first = min(start.values())
        for i in range(first, k):
            if cancelled is not None and cancelled():
                return False
            running = {name: sim for name, sim in sims.items() if start[name] <= i < stop[name]}
            if not running:
                continue
            note = self._run_step(i, running)
            if self._decides(i, running):
                self._notes.setdefault(i + 1, note)
            snap = self._snap_at(i + 1)
            for name, sim in running.items():
                snap.record(name, sim, keep=i + 1 in keep or i + 1 == stop[name] == k)
            if progress is not None:
                progress(i + 1 - first, k - first)
        self._count_full()
        return True

    def snapshot(self, k: int) -> tuple[Thawed, list[StepNote]]:
        """The model as it was after step k, every variant, running forward to it first if needed.

        The sims returned are shared with the run, not a copy: callers must only
        read them (a view, a frame on screen). Reading never changes a Sim, and
        `goto` and `fresh` thaw a copy of their own to run on.
        """
        snap = self.stored(k)
        return snap.sims, snap.notes

    def fresh(self, k: int, variant: str) -> Sim:
        """A new copy of `variant` as it was after step k, to run on (that variant alone run to it if needed)."""
        self.reach(k, (variant,))
        return self.at(k).fresh(variant)

    def note(self, k: int) -> StepNote:
        """Step k's note (1 ≤ k ≤ total), its lead run to it first if needed."""
        if k not in self._notes:
            self.reach(k, (self.lead(self.lesson.steps[k - 1]),))
        return self._notes[k]

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
            found = check.name in sim.rec.violations.counts
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
