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

A jump further than the next step (`End`, the map, `--step`) runs only the
variants its frame shows (the step's own, and in compare mode its partner),
frozen only where it lands: the others, and the steps passed, are filled in
behind the reader (`behind`, then the lockstep walk), and `v`, compare and
the end screen ask for what is not there yet (`fill`).

Fast-forward runs a copy of the current step's snapshot n frames further;
each further fast-forward copies again before running, so a published
frame is never mutated. Any goto drops the fast-forward.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from models.call_cursor import CallCursor
from models.lesson.schema import Lesson
from models.replay import TRACED_TAIL, LessonRun, Snapshot, Thawed
from models.sim import Sim
from models.snapshot import clone
from models.trace import Counts, Event
from viz.same_moment import SameMoment

FF_CHUNK = 2_000          # frames per variant between two looks at the cancel flag
Progress = Callable[[int, int], None]      # (done, total): how far a long move has come

def quiet(done: int, total: int) -> None:
    """The progress report of a caller that shows none."""


def object_of(event: Event | None) -> str | None:
    """What `o` follows at this call: the first object it moved, else the one it touched."""
    if event is None:
        return None
    for t in event.transitions:
        moved: str = t.obj
        return moved
    touched: str = event.obj
    return touched or None


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
    own = getattr(lesson, "compare_pair", None)        # a learner's driver: beside the variant it stands in for
    if own is not None and (pair := own(shown)) is not None:
        mine: tuple[str, str] = pair
        return mine
    a = lesson.headline.before or names[0]
    b = lesson.headline.after or next(n for n in names if n != a)
    if shown not in (a, b):
        b = shown
    return (a, b)


def end_pair(lesson: Lesson) -> tuple[str, str] | None:
    """The two variants the lesson's point is about, or None for a lesson of one variant.

    The lesson's own `end_pair`; else its headline pair (the patch's before and after);
    else the variant its last step shows, beside the first (compare mode's pair there).
    """
    if len(lesson.end_pair) == 2:
        return lesson.end_pair[0], lesson.end_pair[1]
    if lesson.headline.before and lesson.headline.after:
        return lesson.headline.before, lesson.headline.after
    last = lesson.steps[-1].show if lesson.steps else next(iter(lesson.variants))
    return compare_pair(lesson, last)


class StepCounts(Mapping[str, Counts]):
    """Each variant's call counters after a step, read when asked: a variant filled in after the
    frame was made (a jump runs only the one it shows) has its figures there by then. One Counts
    per variant, the same object every time (the player keys its view states by its id)."""
    __slots__ = ("_snap", "_made")

    def __init__(self, snap: Snapshot | None) -> None:
        self._snap = snap                # the step's snapshot, filled in as variants reach it (None: no step)
        self._made: dict[str, Counts] = {}

    def __getitem__(self, variant: str) -> Counts:
        got = self._made.get(variant)
        if got is None:
            if self._snap is None:
                raise KeyError(variant)
            got = self._made.setdefault(variant, self._snap.counts(variant))
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._snap.cnt) if self._snap is not None else [])

    def __len__(self) -> int:
        return len(self._snap.cnt) if self._snap is not None else 0


class Openings:
    """Where each variant's event log opens at step k, read when asked (a variant filled in after
    the frame was made has its figures by then; reading them never runs the model)."""
    __slots__ = ("_run", "_k")

    def __init__(self, run: LessonRun, k: int) -> None:
        self._run, self._k = run, k

    def at(self, variant: str) -> int | None:
        """The step's first call; for a step that made none (a question's, or another variant's turn
        to be read), the first of the latest step that made some, among the steps the variant has
        passed (None: the set-up, or not known without running a step again)."""
        run, j = self._run, self._k
        while j >= 1:
            before, after = run.seq_at(j - 1, variant), run.seq_at(j, variant)
            if before is None or after is None:
                return None
            if after > before:
                return before + 1
            j -= 1
        return None


