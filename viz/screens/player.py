"""The player: a lesson's narration, the model views it needs, and the controls to step through it.

State flows down: a worker thread moves the model (viz.session) and hands
back a frozen `Frame`; `_show` sets the narration's step, the question, the
views' `ViewState`s and the status line from it. Events flow up: the
question posts `AskPanel.AnswerChosen`, tab clicks come from the deck.

A step that asks a question first shows the model as it was *before* the
step ran, so the views do not give the answer away: answering, or pressing
→ once, shows what happened (the step's own frame); the next → moves on.

Moves are requested, not performed, by the key handlers: they update the
position asked for (`want`) and queue the move (viz.step_queue), so keys stay
responsive while a slow step computes, and a burst of PageDowns from a
presenter's clicker lands on the right step. Steps the worker has already
computed (behind the reader, and one ahead) arrive as ready frames and are
shown at once, without a round trip through the worker.

`]` and `[` move one kernel call instead of one step: the worker runs the
step again and stops it right after that call (models.call_cursor),
so every view shows that moment and lights what that call touched (the
cursor, models.cursor). `o` follows the object the current call moved; `]`
and `[` then jump to that object's next and previous move, across steps, so
one buffer can be walked from its allocation to its free.

A question holds on every path into its step: each frame of a question step
carries the step before's (`Frame.prior`). The lesson map, the glossary and
asking a question again are viz.screens.wayfinding's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, TypeVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from models.lesson.schema import Ask, Lesson
from viz.course import Course, ShowLessons
from viz.notes import NotesPublisher
from viz.screens.player_host import CallMove
from viz.screens.presenting import Presenting
from viz.screens.stepping import CALL_SECONDS, CallStepping
from viz.screens.wayfinding import Wayfinding
from viz.session import Frame, Session, compare_pair, end_pair, views_for
from viz.step_queue import StepQueue
from viz.views.all import view_class
from viz.views.base import ModelView, ViewState
from viz.widgets import paper_vs_model as headline
from viz.widgets.ask import AskPanel
from viz.widgets.deck import ViewDeck
from viz.widgets.legend import Legend
from viz.widgets.narration import Narration
from viz.widgets.paper_vs_model import HeadlinePanel
from viz.widgets.pathstrip import PathStrip
from viz.widgets.prose import Prose
from viz.widgets.sandbox_bar import SandboxBar, moved
from viz.widgets.status import StatusLine

W = TypeVar("W", bound=Widget)

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
STEP_SECONDS = 2.0          # auto-advance interval at 1x
FF_MAX = 1_000_000
BUSY_AFTER = 0.15           # say "computing…" only when a move takes longer than this
# Views' states kept by their inputs: a step shown again (←, Home) gets the same state object,
# so each view finds the lines it drew for it (ModelView.RECENT) and only repaints. Enough for every
# step of a long lesson, a question step's held and revealed states and a variant or two picked with `v`.
STATES_KEPT = 40
NO_COUNTS: dict[str, int] = {}      # a variant's counters the step before step 0 (never written)


class PlayerScreen(Presenting, CallStepping, Wayfinding, Screen[None]):
    """One lesson, played step by step."""

    AUTO_FOCUS = ""       # every key is a screen binding; a focused view would only add a second highlight
    BINDINGS = [
        # The footer must fit 80 columns: ← and → share one entry, as [ and ] do.
        Binding("right,pagedown,n", "next", "step", key_display="←→", priority=True),
        Binding("left,pageup,p", "prev", "back", key_display="←", priority=True, show=False),
        Binding("right_square_bracket", "call(1)", "call", key_display="[ ]"),
        Binding("left_square_bracket", "call(-1)", "previous call", key_display="[", show=False),
        Binding("o", "follow", "follow the call's object", show=False),
        Binding("space", "toggle_play", "play/pause", priority=True, show=False),
        Binding("plus,equals_sign", "speed(1)", "faster", key_display="+", show=False),
        Binding("minus", "speed(-1)", "slower", key_display="−", show=False),
        Binding("g", "jump", "go to step", show=False),
        Binding("f", "fast_forward", "fast-forward", show=False),
        Binding("r", "reset", "reset", show=False),
        Binding("home", "goto(0)", "first step", show=False, priority=True),
        Binding("end", "goto(-1)", "last step", show=False, priority=True),
        Binding("down", "scroll_text(1)", "text", key_display="↑↓"),
        Binding("up", "scroll_text(-1)", "scroll the text up", key_display="↑", show=False),
        Binding("v", "cycle_variant", "variant"),
        Binding("s", "sandbox", "sandbox"),
        Binding("c", "toggle_compare", "compare"),
        Binding("z", "zoom", "zoom the view", show=False),
        Binding("b", "blank", "blank the screen", show=False),
        Binding("t", "restart_timer", "restart the talk timer", show=False),
        Binding("tab", "cycle(1)", "next view", priority=True, show=False),
        Binding("shift+tab", "cycle(-1)", "previous view", priority=True, show=False),
        Binding("escape", "lessons", "lessons", show=False),
        Binding("m", "lesson_map", "map"),
        Binding("w", "glossary", "glossary (words)", show=False),
        Binding("a", "retry", "ask the question again", show=False),
        *[Binding(str(i), f"answer({i - 1})", f"answer {i}", show=False) for i in range(1, 7)],
    ]

    def __init__(self, lesson: Lesson, course: Course, step: int = 0, compare: bool = False,
                 present: bool = False, notes: NotesPublisher | None = None) -> None:
        """`lesson` at `step`; `course` is where answers and progress go; `present` is presenter
        mode, whose `notes` (None: none) publishes each step for `rxviz notes`."""
        super().__init__()
        self.lesson = lesson
        self.course = course
        self.present = present
        self.notes = notes
        self.keys = views_for(lesson)
        self.moves = self._queue(Session(lesson))
        self.ready: dict[int, Frame] = {}        # clean step -> its frame, as the worker computed them
        self.lesson_ready: dict[int, Frame] = {}  # the lesson's own frames, kept while the sandbox runs
        self.sets: dict[str, Any] = {}           # sandbox: parameters changed from the lesson's
        self.variant: str | None = None          # `v`: the variant shown instead of the step's, until the next step
        self.revealed: set[int] = set()          # question steps whose outcome was shown without an answer
        self.want = (max(0, min(len(lesson.steps), step)), 0)     # (step, extra frames) asked for
        self.compare = self.moves.session.compare = compare
        self.frame: Frame | None = None
        self.seen: Frame | None = None           # what the views show (the step before, while a question waits)
        self.start_stepping()                    # ] [ o: viz.screens.stepping
        self.playing = False
        self.speed = 1.0
        self._timer: Timer | None = None
        self._busy_timer: Timer | None = None
        # The views' states lately used, by their inputs (see _state).
        self._states: dict[tuple[object, ...], ViewState] = {}
        self._twins: dict[tuple[object, ...], ViewState] = {}    # by its inputs but the question's: see _state
        self._headline_panels: list[HeadlinePanel] = []    # panels waiting for the headline run
        self._headline_share: float | None = None          # how far that run is; None: not running
        self._found: dict[tuple[type[Widget], str], Widget] = {}      # see _one

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Vertical(id="side"):
                yield Narration(self.lesson, self.present, id="narration")
                yield SandboxBar(id="sandbox-bar")
                yield AskPanel(id="ask")
                yield HeadlinePanel(self.lesson, id="headline")
                if "code" in self.keys:       # on a wide screen the pseudo-code sits under the text
                    yield view_class("code")(id="side-code")
                yield Legend(id="legend")
            yield ViewDeck(self.keys, aside=("code",), id="deck")
        yield PathStrip(id="pathstrip")
        yield StatusLine(id="status")
        yield Footer(compact=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Keys typed in a burst keep coming while the app shuts down (`q`, then the rest of a word) or
        # while this screen is taken down for the lesson list: its widgets go one by one (the status
        # line before the body), and an action would reach for one already gone. Only the four
        # top-level children are looked at: this runs for every key and every footer refresh.
        return any(isinstance(child, StatusLine) for child in self.children)

    def _one(self, kind: type[W], selector: str = "") -> W:
        """The screen's widget of `kind` (and `selector`), looked up once: a query walks the whole
        screen (~100 widgets), and a step asks for some ten of them, a few ms of every key."""
        key = (kind, selector)
        got = self._found.get(key)
        if got is None or not got.is_attached:
            got = self._found[key] = self.query_one(selector, kind) if selector else self.query_one(kind)
        assert isinstance(got, kind)
        return got

    @property
    def side_code(self) -> ModelView | None:
        """The pseudo-code beside the deck (shown on a wide screen), if the lesson has pseudo-code."""
        return self._one(ModelView, "#side-code") if "code" in self.keys else None

    def on_mount(self) -> None:
        self.query_one(AskPanel).display = False
        self.query_one(HeadlinePanel).display = False
        self.query_one(SandboxBar).display = False
        self.start_presenting()
        self.goto(self.want[0])

    # -- moving the model (worker thread) ------------------------------------------
    def _queue(self, session: Session) -> StepQueue:
        session.compare = getattr(self, "compare", False)     # a jump runs the pair compare shows
        queue = StepQueue(session, lambda: self._drain(queue))
        return queue

    def _request(self, kind: str, n: int | CallMove = 0) -> None:
        self.moves.request(kind, n)
        if kind != "seen":
            self._say_busy_later()

    @work(thread=True, group="model", exit_on_error=True)
    def _drain(self, queue: StepQueue) -> None:
        worker = get_current_worker()

        def mine(fn: Callable[..., None]) -> Callable[..., None]:
            # A queue the sandbox replaced may still finish a step: drop what it hands over.
            return lambda *args: fn(*args) if queue is self.moves else None
        queue.drain(self.app.call_from_thread, mine(self._on_frame), mine(self._on_ready),
                    lambda: worker.is_cancelled, mine(self._on_progress), mine(self._on_error),
                    mine(self._on_note))

    def _on_error(self, kind: str, step: int, exc: BaseException) -> None:
        """The model failed: one line with the lesson and step, and the player stays usable."""
        what = " ".join(f"{type(exc).__name__}: {exc}".split())
        where = f"fast-forward after step {step}" if kind == "ff" else f"step {step}/{len(self.lesson.steps)}"
        told = getattr(self.lesson, "explain", lambda exc: None)(exc)    # a learner's driver (viz.exercises.play)
        if told is not None:
            self.notify(told.text, title=f"{where}: your driver failed", severity="error", timeout=30, markup=False)
        if self._busy_timer is not None:
            self._busy_timer.stop()
        self._set_playing(False)
        self.call_pending = False
        status = self.query_one(StatusLine)
        status.busy, status.progress = "", None
        status.error = (f"{where}: {told.line}" if told is not None
                        else f"model error in {self.lesson.id}, {where}: {what}")
        self.log.error(status.error)
        if self.frame is not None:              # stay where we are: nothing is awaited any more
            self.want = (self.frame.step, self.frame.extra)

    def _on_progress(self, done: int, total: int) -> None:
        # Only while the reader waits for it: computing ahead is not something to watch.
        if self.waiting and total > 0:
            self.query_one(StatusLine).progress = min(1.0, done / total)

    def _on_ready(self, frame: Frame) -> None:
        self.ready[frame.step] = frame
        if self.waiting and not self.call_pending and self.want == (frame.step, 0):
            self._show(frame)                   # asked for while it was computing ahead
        elif self.frame is not None and frame.step == self.frame.step + 1:
            self.call_after_refresh(self._prepare_next)
            if frame.step == self.lesson.payoff_step:
                self._start_headline()          # the payoff is next: its run too, while the reader reads

    def _on_frame(self, frame: Frame) -> None:
        if frame.landing and not frame.extra:
            self.ready[frame.step] = frame
        if self.call_pending and not frame.landing:
            self.call_pending = False           # the call asked for: that is where we are now
            self.want = (frame.step, 0)
            self._show(frame, keep=True)
        elif self.waiting and (frame.step, frame.extra) == self.want:    # else moved on, or already shown
            self._show(frame)

    @property
    def waiting(self) -> bool:
        """The position asked for is not on screen yet."""
        return self.frame is None or self.call_pending or (self.frame.step, self.frame.extra) != self.want

    def _say_busy_later(self) -> None:
        """Say "computing…" if the frame asked for has not come within BUSY_AFTER."""
        if self._busy_timer is not None:
            self._busy_timer.stop()

        def say_busy() -> None:
            if self.waiting:
                step, extra = self.want
                label = (f"fast-forwarding {extra:,} frames…" if extra
                         else "running the step to that call…" if self.call_pending
                         else f"computing step {step}/{len(self.lesson.steps)}…")
                self.query_one(StatusLine).busy = label

        self._busy_timer = self.set_timer(BUSY_AFTER, say_busy)

    # -- state coming down ------------------------------------------------------------
    def holding(self, frame: Frame | None = None) -> bool:
        """The frame's step asks a question not answered yet: the views show the step before.

        However the step was reached (→, a jump, the map, the palette, `]` across its
        start, following an object into it), its frame carries the step before's
        (`Frame.prior`), so the hold never depends on what was computed first.
        """
        frame = frame or self.frame
        if frame is None or frame.extra or not frame.step or frame.step in self.revealed:
            return False
        spec = self.lesson.steps[frame.step - 1]
        return spec.ask is not None and (self.lesson.id, frame.step) not in self.course.answers

    def _held(self, frame: Frame) -> Frame:
        """What the views show while `frame`'s question waits: the step before, as it was shown."""
        return frame.prior or self.ready.get(frame.step - 1) or frame

    def answered(self, step: int) -> bool:
        """The question of `step` was answered or its outcome revealed (or it asks none)."""
        spec = self.lesson.steps[step - 1] if 1 <= step <= len(self.lesson.steps) else None
        return (spec is None or spec.ask is None or step in self.revealed
                or (self.lesson.id, step) in self.course.answers)

    def _asked_ahead(self, variant: str | None, step: int, revealing: int = 0, within: int = 10_000) -> list[Ask]:
        """The questions about `variant` (None: any) at `step` or after it (at most `within` steps on), still
        unanswered (`revealing`: that step's outcome is about to be shown, so its question no longer counts)."""
        return [spec.ask for spec in self.lesson.steps[max(0, step - 1):step + within]
                if spec.ask is not None and self._about(spec.show, variant) and spec.index + 1 != revealing
                and not self.answered(spec.index + 1)]

    def _about(self, shown: str, variant: str | None) -> bool:
        """A question of a step that shows `shown` is about `variant` (None: any): the same variant, or,
        with a learner's driver shown in its place, the lesson's variant it stands in for (compare and
        `v` set that one beside it, and it would answer alike)."""
        if variant is None or variant == shown:
            return True
        stands_in = getattr(self.lesson, "base", "")            # a DriverLesson (viz.exercises.play)
        return bool(stands_in) and variant == stands_in and shown in getattr(self.lesson, "factories", {})

    def hidden_code(self, variant: str, step: int, revealing: int = 0) -> frozenset[int]:
        """Pseudocode lines of `variant` blanked at `step`: those a question still ahead would give away
        (`revealing`: as they will be once that step's outcome is shown)."""
        return frozenset(n for ask in self._asked_ahead(variant, step, revealing) for n in ask.hide_code)

    def hidden_counts(self, variant: str, step: int, revealing: int = 0) -> frozenset[str]:
        """Counters and calls of `variant` kept back at `step`: those a question still ahead names
        in `hide_counts` (its answer is in their figures), over the same span as `hidden_code`; and the
        figures a question at this step or the next names in `hide_figures`, in every variant (the held
        screen is the step before's: models.lesson.figures)."""
        return frozenset((*(n for ask in self._asked_ahead(variant, step, revealing) for n in ask.hide_counts),
                          *(n for ask in self._asked_ahead(None, step, revealing, within=1) for n in ask.hide_figures)))

    def _show(self, frame: Frame, keep: bool = False) -> None:
        """Show `frame`; `keep`: it was reached by call (`]`, `[`), so the view the learner chose stays."""
        if self._busy_timer is not None:
            self._busy_timer.stop()
        moved_step = self.frame is None or self.frame.step != frame.step
        if self.frame is not None and moved_step:
            self.variant = None                     # `v` picks a variant for this step only
        self.frame = frame
        if frame.earlier:
            self.trail = frame.earlier
        step = frame.step
        spec = self.lesson.steps[step - 1] if step else None
        hold = self.holding(frame)
        # While a question waits, everything the views show is the step before, as it was shown
        # then (its model, its lit code line, its watch list), so nothing on screen answers it.
        base = self._held(frame) if hold else frame
        shown = self.variant or frame.shown
        seen = replace(base, shown=shown)
        self.seen = seen
        self._one(Narration).step = (step, frame.extra, not hold)
        ask = spec.ask if spec is not None else None
        self._one(AskPanel).show(step, ask, self.course.answers.get((self.lesson.id, step)), step in self.revealed)
        # Two rules of app.tcss read `-asking`, each under classes of the screen; where neither can
        # apply, restyling the whole column for it (some twenty widgets, ~10 ms) changes nothing and
        # is skipped. The class is kept right all the same: the screen's own class changes (a
        # breakpoint, -deck-wide) restyle the column with it.
        asking_styled = self.has_class("-deck-wide") or self.has_class("-narrow", "-normal")
        self._one(Vertical, "#side").set_class(ask is not None, "-asking", update=asking_styled)
        held_by = step if hold else 0
        state = self._state(seen, shown, held_by=held_by)
        pair = None
        names = compare_pair(self.lesson, shown)
        if self.compare and names and all(v in seen.sims for v in names):
            a, b = (self._state(seen, v, reuse=False, held_by=held_by) for v in names)     # each gets its `other`
            a.other, b.other = b, a
            pair = (a, b)
        deck = self._one(ViewDeck)
        payoff = bool(step) and step == self.lesson.payoff_step and not hold
        deck.set_reactive(ViewDeck.crowded, ask is not None or payoff)     # laid out by show() below
        deck.show(state, pair, self._lead(step), keep=keep or not moved_step)
        deck.compare = pair is not None
        code = self.side_code
        if code is not None:
            code.state = state
        self._show_headline(payoff)
        # Both variants' paths when comparing on a screen with the rows; else the one shown.
        self._one(PathStrip).states = pair if pair is not None and self.size.height >= 34 else (state,)
        status = self._one(StatusLine)
        status.busy = ""
        status.error = ""
        status.progress = None
        # Short enough for 80 columns: the keys are what a newcomer must not miss.
        ask = spec.ask if spec is not None else None
        status.hint = (f"predict first (views: step {step - 1}) · 1–{len(ask.choices)} to answer, "
                       f"→ to reveal") if hold and ask is not None else ""
        status.frame = seen
        status.follow = self.follow or ""
        self._sandbox_moved(frame)
        if not frame.extra:
            # only the end screen finishes a lesson: a jump to the last step (--step, End) does not
            self.course.record(self.lesson.id, step, frame.total)
        if moved_step:
            self.publish_step(step)
        if frame.step + 1 in self.ready or hold:
            self.call_after_refresh(self._prepare_next)      # after this step is on screen
        if self.playing and step >= frame.total and not frame.extra:
            self._set_playing(False)

    def _state(self, frame: Frame, variant: str, reuse: bool = True, revealing: int = 0,
               held_by: int = 0) -> ViewState:
        """The views' state for `variant` of `frame`: the very object built before for the same
        inputs (`reuse`), so the lines the views built ahead for it (`_prepare_next`) are used.
        `held_by`: the step whose question holds `frame` (the step before it) on screen."""
        spec = self.lesson.steps[frame.step - 1] if frame.step else None
        # Held by a question, the pseudo-code lights the line the question's step is about (its text
        # reads it: ath11k 6's two mask calls), not the line the step before ended on; a line that
        # would answer the question is hidden all the same (`hide_code`).
        code_line = (self.lesson.steps[held_by - 1].code or frame.code_line) if held_by else frame.code_line
        prev = frame.prev_counts.get(variant, NO_COUNTS)       # one object for none: its id is in the key
        hidden = self.hidden_code(variant, frame.step, revealing)
        kept = self.hidden_counts(variant, frame.step, revealing)
        # A question about this variant waits at this step or the next: the views keep back what explains
        # the variant (the NAPI view's "nothing polls this NAPI"), on the held screen and on the step
        # before it alike, so the held screen is the one before. (Only those two: a state that changes
        # when a question is answered makes each view build its lines again.)
        asking = bool(self._asked_ahead(variant, frame.step, revealing, within=1))
        earlier = self.trail if self.follow else ()
        # By identity for the model's objects: a state holds them, so their ids stay theirs.
        # Stopped inside the step by `]`/`[` (not where it lands, nor at its end: the same moment as its
        # landing, which must look the same however it is reached): the code view lights the call's line.
        at_call = frame.cursor is not None and not frame.landing
        # The event log opens at the step's first call; stepping by call or playing, it follows the newest.
        opens_at = None if at_call or self.playing or frame.opens is None else frame.opens.at(variant)
        key = (id(frame.sims[variant]), variant, frame.step, code_line, id(prev), hidden, kept, self.follow,
               id(earlier), at_call, asking, opens_at)
        state = self._states.pop(key, None) if reuse else None
        if state is not None:
            self._states[key] = state               # the latest used last
        else:
            # The first state of these inputs but what a question ahead keeps back (answered or revealed
            # since): the views that read none of what changed draw its lines (ViewState.twin).
            inputs = (*key[:5], *key[7:10])
            twin = self._twins.get(inputs) if reuse else None
            state = ViewState(sim=frame.sims[variant], variant=variant, lesson=self.lesson, step=frame.step,
                              code_line=code_line, prev_counts=dict(prev),
                              watch=spec.watch if spec is not None else (),
                              hidden_code=hidden, hidden_counts=kept, follow=self.follow, earlier=earlier,
                              at_call=at_call, opens_at=opens_at, asking=asking, twin=twin)
            if reuse:
                self._states[key] = state
                if len(self._states) > STATES_KEPT:
                    del self._states[next(iter(self._states))]
                if twin is None:
                    self._twins[inputs] = state
                    if len(self._twins) > STATES_KEPT:
                        del self._twins[next(iter(self._twins))]
        return state

    def _lead(self, step: int) -> str:
        """The view the deck puts first at `step`: the one the step focuses."""
        if self.follow and "machine" in self.keys:
            return "machine"                # walking one object: its machine, with it lit, in front
        spec = self.lesson.steps[step - 1] if step else None
        return (spec or self.lesson.steps[0]).focus if self.lesson.steps else ""

    def _prepare_next(self) -> None:
        """While the reader reads: the views build the lines of the step → shows next, if it is computed.

        Building them is most of what a step costs the UI thread; done here, the step
        itself only compares lines and paints the changed ones. One view per callback,
        so a key pressed meanwhile is not kept waiting for all of them.
        """
        frame = self.frame
        if frame is None or self.waiting or frame.extra or self.compare:
            return
        step, told = frame.step, True             # the step → shows, and whether its text tells the outcome
        if self.holding(frame):     # → first shows what this step did: its own frame
            variant = self.variant or frame.shown
            if variant not in frame.sims:
                return              # a jump ran the variant it shows only; the rest are filled in behind
            state = self._state(frame, variant, revealing=frame.step)
        else:
            nxt = self.ready.get(frame.step + 1)
            if nxt is None:
                return
            step = nxt.step
            if self.holding(nxt):
                # A question first shows the step before's model, as the variant the question is about.
                state, told = self._state(self._held(nxt), nxt.shown, held_by=nxt.step), False
            else:
                state = self._state(nxt, nxt.shown)
        self.call_later(self._one(Narration).prepare, (step, 0, told))
        deck = self._one(ViewDeck)
        sizes = deck.next_sizes(self._lead(step))
        for view in deck.views():           # at the size it will have, and not at all if it will be hidden
            key = (view.id or "")[2:]
            self.call_later(view.prepare, state, None if sizes is None else (sizes[key],) if key in sizes else ())
        for aside in self.query("#side-code, #deck-strip").results(ModelView):   # neither moves with the deck
            self.call_later(aside.prepare, state)

    # -- the payoff ---------------------------------------------------------------------
    def _show_headline(self, on: bool) -> None:
        panel = self._one(HeadlinePanel)
        panel.display = on
        code = self.side_code
        if code is not None:        # on a wide screen the headline takes the code's place
            code.set_class(on, "-payoff")
        if on:
            self.want_headline(panel)

    def want_headline(self, panel: HeadlinePanel) -> None:
        """Show the headline in `panel`, computing it in a worker the first time (progress meanwhile)."""
        found = headline.cached(self.lesson)
        if found is not None or self.lesson.paper is None:
            panel.show(found)
            return
        panel.progress(self._headline_share)
        self._headline_panels.append(panel)
        self._start_headline()

    def _start_headline(self) -> None:
        """Run the headline in a worker, unless it is known or already running."""
        if self._headline_share is not None or self.lesson.paper is None or headline.cached(self.lesson):
            return
        self._headline_share = 0.0
        self._compute_headline()

    @work(thread=True, group="headline", exit_on_error=False)
    def _compute_headline(self) -> None:
        call = self.app.call_from_thread

        def progress(done: int, total: int) -> None:
            call(self._headline_progress, done / max(1, total))
        try:
            result = headline.compute(self.lesson, progress)
        except Exception as exc:            # the panel says so; the player goes on
            call(self._headline_failed, " ".join(f"{type(exc).__name__}: {exc}".split()))
            return
        call(self._headline_done, result)

    def _waiting_panels(self) -> list[HeadlinePanel]:
        """The panels still on screen that wait for the headline (an End screen closed meanwhile is gone)."""
        self._headline_panels = [p for p in self._headline_panels if p.is_attached]
        return self._headline_panels

    def _headline_progress(self, share: float) -> None:
        self._headline_share = share
        for panel in self._waiting_panels():
            panel.progress(share)

    def _headline_done(self, result: dict[str, Any] | None) -> None:
        self._headline_share = None
        panels, self._headline_panels = self._waiting_panels(), []
        for panel in panels:
            panel.show(result)

    def _headline_failed(self, why: str) -> None:
        self._headline_share = None
        panels, self._headline_panels = self._waiting_panels(), []
        for panel in panels:
            panel.query_one("#hl-title", Static).update(f"the headline run failed: {why}")

    def on_view_deck_wants_width(self, message: ViewDeck.WantsWidth) -> None:
        self.set_class(message.wants, "-deck-wide")     # the narration steps aside unless a question waits

    def on_view_deck_lead_aside(self, message: ViewDeck.LeadAside) -> None:
        for view in self.query("#side-code"):
            view.set_class(message.aside, "-active")

    def on_ask_panel_answer_chosen(self, message: AskPanel.AnswerChosen) -> None:
        self.course.answer(self.lesson.id, message.step, message.choice)
        spec = self.lesson.steps[message.step - 1]
        self.query_one(AskPanel).show(message.step, spec.ask, message.choice)
        if self.frame is not None and self.frame.step == message.step:
            self._show(self.frame)                  # the answer is in: show what the step did

    # -- actions ------------------------------------------------------------------------
    def goto(self, k: int) -> None:
        """Go to lesson step k (clamped), dropping any fast-forward."""
        k = max(0, min(len(self.lesson.steps), k))
        self.want = (k, 0)
        self.call_pending = False
        if not self.playing:
            self.call_mode = False
        frame = self.ready.get(k)
        if frame is None:
            self._request("goto", k)
            return
        self._show(frame)
        self._request("seen", k)       # the worker forgets queued gotos and computes ahead of k

    def action_next(self) -> None:
        frame = self.frame
        if frame is not None and not self.waiting and self.holding():
            self.revealed.add(frame.step)           # first → on a question shows its outcome
            self._show(frame)
            return
        step, extra = self.want
        if extra or step < len(self.lesson.steps):
            self.goto(step + 1)
        elif not self.waiting and not self.playing:
            self.action_end()                        # past the last step: what the lesson showed, and the next

    def action_end(self) -> None:
        from viz.screens.end import EndScreen
        frame = self.frame
        if frame is None:
            return
        if self._fill_first(frame, end_pair(self.lesson) or (), self._end_filled):
            return                  # a jump ran only the variant it shows: the pair the summary reads first
        self.course.record(self.lesson.id, frame.step, frame.total, finished=True)
        self.app.push_screen(EndScreen(self.lesson, frame, self.course.after(self.lesson), self.present,
                                       self.want_headline))

    def _end_filled(self) -> None:
        self.query_one(StatusLine).busy = ""
        if self.frame is not None and self.frame.step >= len(self.lesson.steps):
            self.action_end()

    def action_prev(self) -> None:
        step, extra = self.want
        if extra:
            self.goto(step)          # leave the fast-forward: back to the clean step
        elif step > 0:
            self.goto(step - 1)

    def action_goto(self, k: int) -> None:
        self.goto(len(self.lesson.steps) if k < 0 else k)

    def action_reset(self) -> None:
        self._set_playing(False)
        self.goto(0)

    def action_toggle_play(self) -> None:
        if not self.playing and self.want[0] >= len(self.lesson.steps):
            self.notify("this is the last step: r goes back to the start", timeout=3)
            return
        self._set_playing(not self.playing)

    def _set_playing(self, on: bool) -> None:
        self.playing = on
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if on:
            every = CALL_SECONDS if self.call_mode else STEP_SECONDS    # viz.screens.stepping
            self._timer = self.set_interval(every / self.speed, self._tick)
        self.query_one(StatusLine).playing = on

    def _tick(self) -> None:
        if self.waiting:               # a slow step is still computing: let it land before the next
            return
        if self.holding():             # a question: playing on would show its outcome unasked (→ does)
            self._set_playing(False)
            spec = self.lesson.steps[self.want[0] - 1]
            n = len(spec.ask.choices) if spec.ask else 0
            self.notify(f"paused at a question: answer (1–{n}), or → to see what happened", timeout=4)
            return
        if self.call_mode:
            self.action_call(1)
        else:
            self.action_next()

    def action_speed(self, delta: int) -> None:
        i = min(range(len(SPEEDS)), key=lambda j: abs(SPEEDS[j] - self.speed))
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, i + delta))]
        self.query_one(StatusLine).speed = self.speed
        if self.playing:
            self._set_playing(True)

    def action_jump(self) -> None:
        from viz.screens.prompt import NumberPrompt
        total = len(self.lesson.steps)
        prompt = NumberPrompt("go to step", f"step 0 (the cover) to {total}", 0, total, self.want[0])
        self.app.push_screen(prompt, self._goto_chosen)

    def action_fast_forward(self) -> None:
        from viz.screens.prompt import NumberPrompt
        if self.holding():
            # Frames beyond a step that asks would show what it asks about (GRO's segments per skb).
            spec = self.lesson.steps[self.want[0] - 1]
            n = len(spec.ask.choices) if spec.ask else 0
            self.notify(f"answer first (1–{n}), or → to see what happened; then f runs on", timeout=3)
            return
        help_text = ("run every variant this many more frames beyond the lesson step; "
                     "→ or ← returns to the lesson's steps")
        prompt = NumberPrompt("fast-forward frames", help_text, 1, FF_MAX, min(5000, FF_MAX))
        self.app.push_screen(prompt, self._ff)

    def _ff(self, n: int | None) -> None:
        if n:
            step, extra = self.want
            self.want = (step, extra + n)
            self._request("ff", n)

    def action_toggle_compare(self) -> None:
        if compare_pair(self.lesson, self.lesson.steps[0].show if self.lesson.steps else "") is None:
            self.notify("this lesson has a single variant: nothing to compare", timeout=3)
            return
        self.compare = self.moves.session.compare = not self.compare
        if self.frame is not None:
            self._show_with(compare_pair(self.lesson, self.variant or self.frame.shown) or ())
            if self.compare:
                self.align_call()

    def action_cycle(self, delta: int) -> None:
        self.query_one(ViewDeck).cycle(delta)

    def action_scroll_text(self, delta: int) -> None:
        """A page of the narration (all but one line of what shows), so nothing is skipped."""
        prose = self.query_one("#n-say", Prose)
        prose.scroll_relative(y=delta * max(1, prose.scrollable_content_region.height - 1), animate=False)

    def action_cycle_variant(self) -> None:
        """Show the next variant the lesson declares, on the same step (the next step brings back its own)."""
        if self.frame is None:
            return
        names = list(self.lesson.variants)
        if len(names) < 2:
            self.notify("this lesson has a single variant", timeout=3)
            return
        current = self.variant or self.frame.shown
        nxt = names[(names.index(current) + 1) % len(names)]
        self.variant = None if nxt == self.frame.shown else nxt
        self._show_with((nxt, *((compare_pair(self.lesson, nxt) or ()) if self.compare else ())))

    def _show_with(self, names: tuple[str, ...]) -> None:
        """Show the frame again with `names` in it: at once when they are there, else once the worker
        has run them to this step (a jump runs only the variants it shows; the rest follow behind)."""
        frame = self.frame
        if frame is None:
            return
        base = self._held(frame) if self.holding(frame) else frame      # the step the views show
        step = frame.step

        def then() -> None:
            if self.frame is not None and self.frame.step == step:
                self._show(self.frame)
        if not self._fill_first(base, names, then):
            self._show(frame)

    def _fill_first(self, frame: Frame, names: Iterable[str], then: Callable[[], None]) -> bool:
        """Those of `names` not in `frame` (a jump ran only what it shows) asked of the worker, `then`
        called once they are there; False when none is missing (nothing asked)."""
        missing = tuple(n for n in names if n not in frame.sims)
        if missing:
            self.query_one(StatusLine).busy = f"computing {', '.join(missing)} at step {frame.step}…"
            self.moves.request("fill", (frame.step, missing, then))
        return bool(missing)

    # -- the sandbox ------------------------------------------------------------------
    def action_sandbox(self) -> None:
        from viz.screens.sandbox import SandboxScreen
        shown = self.variant or (self.frame.shown if self.frame is not None else next(iter(self.lesson.variants)))
        self.app.push_screen(SandboxScreen(self.lesson, self.sets, shown), self._sandbox_set)

    def _goto_chosen(self, k: int | None) -> None:
        """A prompt's answer: the step to go to (None: it was dismissed)."""
        if k is not None:
            self.goto(k)

    def _sandbox_set(self, sets: dict[str, Any] | None) -> None:
        """Re-run the lesson with `sets` (empty: the lesson's own run again) from the current step."""
        if sets is None or sets == self.sets:
            return
        if not self.sets:
            self.lesson_ready = dict(self.ready)       # the lesson's frames, to compare with
        self.workers.cancel_group(self, "model")
        self.sets = dict(sets)
        if sets:
            self.moves, self.ready = self._queue(Session(self.lesson, sets=sets)), {}
        else:            # back to the lesson: its frames are all still there
            self.moves, self.ready, self.lesson_ready = self._queue(Session(self.lesson)), self.lesson_ready, {}
        step = self.want[0]
        self.frame = None
        self.goto(step)

    def _sandbox_moved(self, frame: Frame) -> None:
        bar = self._one(SandboxBar)
        bar.display = bool(self.sets)
        if not self.sets:
            return
        if self.holding(frame):
            # A question waits: the views show the step before, and so does what moved (this step's
            # figures beside the lesson's read "netif_receive_skb 1 → 4" under "how many skbs?").
            frame = self._held(frame)
        ref = self.lesson_ready.get(frame.step)
        spec = self.lesson.steps[frame.step - 1] if frame.step else None
        shown = self.variant or frame.shown
        kept = self.hidden_counts(shown, frame.step)               # what the views keep back, too
        rows = [r for r in moved(ref, frame, shown, spec.watch if spec else ()) if r[0] not in kept]
        bar.show(self.sets, rows if ref and not frame.extra else None)

    def action_answer(self, index: int) -> None:
        panel = self.query_one(AskPanel)
        if not panel.choose(index) and panel.ask is not None and (panel.revealed or panel.chosen is not None):
            self.notify("already " + ("revealed" if panel.revealed else "answered") + ": a asks the question again",
                        timeout=3)

    def action_lessons(self) -> None:
        self._set_playing(False)
        self.post_message(ShowLessons())
