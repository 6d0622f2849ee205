"""The lesson map (m): every step's title, where you are, each question and how you did; Enter jumps.

A learner who has paged through ten steps wants to know where the lesson
goes and where it has been: the map lists the cover and every step (a title
past a question still waiting for its answer by number only: viz.kept_titles), marks
the one on screen, and beside each question says whether it waits, was
answered right or wrong, or was revealed without an answer. A jump from
here is a jump like any other: a question step reached from the map holds
its question (the views show the step before) until it is answered.

Step titles and questions are lesson text: every line is built as Content
from plain strings, never parsed as markup.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from models.lesson.schema import Lesson
from viz.kept_titles import answered_in, kept_back_by, kept_title


def verdict(lesson: Lesson, step: int, answers: dict[tuple[str, int], int], revealed: set[int]) -> tuple[str, str]:
    """(mark, style) of a question step: waiting, right, wrong or revealed; ("", "") without a question."""
    spec = lesson.steps[step - 1]
    if spec.ask is None:
        return "", ""
    chosen = answers.get((lesson.id, step))
    if chosen is not None:
        return ("✓ right", "$text-success") if chosen == spec.ask.answer else ("✗ wrong", "$text-error")
    if step in revealed:
        return ("◌ revealed", "$text-muted")
    return ("? to predict", "$text-accent")


def line(lesson: Lesson, step: int, here: int, answers: dict[tuple[str, int], int], revealed: set[int],
         seen: frozenset[int] = frozenset()) -> Content:
    """One row of the map."""
    total = len(lesson.steps)
    title = lesson.title if step == 0 else lesson.steps[step - 1].title
    kept = kept_back_by(lesson, step, here, answered_in(lesson, answers, revealed), seen)
    mark = "▶ " if step == here else "  "
    parts: list[tuple[str, str] | str] = [(mark, "bold $text-accent"),
                                          (f"{step:>{len(str(total))}}  ", "$text-muted"),
                                          (kept_title(kept), "$text-muted") if kept
                                          else (title, "bold" if step == here else "")]
    if step == 0:
        parts.append(("  (the cover)", "$text-muted"))
    what, style = verdict(lesson, step, answers, revealed) if step else ("", "")
    if what:
        parts += ["  ", (what, style)]
    return Content.assemble(*parts)


class LessonMap(ModalScreen[int | None]):
    """The steps of one lesson; Enter returns the step to go to, Esc nothing."""

    BINDINGS = [Binding("escape,m,q", "close", "close", key_display="Esc")]
    DEFAULT_CSS = """
    LessonMap {
        align: center middle;
        & > Vertical {
            width: 96;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            border: round $accent;
            border-title-color: $text-accent;
            background: $surface;
            padding: 0 1;
        }
        & #map-head { color: $text-muted; }
        & OptionList { height: auto; max-height: 1fr; border: none; padding: 0; }
    }
    """

    def __init__(self, lesson: Lesson, here: int, answers: dict[tuple[str, int], int], revealed: set[int],
                 seen: frozenset[int] = frozenset()) -> None:
        super().__init__()
        self.lesson, self.here = lesson, here
        self.answers, self.revealed, self.seen = answers, set(revealed), seen

    def compose(self) -> ComposeResult:
        lesson = self.lesson
        asks = [s.index + 1 for s in lesson.steps if s.ask is not None]
        right = sum(1 for k in asks if verdict(lesson, k, self.answers, self.revealed)[0] == "✓ right")
        with Vertical() as box:
            box.border_title = Content(f"lesson map · {lesson.title}")
            head = (f"{len(lesson.steps)} steps · {len(asks)} question{'s' if len(asks) != 1 else ''}, "
                    f"{right} answered right · ↑↓ Enter jumps · Esc closes")
            yield Static(Content(head), id="map-head")
            options = [Option(line(lesson, k, self.here, self.answers, self.revealed, self.seen), id=str(k))
                       for k in range(len(lesson.steps) + 1)]
            yield OptionList(*options, id="map-steps")

    def on_mount(self) -> None:
        steps = self.query_one(OptionList)
        steps.highlighted = self.here
        steps.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0))

    def action_close(self) -> None:
        self.dismiss(None)