@dataclass(frozen=True)
class Frame:
    """What the screen shows after one move: never mutated once published."""
    lesson: Lesson
    step: int                       # lesson steps applied
    total: int
    extra: int                      # frames fast-forwarded beyond the step
    shown: str                      # variant the step shows
    sims: Mapping[str, Sim]         # every variant, read-only (shared with the run's snapshots)
    prev_counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)   # each variant's, the step before
    reached: bool = True            # the step's `run: until` happened within its limit
    cursor: int | None = None       # `shown` is stopped right after this call (event number); None: the step's end
    calls: dict[str, tuple[int, int]] = field(default_factory=dict)   # each variant's calls in the step: (first, last)
    landing: bool = True            # where the step lands (not a call stepped to): the player keeps it as ready
    opens: Openings | None = None   # where each variant's event log opens (None: at the newest calls)
    earlier: tuple[Event, ...] = ()  # following an object: its events found so far
    prior: Frame | None = None      # a step that asks a question: the step before's frame, which the
                                    # views show until the question is answered (however it was reached)

    @property
    def code_line(self) -> int | None:
        if self.step <= 0:
            return None
        return self.lesson.steps[self.step - 1].code or None

    @property
    def pos(self) -> tuple[int, int, int | None]:
        """Where the frame is: (step, frames fast-forwarded, call stopped after or None)."""
        return (self.step, self.extra, self.cursor)

    def call_index(self, variant: str | None = None) -> tuple[int, int] | None:
        """(the call `variant` is at, counted in the step; the step's calls); None: the step made none."""
        variant = variant or self.shown
        first, last = self.calls.get(variant, (1, 0))
        sim = self.sims.get(variant)
        if last < first or self.extra or sim is None:
            return None
        return sim.rec.seq - first + 1, last - first + 1


