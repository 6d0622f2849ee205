"""A step's prediction question: the choices numbered 1–6, then right or wrong and why.

The question never blocks stepping: it is a panel beside the narration, not
a modal, and moving on without answering is fine. Answering (a number key,
or a click on a choice) posts `AnswerChosen`, which the player records, so
going back to the step shows the answer already given.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from models.lesson.schema import Ask


def inline(text: str, lead: Content | None = None) -> Content:
    """Plain text with `code` spans styled as code (lessons write kernel names in backticks)."""
    parts = text.split("`")
    if len(parts) % 2 == 0:           # an unmatched backtick: show the text as written
        parts = [text]
    out = [lead] if lead is not None else []
    for i, part in enumerate(parts):
        out.append(Content.styled(part, "$text-warning") if i % 2 else Content(part))
    return Content("").join(out)


class Choice(Static):
    """One numbered choice; clicking it answers."""

    def __init__(self, index: int, text: str, **kw) -> None:
        super().__init__(inline(text, Content.styled(f"{index + 1} ", "bold")), markup=False, **kw)
        self.index = index

    def on_click(self) -> None:
        self.post_message(AskPanel.Pick(self.index))


class AskPanel(Widget):
    """Shows `ask` for `step`; `chosen` is the answer given (None: not yet)."""

    DEFAULT_CSS = """
    AskPanel {
        height: auto;
        max-height: 50%;
        overflow-y: auto;
        border-left: outer $accent;
        padding: 0 1 0 0;
        background: $boost;
        & > #q { text-style: bold; }
        & > Choice { padding-left: 1; }
        & > Choice:hover { background: $boost; text-style: underline; }
        & > .verdict.-right { color: $text-success; }
        & > .verdict.-wrong { color: $text-error; }
        & > #why { color: $text; }
    }
    """

    class AnswerChosen(Message):
        """The user answered the question of `step` with `choice` (0-based)."""

        def __init__(self, step: int, choice: int, correct: bool) -> None:
            super().__init__()
            self.step = step
            self.choice = choice
            self.correct = correct

    class Pick(Message):
        """A choice was clicked (internal: becomes AnswerChosen)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.step = 0
        self.ask: Ask | None = None
        self.chosen: int | None = None

    def show(self, step: int, ask: Ask | None, chosen: int | None) -> None:
        """Set what to ask; redraws only when something changed."""
        if (step, ask, chosen) == (self.step, self.ask, self.chosen):
            return
        self.step, self.ask, self.chosen = step, ask, chosen
        self.display = ask is not None
        self.call_later(self._rebuild)

    async def _rebuild(self) -> None:
        await self.recompose()
        verdicts = self.query(".verdict")
        if verdicts:      # bring the verdict and the explanation into view (the question may scroll away)
            first = verdicts.first()
            self.call_after_refresh(lambda: self.scroll_to_widget(first, animate=False, top=True))

    def compose(self) -> ComposeResult:
        ask = self.ask
        if ask is None:
            return
        n = len(ask.choices)
        tag = f"predict, press 1–{n}: " if self.chosen is None else "answered: "
        yield Static(inline(ask.question, Content.styled(tag, "$text-accent")), id="q", markup=False)
        if self.chosen is None:
            for i, text in enumerate(ask.choices):
                yield Choice(i, text)
            return
        # Answered: only what matters now, so the explanation fits without scrolling.
        right = self.chosen == ask.answer
        if not right:
            yield Static(inline(ask.choices[self.chosen], Content.styled(f"✗ you chose {self.chosen + 1}: ", "bold")),
                         classes="verdict -wrong", markup=False)
        mark = "✓ right: " if right else f"✓ the answer is {ask.answer + 1}: "
        yield Static(inline(ask.choices[ask.answer], Content.styled(mark, "bold")),
                     classes="verdict -right", markup=False)
        yield Static(inline(ask.explain), id="why", markup=False)

    def choose(self, index: int) -> bool:
        """Answer with choice `index` (0-based); False when there is no such choice."""
        if self.ask is None or not 0 <= index < len(self.ask.choices):
            return False
        self.post_message(self.AnswerChosen(self.step, index, index == self.ask.answer))
        return True

    def on_ask_panel_pick(self, message: Pick) -> None:
        message.stop()
        self.choose(message.index)
