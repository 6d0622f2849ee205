"""Replaying a lesson: every variant in lockstep, step by step, with exact step-back.

All variants receive the same number of frames at every step (the step's
`run` decides how many, on the variant the step shows), so a compare view
is always fair. Going back is exact: after each step the whole model is
snapshotted; going to step k restores the nearest snapshot at or before k
and replays forward deterministically.

A snapshot is kept as bytes, one blob per variant (models.snapshot.freeze),
with the few figures read without the model (each variant's call counters,
event number and frames). A variant is thawed the first time something
reads it and kept: running ahead many steps (a jump, `End`) thaws only the
variant shown where it lands, and a re-run of one variant (call stepping)
thaws a copy of that variant alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .lesson.schema import Check, Lesson, Step
from .sim import Sim
from .snapshot import freeze, thaw

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
    untraced(sim, lambda: sim.run_frames(frames - TRACED_TAIL))
    sim.run_frames(TRACED_TAIL)


def untraced(sim: Sim, run: Callable[[], object]) -> None:
    """`run()` with the events off; afterwards they are on again, numbered as in a traced run."""
    sim.rec.set_tracing(False)
    try:
        run()
    finally:
        sim.rec.set_tracing(True)


class Snapshot:
    """The model after one lesson step: every variant frozen, each thawed once when first read."""
    __slots__ = ("blobs", "notes", "seq", "cnt", "processed", "sims")

    def __init__(self, sims: dict[str, Sim], notes: list[StepNote]) -> None:
        self.blobs = {name: freeze(sim) for name, sim in sims.items()}
        self.notes = notes
        self.seq = {name: sim.rec.seq for name, sim in sims.items()}            # events numbered so far
        self.cnt = {name: list(sim.rec.cnt) for name, sim in sims.items()}      # call counters, by id
        self.processed = {name: sim.processed for name, sim in sims.items()}
        self.sims = Thawed(self)

    def fresh(self, variant: str) -> Sim:
        """A new copy of one variant, to run on."""
        sim: Sim = thaw(self.blobs[variant])
        return sim


class Thawed(Mapping[str, Sim]):
    """A snapshot's variants by name, each thawed the first time it is read and kept, shared.

    The player shows one variant (two in compare): the others of a step it jumped to are
    never thawed. `replace` gives the same variants with one read as another Sim (a step
    stopped mid-way), sharing what is thawed.
    """
    __slots__ = ("_snap", "_got", "_over")

    def __init__(self, snap: Snapshot, got: dict[str, Sim] | None = None,
                 over: dict[str, Sim] | None = None) -> None:
        self._snap = snap
        self._got: dict[str, Sim] = {} if got is None else got
        self._over: dict[str, Sim] = over or {}

    def __getitem__(self, name: str) -> Sim:
        sim = self._over.get(name) or self._got.get(name)
        if sim is None:
            # setdefault: when two threads thaw the same variant at once, both get the one kept
            sim = self._got.setdefault(name, self._snap.fresh(name))
        return sim

    def thaw(self, names: Iterable[str]) -> bool:
        """Thaw these variants now (the caller's thread); True if any was not thawed yet."""
        new = [name for name in names if name in self._snap.blobs and name not in self._got]
        for name in new:
            self[name]
        return bool(new)

    def __iter__(self) -> Iterator[str]:
        return iter(self._snap.blobs)

    def __len__(self) -> int:
        return len(self._snap.blobs)

    def __contains__(self, name: object) -> bool:
        return name in self._snap.blobs

    def replace(self, name: str, sim: Sim) -> Thawed:
        return Thawed(self._snap, self._got, {**self._over, name: sim})


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
        self._snaps: dict[int, Snapshot] = {0: Snapshot(self.sims, [])}

    def _fresh(self) -> dict[str, Sim]:
        out = {}
        for name in self.names:
            prm = self.lesson.params_for(name)
            prm.update(self.sets)
            # A variant may be built by a factory the lesson object carries (a learner's own driver,
            # models.driver.lesson); lesson files never supply one.
            make = getattr(self.lesson, "factories", {}).get(name)
            out[name] = (make(prm, trace=self.trace) if make is not None
                         else Sim(prm, trace=self.trace, faults=self.lesson.faults_for(name, self.faults)))
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
                    note.reached = lead.run_until(run.call, run.count, run.limit)
                    note.frames = lead.processed - start
                    if note.reached and lead.rec.events:
                        # The moment the step is about: the call it ran until (the rest of that
                        # frame's calls follow it in the same step).
                        note.at = next((e.seq for e in reversed(lead.rec.events) if e.call == run.call), 0)
                else:                       # a re-run of another variant alone: the lead decided
                    note.frames = self._snaps[index + 1].notes[-1].frames
                for name, sim in sims.items():
                    if name != lead_name:
                        _run_traced_tail(sim, note.frames)
            elif run.kind == "teardown":
                for sim in sims.values():
                    sim.teardown(run.wait_ns)
        return note

    def _apply(self, index: int) -> None:
        try:
            note = self._run_step(index, self.sims)
        except BaseException:
            # The step failed half-way (a bug, a learner's driver raising): what it left is no step's
            # state; the next try starts again from the snapshot before it.
            snap = self._snaps[self.step]
            self.sims = {name: snap.fresh(name) for name in self.names}
            raise
        self.notes.append(note)
        self.step = index + 1
        if self.step not in self._snaps:     # a replay reaches the same state: keep the first copy
            self._snaps[self.step] = Snapshot(self.sims, list(self.notes))

    def forward(self) -> bool:
        if self.step >= self.total:
            return False
        self._apply(self.step)
        return True

    def goto(self, k: int) -> None:
        """Go to step k (0..total): restore the nearest snapshot, replay the rest."""
        k = max(0, min(self.total, k))
        base = max(i for i in self._snaps if i <= k)
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
        """Steps snapshotted so far: every step up to this one can be read back without running."""
        return max(self._snaps)

    def stored(self, k: int) -> Snapshot:
        """Step k's snapshot (frozen), running forward to it first if needed."""
        k = max(0, min(self.total, k))
        while k not in self._snaps:
            if self.step != self.computed:
                self.goto(self.computed)
            self.forward()
        return self._snaps[k]

    def snapshot(self, k: int) -> tuple[Thawed, list[StepNote]]:
        """The model as it was after step k, running forward to it first if needed.

        The sims returned are shared with the run, not a copy: callers must only
        read them (a view, a frame on screen). Reading never changes a Sim, and
        `goto` and `fresh` thaw a copy of their own to run on.
        """
        snap = self.stored(k)
        return snap.sims, snap.notes

    def fresh(self, k: int, variant: str) -> Sim:
        """A new copy of `variant` as it was after step k, to run on."""
        return self.stored(k).fresh(variant)

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
