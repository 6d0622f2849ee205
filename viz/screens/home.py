"""The home screen: the lessons, what each teaches, and how far this session got in each.

One entry per lesson: title, driver, number of steps and, once opened, the
step reached ("seen 3/13"), whether it was finished and how many questions
were answered; under it the one-line summary. Enter (or a click) opens the
player where the lesson was left. Progress is saved between runs (viz.progress).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from models.lesson.schema import Lesson
from viz.course import Course, OpenLesson
from viz.kept_titles import answered_in
from viz.widgets.narration import cite, cover
from viz.widgets.prose import Prose

INTRO = ("Each lesson runs the RX path in a simulated kernel, most of them a real driver patch: the "
         "descriptor ring, DMA mapping, NAPI, GRO, page_pool. Every number on screen comes from the model.")


class HomeScreen(Screen[None]):
    """Pick a lesson."""

    BINDINGS = [
        Binding("enter", "open", "open lesson", key_display="⏎", priority=True),
        Binding("question_mark", "app.help", "help", key_display="?"),
    ]

    def __init__(self, course: Course) -> None:
        super().__init__()
        self.course = course

    def compose(self) -> ComposeResult:
        yield Static(Content.from_markup("[b]rxviz[/b] · how Linux network drivers receive packets"),
                     id="home-title")
        yield Static(Content(INTRO), id="home-intro", markup=False)
        with Horizontal(id="home-body"):
            yield OptionList(*self._options(), id="lessons")
            with Vertical(id="home-detail"):
                yield Static(id="detail-patch", markup=False)
                yield Prose(id="detail-cover")
        yield Footer()

    def _prompt(self, lesson: Lesson) -> Content:
        progress = self.course.progress.get(lesson.id)
        seen = ""
        if progress is not None:
            seen = f" · [b $text-accent]seen {progress[0]}/{progress[1]}[/]"
        if lesson.id in self.course.finished:
            seen += " · [b $text-success]✓ finished[/]"
        asked = sum(1 for s in lesson.steps if s.ask is not None)
        answered = sum(1 for s in lesson.steps if (lesson.id, s.index + 1) in self.course.answers)
        if answered:
            seen += f" · answered {answered}/{asked}"
        return Content.from_markup(
            "[b]$title[/b]\n[i]$driver[/i] · $steps steps" + seen + "\n$summary",
            title=lesson.title, driver=lesson.driver, steps=str(len(lesson.steps)), summary=lesson.summary)

    def _options(self) -> list[Option | None]:
        out: list[Option | None] = []
        for lesson in self.course.lessons:
            if out:
                out.append(None)          # a separator line between lessons
            out.append(Option(self._prompt(lesson), id=lesson.id))
        return out

    def on_screen_resume(self) -> None:
        """Back from a lesson: each lesson's progress line is updated in place, so the separators,
        the highlight and the scroll stay (clearing and refilling the list lost a separator).
        A resume can come before the first compose (a screen pushed over the lessons in the same
        burst of keys that built them, and gone again): the list, when built, reads the progress then."""
        found = self.query(OptionList)
        if not found:
            return
        options = found.first()
        for lesson in self.course.lessons:
            options.replace_option_prompt(lesson.id, self._prompt(lesson))
        if options.highlighted is None:
            options.highlighted = 0
        options.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """On a wide screen, the highlighted lesson's cover page is shown beside the list."""
        lesson = next((x for x in self.course.lessons if x.id == event.option.id), None)
        if lesson is None:
            return
        self.query_one("#detail-patch", Static).update(Content(cite(lesson)))
        self.query_one("#detail-cover", Prose).source = cover(lesson, start=False,
                                                               settled=answered_in(lesson, self.course.answers),
                                                               seen=self.course.seen(lesson.id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(OpenLesson(event.option.id))

    def action_open(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            option = options.get_option_at_index(options.highlighted)
            if option.id:
                self.post_message(OpenLesson(option.id))


class LessonsLater(Screen[None]):
    """The bottom of the stack under a lesson opened directly: never drawn.

    The lessons are built the first time they are shown and pushed over it, then kept
    (RxvizApp.action_lessons): a session that only plays one lesson never builds them.
    (Textual cannot replace the bottom screen, which no push gave a result callback.)"""
