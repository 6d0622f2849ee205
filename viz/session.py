"""The player's model side: a `LessonRun` driven off the UI thread, published as frozen frames.

A lesson step can cost seconds of simulation (four variants of a strict-IOMMU
NIC for 2 000 frames), so the player never runs the model on Textual's event
loop. A worker thread owns the `LessonRun`. After each lesson step the run
keeps a deep-copied snapshot of every variant (that is what makes stepping
back exact), and a `Frame` simply *shares* that snapshot: it is never run
again, so views can read it while the worker computes the next step, and
publishing a frame costs no copy at all.

Because a frame is that cheap, the worker also computes ahead: while the
reader looks at step k it runs step k+1, so pressing → shows a frame that
already exists and the step costs only its repaint.

Fast-forward runs a copy of the current step's snapshot n frames further;
each further fast-forward copies again before running, so a published
frame is never mutated. Any goto drops the fast-forward.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field

from models.lesson.schema import Lesson
from models.replay import LessonRun
from models.sim import Sim
from models.snapshot import clone

FF_CHUNK = 2_000          # frames per variant between two looks at the cancel flag

def quiet(done: int, total: int) -> None:
    """The progress report of a caller that shows none."""


# The order views are offered in when a step does not focus one.
ORDER = ("ring", "bus", "napi", "memory", "pool", "skbcache", "counters", "log", "machine", "passport", "code")


def views_for(lesson: Lesson) -> tuple[str, ...]:
    """The views this lesson's scenario needs, computed from its variants' parameters.

    A descriptor ring exists only on PCIe, a bus timeline only on SDIO/USB, a
    page_pool only when a variant uses one, the NAPI skb cache only when a
    variant builds or frees heads through it. Any view a step focuses is
    always included.
    """
    prm = [lesson.params_for(v) for v in lesson.variants]
    pcie = any(p.get("bus", "pcie") == "pcie" for p in prm)
    want = {
        "ring": pcie,
        "bus": any(p.get("bus", "pcie") != "pcie" for p in prm),
        "napi": True,
        "memory": pcie,
        "pool": any(p.get("strategy") == "page-pool" and p.get("bus", "pcie") == "pcie" for p in prm),
        "skbcache": any(p.get("skb_alloc") == "napi_build_skb" or p.get("tx_free") == "napi_consume_skb"
                        for p in prm),
        "counters": True,
        "log": True,
        "machine": True,
        "passport": True,
        "code": bool(lesson.pseudocode),
    }
    for step in lesson.steps:
        if step.focus:
            want[step.focus] = True
    return tuple(k for k in ORDER if want.get(k))


def compare_pair(lesson: Lesson, shown: str) -> tuple[str, str] | None:
    """The two variants compare mode sets side by side: the headline pair, else the first two.

    When the step shows a third variant (atlantic's after-no-fix), it replaces
    the second one, so the variant the narration talks about is always on screen.
    """
    names = list(lesson.variants)
    if len(names) < 2:
        return None
    a = lesson.headline.before or names[0]
    b = lesson.headline.after or next(n for n in names if n != a)
    if shown not in (a, b):
        b = shown
    return (a, b)


@dataclass(frozen=True)
class Frame:
    """What the screen shows after one move: never mutated once published."""
    lesson: Lesson
    step: int                       # lesson steps applied
    total: int
    extra: int                      # frames fast-forwarded beyond the step
    shown: str                      # variant the step shows
    sims: dict[str, Sim]            # every variant, read-only (shared with the run's snapshots)
    prev_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    reached: bool = True            # the step's `run: until` happened within its limit

    @property
    def code_line(self) -> int | None:
        if self.step <= 0:
            return None
        return self.lesson.steps[self.step - 1].code or None


class Session:
    """A LessonRun and what the screen needs from it. Call only from one worker at a time."""

    def __init__(self, lesson: Lesson, trace: int = 400, sets: dict | None = None) -> None:
        self.lesson = lesson
        self.trace = trace
        self.sets = dict(sets or {})               # sandbox: parameters changed in every variant
        self.run: LessonRun | None = None      # built lazily: set-up itself can take a second
        self.step = 0                          # the lesson step last gone to
        self.extra = 0                         # frames fast-forwarded beyond it
        self._ff: dict[str, Sim] | None = None

    def _ensure(self) -> LessonRun:
        if self.run is None:
            self.run = LessonRun(self.lesson, sets=self.sets, trace=self.trace)
            gc.freeze()                        # see _snapshot
        return self.run

    @property
    def computed(self) -> int:
        """Lesson steps whose frames exist (-1 before the model is set up)."""
        return -1 if self.run is None else self.run.computed

    def _snapshot(self, k: int):
        """Step k's stored state (sims, notes), running the model up to it if needed."""
        run = self._ensure()
        known = run.computed
        snap = run.snapshot(k)
        if run.computed != known:
            # Snapshots live as long as the session and never change; without this, Python's
            # full collections walk all of them again and again, pausing a repaint for up to
            # 50 ms. Frozen objects are skipped by the collector (reference counting still
            # frees them).
            gc.freeze()
        return snap

    def frame_at(self, k: int) -> Frame:
        """The clean frame of lesson step k, computing up to it if needed."""
        run = self._ensure()
        k = max(0, min(run.total, k))
        sims, notes = self._snapshot(k)
        prev = run.snapshot(k - 1)[0] if k else {}
        reached = notes[-1].reached if notes else True
        return Frame(self.lesson, k, run.total, 0, run.shown(k), sims,
                     {v: s.rec.counts for v, s in prev.items()}, reached)

    def goto(self, k: int, cancelled=lambda: False, progress=quiet) -> Frame | None:
        """Go to lesson step k, clean (any fast-forward is dropped); None if cancelled on the way.

        `progress(done, total)` is told after each step computed on the way.
        """
        run = self._ensure()
        k = max(0, min(run.total, k))
        self.step, self.extra, self._ff = k, 0, None
        start = run.computed
        while run.computed < k:
            if cancelled():
                return None
            self._snapshot(run.computed + 1)
            progress(run.computed - start, k - start)
        return self.frame_at(k)

    def fast_forward(self, n: int, cancelled=lambda: False, progress=quiet) -> Frame | None:
        """Run every variant n more frames beyond the current step (not snapshotted).

        `progress(done, n)` is told after each chunk of FF_CHUNK frames.
        """
        run = self._ensure()
        base, notes = run.snapshot(self.step)
        sims = clone(self._ff or base)      # a published frame is never run on
        done = 0
        while done < n and not cancelled():
            chunk = min(FF_CHUNK, n - done)
            for sim in sims.values():
                sim.run_frames(chunk)
            done += chunk
            progress(done, n)
        self._ff, self.extra = sims, self.extra + done
        prev = {v: s.rec.counts for v, s in base.items()}
        reached = notes[-1].reached if notes else True
        return Frame(self.lesson, self.step, run.total, self.extra, run.shown(self.step), sims, prev, reached)
