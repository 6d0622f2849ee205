"""The contract every view keeps: state comes down, nothing is simulated here.

The player sets `state` (a `ViewState`: the model of one variant at the
current step, the counters at the previous step, the lesson) and the view
repaints from it. A view never advances the simulation and never reads the
lesson's narration for facts: every number, state and colour it draws comes
from the records its state's `read` (models.read.Reading) returns. The state
holds the variant's Sim only as an opaque handle for the player; no view
reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.reactive import reactive
from textual.strip import Strip

from models.read import Cursor, Event, Lesson, Reading, reading_of
from viz.component_styles import KeptComponentStyles
from viz.onepass import OnePass
from viz.strips import text_strip

# A piece of a line: plain text, or (text, component class) (ModelView._text).
Part = tuple[str, str] | str
# A build's lines, and its Strips by content (what the next build reuses).
Made = tuple[list[Strip], dict[tuple[object, ...], Strip]]


@dataclass(eq=False)
class ViewState:
    """What a view draws: one variant of the model at one step (compared by identity: `other` is a cycle)."""
    sim: object                                     # the variant's Sim: an opaque handle (views read `read`)
    variant: str
    lesson: Lesson | None = None
    step: int = 0                                   # steps applied (0 = just set up)
    code_line: int | None = None                    # pseudocode line the step lights (1-based)
    prev_counts: dict[str, int] = field(default_factory=dict)   # counters at the previous step
    other: ViewState | None = None                  # compare mode: the other variant's ViewState
    watch: tuple[str, ...] = ()                     # counters and metrics the step is about (pinned, lit)
    hidden_code: frozenset[int] = frozenset()       # pseudocode lines a question still ahead hides
    hidden_counts: frozenset[str] = frozenset()     # counters, calls and figures a question still ahead keeps back
    follow: str | None = None                       # the object followed ("buf#513"), None: the views pick
    earlier: tuple[Event, ...] = ()                 # its events before the trace buffer's
    at_call: bool = False                           # stopped at a call `]`/`[` walked to (not where the step lands)
    opens_at: int | None = None                     # the call the event log opens at (the step's first); None:
                                                    # it follows the newest (stepping or playing)
    asking: bool = False                            # a question about this variant waits (now or ahead):
                                                    # no view explains what the variant does
    # The first state made from the same inputs but for what a question ahead keeps back (`hidden_code`,
    # `hidden_counts`, `asking`: a question answered or revealed since): a view whose lines read none of
    # those that differ draws the twin's lines (ModelView.READS), and every view reads the twin's records.
    twin: ViewState | None = None
    _read: Reading | None = field(default=None, init=False, repr=False)

    @property
    def read(self) -> Reading:
        """The records of the variant at this step (one Reading per state: a published frame never moves)."""
        got = self._read
        if got is None:
            got = self._read = self.twin.read if self.twin is not None else reading_of(self.sim)
        return got


class ModelView(OnePass, KeptComponentStyles, can_focus=True):
    """Base of all views. Subclasses set KEY/TITLE and draw `self.state`."""

    KEY = ""
    TITLE = ""
    COMPONENT_PREFIX = ""       # a subclass drawn with its base's component styles names the base's ("machineview")
    DEFAULT_CSS = """
    ModelView {
        height: 1fr;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        padding: 0 1;
    }
    ModelView:focus-within, ModelView:focus {
        border: round $accent;
        border-title-color: $accent;
    }
    """

    state: reactive[ViewState | None] = reactive(None, always_update=True, repaint=False)

    def on_mount(self) -> None:
        self.border_title = self.TITLE

    PREPARE = True          # False: its lines depend on more than the state and size (never built ahead)
    # Which of what a question ahead keeps back its lines read ("asking", "hidden_code", "hidden_counts"):
    # a state that differs from its twin only in others shows the twin's lines (ViewState.twin).
    READS: tuple[str, ...] = ()

    _lines: list[Strip] | None = None       # the content, built for _built_for = (width, height)
    _built_for: tuple[int, int] = (0, 0)
    _strips: dict[tuple[object, ...], Strip] = {}        # last build's lines by content (see _build)
    _drawn: ViewState | None = None         # the state _lines were built for
    _sizes: tuple[tuple[int, int], ...] = ()    # the sizes it was last drawn at, latest first (see prepare)
    _ahead: ViewState | None = None         # the state prepare() last built lines for
    _recent: dict[tuple[int, int, int], tuple[Any, ...]] = {}    # lines built lately, by state and size (see _build)
    # Lines kept: built ahead for the next step (at one or two sizes) and drawn for recent steps (a
    # long lesson's every step, at the sizes its layouts give), so → finds its lines built and ← or
    # Home to a step shown before repaints only.
    RECENT = 48

    def watch_state(self, state: ViewState | None) -> None:
        if state is not None and state is self._drawn and self._lines is not None \
                and self._built_for == tuple(self.size):
            return              # the same state again (a question shows the step before): the same lines
        self.redraw()

    def redraw(self) -> None:
        """The content changed: repaint only the lines that differ.

        A full repaint of every view costs more than the 16 ms a step may take
        at 160x50, and most lines (axes, labels, idle descriptors) do not change
        from one step to the next. So a view on screen rebuilds its lines at
        once and marks only the changed ones dirty; Textual's styles cache keeps
        the rest. A view off screen just forgets its lines until it is shown.
        """
        old, size = self._lines, self._built_for
        self._lines = None
        if old is None or size != tuple(self.size) or not self.is_on_screen:
            self.refresh()
            return
        new = self._build(*size)
        changed = [y for y in range(max(len(old), len(new)))
                   if y >= len(old) or y >= len(new) or old[y] != new[y]]
        if changed:
            self.refresh(*(Region(0, y, size[0], 1) for y in changed))

    def prepare(self, state: ViewState, sizes: tuple[tuple[int, int], ...] | None = None) -> None:
        """Build now the lines `state` will show, at `sizes` (default: those it was last drawn at).

        The player calls this while the reader reads, with the state its next step
        will set and, when the deck knows it, the size the view will have then; when
        that state comes, building its lines (the model reads and the text, the
        costliest part of a step on the UI thread) is already done. Nothing is drawn
        or refreshed here.
        """
        sizes = self._sizes if sizes is None else sizes
        if not self.PREPARE or state is self.state or not sizes:
            return
        current = self.state
        self.set_reactive(ModelView.state, state)       # build_lines reads self.state; no watcher runs
        try:
            for width, height in sizes:
                if self._drawn_before(width, height) is None:
                    self._remember(width, height, self._make(width, height))
            self._ahead = state
        finally:
            self.set_reactive(ModelView.state, current)

    def ahead_inputs(self) -> object:
        """What its lines read besides the state, the size and the styles (a view's own history):
        lines built ahead are used only if this is still the same."""
        return None

    def forget(self) -> None:
        """Drop the built lines: the next paint rebuilds them all (the view is moving or resizing)."""
        self._lines = None

    def notify_style_update(self) -> None:
        # A theme or class change alters component styles and the background: rebuild on next paint.
        self._lines = None
        self._styles = {}
        super().notify_style_update()

    def rows_wanted(self, width: int) -> int:
        """The content rows the view needs at this width to show what its state is about (0: no
        claim): the deck gives it rows the machine strip would take when it has fewer (ViewDeck)."""
        return 0

    # -- the Line API, shared: views only say what their lines are ------------------------
    def build_lines(self, width: int, height: int) -> list[Text]:
        """The view's content for this size; only called when the state, size or theme changed."""
        return [Text("no model yet")]

    def _build(self, width: int, height: int) -> list[Strip]:
        made = self._drawn_before(width, height) or self._make(width, height)
        lines, strips = made
        self._lines, self._built_for, self._strips, self._drawn = lines, (width, height), strips, self.state
        if width > 0 and height > 0:
            self._sizes = ((width, height), *(s for s in self._sizes if s != (width, height)))[:2]
            if self.PREPARE and self.state is not None:
                self._remember(width, height, made)
        return lines

    def _still_right(self, styles: dict[tuple[str, str], Style], inputs: object) -> bool:
        """Lines built with these styles and inputs are right now if every style they used is the same
        (a class change for the active view's border leaves them; a theme change does not)."""
        return inputs == self.ahead_inputs() and all(self._s(name) == style for (name, _), style in styles.items())

    def _drawn_before(self, width: int, height: int) -> Made | None:
        """The lines built lately for this very state at this size (ahead by prepare(), or drawn),
        if still right. The player hands back the same state object for a step it shows again."""
        if not self.PREPARE:
            return None
        own = self._lines_of()
        state, styles, inputs, made = self._recent.get((id(own), width, height), (None, {}, None, None))
        return made if state is own and self._still_right(styles, inputs) else None

    def _lines_of(self) -> ViewState | None:
        """The state whose lines this view's state shares: its twin, unless they differ in what the view reads."""
        st = self.state
        twin = st.twin if st is not None else None
        if twin is None or any(getattr(st, name) != getattr(twin, name) for name in self.READS):
            return st
        return twin

    def _remember(self, width: int, height: int, made: Made) -> None:
        """Keep these lines for the state (the entry holds the state, so its id stays its own)."""
        recent = self.__dict__.setdefault("_recent", {})     # this view's own, not the class default
        own = self._lines_of()
        key = (id(own), width, height)
        recent.pop(key, None)
        recent[key] = (own, dict(self._styles), self.ahead_inputs(), made)
        if len(recent) > self.RECENT:
            del recent[next(iter(recent))]

    def _make(self, width: int, height: int) -> Made:
        """The view's lines for its state at this size, and the Strips by content (for the next build)."""
        base = self._s("")
        console = self.app.console
        texts = self.build_lines(width, height) if self.state is not None else [Text("no model yet")]
        lines: list[Strip] = []
        # Rendering a Text to segments is the costly part of a build, and most lines are the same
        # as in the last build: reuse those Strips (same text, same spans, same base and width).
        old = self._strips
        strips: dict[tuple[object, ...], Strip] = {}
        for text in texts[:height]:
            key = (text.plain, tuple(text.spans), text.style, base, width)
            strip = old.get(key)
            if strip is None:
                # A line too long ends in "…", so a cut word never passes for a whole one.
                strip = text_strip(text, width, base, console)
            strips[key] = strip
            lines.append(strip)
        lines += [Strip.blank(width, base)] * (height - len(lines))
        return lines, strips

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        lines = self._lines
        if lines is None or self._built_for != (width, height):
            lines = self._build(width, height)
        if y >= len(lines) or width <= 0:
            return Strip.blank(width, self._s(""))
        return lines[y]

    _styles: dict[tuple[str, str], Style] = {}

    def _s(self, name: str) -> Style:
        """A component style of this view (`<classname>--name` in its DEFAULT_CSS); "" for the view's own.

        Memoised until the styles change: Textual's own cache is cleared on every
        refresh, and a view asks for the same few styles hundreds of times a build.
        """
        key = (name, self.app.theme)
        style = self._styles.get(key)
        if style is None:
            if not self._styles:
                self._styles = {}            # this widget's own dict, not the class default
            prefix = self.COMPONENT_PREFIX or type(self).__name__.lower()
            style = self.get_component_rich_style(f"{prefix}--{name}") if name else self.rich_style
            self._styles[key] = style
        return style

    def _text(self, *parts: Part) -> Text:
        """A line from plain strings and (text, component) pairs."""
        out = Text(no_wrap=True, end="")
        for part in parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(part[0], self._s(part[1]) if part[1] else None)
        return out

    def _fitting(self, width: int, *forms: tuple[Part, ...]) -> Text:
        """The first of `forms` (each a line's parts, longest first) that fits `width`, else the last:
        a phrase gives up its gloss ("so far", "this call") before the line is cut mid-word."""
        text = self._text()
        for parts in forms:
            text = self._text(*parts)
            if text.cell_len <= width:
                break
        return text

    @property
    def st(self) -> ViewState:
        """The state being drawn: build_lines and its helpers only run with one."""
        st = self.state
        assert st is not None
        return st

    @property
    def read(self) -> Reading:
        """The records of the state being drawn (models.read.Reading)."""
        return self.st.read

    def cursor(self) -> Cursor:
        """The call the shown variant is at and the one before it: what every view lights (models.cursor)."""
        assert self.state is not None
        return self.state.read.cursor()

    # What the last build lit for the current call, as (kind, id) pairs (tests read it).
    lit: frozenset[tuple[str, int]] = frozenset()

    def delta(self, name: str) -> int:
        """How much a counter moved since the previous step."""
        st = self.state
        if st is None:
            return 0
        return st.read.counts().get(name, 0) - st.prev_counts.get(name, 0)


def wrap_phrases(parts: list[Text], width: int, max_lines: int, sep: str = " ") -> list[Text]:
    """Join phrases with `sep` into at most max_lines lines, never splitting a phrase."""
    lines: list[Text] = []
    line = Text()
    for part in parts:
        if line.cell_len and line.cell_len + len(sep) + part.cell_len > width:
            lines.append(line)
            line = Text("  ")
        elif line.cell_len:
            line.append(sep)
        line.append_text(part)
    lines.append(line)
    return lines[:max_lines]
