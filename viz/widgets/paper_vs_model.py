"""The payoff: the published before/after figure beside the model's, each labelled for what it is.

The figures come from `models.runner.run_lesson` on the headline pair, the same
run `rxviz run` prints (full length: the lesson's `headline.frames`), so the
player and the CLI can never disagree; `viz.paper_vs_model_text` words it for both. The
run takes a second or three, so it runs in a worker thread the first time it
is asked for and is kept for the rest of the process (`HEADLINES`); while it
runs the panel shows how far it got.

    Paper vs model: cpu_percent (%)
             before   after   change
    paper     56.2     54.8     -1.4
    model    56.26    54.89    -1.37
    error    +0.1%            -2.1%
    kind    fitted  predicted
    after is predicted: only the before figure was used to fit
    fitted: path_rest_ns = 58330, to paper.before (...)

In presenter mode the paper's and the model's figures are drawn large
(Digits), one row each with the unit and what each figure is (published;
fitted, predicted or bounded) beside it, so the room reads the comparison
itself; the table gives them its rows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Digits, Static

from models.lesson.schema import Lesson
from viz import paper_vs_model_text as words

HEADLINES: dict[tuple[str, str | None], dict[str, Any]] = {}    # (lesson id, path) -> headline
_lock = threading.Lock()


def key(lesson: Lesson) -> tuple[str, str | None]:
    return (lesson.id, lesson.path)


def cached(lesson: Lesson) -> dict[str, Any] | None:
    with _lock:
        return HEADLINES.get(key(lesson))


def compute(lesson: Lesson, progress: Callable[[int, int], None] | None = None) -> dict[str, Any] | None:
    """The lesson's headline (None without `paper`), computed once per process. Any thread."""
    if lesson.paper is None:
        return None
    found = cached(lesson)
    if found is not None:
        return found
    from models.runner import run_lesson
    pair = [lesson.headline.before, lesson.headline.after]
    result: dict[str, Any] = run_lesson(lesson, variants=pair, progress=progress)["headline"]
    with _lock:
        HEADLINES[key(lesson)] = result
    return result


class HeadlinePanel(VerticalScroll, can_focus=False):
    """Paper vs model for `lesson`; `show(headline)` once it is computed, `progress(share)` meanwhile."""

    DEFAULT_CSS = """
    HeadlinePanel {
        height: auto;
        max-height: 60%;
        border-left: outer $success;
        background: $boost;
        padding: 0 1 0 0;
        scrollbar-size-vertical: 1;
        & > #hl-title { text-style: bold; color: $text-success; }
        & > .hl-big { height: auto; display: none; }
        & > .hl-big > Digits { width: auto; color: $text; margin-right: 2; }
        & > .hl-big > .hl-arrow { width: 7; padding-top: 1; margin-right: 1; text-style: bold; }
        & > .hl-big > .hl-kind { width: auto; text-style: bold italic; color: $text-success; }
        & > #hl-notes { color: $text-muted; }
    }
    HeadlinePanel.-present > .hl-big { display: block; }
    /* presenting: the large rows say what each figure is; the table would only peek out under them */
    HeadlinePanel.-present > #hl-table { display: none; }
    """

    def __init__(self, lesson: Lesson, **kw: Any) -> None:
        super().__init__(**kw)
        self.lesson = lesson
        self.headline: dict[str, Any] | None = None
        self._drawn: dict[str, Any] | None = None      # the headline its widgets show (None: none yet)

    def compose(self) -> ComposeResult:
        yield Static(id="hl-title", markup=False)
        for who in ("paper", "model"):         # presenter mode: both figures, large enough for a room
            with Horizontal(id=f"hl-big-{who}", classes="hl-big"):
                yield Static(who, classes="hl-arrow", markup=False)
                yield Digits("", id=f"hl-{who}-before")
                yield Static("→", classes="hl-arrow", markup=False)
                yield Digits("", id=f"hl-{who}-after")
                yield Static("", id=f"hl-{who}-kind", classes="hl-kind", markup=False)
        yield Static(id="hl-table")
        yield Static(id="hl-notes", markup=False)

    def progress(self, share: float | None) -> None:
        """The headline run is on its way: say so, with the share done."""
        pp = self.lesson.paper
        what = f"{pp.metric}" if pp else "the headline"
        done = "" if share is None else f" {share:.0%}"
        self._drawn = None
        self.query_one("#hl-title", Static).update(f"Paper vs model: running {self.lesson.headline.frames:,} "
                                                   f"frames of each headline variant for {what}…{done}")

    def show(self, h: dict[str, Any] | None) -> None:
        if h is not None and h is self._drawn:
            return              # the payoff step shown again (←, →): its widgets already say it all
        self.headline = self._drawn = h
        title = self.query_one("#hl-title", Static)
        if h is None:
            title.update("this lesson publishes no figure to compare with")
            return
        title.update(words.title(h) + " · model run of " + f"{self.lesson.headline.frames:,} frames")
        cols, rows = words.rows(h)
        table = Table(box=None, pad_edge=False, show_edge=False, padding=(0, 1))
        table.add_column("")
        for c in cols:
            table.add_column(c, justify="right")
        for row in rows:
            label, *texts = row
            cells: list[str | Text] = list(texts)
            if label == "kind":
                cells = [Text(c, style="bold italic") for c in texts]
            table.add_row(Text(label, style="bold"), *cells)
        self.query_one("#hl-table", Static).update(table)
        self.query_one("#hl-notes", Static).update("\n".join(words.notes(h, self.lesson)))
        for who in ("paper", "model"):
            figures = h.get(who) or {}
            for side in ("before", "after"):
                value = figures.get(side)
                self.query_one(f"#hl-{who}-{side}", Digits).update("" if value is None else f"{value:,.1f}")
        # What each large figure is, beside it: the room reads "fitted" or "predicted" with the number,
        # a line each beside the digits' three rows (on one line, 80 columns cut "after predicted").
        unit = h.get("unit", "")
        self.query_one("#hl-paper-kind", Static).update(f"{unit}\npublished")
        before, after = h.get("before_kind", ""), h.get("after_kind", "")
        kinds = f"before {before}\nafter {after}" if before and after else after or before or "model"
        self.query_one("#hl-model-kind", Static).update(f"{unit}\n{kinds}")
