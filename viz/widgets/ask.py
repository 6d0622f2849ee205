"""A step's prediction question: the choices numbered 1–6, then right or wrong and why.

The question never blocks stepping: it is a panel beside the narration, not
a modal, and moving on without answering is fine. Answering (a number key,
or a click on a choice, which runs the screen's `answer` action) posts
`AnswerChosen`, which the player records, so going back to the step shows
the answer already given.

A question whose outcome → revealed without an answer no longer asks to
predict and takes no answer (it would score a guess made after seeing the
outcome): it shows the answer and why, and says that `a` asks it again.
So does an answered one: `a` clears the answer and the step holds again.
"""

from __future__ import annotations

import re
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from models.lesson.schema import Ask
from viz.onepass import Line, OnePass

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

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.step = 0
        self.ask: Ask | None = None
        self.chosen: int | None = None
        self.revealed = False         # → showed the outcome without an answer: nothing to score

    def compose(self) -> ComposeResult:
        yield Line(id="q", markup=False)
        yield Line(id="a", markup=False)

    def show(self, step: int, ask: Ask | None, chosen: int | None, revealed: bool = False) -> None:
        """Set what to ask; redraws only when something changed. `revealed`: → showed the outcome
        without an answer (the answer is shown, and no answer is taken)."""
        revealed = revealed and chosen is None
        if (step, ask, chosen, revealed) == (self.step, self.ask, self.chosen, self.revealed):
            return
        self.step, self.ask, self.chosen, self.revealed = step, ask, chosen, revealed
        self.display = ask is not None
        if ask is None:
            return
        n = len(ask.choices)
        open_ = chosen is None and not revealed
        tag = f"predict, press 1–{n}: " if open_ else "revealed (a asks it again): " if revealed \
            else "answered (a asks it again): "
        self.query_one("#q", Static).update(inline(ask.question, Content.styled(tag, "$text-accent")))
        answer = self.query_one("#a", Static)
        answer.update(self._choices(ask) if open_ else self._verdict(ask, chosen))
        answer.set_class(not open_, "verdict")
        if open_:
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
    def _verdict(ask: Ask, chosen: int | None) -> Content:
        """Only what matters once answered (or revealed: `chosen` None), so the explanation fits without scrolling."""
        lines = []
        right = chosen == ask.answer
        if chosen is not None and not right:
            lines.append(inline(ask.choices[chosen], Content.styled(f"✗ you chose {chosen + 1}: ", "bold"))
                         .stylize("$text-error"))
        mark = "✓ right: " if right else f"✓ the answer is {ask.answer + 1}: "
        lines.append(inline(ask.choices[ask.answer], Content.styled(mark, "bold")).stylize("$text-success"))
        lines.append(inline(ask.explain))
        return Content("\n").join(lines)

    def choose(self, index: int) -> bool:
        """Answer with choice `index` (0-based); False when there is no such choice, or the question
        is not open (answered, or its outcome revealed: `a` asks it again first)."""
        if self.ask is None or self.revealed or self.chosen is not None or not 0 <= index < len(self.ask.choices):
            return False
        self.post_message(self.AnswerChosen(self.step, index, index == self.ask.answer))
        return True
