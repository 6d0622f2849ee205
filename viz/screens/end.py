"""The end of a lesson: the payoff, what changed between the variants, and the next lesson.

Shown when → is pressed on the last step. It opens with what the lesson
showed, in the lesson's own words (`recap`), then sums up the lesson from the
model's last frame: the counters and metrics the lesson's steps watched, for
the lesson's point (`end_pair` when the lesson names it, else the headline's
before and after, else the last step's variant beside the first), only those
that differ between the two, and the paper-vs-model headline when the lesson
publishes a figure. Enter opens the next lesson, Esc goes back to the last step.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from models.lesson.schema import Lesson
from viz.course import OpenLesson, ShowLessons
from viz.plain import join
from viz.session import Frame, end_pair
from viz.widgets.paper_vs_model import HeadlinePanel
from viz.widgets.sandbox_bar import fmt, value

DEFAULT_WATCH = ("throughput_mbps", "cpu_percent", "frames_dropped")


def watched(lesson: Lesson) -> list[str]:
    """Every name the lesson's steps watch, in the order they first appear, then the headline metric."""
    names = [n for s in lesson.steps for n in s.watch]
    if lesson.paper is not None:
        names.append(lesson.paper.metric)
    return list(dict.fromkeys(names or DEFAULT_WATCH))


def summary(lesson: Lesson, frame: Frame) -> tuple[tuple[str, str] | None, list[tuple[str, str, str]]]:
    """((variant a, variant b) or None, [(name, value in a, value in b)]) at the lesson's last frame.

    With two variants, only the figures that differ between them: a row with the same value
    twice says nothing about what the lesson changed.
    """
    names = end_pair(lesson)
    pair = names or (next(iter(lesson.variants)),) * 2
    rows = []
    for name in watched(lesson):
        a, b = (fmt(value(frame.sims[v], name)) for v in pair)
        if names is None or a != b:
            rows.append((name, a, b))
    return names, rows


class EndScreen(ModalScreen[None]):
    """What the lesson showed; Enter: the next lesson; Esc: back."""

    BINDINGS = [
        Binding("enter", "next_lesson", "next lesson", key_display="⏎", priority=True),
        Binding("escape,left,pageup", "back", "back to the last step", key_display="Esc"),
        Binding("down", "scroll(1)", "scroll", key_display="↑↓", priority=True),
        Binding("up", "scroll(-1)", "scroll up", show=False, priority=True),
        Binding("l", "lessons", "lessons"),
    ]
    DEFAULT_CSS = """
    EndScreen {
        align: center middle;
        & > VerticalScroll {
            width: 110;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            border: round $success;
            border-title-color: $text-success;
            background: $surface;
            padding: 0 1;
        }
        & .end-head { text-style: bold; color: $text-accent; margin-top: 1; }
        /* The screen scrolls: the paper-vs-model panel is as tall as its text (its 60% cap, for the
           player, cut it off here at 80x24 with no key to scroll it). */
        & #end-headline { max-height: initial; }
        & #end-next { margin-top: 1; text-style: bold; }
    }
    """

    def __init__(self, lesson: Lesson, frame: Frame, after: Lesson | None, present: bool,
                 want_headline: Callable[[HeadlinePanel], None]) -> None:
        """The end of `lesson` at its last `frame`; `after` the next lesson (None: the last);
        `want_headline` fills a headline panel (the player computes it once, in a worker)."""
        super().__init__()
        self.lesson = lesson
        self.frame = frame
        self.after = after
        self.present = present
        self.want_headline = want_headline

    def compose(self) -> ComposeResult:
        lesson = self.lesson
        with VerticalScroll() as box:
            box.border_title = join("end of the lesson · ", lesson.title)     # a title is plain text
            box.can_focus = True            # ↑ ↓ scroll it on a small screen
            if lesson.recap:                # what the lesson showed, in its own words, before the figures
                yield Static(Content("What you saw"), classes="end-head")
                yield Static(Content(" ".join(lesson.recap.split())), id="end-recap")
            names, rows = summary(lesson, self.frame)
            head = (f"What changed from {names[0]} to {names[1]} (what the steps watched, at the last step)"
                    if names else "What the steps watched, at the last step")
            yield Static(head, classes="end-head", markup=False)
            if rows:
                table = Table(box=None, pad_edge=False, padding=(0, 2))
                table.add_column("")
                for v in (names or (self.frame.shown,)):
                    table.add_column(v, justify="right")
                for name, a, b in rows:
                    table.add_row(Text(name, style="bold"), *((a, b) if names else (a,)))
                yield Static(table, id="end-table")
            else:
                yield Static("Nothing the steps watched differs between the two.", id="end-table", markup=False)
            if lesson.paper is not None:
                yield Static("The published figure and the model's", classes="end-head", markup=False)
                yield HeadlinePanel(lesson, id="end-headline")
            nxt = self.after
            yield Static(f"Next: {nxt.title} (Enter)" if nxt else
                         "This was the last lesson: Enter goes back to the lessons", id="end-next", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()
        for panel in self.query(HeadlinePanel):
            panel.set_class(self.present, "-present")
            self.want_headline(panel)

    def action_next_lesson(self) -> None:
        # Posted to the app itself: once dismissed, this screen is no longer in the DOM to bubble from.
        self.app.post_message(ShowLessons() if self.after is None else OpenLesson(self.after.id))
        self.dismiss()

    def action_scroll(self, lines: int) -> None:
        box = self.query_one(VerticalScroll)
        box.scroll_to(y=box.scroll_y + lines, animate=False)

    def action_back(self) -> None:
        self.dismiss()

    def action_lessons(self) -> None:
        self.app.post_message(ShowLessons())
        self.dismiss()
