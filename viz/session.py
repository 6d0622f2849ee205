"""The player's model side: a `LessonRun` driven off the UI thread, published as frozen frames.

A lesson step can cost seconds of simulation (four variants of a strict-IOMMU
NIC for 2 000 frames), so the player never runs the model on Textual's event
loop. A worker thread owns the `LessonRun`; after each move it publishes a
`Frame` holding *copies* of the variants on screen. Views only ever read
those copies, so nothing they draw can change under them while the next
step runs, and a frame is never mutated once published.

Moves are queued as ops ("goto", k) / ("ff", n); consecutive gotos collapse
to the last one, so a presenter's clicker pressed three times during a slow
step lands on the third step without drawing the two in between.

Fast-forward runs every variant n frames beyond the current lesson step
without snapshotting; any later goto restores a clean lesson step from the
run's snapshots, which keeps stepping back exact.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from models.lesson.schema import Lesson
from models.replay import LessonRun
from models.sim import Sim

FF_CHUNK = 2_000          # frames per variant between two looks at the cancel flag

# The order views are offered in when a step does not focus one.
ORDER = ("ring", "bus", "napi", "memory", "pool", "skbcache", "counters", "log", "graph", "code")


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
        "graph": True,
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
    sims: dict[str, Sim]            # copies of the variants on screen
    prev_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    reached: bool = True            # the step's `run: until` happened within its limit

    @property
    def code_line(self) -> int | None:
        if self.step <= 0:
            return None
        return self.lesson.steps[self.step - 1].code or None


class Session:
    """A LessonRun and what the screen needs from it. Call only from one worker at a time."""

    def __init__(self, lesson: Lesson, trace: int = 400) -> None:
        self.lesson = lesson
        self.trace = trace
        self.run: LessonRun | None = None      # built lazily: set-up itself can take a second
        self.extra = 0
        self.counts_at: dict[int, dict[str, dict[str, int]]] = {}

    def _ensure(self) -> LessonRun:
        if self.run is None:
            self.run = LessonRun(self.lesson, trace=self.trace)
            self._remember()
        return self.run

    def _remember(self) -> None:
        run = self.run
        if run is not None and not self.extra and run.step not in self.counts_at:
            self.counts_at[run.step] = {v: dict(s.rec.counts) for v, s in run.sims.items()}

    def goto(self, k: int, cancelled=lambda: False) -> None:
        """Go to lesson step k, clean (any fast-forward is dropped)."""
        run = self._ensure()
        k = max(0, min(run.total, k))
        if self.extra or k < run.step:
            run.goto(k)
            self.extra = 0
            self._remember()
        while run.step < k and not cancelled():
            run.forward()
            self._remember()

    def fast_forward(self, n: int, cancelled=lambda: False) -> None:
        """Run every variant n more frames beyond the current step (not snapshotted)."""
        run = self._ensure()
        self.counts_at.setdefault(run.step, {v: dict(s.rec.counts) for v, s in run.sims.items()})
        done = 0
        while done < n and not cancelled():
            chunk = min(FF_CHUNK, n - done)
            for sim in run.sims.values():
                sim.run_frames(chunk)
            done += chunk
            self.extra += chunk

    def frame(self, variants: tuple[str, ...] = ()) -> Frame:
        """Publish the current state: copies of the shown variant and of `variants`."""
        run = self._ensure()
        shown = run.shown()
        names = dict.fromkeys((shown, *variants))
        sims = {v: copy.deepcopy(run.sims[v]) for v in names if v in run.sims}
        if self.extra:
            prev = self.counts_at.get(run.step, {})
        else:
            prev = self.counts_at.get(run.step - 1, {})
        reached = run.notes[-1].reached if run.notes else True
        return Frame(self.lesson, run.step, run.total, self.extra, shown, sims, prev, reached)