class Session:
    """A LessonRun and what the screen needs from it. Call only from one worker at a time."""

    def __init__(self, lesson: Lesson, trace: int = 400, sets: dict[str, Any] | None = None) -> None:
        self.lesson = lesson
        self.trace = trace
        self.sets = dict(sets or {})               # sandbox: parameters changed in every variant
        self.run: LessonRun | None = None      # built lazily: set-up itself can take a second
        self.cursor: CallCursor | None = None  # the same run, a kernel call at a time
        self.moment: SameMoment | None = None  # compare mode at a call: the other variant at the same moment
        self.step = 0                          # the lesson step last gone to
        self.extra = 0                         # frames fast-forwarded beyond it
        self._ff: dict[str, Sim] | None = None
        self._trails: dict[tuple[str, str], dict[int, Event]] = {}     # (variant, object) -> its events, by number
        self._priors: dict[int, Frame] = {}                # step -> its landing frame, shown by a question after it
        self.compare = False                   # the player compares two variants: a jump runs both
        self._end_failed = False               # running the last step ahead failed (ready_the_end)

    def _ensure(self) -> LessonRun:
        if self.run is None:
            self.run = LessonRun(self.lesson, sets=self.sets, trace=self.trace)
            self.cursor = CallCursor(self.run)
            gc.freeze()                        # what start-up made lives as long as the session: see frame_at
        return self.run

    def _cursor(self) -> CallCursor:
        self._ensure()
        assert self.cursor is not None
        return self.cursor

    @property
    def computed(self) -> int:
        """Lesson steps whose frames exist (-1 before the model is set up)."""
        return -1 if self.run is None else self.run.computed

    def needs(self, k: int, variant: str | None = None) -> tuple[str, ...]:
        """The variants a frame of step k reads: the one shown, and in compare mode its partner."""
        run = self._ensure()
        shown = variant or run.shown(k)
        return (shown, *((compare_pair(self.lesson, shown) or ()) if self.compare else ()))

    def frame_at(self, k: int, variant: str | None = None, cursor: int | None = -1, prior: bool = True) -> Frame:
        """The frame of lesson step k, computing up to it if needed.

        `variant`: the one shown (default: the step's). `cursor`: stop it right after that
        call; -1 (the default) is where the step lands: a step that runs `until` a call
        stops right after that call, any other at its end (None). A step that asks a
        question carries the step before's frame (`prior`), whatever way it is reached:
        a jump, `]` across its start, following an object into it.
        """
        run = self._ensure()
        k = max(0, min(run.total, k))
        # The variants this frame reads, each run alone to k if a jump has not run it there yet (the
        # step before, too, when a question there holds the screen or an `until` step re-runs from it).
        run.reach(k, self.needs(k, variant), keep=(k - 1, k))
        snap = run.at(k)
        sims, notes = snap.sims, snap.notes
        prev = StepCounts(run.at(k - 1) if k else None)
        reached = notes[-1].reached if notes else True
        landing = variant is None and cursor == -1
        shown = variant or run.shown(k)
        # Thawed here, off the UI thread: the variant shown and the one compare mode sets beside
        # it (others when `v` shows them). Thawed snapshots live as long as the session and never
        # change: frozen, Python's full collections skip them instead of walking them all again
        # (a repaint paused up to 50 ms). Frozen before anything short-lived is made below (a
        # step stopped at a call), after the young garbage is collected: frozen objects are never
        # collected, and a model's objects hold reference cycles.
        if sims.thaw(compare_pair(self.lesson, shown) or (shown,)):
            gc.collect(1)
            gc.freeze()
        if cursor == -1:
            cursor = notes[-1].at if notes and k and shown == run.shown(k) and notes[-1].at else None
        cur = self._cursor()
        calls = {v: cur.call_range(k, v, reachable=False)[:2] for v in sims}
        if cursor is not None and cursor >= calls[shown][1]:
            cursor = None
        if cursor is not None:
            sims = sims.replace(shown, cur.at_call(k, shown, cursor))
            cursor = sims[shown].rec.seq
            if self.compare and not landing:
                sims = self._beside(k, shown, sims)
        before = self._prior(k, shown) if prior else None
        return Frame(self.lesson, k, run.total, 0, shown, sims,
                     prev, reached, cursor, calls, landing, opens=Openings(run, k), prior=before)

    def _beside(self, k: int, shown: str, sims: Thawed) -> Thawed:
        """`sims` with compare mode's other variant stopped at the moment `shown` is stopped at
        (viz.same_moment), not at the step's end."""
        other = next((v for v in compare_pair(self.lesson, shown) or () if v != shown), None)
        recent = sims[shown].rec.recent(1)
        if other is None or other not in sims or not recent:
            return sims
        if self.moment is None:
            self.moment = SameMoment(self._cursor())
        seq = self.moment.call(k, other, recent[-1].t_ns)
        return sims if seq is None else sims.replace(other, self._cursor().at_call(k, other, seq))

    def _prior(self, k: int, shown: str) -> Frame | None:
        """Step k-1's landing frame when step k asks a question, with `shown` thawed (kept: it never changes)."""
        if k < 1 or self.lesson.steps[k - 1].ask is None:
            return None
        got = self._priors.get(k - 1)
        if got is None:
            got = self._priors[k - 1] = self.frame_at(k - 1, prior=False)
        if isinstance(got.sims, Thawed):     # always, for a frame_at's (a fast-forward's are plain)
            got.sims.thaw((shown,))
        return got

    def step_call(self, k: int, variant: str, at: int, delta: int, follow: str | None = None,
                  cancelled: Callable[[], bool] = lambda: False) -> tuple[Frame | None, str]:
        frame, why = self._step_call(k, variant, at, delta, follow, cancelled)
        if frame is not None:
            self.step = frame.step
        return frame, why

    def _step_call(self, k: int, variant: str, at: int, delta: int, follow: str | None,
                   cancelled: Callable[[], bool]) -> tuple[Frame | None, str]:
        """One kernel call forward (delta 1) or back (-1) from call `at` of step k, across step ends.

        With `follow`, the next (previous) call that moves that object instead. Returns the
        frame and "" (or what the move passed over, to be said), or, when there is nowhere to
        go, None and why.
        """
        run = self._ensure()
        self.extra, self._ff = 0, None
        k = max(0, min(run.total, k))
        if follow:
            return self._follow(run, k, variant, at, delta, follow, cancelled)
        cur = self._cursor()
        first, last, reachable = cur.call_range(k, variant)
        target = at + delta
        if k and reachable <= target <= last:
            return self.frame_at(k, variant, target), ""
        # Back from a long step's first recorded call: its head ran untraced and cannot be stopped in,
        # so `[` crosses it to the step before's last call (as from any step's first call) and says so.
        # (It used to stay put: press after press did nothing where the same key elsewhere moves.)
        passed = (f"step {k}'s first {reachable - first:,} calls ran untraced (a long step records only "
                  f"its last {TRACED_TAIL} frames): [ went to the step before"
                  if delta < 0 and k and first < reachable <= at else "")
        j = k + delta
        while 1 <= j <= run.total and not cancelled():
            shown = run.shown(j)        # across a step's end, the step's own variant (not one `v` picked)
            f, lst, r = cur.call_range(j, shown)
            if lst >= r:
                return self.frame_at(j, shown, r if delta > 0 else None), passed
            j += delta
        return None, "the last call of the lesson" if delta > 0 else "the first call of the lesson"

    def _follow(self, run: LessonRun, k: int, variant: str, at: int, delta: int, follow: str,
                cancelled: Callable[[], bool]) -> tuple[Frame | None, str]:
        j = max(1, k)
        while 1 <= j <= run.total and not cancelled():
            shown = variant if j == k else run.shown(j)     # another step: its own variant
            trail = self._trails.setdefault((shown, follow), {})
            found = self._cursor().moves_of(j, shown, follow)
            trail.update((e.seq, e) for e in found)
            seqs = [e.seq for e in found]
            if j == k:
                seqs = [q for q in seqs if (q > at if delta > 0 else q < at)]
            if seqs:
                frame = self.frame_at(j, shown, seqs[0] if delta > 0 else seqs[-1])
                return replace(frame, earlier=tuple(trail[q] for q in sorted(trail))), ""
            j += delta
        return None, (f"{follow} makes no {'further' if delta > 0 else 'earlier'} move in this lesson's "
                      f"recorded calls")

    def goto(self, k: int, cancelled: Callable[[], bool] = lambda: False, progress: Progress = quiet,
             frame: bool = True) -> Frame | None:
        """Go to lesson step k, clean (any fast-forward is dropped); None if cancelled on the way.

        The next step runs every variant and keeps it (the step after is computed ahead
        meanwhile). A jump further runs only the variants its frame shows, frozen only
        where it lands (LessonRun.reach); the rest is filled in behind the reader.
        `progress(done, total)` is told after each step computed on the way. `frame=False`
        only moves there and returns None: the UI already shows that step's ready frame, and
        building it again (a step that runs `until` a call re-runs itself to stop there) would
        take the GIL from the repaint it is doing.
        """
        run = self._ensure()
        k = max(0, min(run.total, k))
        self.step, self.extra, self._ff = k, 0, None
        if k > run.computed + 1:
            if not run.reach(k, self.needs(k), keep=(k - 1, k), progress=progress, cancelled=cancelled):
                return None
        elif run.computed < k:
            run.stored(k)
            progress(1, 1)
        if cancelled():
            return None
        return self.frame_at(k) if frame else None

    def fill(self, k: int, names: tuple[str, ...] | None = None,
             cancelled: Callable[[], bool] | None = None) -> None:
        """Step k's `names` (default: every variant) frozen: those a jump did not run there."""
        run = self._ensure()
        run.reach(k, run.names if names is None else names, keep=(k,), cancelled=cancelled)

    def ahead(self) -> Frame:
        """The next step no walk has run whole, run so (every variant, frozen) and its frame."""
        run = self._ensure()
        k = run.computed + 1
        run.stored(k)
        return self.frame_at(k)

    def at_end_ready(self) -> bool:
        """The last step's own variant is frozen (`End` shows it without running the model), or
        running it ahead failed (the reader meets the error where it happens, not here)."""
        run = self._ensure()
        return self._end_failed or run.has(run.total, run.shown(run.total))

    def ready_the_end(self, cancelled: Callable[[], bool] | None = None) -> None:
        """Run the last step's own variant there, alone (what `End` would run), frozen only there.

        Nobody asked for it: a model error on the way (a learner's driver raising) is kept for
        the step it happens in, where the reader will meet it, and this is not tried again."""
        run = self._ensure()
        try:
            run.reach(run.total, self.needs(run.total), keep=(run.total - 1, run.total), cancelled=cancelled)
        except Exception:
            self._end_failed = True

    def behind(self) -> tuple[int, tuple[str, ...] | None] | None:
        """What a jump left undone that the reader is likeliest to want next, as Session.fill's (step,
        variants): the step before's own variant (←), then every variant of the step on screen (`v`,
        compare, the end screen's pair). None when both are there."""
        run = self._ensure()
        k = self.step
        if k >= 1 and not run.has(k - 1, run.shown(k - 1)):
            return k - 1, (run.shown(k - 1),)
        if not run.full(k):
            return k, None
        return None

    def fast_forward(self, n: int, cancelled: Callable[[], bool] = lambda: False,
                     progress: Progress = quiet) -> Frame | None:
        """Run every variant n more frames beyond the current step (not snapshotted).

        `progress(done, n)` is told after each chunk of FF_CHUNK frames.
        """
        run = self._ensure()
        run.reach(self.step, run.names)
        notes = run.at(self.step).notes
        # a published frame is never run on: a copy of the last fast-forward, or fresh from the step
        sims = clone(self._ff) if self._ff else {v: run.fresh(self.step, v) for v in run.names}
        done = 0
        while done < n and not cancelled():
            chunk = min(FF_CHUNK, n - done)
            for sim in sims.values():
                sim.run_frames(chunk)
            done += chunk
            progress(done, n)
        self._ff, self.extra = sims, self.extra + done
        snap = run.at(self.step)
        prev = {v: snap.counts(v) for v in snap.cnt}
        reached = notes[-1].reached if notes else True
        return Frame(self.lesson, self.step, run.total, self.extra, run.shown(self.step), sims, prev, reached)
