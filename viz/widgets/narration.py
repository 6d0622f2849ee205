"""What the lesson says at this step: counter and title, the patch it teaches, the text.

The heading and the patch citation are plain `Static`s rather than Markdown:
a message-id such as `<1567679893-14029-9-git-send-email-...>` would be read
as an HTML tag or an autolink by a Markdown parser, and the citation must be
shown exactly as the lesson gives it. The step's `say` is Markdown, drawn by `Prose`.

Step 0 is the lesson's cover page: the summary, the scenario and its
variants, the published figure, and how to start.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from models.lesson.schema import Lesson
from viz.kept_titles import kept_back_by
from viz.onepass import Line, OnePass
from viz.widgets.prose import Prose


def cite(lesson: Lesson) -> str:
    """The patch in one or two lines: subject, author, date, message-id or commit."""
    p = lesson.patch
    if p is None:
        return "no patch: the common RX path every driver lesson builds on"
    ref = p.commit and f"commit {p.commit}" or p.message_id
    return " · ".join(x for x in (p.subject, p.author, p.date, ref) if x)


def _value(v: object) -> str:
    """A parameter value as a person writes it in a lesson or with --set."""
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def cover(lesson: Lesson, start: bool = True, settled: Callable[[int], bool] = lambda q: False,
          seen: frozenset[int] = frozenset()) -> str:
    """The Markdown of step 0: what this lesson runs and compares (and, if `start`, how to begin; else
    its steps, a title past a question not `settled` by number only)."""
    lines = [lesson.summary, ""]
    if start:
        lines += [f"*Press **→** or **PageDown** to start ({len(lesson.steps)} steps); **↓** pages the "
                  f"text, **v** shows another variant, **s** changes the scenario, **?** lists every key.*", ""]
    scen = ", ".join(f"{k} {v}" for k, v in lesson.scenario_raw.items())
    if scen:
        lines += [f"**Scenario:** {scen}.", ""]
    variants = []
    for name, over in lesson.variants.items():
        diff = ", ".join(f"`{k}={_value(v)}`" for k, v in over.items()) or "the scenario as is"
        variants.append(f"- **{name}**: {diff}")
    lines += ["**Variants** (the model runs them in lockstep on the same traffic):", *variants, ""]
    if lesson.paper is not None:
        pp = lesson.paper
        lines += [f"**Published:** {pp.metric} {pp.before:g} → {pp.after:g} {pp.unit}"
                  + (f" ({pp.source})" if pp.source else ""), ""]
    if not start:
        lines.append("**Steps:**")
        for s in lesson.steps:
            q = kept_back_by(lesson, s.index + 1, 0, settled, seen)
            if q:                    # one line for the rest, not a column of the same words
                k, n = s.index + 1, len(lesson.steps)
                rest = f"Steps {k}–{n}: their titles wait" if n > k else f"Step {k}: its title waits"
                lines += ["", f"*{rest} for step {q}'s answer.*"]
                break
            lines.append(f"{s.index + 1}. {s.title}")
    return "\n".join(lines)


class Citation(Widget):
    """The patch citation, clipped to one line on a small screen and two on a large one, with an ellipsis."""

    DEFAULT_CSS = "Citation { height: auto; color: $text-muted; }"

    def __init__(self, text: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.text = text

    def render(self) -> Text:
        width = max(8, self.content_size.width or self.size.width)
        lines = textwrap.wrap(self.text, width) or [""]
        keep = 2 if self.app.size.width >= 140 else 1
        if len(lines) > keep:
            lines = lines[:keep]
            lines[-1] = lines[-1][: width - 1].rstrip() + "…"
        return Text("\n".join(lines))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return min(len(textwrap.wrap(self.text, max(8, width))) or 1, 2 if self.app.size.width >= 140 else 1)


class Narration(Vertical, OnePass, can_focus=False):
    """The lesson's text for the current step; state comes down as (step, extra frames, answered).

    `answered`: the step's question was answered or revealed (or it asks none), so
    its `reveal` text follows `say`; before that only `say` is shown.
    """

    DEFAULT_CSS = """
    Narration {
        background: $boost;
        padding: 0 0 0 1;
        & > #n-head { text-style: bold; color: $text-accent; padding-right: 1; }
        & > Citation { padding-right: 1; }
    }
    /* presenter mode: the room reads the text from afar, at a heavier weight */
    Narration.-present > #n-say { text-style: bold; }
    Narration.-present > #n-head { text-style: bold reverse; }
    """

    step: reactive[tuple[int, int, bool]] = reactive((-1, 0, True), init=False, repaint=False)

    def __init__(self, lesson: Lesson, present: bool = False, **kw: Any) -> None:
        """`present`: presenter mode, where the room reads each step's `say` (never its reveal)."""
        super().__init__(**kw)
        self.lesson = lesson
        self.present = present

    def compose(self) -> ComposeResult:
        yield Line(id="n-head", markup=False)
        if self.lesson.patch is not None:
            yield Citation(cite(self.lesson), id="n-patch")
        yield Prose(id="n-say")

    def heading(self, step: int, extra: int) -> str:
        total = len(self.lesson.steps)
        title = self.lesson.title if step == 0 else self.lesson.steps[step - 1].title
        more = f" +{extra:,} frames" if extra else ""
        return f"step {step}/{total}{more} · {title}"

    def say(self, step: int, answered: bool) -> str:
        if step == 0:
            return cover(self.lesson, start=not self.present)
        spec = self.lesson.steps[step - 1]
        # A room reads the step's `say`; the speaker tells what it reveals (it is in the speaker notes).
        return spec.say if self.present else spec.text(answered)

    def prepare(self, value: tuple[int, int, bool]) -> None:
        """Wrap the text of `value` now, for when it comes down (see Prose.prepare)."""
        step, _, answered = value
        self.query_one("#n-say", Prose).prepare(self.say(step, answered))

    def watch_step(self, value: tuple[int, int, bool]) -> None:
        step, extra, answered = value
        self.query_one("#n-head", Line).show(Content(self.heading(step, extra)))
        say = self.say(step, answered)
        prose = self.query_one("#n-say", Prose)
        if prose.source != say:
            prose.source = say
