"""A step's prediction question: the choices numbered 1–6, then right or wrong and why.

The question never blocks stepping: it is a panel beside the narration, not
a modal, and moving on without answering is fine. Answering (a number key,
or a click on a choice, which runs the screen's `answer` action) posts
`AnswerChosen`, which the player records, so going back to the step shows
the answer already given.
"""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from models.lesson.schema import Ask
from viz.widgets.onepass import Line, OnePass

EMPHASIS = re.compile(r"\*\*(.+?)\*\*|\*(.+?)\*")


def _emphasis(text: str) -> list[Content]:
    """**bold** and *italic* as lessons write them, the rest as is."""
    out, at = [], 0
    for m in EMPHASIS.finditer(text):
        out.append(Content(text[at:m.start()]))
        out.append(Content.styled(m.group(1), "bold") if m.group(1) else Content.styled(m.group(2), "italic"))
        at = m.end()
    out.append(Content(text[at:]))
    return out


def inline(text: str, lead: Content | None = None) -> Content:
    """One line of lesson Markdown: `code` spans styled as code, **bold** and *italic*."""
    parts = text.split("`")
    if len(parts) % 2 == 0:           # an unmatched backtick: show the text as written
        parts = [text]
    out = [lead] if lead is not None else []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(Content.styled(part, "$text-warning"))
        else:
            out.extend(_emphasis(part))
    return Content("").join(out)


class AskPanel(VerticalScroll, OnePass, can_focus=False):
    """Shows `ask` for `step`; `chosen` is the answer given (None: not yet).

    Two Statics, the question and the answer part (the choices, or the verdict
    and why), updated in place: a step with a question mounts nothing, which
    keeps stepping as fast as a step without one.
    """

    DEFAULT_CSS = """
    AskPanel {
        height: auto;
        max-height: 50%;
        border-left: outer $accent;
        padding: 0 1 0 0;
        background: $boost;
        scrollbar-size-vertical: 1;
        & > Static { height: auto; }
        & > #q { text-style: bold; }
        & > #a { padding-left: 1; link-style: none; link-color: $text; link-style-hover: bold underline; }
    }
    """

    class AnswerChosen(Message):
        """The user answered the question of `step` with `choice` (0-based)."""

        def __init__(self, step: int, choice: int, correct: bool) -> None:
            super().__init__()
            self.step = step
            self.choice = choice
            self.correct = correct

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.step = 0
        self.ask: Ask | None = None
        self.chosen: int | None = None

    def compose(self) -> ComposeResult:
        yield Line(id="q", markup=False)
        yield Line(id="a", markup=False)

    def show(self, step: int, ask: Ask | None, chosen: int | None) -> None:
        """Set what to ask; redraws only when something changed."""
        if (step, ask, chosen) == (self.step, self.ask, self.chosen):
            return
        self.step, self.ask, self.chosen = step, ask, chosen
        self.display = ask is not None
        if ask is None:
            return
        n = len(ask.choices)
        tag = f"predict, press 1–{n}: " if chosen is None else "answered: "
        self.query_one("#q", Static).update(inline(ask.question, Content.styled(tag, "$text-accent")))
        answer = self.query_one("#a", Static)
        answer.update(self._choices(ask) if chosen is None else self._verdict(ask, chosen))
        answer.set_class(chosen is not None, "verdict")
        if chosen is None:
            self.scroll_home(animate=False)
        else:             # bring the verdict and the explanation into view (the question may scroll away)
            self.call_after_refresh(lambda: self.scroll_to_widget(answer, animate=False, top=True))

    @staticmethod
    def _choices(ask: Ask) -> Content:
        """The numbered choices, one per line; a click on one answers with it."""
        lines = [inline(text, Content.styled(f"{i + 1} ", "bold")).stylize(f"@click=screen.answer({i})")
                 for i, text in enumerate(ask.choices)]
        return Content("\n").join(lines)

    @staticmethod
    def _verdict(ask: Ask, chosen: int) -> Content:
        """Only what matters once answered, so the explanation fits without scrolling."""
        lines = []
        right = chosen == ask.answer
        if not right:
            lines.append(inline(ask.choices[chosen], Content.styled(f"✗ you chose {chosen + 1}: ", "bold"))
                         .stylize("$text-error"))
        mark = "✓ right: " if right else f"✓ the answer is {ask.answer + 1}: "
        lines.append(inline(ask.choices[ask.answer], Content.styled(mark, "bold")).stylize("$text-success"))
        lines.append(inline(ask.explain))
        return Content("\n").join(lines)

    def choose(self, index: int) -> bool:
        """Answer with choice `index` (0-based); False when there is no such choice."""
        if self.ask is None or not 0 <= index < len(self.ask.choices):
            return False
        self.post_message(self.AnswerChosen(self.step, index, index == self.ask.answer))
        return True
